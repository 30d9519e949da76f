#include "lib/runtime/trace_ops.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <string_view>

#include "lib/core/error.h"
#include "lib/core/types.h"
#include "lib/ir/constants.h"
#include "lib/ops/schema_registry.h"

namespace jitctl {
namespace {

using K = IValue::Kind;

std::string value_text(const IValue& v) {
  switch (v.kind()) {
    case K::Bool: return v.to_bool() ? "True" : "False";
    case K::Int: return std::to_string(v.to_int());
    case K::Double: return fmt::format("{}", v.to_double());
    default: return "";
  }
}

bool is_tensor_type(const TypePtr& t) {
  switch (t->kind()) {
    case TypeKind::Tensor: return true;
    case TypeKind::Optional:
    case TypeKind::List: return is_tensor_type(t->contained()[0]);
    case TypeKind::Tuple:
      for (const auto& e : t->contained())
        if (is_tensor_type(e)) return true;
      return false;
    default: return false;
  }
}

bool returns_tensors(const FunctionSchema& s) {
  if (s.name_space() != "aten") return false;
  for (const auto& r : s.returns)
    if (r.type->has_free_variables()) return false;
  for (const auto& a : s.arguments)
    if (a.type->has_free_variables()) return false;
  for (const auto& r : s.returns)
    if (is_tensor_type(r.type)) return true;
  return false;
}

const TypePtr& real(const Argument& a) { return a.real_type ? a.real_type : a.type; }

TypePtr unwrap_optional(const TypePtr& t) { return t->kind() == TypeKind::Optional ? t->contained()[0] : t; }

bool is_int_like(TypeKind k) {
  return k == TypeKind::Int || k == TypeKind::SymInt || k == TypeKind::ScalarType || k == TypeKind::Layout ||
         k == TypeKind::MemoryFormat;
}

// Python's binding of these operators has only the Tensor overload for `other`: a Python number
// arrives as a 0-dim tensor (a "wrapped number") and is recorded as a tensor constant.
bool wraps_other(std::string_view op) {
  static const std::set<std::string_view> ops = {"aten::add", "aten::add_", "aten::sub", "aten::sub_",
                                                 "aten::mul", "aten::mul_", "aten::div", "aten::div_"};
  return ops.count(op) > 0;
}

// Does the operator have an overload taking a tensor in argument position `i`? A 0-dim tensor in
// a Scalar position then binds to that overload in Python, and needs no conversion.
bool has_tensor_overload(const FunctionSchema& s, size_t i) {
  for (const auto& o : SchemaRegistry::builtin().overloads(s.name)) {
    if (i >= o.arguments.size()) continue;
    if (o.arguments[i].name == s.arguments[i].name && o.arguments[i].type->kind() == TypeKind::Tensor) return true;
  }
  return false;
}

// A Python number as the 0-dim tensor Python's binding wraps it into.
Tensor wrapped_number(const IValue& v) {
  Tensor t;
  switch (v.kind()) {
    case K::Int: {
      t = Tensor::empty(DType::Int64, {});
      *static_cast<int64_t*>(t.mutable_data()) = v.to_int();
      break;
    }
    case K::Double: {
      t = Tensor::empty(DType::Float64, {});
      *static_cast<double*>(t.mutable_data()) = v.to_double();
      break;
    }
    case K::Bool: {
      t = Tensor::empty(DType::Bool, {});
      *static_cast<bool*>(t.mutable_data()) = v.to_bool();
      break;
    }
    default: throw Unsupported(fmt::format("tracing a number of kind {}", kind_name(v.kind())));
  }
  return t;
}

IValue int_list(std::vector<IValue> items) {
  auto l = std::make_shared<ListData>();
  l->items = std::move(items);
  l->elem_type = "int";
  return IValue(std::move(l));
}

// Runs `kernel` on a copy of the inputs' values; returns its outputs.
Stack run_kernel(KernelFn kernel, const std::vector<Traced>& inputs) {
  Stack s;
  s.reserve(inputs.size());
  for (const auto& x : inputs) s.push_back(x.v);
  kernel(s);
  return s;
}

std::vector<Traced> plain(Stack s) {
  std::vector<Traced> out;
  out.reserve(s.size());
  for (auto& v : s) out.push_back({std::move(v), nullptr});
  return out;
}

class OpRecorder {
 public:
  OpRecorder(TraceContext& ctx, const Node& n, const FunctionSchema* s, KernelFn k, std::vector<Traced> in)
      : ctx_(ctx), b_(ctx.builder), n_(n), s_(s), k_(k), in_(std::move(in)),
        name_(s ? s->name : std::string(n.kind().qual_string())),
        full_(s ? s->full_name() : std::string(n.kind().qual_string())) {}

  std::vector<Traced> run() {
    if (name_ == "aten::is_grad_enabled") return {{IValue(ctx_.grad_enabled)}};
    if (name_ == "prim::requires_grad") return {{IValue(in_[0].v.to_tensor().requires_grad())}};
    if (full_ == "aten::size.int") return size_of_dim();
    if (full_ == "aten::size") return sizes();
    if (name_ == "aten::numel") return numel();
    if (name_ == "prim::NumToTensor") return num_to_tensor();
    if (converts_tensor()) return tensor_to_number();
    if (name_ == "aten::tensor") return tensor_from_data();
    if (name_ == "prim::data") return plain(run_kernel(k_, in_));  // x.data: an untraced alias
    if (s_ && returns_tensors(*s_)) return record_tensor_op();
    return scalar_op();
  }

 private:
  // ---- sizes ----

  Value* record_size(const Tensor& t, int64_t dim) {
    Value* self = b_.value_of(t);
    Value* d = b_.constant(IValue(dim));
    Node* size = b_.insert(b_.graph()->create(aten::size, {self, d}));
    size->output()->set_type(IntType::get());
    Node* num = b_.insert(b_.graph()->create(prim::NumToTensor, {size->output()}), false);
    return num->output();
  }

  std::vector<Traced> size_of_dim() {
    Stack out = run_kernel(k_, in_);
    if (in_[1].number) bake(ctx_, in_[1], "a Python index");
    return {{out[0], record_size(in_[0].v.to_tensor(), in_[1].v.to_int())}};
  }

  // x.size() / x.shape: PyTorch returns a torch.Size of one traced size per dimension.
  std::vector<Traced> sizes() {
    const Tensor& t = in_[0].v.to_tensor();
    std::vector<IValue> items;
    std::vector<Value*> numbers;
    for (int64_t d = 0; d < t.dim(); ++d) {
      items.emplace_back(t.sizes()[static_cast<size_t>(d)]);
      numbers.push_back(record_size(t, d));
    }
    IValue list = int_list(std::move(items));
    b_.set_item_numbers(list, numbers);
    return {{list}};
  }

  std::vector<Traced> numel() {
    Stack out = run_kernel(k_, in_);
    Node* n = b_.insert(b_.graph()->create(Symbol::aten("numel"), {b_.value_of(in_[0].v.to_tensor())}));
    n->output()->set_type(IntType::get());
    Node* num = b_.insert(b_.graph()->create(prim::NumToTensor, {n->output()}), false);
    return {{out[0], num->output()}};
  }

  std::vector<Traced> num_to_tensor() {
    Stack out = run_kernel(k_, in_);
    if (in_[0].number) b_.set_value(out[0].to_tensor(), in_[0].number);  // the number's own tensor
    return plain(std::move(out));
  }

  // ---- tensors turned into numbers ----

  bool implicit_conversion() const {
    return name_ == "aten::IntImplicit" || name_ == "aten::FloatImplicit" || name_ == "aten::ScalarImplicit";
  }

  bool converts_tensor() const {
    if (in_.size() != 1 || !in_[0].v.is_tensor()) return false;
    return name_ == "aten::Int" || name_ == "aten::Float" || name_ == "aten::Bool" || name_ == "aten::item" ||
           name_ == "aten::is_nonzero" || implicit_conversion();
  }

  std::vector<Traced> tensor_to_number() {
    Stack out = run_kernel(k_, in_);
    const Tensor& t = in_[0].v.to_tensor();
    Value* traced = b_.find(t);
    const bool stays_recorded = traced && name_ != "aten::Bool" && name_ != "aten::is_nonzero" &&
                                (implicit_conversion() || ctx_.traced_code);
    if (stays_recorded) return {{out[0], traced}};
    const char* what = name_ == "aten::Int"     ? "a Python integer"
                       : name_ == "aten::Float" ? "a Python float"
                       : name_ == "aten::item"  ? "a Python number"
                                                : "a Python boolean";
    ctx_.warn_baked(fmt::format("converting a tensor to {}", what), out[0]);
    return plain(std::move(out));
  }

  // torch.tensor(data): PyTorch makes the tensor outside the trace, then records moving it to its
  // device and dtype and detaching it: a constant, whatever the data was computed from.
  std::vector<Traced> tensor_from_data() {
    for (const auto& x : in_)
      if (x.number) bake(ctx_, x, "a Python number");
    Stack out = run_kernel(k_, in_);
    const Tensor& t = out[0].to_tensor();
    // The compiler's own torch.tensor (no source location): the number a subscript assignment
    // `y[mask] = 0.0` writes, which Python's __setitem__ wraps into a tensor constant itself.
    if (!n_.source_location() || n_.source_location()->file.empty()) {
      b_.set_value(t, b_.constant(IValue(t)));
      return plain(std::move(out));
    }
    ctx_.warn_baked("torch.tensor() results are registered as constants in the trace", IValue());
    Value* c = b_.constant(IValue(t));
    Node* to = b_.graph()->create(aten::to, {c, b_.constant(IValue(t.device())),
                                             b_.constant(IValue(static_cast<int64_t>(t.dtype()))),
                                             b_.constant(IValue(false)), b_.constant(IValue(false)), b_.none()});
    b_.insert(to);
    Node* detach = b_.insert(b_.graph()->create(aten::detach, {to->output()}));
    b_.set_value(t, detach->output());
    return plain(std::move(out));
  }

  // ---- tensor operators ----

  // The argument values Python's argument parser passes for what the scripted call leaves None.
  void fill_python_defaults() {
    const auto& args = s_->arguments;
    auto find = [&](std::string_view name) -> int {
      for (size_t i = 0; i < args.size(); ++i)
        if (args[i].name == name) return static_cast<int>(i);
      return -1;
    };
    const int dtype = find("dtype"), layout = find("layout"), device = find("device"), pin = find("pin_memory");
    if (layout >= 0 && pin >= 0 && device >= 0) {
      const std::string_view op = std::string_view(name_).substr(6);  // after "aten::"
      const bool like = op.ends_with("_like") || op.starts_with("new_");
      const int self = find("self");
      if (like && self >= 0 && in_[static_cast<size_t>(self)].v.is_tensor()) {
        const Tensor& t = in_[static_cast<size_t>(self)].v.to_tensor();
        if (dtype >= 0 && in_[static_cast<size_t>(dtype)].v.is_none())
          in_[static_cast<size_t>(dtype)].v = IValue(static_cast<int64_t>(t.dtype()));
        if (in_[static_cast<size_t>(layout)].v.is_none()) in_[static_cast<size_t>(layout)].v = IValue(int64_t{0});
        if (in_[static_cast<size_t>(device)].v.is_none()) in_[static_cast<size_t>(device)].v = IValue(t.device());
      } else if (in_[static_cast<size_t>(device)].v.is_none()) {
        in_[static_cast<size_t>(device)].v = IValue(Device{});
      }
      if (in_[static_cast<size_t>(pin)].v.is_none()) in_[static_cast<size_t>(pin)].v = IValue(false);
    }
    // Python indexing (x[a:b]) passes a slice's missing bounds as 0 and INT64_MAX.
    if (full_ == "aten::slice.Tensor") {
      if (in_[2].v.is_none()) in_[2].v = IValue(int64_t{0});
      if (in_[3].v.is_none()) in_[3].v = IValue(std::numeric_limits<int64_t>::max());
    }
  }

  Value* int_value(const Traced& x) {
    if (x.number) return b_.convert_number(x.number, aten::Int);
    return b_.constant(x.v);
  }

  Value* record_argument(size_t i) {
    const Argument& a = s_->arguments[i];
    const Traced& x = in_[i];
    const TypePtr& t = real(a);
    if (x.v.is_none() && t->kind() != TypeKind::None) return b_.none();
    const TypePtr u = unwrap_optional(t);
    switch (u->kind()) {
      case TypeKind::Tensor: return b_.value_of(x.v.to_tensor());
      case TypeKind::List: {
        const TypePtr& elem = u->contained()[0];
        const TypePtr e = unwrap_optional(elem);
        std::vector<Value*> items;
        if (e->kind() == TypeKind::Tensor) {
          for (const auto& item : x.v.to_list()->items) items.push_back(b_.value_of(item.is_none() ? Tensor() : item.to_tensor()));
          Node* l = b_.graph()->create_list(elem->kind() == TypeKind::Optional ? OptionalType::create(TensorType::get())
                                                                               : TensorType::get(), items);
          return b_.insert(l, false)->output();
        }
        if (is_int_like(e->kind())) {
          const auto& list = x.v.to_list()->items;
          std::vector<Value*> numbers = b_.item_numbers(x.v);
          for (size_t k = 0; k < list.size(); ++k)
            items.push_back(int_value({list[k], k < numbers.size() ? numbers[k] : nullptr}));
          return b_.insert(b_.graph()->create_list(IntType::get(), items), false)->output();
        }
        return b_.constant(x.v);
      }
      case TypeKind::Int:
      case TypeKind::SymInt:
      case TypeKind::ScalarType:
      case TypeKind::Layout:
      case TypeKind::MemoryFormat: return int_value(x);
      case TypeKind::Float:
        if (x.number) return b_.convert_number(x.number, aten::Float);
        return b_.constant(x.v);
      case TypeKind::Number:
        if (wraps_other(name_) && a.name == "other") {
          if (x.number) return x.number;
          return b_.value_of(wrapped_number(x.v));
        }
        if (x.number) return has_tensor_overload(*s_, i) ? x.number : b_.convert_number(x.number, aten::ScalarImplicit);
        return b_.constant(x.v);
      case TypeKind::Generator: return b_.none();
      default:
        if (x.number) bake(ctx_, x, "a Python number");
        if (!insertable_ivalue(x.v))
          throw Unsupported(fmt::format("tracing {}: argument '{}' of type {}", full_, a.name, t->str()));
        return b_.constant(x.v);
    }
  }

  // PyTorch's tracer records the convolutions F.conv1d/conv2d/conv_transpose1d/2d call as
  // aten::_convolution, with the backend flags of the run (no cudnn benchmark, not deterministic,
  // cudnn enabled, tf32 allowed): the recorded arguments rearranged.
  std::optional<std::vector<Value*>> as_convolution(const std::vector<Value*>& a) {
    const bool conv = full_ == "aten::conv1d" || full_ == "aten::conv2d";
    const bool transposed = full_ == "aten::conv_transpose1d" || full_ == "aten::conv_transpose2d.input";
    if ((!conv && !transposed) || a.size() != (conv ? 7u : 8u)) return std::nullopt;
    auto flag = [&](bool v) { return b_.constant(IValue(v)); };
    if (conv) {
      // (input, weight, bias, stride, padding, dilation, groups)
      const size_t n = full_ == "aten::conv1d" ? 1 : 2;
      std::vector<Value*> zeros;
      for (size_t i = 0; i < n; ++i) zeros.push_back(b_.constant(IValue(int64_t{0})));
      Value* output_padding = b_.insert(b_.graph()->create_list(IntType::get(), zeros), false)->output();
      return std::vector<Value*>{a[0], a[1], a[2], a[3], a[4], a[5], flag(false), output_padding, a[6],
                                 flag(false), flag(false), flag(true), flag(true)};
    }
    // (input, weight, bias, stride, padding, output_padding, groups, dilation)
    return std::vector<Value*>{a[0], a[1], a[2], a[3], a[4], a[7], flag(true), a[5], a[6],
                               flag(false), flag(false), flag(true), flag(true)};
  }

  std::vector<Traced> record_tensor_op() {
    fill_python_defaults();
    std::vector<Value*> args;
    for (size_t i = 0; i < s_->arguments.size() && i < in_.size(); ++i) args.push_back(record_argument(i));
    Stack out = run_kernel(k_, in_);
    Symbol kind = n_.kind();
    if (auto conv = as_convolution(args)) {
      kind = Symbol::aten("_convolution");
      args = std::move(*conv);
    }
    Node* node = b_.graph()->create(kind, args, 0);
    std::vector<std::pair<size_t, Value*>> tensor_lists;
    for (size_t r = 0; r < s_->returns.size(); ++r) {
      Value* o = node->add_output();
      const TypePtr& rt = s_->returns[r].type;
      o->set_type(is_tensor_type(rt) ? rt : rt);
      if (rt->kind() == TypeKind::List && is_tensor_type(rt)) tensor_lists.emplace_back(r, o);
    }
    b_.insert(node);
    for (size_t r = 0; r < s_->returns.size() && r < out.size(); ++r) {
      const TypePtr& rt = s_->returns[r].type;
      if (out[r].is_tensor()) {
        b_.set_value(out[r].to_tensor(), node->output(r));
      } else if (rt->kind() == TypeKind::List && is_tensor_type(rt) && out[r].is(K::List)) {
        const auto& items = out[r].to_list()->items;
        Node* unpack = b_.insert(b_.graph()->create_list_unpack(node->output(r), items.size()), false);
        for (size_t k = 0; k < items.size(); ++k)
          if (items[k].is_tensor()) b_.set_value(items[k].to_tensor(), unpack->output(k));
      }
    }
    return plain(std::move(out));
  }

  // ---- everything else: numbers through arithmetic, lists and tuples ----

  bool any_number() const {
    for (const auto& x : in_)
      if (x.number) return true;
    return false;
  }

  std::vector<Traced> scalar_op() {
    if (name_ == "prim::ListConstruct" || name_ == "prim::TupleConstruct") return construct();
    if (name_ == "prim::ListUnpack" || name_ == "prim::TupleUnpack") return unpack();
    if (name_ == "prim::TupleIndex" || full_ == "aten::__getitem__.t") return get_item();
    if (full_ == "aten::append.t") return append();
    if (full_ == "aten::slice.t") return slice_list();
    if (full_ == "aten::add.t") return concat();
    if (full_ == "aten::list.t" || full_ == "aten::copy.t") return copy_list();
    if (full_ == "aten::_set_item.t") return set_item();
    if (ctx_.keep_numbers && any_number())
      if (auto r = kept_number()) return *r;
    if ((name_ == "prim::min" || name_ == "prim::max") && in_.size() == 2 && any_number()) {
      if (auto r = python_min_max()) return *r;
    }
    if (any_number()) {
      if (auto r = arithmetic()) return *r;
      for (const auto& x : in_)
        if (x.number) bake(ctx_, x, bake_kind());
    }
    forget_mutated_lists();
    return plain(run_kernel(k_, in_));
  }

  const char* bake_kind() const {
    if (name_ == "aten::Float") return "a Python float";
    if (name_ == "aten::Int") return "a Python integer";
    if (name_ == "aten::Bool" || name_ == "aten::__not__" || name_.starts_with("prim::min") ||
        name_.starts_with("prim::max"))
      return "a Python boolean";
    if (name_ == "aten::__range_length" || name_ == "aten::__derive_index") return "a Python index";
    return "a Python number";
  }

  void forget_mutated_lists() {
    if (!s_) return;
    for (size_t i = 0; i < s_->arguments.size() && i < in_.size(); ++i)
      if (s_->arguments[i].is_write()) b_.set_item_numbers(in_[i].v, {});
  }

  std::vector<Traced> construct() {
    Stack out = run_kernel(k_, in_);
    std::vector<Value*> numbers;
    for (const auto& x : in_) numbers.push_back(x.number);
    b_.set_item_numbers(out[0], numbers);
    return plain(std::move(out));
  }

  std::vector<Traced> unpack() {
    std::vector<Value*> numbers = b_.item_numbers(in_[0].v);
    std::vector<Traced> out = plain(run_kernel(k_, in_));
    for (size_t i = 0; i < out.size() && i < numbers.size(); ++i) out[i].number = numbers[i];
    return out;
  }

  static int64_t normalize(int64_t i, size_t n) { return i < 0 ? i + static_cast<int64_t>(n) : i; }

  std::vector<Traced> get_item() {
    if (in_[1].number) bake(ctx_, in_[1], "a Python index");
    std::vector<Value*> numbers = b_.item_numbers(in_[0].v);
    std::vector<Traced> out = plain(run_kernel(k_, in_));
    const int64_t i = normalize(in_[1].v.to_int(), numbers.size());
    if (i >= 0 && static_cast<size_t>(i) < numbers.size()) out[0].number = numbers[static_cast<size_t>(i)];
    return out;
  }

  std::vector<Traced> append() {
    std::vector<Value*> numbers = b_.item_numbers(in_[0].v);
    const size_t before = in_[0].v.to_list()->items.size();
    numbers.resize(before, nullptr);
    numbers.push_back(in_[1].number);
    std::vector<Traced> out = plain(run_kernel(k_, in_));
    b_.set_item_numbers(in_[0].v, numbers);
    return out;
  }

  std::vector<Traced> slice_list() {
    for (size_t i = 1; i < in_.size(); ++i)
      if (in_[i].number) bake(ctx_, in_[i], "a Python index");
    std::vector<Value*> numbers = b_.item_numbers(in_[0].v);
    const size_t n = in_[0].v.to_list()->items.size();
    std::vector<Traced> out = plain(run_kernel(k_, in_));
    if (numbers.empty()) return out;
    numbers.resize(n, nullptr);
    // Python's slice indices, as the list kernel computes them.
    const int64_t step = in_[3].v.to_int();
    if (step == 0) return out;
    auto clamp_index = [&](const IValue& v, int64_t dflt) {
      if (v.is_none()) return dflt;
      int64_t i = v.to_int();
      if (i < 0) i += static_cast<int64_t>(n);
      const int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? static_cast<int64_t>(n) : static_cast<int64_t>(n) - 1;
      return std::clamp(i, lo, hi);
    };
    const int64_t start = clamp_index(in_[1].v, step > 0 ? 0 : static_cast<int64_t>(n) - 1);
    const int64_t end = clamp_index(in_[2].v, step > 0 ? static_cast<int64_t>(n) : -1);
    std::vector<Value*> picked;
    for (int64_t i = start; step > 0 ? i < end : i > end; i += step) picked.push_back(numbers[static_cast<size_t>(i)]);
    b_.set_item_numbers(out[0].v, picked);
    return out;
  }

  std::vector<Traced> concat() {
    std::vector<Value*> a = b_.item_numbers(in_[0].v), c = b_.item_numbers(in_[1].v);
    a.resize(in_[0].v.to_list()->items.size(), nullptr);
    c.resize(in_[1].v.to_list()->items.size(), nullptr);
    a.insert(a.end(), c.begin(), c.end());
    std::vector<Traced> out = plain(run_kernel(k_, in_));
    b_.set_item_numbers(out[0].v, a);
    return out;
  }

  std::vector<Traced> copy_list() {
    std::vector<Value*> numbers = b_.item_numbers(in_[0].v);
    std::vector<Traced> out = plain(run_kernel(k_, in_));
    b_.set_item_numbers(out[0].v, numbers);
    return out;
  }

  std::vector<Traced> set_item() {
    if (in_[1].number) bake(ctx_, in_[1], "a Python index");
    std::vector<Value*> numbers = b_.item_numbers(in_[0].v);
    const size_t n = in_[0].v.to_list()->items.size();
    std::vector<Traced> out = plain(run_kernel(k_, in_));
    const int64_t i = normalize(in_[1].v.to_int(), n);
    if (i >= 0 && static_cast<size_t>(i) < n && (in_[2].number || !numbers.empty())) {
      numbers.resize(n, nullptr);
      numbers[static_cast<size_t>(i)] = in_[2].number;
      b_.set_item_numbers(in_[0].v, numbers);
    }
    return out;
  }

  // The tracing branch of library code, F.interpolate's output size
  // `torch.floor((size.float() * torch.tensor(scale, dtype=torch.float32)).float())`: float() of a
  // size is recorded as aten::to float32, its product with a Python float as that expression,
  // math.floor as aten::floor; int() keeps the tensor (the operator taking it converts it);
  // nullopt for anything else.
  Value* to_float32(Value* v) {
    return b_.insert(b_.graph()->create(aten::to, {v, b_.constant(IValue(static_cast<int64_t>(DType::Float32))),
                                                  b_.constant(IValue(false)), b_.constant(IValue(false)), b_.none()}))
        ->output();
  }

  std::optional<std::vector<Traced>> kept_number() {
    Graph& g = *b_.graph();
    Value* result = nullptr;
    // size.float() * torch.tensor(scale, dtype=torch.float32), then .float() again.
    if (name_ == "aten::mul" && in_.size() == 2 && in_[0].number && in_[1].v.is(K::Double)) {
      Tensor scale = Tensor::empty(DType::Float32, {});
      *static_cast<float*>(scale.mutable_data()) = static_cast<float>(in_[1].v.to_double());
      Node* to = b_.insert(g.create(aten::to, {b_.constant(IValue(scale)), b_.constant(IValue(Device{})),
                                               b_.constant(IValue(static_cast<int64_t>(DType::Float32))),
                                               b_.constant(IValue(false)), b_.constant(IValue(false)), b_.none()}));
      Node* detach = b_.insert(g.create(aten::detach, {to->output()}));
      Node* mul = b_.insert(g.create(aten::mul, {in_[0].number, detach->output()}));
      result = to_float32(mul->output());
    } else if (in_.size() != 1 || !in_[0].number) {
      return std::nullopt;
    } else if (name_ == "aten::Float") {
      result = to_float32(in_[0].number);
    } else if (name_ == "aten::floor" || name_ == "aten::ceil") {
      result = b_.insert(g.create(Symbol::from_qual_string(name_), {in_[0].number}))->output();
    } else if (name_ == "aten::Int") {
      result = in_[0].number;
    } else {
      return std::nullopt;
    }
    std::vector<Traced> out = plain(run_kernel(k_, in_));
    out[0].number = result;
    return out;
  }

  // Python's min(a, b) is a unless b < a, max(a, b) a unless b > a: the comparison of a followed
  // number is a Python bool (baked), and the result is one of the arguments -- still followed when
  // it is the traced size. nullopt when an argument is not a plain number.
  std::optional<std::vector<Traced>> python_min_max() {
    auto number = [](const IValue& v) -> std::optional<double> {
      if (v.is(K::Int)) return static_cast<double>(v.to_int());
      if (v.is(K::Double)) return v.to_double();
      return std::nullopt;
    };
    const auto a = number(in_[0].v), b = number(in_[1].v);
    if (!a || !b) return std::nullopt;
    const bool second = name_ == "prim::min" ? *b < *a : *b > *a;
    ctx_.warn_baked("converting a tensor to a Python boolean", IValue(second));
    std::vector<Traced> out = plain(run_kernel(k_, in_));
    out[0].number = in_[second ? 1 : 0].number;
    return out;
  }

  // int/float arithmetic and comparisons on a followed number: the tensor op Python runs on the
  // 0-dim tensor PyTorch handed out for the size (its reflected form when the number is on the
  // right); nullopt for other operators.
  std::optional<std::vector<Traced>> arithmetic() {
    const std::string_view op = std::string_view(name_);
    static const std::set<std::string_view> binary = {
        "aten::add", "aten::sub", "aten::mul", "aten::div", "aten::floordiv", "aten::remainder", "aten::pow",
        "aten::eq",  "aten::ne",  "aten::lt",  "aten::le",  "aten::gt",       "aten::ge"};
    const bool unary = (op == "aten::neg" || op == "aten::abs") && in_.size() == 1;
    if (!unary && !(binary.count(op) && in_.size() == 2)) return std::nullopt;
    for (const auto& x : in_)
      if (!x.v.is(K::Int) && !x.v.is(K::Double) && !x.v.is(K::Bool)) return std::nullopt;
    Stack out = run_kernel(k_, in_);
    Graph& g = *b_.graph();
    auto wrapped = [&](const Traced& x) { return x.number ? x.number : b_.value_of(wrapped_number(x.v)); };
    auto scalar = [&](const Traced& x) { return x.number ? x.number : b_.constant(x.v); };
    auto record = [&](std::string_view kind, std::vector<Value*> args) {
      Node* n = b_.insert(g.create(Symbol::from_qual_string(kind), args));
      return n->output();
    };
    Value* result = nullptr;
    if (unary) {
      result = record(op, {in_[0].number});
    } else {
      const Traced &a = in_[0], &c = in_[1];
      const bool left = a.number != nullptr;
      const Traced& self = left ? a : c;
      const Traced& other = left ? c : a;
      auto one = [&] { return b_.constant(IValue(int64_t{1})); };
      if (op == "aten::add") {
        Value* o = wrapped(other);
        result = record("aten::add", {self.number, o, one()});
      } else if (op == "aten::mul") {
        result = record("aten::mul", {self.number, wrapped(other)});
      } else if (op == "aten::sub") {
        if (left) {
          Value* o = wrapped(other);
          result = record("aten::sub", {self.number, o, one()});
        } else {
          Value* o = scalar(other);
          result = record("aten::rsub", {self.number, o, one()});
        }
      } else if (op == "aten::div") {
        if (left)
          result = record("aten::div", {self.number, wrapped(other)});
        else
          result = record("aten::mul", {record("aten::reciprocal", {self.number}), wrapped(other)});
      } else if (op == "aten::floordiv") {
        result = left ? record("aten::floor_divide", {self.number, wrapped(other)})
                      : record("aten::floor_divide", {wrapped(other), self.number});
      } else if (op == "aten::remainder" || op == "aten::pow") {
        result = left ? record(op, {self.number, scalar(other)}) : record(op, {scalar(other), self.number});
      } else {
        // Comparisons: a reflected comparison swaps its direction.
        std::string_view k = op;
        if (!left) {
          if (op == "aten::lt") k = "aten::gt";
          else if (op == "aten::gt") k = "aten::lt";
          else if (op == "aten::le") k = "aten::ge";
          else if (op == "aten::ge") k = "aten::le";
        }
        result = record(k, {self.number, scalar(other)});
      }
    }
    std::vector<Traced> r = plain(std::move(out));
    r[0].number = result;
    return r;
  }

  TraceContext& ctx_;
  TraceBuilder& b_;
  const Node& n_;
  const FunctionSchema* s_;
  KernelFn k_;
  std::vector<Traced> in_;
  std::string name_, full_;
};

}  // namespace

void TraceContext::warn_baked(const std::string& what, const IValue& value) {
  std::string text = value_text(value);
  std::string message = text.empty() ? fmt::format("{}: the trace will treat it as a constant", what)
                                     : fmt::format("{} ({}): the trace will treat it as a constant", what, text);
  const auto& where = builder.location();
  for (const auto& w : warnings)
    if (w.message == message && w.where == where) return;
  warnings.push_back({std::move(message), where});
}

const IValue& bake(TraceContext& ctx, const Traced& x, const char* what) {
  if (x.number) ctx.warn_baked(fmt::format("converting a tensor to {}", what), x.v);
  return x.v;
}

std::vector<Traced> run_traced_op(TraceContext& ctx, const Node& n, const FunctionSchema* s, KernelFn kernel,
                                  std::vector<Traced> inputs) {
  return OpRecorder(ctx, n, s, kernel, std::move(inputs)).run();
}

}  // namespace jitctl
