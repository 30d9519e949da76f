#include "lib/archive/unpickler.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "lib/archive/pickle_opcodes.h"
#include "lib/core/error.h"
#include "lib/core/enum_value.h"

namespace jitctl {
namespace {

using namespace pickle_op;
using K = IValue::Kind;

// The callables of the allow-list. Everything a GLOBAL may name maps to one of these.
enum class Callable {
  RebuildTensorV2, RebuildTensor, RebuildParameter, RebuildParameterWithState, RebuildQTensor,
  RebuildSparse, StorageClass, OrderedDict, BuildIntList, BuildDoubleList, BuildBoolList,
  BuildTensorList, BuildComplexList, RestoreTypeTag, TorchDevice, Complex, TorchSize, ScriptClass,
};

struct Allowed {
  std::string_view name;
  Callable what;
};

constexpr Allowed kAllowList[] = {
    {"torch._utils._rebuild_tensor_v2", Callable::RebuildTensorV2},
    {"torch._utils._rebuild_tensor", Callable::RebuildTensor},
    {"torch._utils._rebuild_parameter", Callable::RebuildParameter},
    {"torch._utils._rebuild_parameter_with_state", Callable::RebuildParameterWithState},
    {"torch._utils._rebuild_qtensor", Callable::RebuildQTensor},
    {"torch._utils._rebuild_sparse_tensor", Callable::RebuildSparse},
    {"torch._utils._rebuild_sparse_csr_tensor", Callable::RebuildSparse},
    {"collections.OrderedDict", Callable::OrderedDict},
    {"torch.jit._pickle.build_intlist", Callable::BuildIntList},
    {"torch.jit._pickle.build_doublelist", Callable::BuildDoubleList},
    {"torch.jit._pickle.build_boollist", Callable::BuildBoolList},
    {"torch.jit._pickle.build_tensorlist", Callable::BuildTensorList},
    {"torch.jit._pickle.build_complexlist", Callable::BuildComplexList},
    {"torch.jit._pickle.restore_type_tag", Callable::RestoreTypeTag},
    {"torch.device", Callable::TorchDevice},
    {"builtins.complex", Callable::Complex},
    {"__builtin__.complex", Callable::Complex},
    {"torch.Size", Callable::TorchSize},
};

bool is_identifier_path(std::string_view s) {
  if (s.empty() || s.front() == '.' || s.back() == '.') return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) return false;
  return s.find("..") == std::string_view::npos;
}

class Unpickler {
 public:
  Unpickler(std::string_view bytes, const UnpickleOptions& o) : b_(bytes), o_(o) {}

  IValue run() {
    while (true) {
      if (pos_ >= b_.size()) fail("pickle ends without STOP");
      op_at_ = pos_;
      const uint8_t op = static_cast<uint8_t>(b_[pos_++]);
      if (op == STOP) break;
      step(op);
    }
    if (stack_.size() != 1 || !marks_.empty())
      fail(fmt::format("STOP with {} values on the stack (expected one)", stack_.size()));
    return std::move(stack_.back());
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InvalidInput(fmt::format("{}: byte {}: {}", o_.record, op_at_, what));
  }
  [[noreturn]] void unsupported(const std::string& what) const {
    throw Unsupported(fmt::format("{}: byte {}: {}", o_.record, op_at_, what));
  }

  // ---- reading the byte stream, always checked against what remains ----
  std::string_view take(uint64_t n) {
    if (n > b_.size() - pos_) fail(fmt::format("length {} runs past the end of the record ({} bytes left)", n, b_.size() - pos_));
    auto s = b_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  uint64_t read_le(int n) {
    auto s = take(n);
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(s[i]);
    return v;
  }
  std::string_view read_line() {
    auto nl = b_.find('\n', pos_);
    if (nl == std::string_view::npos) fail("text argument runs past the end of the record");
    auto s = b_.substr(pos_, nl - pos_);
    pos_ = nl + 1;
    return s;
  }

  // ---- the stack ----
  void push(IValue v) {
    if (stack_.size() > b_.size()) fail("stack grows beyond the record's size");
    stack_.push_back(std::move(v));
  }
  IValue pop() {
    if (stack_.empty() || (!marks_.empty() && stack_.size() <= marks_.back())) fail("stack underflow");
    IValue v = std::move(stack_.back());
    stack_.pop_back();
    return v;
  }
  IValue& top() {
    if (stack_.empty() || (!marks_.empty() && stack_.size() <= marks_.back())) fail("stack underflow");
    return stack_.back();
  }
  std::vector<IValue> pop_mark() {
    if (marks_.empty()) fail("no MARK to pop to");
    const size_t m = marks_.back();
    marks_.pop_back();
    std::vector<IValue> items(std::make_move_iterator(stack_.begin() + m), std::make_move_iterator(stack_.end()));
    stack_.resize(m);
    return items;
  }

  // ---- depth and freezing (see unpickler.h) ----
  static const void* heap_ptr(const IValue& v) {
    switch (v.kind()) {
      case K::Tuple: return v.to_tuple().get();
      case K::List: return v.to_list().get();
      case K::Dict: return v.to_dict().get();
      case K::Object: return v.to_object().get();
      default: return nullptr;
    }
  }
  // Keyed by address; `pin` keeps the container alive so that no later allocation reuses the
  // address and inherits its state.
  struct Node {
    size_t depth = 1;
    bool frozen = false;
    IValue pin;
  };
  Node& node(const IValue& v) {
    Node& n = nodes_[heap_ptr(v)];
    if (n.pin.is_none()) n.pin = v;
    return n;
  }
  size_t adopt(const IValue& child) {
    if (!heap_ptr(child)) return 0;
    Node& n = node(child);
    n.frozen = true;
    return n.depth;
  }
  // Records that `parent` now holds `children`; fails on too deep a nesting.
  void hold(const IValue& parent, const std::vector<IValue>& children) {
    size_t d = 0;
    for (const auto& c : children) d = std::max(d, adopt(c));
    hold_depth(parent, d);
  }
  void hold(const IValue& parent, const IValue& child) { hold_depth(parent, adopt(child)); }
  void hold_depth(const IValue& parent, size_t child_depth) {
    Node& n = node(parent);
    if (n.frozen) fail("a container is changed after it was placed inside another");
    if (child_depth + 1 > o_.max_depth) fail(fmt::format("values nest deeper than {}", o_.max_depth));
    n.depth = std::max(n.depth, child_depth + 1);
  }

  IValue make_tuple(std::vector<IValue> items) {
    auto t = std::make_shared<TupleData>();
    IValue v(t);
    hold(v, items);
    t->items = std::move(items);
    return v;
  }

  // ---- memo ----
  void memo_put(uint64_t key) {
    if (stack_.empty()) fail("memo store from an empty stack");
    memo_[key] = stack_.back();
  }
  void memo_get(uint64_t key) {
    auto it = memo_.find(key);
    if (it == memo_.end()) fail(fmt::format("memo key {} was never stored", key));
    push(it->second);
  }

  // ---- values ----
  int64_t decode_long(std::string_view s) {
    if (s.empty()) return 0;
    if (s.size() > 8) {
      // Sign extension bytes beyond 8 are allowed only when redundant.
      const char fill = (static_cast<uint8_t>(s[7]) & 0x80) ? '\xff' : '\0';
      for (size_t i = 8; i < s.size(); ++i)
        if (s[i] != fill) fail("integer does not fit in 64 bits");
      s = s.substr(0, 8);
    }
    uint64_t v = 0;
    for (size_t i = s.size(); i-- > 0;) v = (v << 8) | static_cast<uint8_t>(s[i]);
    if (s.size() < 8 && (static_cast<uint8_t>(s.back()) & 0x80)) v |= ~uint64_t(0) << (8 * s.size());
    return static_cast<int64_t>(v);
  }
  std::string text_string(std::string_view s) {
    // Protocol-0 STRING: a quoted Python repr; only plain escapes are accepted.
    if (s.size() < 2 || (s.front() != '\'' && s.front() != '"') || s.back() != s.front())
      fail("malformed STRING argument");
    return std::string(s.substr(1, s.size() - 2));
  }
  void push_string(std::string_view s) {
    push(IValue(std::string(s)));
  }

  IValue find_global(std::string_view module, std::string_view name) {
    const std::string full = fmt::format("{}.{}", module, name);
    for (const auto& a : kAllowList)
      if (a.name == full) return global(full, a.what);
    if (module == "torch" && dtype_from_storage_class(name)) return global(full, Callable::StorageClass);
    if (o_.allow_torchscript_classes && (module == "__torch__" || module.substr(0, 10) == "__torch__.") &&
        is_identifier_path(full))
      return global(full, Callable::ScriptClass);
    fail(fmt::format("global '{}' is not allowed (jitctl loads only what PyTorch itself writes)", full));
  }
  IValue global(const std::string& full, Callable what) {
    auto g = std::make_shared<GlobalRef>();
    g->qualified_name = full;
    callables_[g.get()] = what;
    return IValue(std::shared_ptr<const GlobalRef>(std::move(g)));
  }
  Callable callable_of(const IValue& v) {
    if (!v.is(K::Global)) fail(fmt::format("cannot call a {}", kind_name(v.kind())));
    return callables_.at(&v.to_global());
  }

  const std::vector<IValue>& tuple_items(const IValue& v, const char* what) {
    if (!v.is(K::Tuple)) fail(fmt::format("{} expects a tuple of arguments, got {}", what, kind_name(v.kind())));
    return v.to_tuple()->items;
  }
  std::vector<int64_t> int_tuple(const IValue& v, const char* what) {
    if (!v.is(K::Tuple) && !v.is(K::List)) fail(fmt::format("{} must be a tuple of ints", what));
    const auto& items = v.is(K::Tuple) ? v.to_tuple()->items : v.to_list()->items;
    std::vector<int64_t> out;
    out.reserve(items.size());
    for (const auto& i : items) {
      if (!i.is(K::Int)) fail(fmt::format("{} must be a tuple of ints", what));
      out.push_back(i.to_int());
    }
    return out;
  }

  IValue persistent_load(const IValue& pid) {
    if (!pid.is(K::Tuple)) fail("persistent id is not a tuple");
    const auto& t = pid.to_tuple()->items;
    if (t.size() != 5 || !t[0].is(K::String) || t[0].to_string() != "storage")
      fail("persistent id is not ('storage', type, key, location, numel)");
    if (!t[1].is(K::Global) || callables_.at(&t[1].to_global()) != Callable::StorageClass)
      fail("persistent id does not name a torch storage class");
    if (!t[2].is(K::String) || !t[3].is(K::String) || !t[4].is(K::Int))
      fail("persistent id is not ('storage', type, key, location, numel)");
    const std::string& cls = t[1].to_global().qualified_name;
    const DType dtype = *dtype_from_storage_class(std::string_view(cls).substr(6));
    const int64_t numel = t[4].to_int();
    if (numel < 0) fail(fmt::format("storage '{}' has negative size {}", t[2].to_string(), numel));
    if (!o_.load_storage) fail("storage reference in a pickle that cannot have storages");
    auto& slot = storages_[t[2].to_string()];
    if (!slot) slot = o_.load_storage(t[2].to_string(), t[3].to_string(), dtype, numel);
    storage_dtype_[slot.get()] = dtype;
    return IValue(slot);
  }

  IValue rebuild_tensor(const std::vector<IValue>& a, bool v2) {
    if (v2 ? (a.size() < 6 || a.size() > 7) : a.size() != 4)
      fail(fmt::format("_rebuild_tensor{} takes {} arguments, got {}", v2 ? "_v2" : "", v2 ? 6 : 4, a.size()));
    if (!a[0].is(K::Storage)) fail("tensor rebuilt from something that is not a storage");
    if (!a[1].is(K::Int)) fail("tensor storage offset is not an int");
    const auto& storage = a[0].to_storage();
    Tensor t = Tensor::view_of(storage, storage_dtype_.at(storage.get()), a[1].to_int(), int_tuple(a[2], "tensor size"),
                               int_tuple(a[3], "tensor stride"), fmt::format("{}: byte {}", o_.record, op_at_));
    if (v2) {
      if (!a[4].is(K::Bool)) fail("tensor requires_grad is not a bool");
      t.impl().requires_grad = a[4].to_bool();
    }
    return IValue(t);
  }

  IValue call(Callable c, const IValue& fn, const IValue& args_v) {
    // torch.jit.save pickles a TorchScript Enum member as GLOBAL <enum class>, <its value>, REDUCE:
    // the argument is the bare value, not a tuple. The member's name comes from the class's code.
    if (c == Callable::ScriptClass && (args_v.is(K::Int) || args_v.is(K::Double) || args_v.is(K::String))) {
      return make_enum_value(fn.to_global().qualified_name, "", args_v);
    }
    const auto& a = tuple_items(args_v, fn.to_global().qualified_name.c_str());
    auto want = [&](size_t n) {
      if (a.size() != n) fail(fmt::format("{} takes {} arguments, got {}", fn.to_global().qualified_name, n, a.size()));
    };
    switch (c) {
      case Callable::RebuildTensorV2: return rebuild_tensor(a, true);
      case Callable::RebuildTensor: return rebuild_tensor(a, false);
      case Callable::RebuildParameter:
      case Callable::RebuildParameterWithState: {
        want(c == Callable::RebuildParameter ? 3 : 4);
        if (!a[0].is(K::Tensor) || !a[1].is(K::Bool)) fail("_rebuild_parameter expects (tensor, requires_grad, hooks)");
        Tensor t = a[0].to_tensor();
        t.impl().requires_grad = a[1].to_bool();
        t.impl().is_parameter = true;
        return IValue(t);
      }
      case Callable::RebuildQTensor:
        unsupported(fmt::format("{}: quantized tensors are not supported", fn.to_global().qualified_name));
      case Callable::RebuildSparse:
        unsupported(fmt::format("{}: sparse tensors are not supported", fn.to_global().qualified_name));
      case Callable::OrderedDict:
        want(0);
        return IValue(std::make_shared<DictData>());
      case Callable::BuildIntList: return typed_list(a, "int", K::Int);
      case Callable::BuildDoubleList: return typed_list(a, "float", K::Double);
      case Callable::BuildBoolList: return typed_list(a, "bool", K::Bool);
      case Callable::BuildTensorList: return typed_list(a, "Tensor", K::Tensor);
      case Callable::BuildComplexList: return typed_list(a, "complex", K::Complex);
      case Callable::RestoreTypeTag: {
        want(2);
        if (!a[1].is(K::String)) fail("restore_type_tag expects a type string");
        if (a[0].is(K::List)) a[0].to_list()->elem_type = element_types(a[1].to_string(), "List[", 1)[0];
        else if (a[0].is(K::Dict)) {
          auto kv = element_types(a[1].to_string(), "Dict[", 2);
          a[0].to_dict()->key_type = kv[0];
          a[0].to_dict()->value_type = kv[1];
        }
        return a[0];
      }
      case Callable::TorchDevice: {
        if (a.empty() || a.size() > 2 || !a[0].is(K::String)) fail("torch.device expects (type[, index])");
        std::string spec = a[0].to_string();
        if (a.size() == 2) {
          if (!a[1].is(K::Int)) fail("torch.device index is not an int");
          spec += fmt::format(":{}", a[1].to_int());
        }
        auto d = Device::parse(spec);
        if (!d) fail(fmt::format("unknown device '{}'", spec));
        return IValue(*d);
      }
      case Callable::Complex:
        want(2);
        return IValue(std::complex<double>(a[0].to_double(), a[1].to_double()));
      case Callable::TorchSize: {
        want(1);
        int_tuple(a[0], "torch.Size");
        return a[0];
      }
      case Callable::StorageClass:
      case Callable::ScriptClass: fail(fmt::format("{} cannot be called", fn.to_global().qualified_name));
    }
    fail("unknown callable");
  }

  IValue typed_list(const std::vector<IValue>& a, const char* type, K kind) {
    if (a.size() != 1 || !a[0].is(K::List)) fail(fmt::format("build_{}list expects one list", type));
    for (const auto& x : a[0].to_list()->items)
      if (!x.is(kind)) fail(fmt::format("a List[{}] holds a {}", type, kind_name(x.kind())));
    a[0].to_list()->elem_type = type;
    return a[0];
  }

  // "List[int]" -> {"int"}; "Dict[str, Tensor]" -> {"str", "Tensor"} (split at top-level commas).
  std::vector<std::string> element_types(const std::string& s, std::string_view head, size_t n) {
    if (s.size() < head.size() + 1 || s.compare(0, head.size(), head) != 0 || s.back() != ']')
      fail(fmt::format("restore_type_tag: unexpected type '{}'", s));
    std::vector<std::string> out(1);
    int depth = 0;
    for (size_t i = head.size(); i + 1 < s.size(); ++i) {
      char c = s[i];
      if (c == '[' || c == '(') ++depth;
      if (c == ']' || c == ')') --depth;
      if (c == ',' && depth == 0) {
        out.emplace_back();
        continue;
      }
      if (!(c == ' ' && out.back().empty())) out.back() += c;
    }
    if (out.size() != n) fail(fmt::format("restore_type_tag: unexpected type '{}'", s));
    return out;
  }

  void set_item(const IValue& dict, IValue k, IValue v) {
    switch (k.kind()) {
      case K::String: case K::Int: case K::Double: case K::Bool: case K::None: case K::Tensor:
      case K::Tuple: case K::Complex: case K::Device: break;
      default: fail(fmt::format("a {} cannot be a dict key", kind_name(k.kind())));
    }
    dict.to_dict()->set(std::move(k), std::move(v));
  }

  void build(IValue obj, IValue state) {
    if (!obj.is(K::Object)) fail(fmt::format("BUILD on a {} (only TorchScript objects take state)", kind_name(obj.kind())));
    hold(obj, state);
    auto& o = *obj.to_object();
    o.setstate_arg = std::make_shared<IValue>(state);
    if (state.is(K::Dict)) {
      for (const auto& [k, v] : state.to_dict()->items) {
        if (!k.is(K::String)) return;  // not an attribute dict: only __setstate__ can use it
      }
      for (const auto& [k, v] : state.to_dict()->items) o.attrs.emplace_back(k.to_string(), v);
      o.setstate_arg.reset();
    }
  }

  void step(uint8_t op) {
    switch (op) {
      case PROTO: {
        const auto v = read_le(1);
        if (v > 5) fail(fmt::format("pickle protocol {} is newer than 5", v));
        return;
      }
      case FRAME: read_le(8); return;  // frames only group bytes; the whole record is in memory
      case MARK:
        if (marks_.size() > b_.size()) fail("too many MARKs");
        marks_.push_back(stack_.size());
        return;
      case POP: pop(); return;
      case POP_MARK: pop_mark(); return;
      case DUP: push(top()); return;
      case NONE: push(IValue()); return;
      case NEWTRUE: push(IValue(true)); return;
      case NEWFALSE: push(IValue(false)); return;
      case BININT: push(IValue(static_cast<int64_t>(static_cast<int32_t>(read_le(4))))); return;
      case BININT1: push(IValue(static_cast<int64_t>(read_le(1)))); return;
      case BININT2: push(IValue(static_cast<int64_t>(read_le(2)))); return;
      case LONG1: push(IValue(decode_long(take(read_le(1))))); return;
      case LONG4: {
        const int64_t n = static_cast<int32_t>(read_le(4));
        if (n < 0) fail("negative LONG4 length");
        push(IValue(decode_long(take(static_cast<uint64_t>(n)))));
        return;
      }
      case INT: {
        auto s = read_line();
        if (s == "00") return push(IValue(false));
        if (s == "01") return push(IValue(true));
        return push(IValue(parse_int_text(s)));
      }
      case LONG: {
        auto s = read_line();
        if (!s.empty() && s.back() == 'L') s.remove_suffix(1);
        return push(IValue(parse_int_text(s)));
      }
      case FLOAT: {
        std::string s(read_line());
        char* end = nullptr;
        double d = std::strtod(s.c_str(), &end);
        if (s.empty() || *end) fail("malformed FLOAT argument");
        return push(IValue(d));
      }
      case BINFLOAT: {
        uint64_t bits = 0;
        auto s = take(8);
        for (int i = 0; i < 8; ++i) bits = (bits << 8) | static_cast<uint8_t>(s[i]);  // big-endian
        double d;
        std::memcpy(&d, &bits, 8);
        return push(IValue(d));
      }
      case BINUNICODE: return push_string(take(read_le(4)));
      case SHORT_BINUNICODE: return push_string(take(read_le(1)));
      case BINUNICODE8: return push_string(take(read_le(8)));
      case BINSTRING: return push_string(take(read_le(4)));
      case SHORT_BINSTRING: return push_string(take(read_le(1)));
      case STRING: return push(IValue(text_string(read_line())));
      case UNICODE: return push_string(read_line());
      case BINBYTES: take(read_le(4)); unsupported("bytes values are not supported");
      case SHORT_BINBYTES: take(read_le(1)); unsupported("bytes values are not supported");
      case BINBYTES8: case BYTEARRAY8: take(read_le(8)); unsupported("bytes values are not supported");
      case EMPTY_TUPLE: return push(make_tuple({}));
      case TUPLE1: {
        IValue a = pop();
        return push(make_tuple({std::move(a)}));
      }
      case TUPLE2: {
        IValue b = pop(), a = pop();
        return push(make_tuple({std::move(a), std::move(b)}));
      }
      case TUPLE3: {
        IValue c = pop(), b = pop(), a = pop();
        return push(make_tuple({std::move(a), std::move(b), std::move(c)}));
      }
      case TUPLE: return push(make_tuple(pop_mark()));
      case EMPTY_LIST: return push(IValue(std::make_shared<ListData>()));
      case LIST: {
        auto items = pop_mark();
        IValue l(std::make_shared<ListData>());
        hold(l, items);
        l.to_list()->items = std::move(items);
        return push(std::move(l));
      }
      case APPEND: {
        IValue v = pop();
        IValue& l = top();
        if (!l.is(K::List)) fail(fmt::format("APPEND to a {}", kind_name(l.kind())));
        hold(l, v);
        l.to_list()->items.push_back(std::move(v));
        return;
      }
      case APPENDS: {
        auto items = pop_mark();
        IValue& l = top();
        if (!l.is(K::List)) fail(fmt::format("APPENDS to a {}", kind_name(l.kind())));
        hold(l, items);
        auto& dst = l.to_list()->items;
        for (auto& i : items) dst.push_back(std::move(i));
        return;
      }
      case EMPTY_DICT: return push(IValue(std::make_shared<DictData>()));
      case DICT: {
        auto items = pop_mark();
        if (items.size() % 2) fail("DICT with an odd number of items");
        IValue d(std::make_shared<DictData>());
        hold(d, items);
        for (size_t i = 0; i < items.size(); i += 2) set_item(d, std::move(items[i]), std::move(items[i + 1]));
        return push(std::move(d));
      }
      case SETITEM: {
        IValue v = pop(), k = pop();
        IValue& d = top();
        if (!d.is(K::Dict)) fail(fmt::format("SETITEM on a {}", kind_name(d.kind())));
        hold(d, std::vector<IValue>{k, v});
        set_item(d, std::move(k), std::move(v));
        return;
      }
      case SETITEMS: {
        auto items = pop_mark();
        if (items.size() % 2) fail("SETITEMS with an odd number of items");
        IValue& d = top();
        if (!d.is(K::Dict)) fail(fmt::format("SETITEMS on a {}", kind_name(d.kind())));
        hold(d, items);
        for (size_t i = 0; i < items.size(); i += 2) set_item(d, std::move(items[i]), std::move(items[i + 1]));
        return;
      }
      case EMPTY_SET: case ADDITEMS: case FROZENSET: unsupported("Python sets are not supported");
      case BINPUT: return memo_put(read_le(1));
      case LONG_BINPUT: return memo_put(read_le(4));
      case PUT: return memo_put(static_cast<uint64_t>(parse_int_text(read_line())));
      case MEMOIZE: return memo_put(memo_.size());
      case BINGET: return memo_get(read_le(1));
      case LONG_BINGET: return memo_get(read_le(4));
      case GET: return memo_get(static_cast<uint64_t>(parse_int_text(read_line())));
      case GLOBAL: {
        std::string module(read_line());
        std::string name(read_line());
        return push(find_global(module, name));
      }
      case STACK_GLOBAL: {
        IValue name = pop(), module = pop();
        if (!name.is(K::String) || !module.is(K::String)) fail("STACK_GLOBAL needs two strings");
        return push(find_global(module.to_string(), name.to_string()));
      }
      case REDUCE: {
        IValue args = pop(), fn = pop();
        hold_depth_of_args(args);
        return push(call(callable_of(fn), fn, args));
      }
      case NEWOBJ: {
        IValue args = pop(), cls = pop();
        return push(new_object(cls, args));
      }
      case NEWOBJ_EX: {
        IValue kwargs = pop(), args = pop(), cls = pop();
        if (!kwargs.is(K::Dict) || !kwargs.to_dict()->items.empty()) fail("NEWOBJ_EX with keyword arguments");
        return push(new_object(cls, args));
      }
      case BUILD: {
        IValue state = pop();
        IValue obj = top();
        return build(std::move(obj), std::move(state));
      }
      case BINPERSID: {
        IValue pid = pop();
        return push(persistent_load(pid));
      }
      case PERSID: unsupported("protocol-0 persistent ids are not supported");
      case INST: case OBJ: fail("protocol-0 object instantiation is not allowed");
      case EXT1: case EXT2: case EXT4: fail("pickle extension registry codes are not allowed");
      case NEXT_BUFFER: case READONLY_BUFFER: fail("out-of-band buffers are not allowed");
      default: fail(fmt::format("unknown opcode 0x{:02x}", op));
    }
  }

  void hold_depth_of_args(const IValue& args) {
    if (heap_ptr(args)) adopt(args);
  }

  IValue new_object(const IValue& cls, const IValue& args) {
    if (!cls.is(K::Global) || callables_.at(&cls.to_global()) != Callable::ScriptClass)
      fail("NEWOBJ on something that is not a TorchScript class");
    if (!args.is(K::Tuple) || !args.to_tuple()->items.empty()) fail("NEWOBJ with constructor arguments");
    auto o = std::make_shared<ObjectData>();
    o->type_name = cls.to_global().qualified_name;
    return IValue(o);
  }

  int64_t parse_int_text(std::string_view s) {
    int64_t v = 0;
    bool neg = !s.empty() && s[0] == '-';
    if (neg) s.remove_prefix(1);
    if (s.empty() || s.size() > 18) fail("malformed integer argument");
    for (char c : s) {
      if (c < '0' || c > '9') fail("malformed integer argument");
      v = v * 10 + (c - '0');
    }
    return neg ? -v : v;
  }

  std::string_view b_;
  const UnpickleOptions& o_;
  size_t pos_ = 0, op_at_ = 0;
  std::vector<IValue> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, IValue> memo_;
  std::unordered_map<const void*, Node> nodes_;
  std::unordered_map<const GlobalRef*, Callable> callables_;
  std::unordered_map<std::string, std::shared_ptr<Storage>> storages_;
  std::unordered_map<const Storage*, DType> storage_dtype_;
};

}  // namespace

IValue unpickle(std::string_view bytes, const UnpickleOptions& options) {
  return Unpickler(bytes, options).run();
}

}  // namespace jitctl
