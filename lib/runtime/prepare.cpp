#include "lib/runtime/prepare.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unordered_map>

#include "kernels/cpu/concat_nhwc.h"
#include "kernels/cpu/epilogue.h"
#include "kernels/cpu/packed_conv.h"
#include "kernels/cpu/packed_linear.h"
#include "kernels/cpu/tensor_util.h"
#include "lib/core/error.h"
#include "lib/frontend/schema_matching.h"
#include "lib/ir/constants.h"

namespace jitctl {
namespace {

using cpu::Epilogue;
using cpu::PostOp;

// A value's constant: a prim::Constant, or a list built from constants (how traced graphs pass
// stride and padding).
std::optional<IValue> constant_of(const Value* v) {
  if (auto c = to_ivalue(v)) return c;
  const Node* n = v->node();
  if (n->kind().qual_string() != "prim::ListConstruct") return std::nullopt;
  auto list = std::make_shared<ListData>();
  for (const Value* in : n->inputs()) {
    auto c = to_ivalue(in);
    if (!c) return std::nullopt;
    list->items.push_back(std::move(*c));
  }
  return IValue(std::move(list));
}

std::optional<Tensor> constant_tensor(const Value* v) {
  auto c = constant_of(v);
  if (!c || !c->is_tensor()) return std::nullopt;
  return c->to_tensor();
}

bool is_kind(const Node* n, std::initializer_list<std::string_view> kinds) {
  const std::string_view k = n->kind().qual_string();
  for (auto x : kinds)
    if (k == x) return true;
  return false;
}

bool is_tensor_value(const Value* v) { return v->type()->kind() == TypeKind::Tensor; }

// ---- what runs: the fast path, and the original kernels for inputs it cannot take ------------

// One original node, replayed through its kernel: its constant arguments, with the running value
// (and the residual) put in their slots.
struct Step {
  KernelFn fn = nullptr;
  std::vector<IValue> args;
  size_t chain = 0;        // the argument that takes the value computed so far
  int residual = -1;       // the argument that takes the residual, if any
};

Tensor replay(const std::vector<Step>& steps, const IValue& x, const IValue& residual) {
  IValue v = x;
  for (const Step& s : steps) {
    Stack st = s.args;
    st[s.chain] = v;
    if (s.residual >= 0) st[static_cast<size_t>(s.residual)] = residual;
    s.fn(st);
    v = std::move(st.at(0));
  }
  return v.to_tensor();
}

class PreparedConv final : public PreparedKernel {
 public:
  PreparedConv(std::unique_ptr<cpu::PackedConv> conv, bool channels_last_out, bool residual, int64_t weight_dim, std::vector<Step> steps)
      : conv_(std::move(conv)), channels_last_out_(channels_last_out), residual_(residual), weight_dim_(weight_dim), steps_(std::move(steps)) {}

  void run(Stack& s) const override {
    const IValue res = residual_ ? s.at(1) : IValue();
    const IValue x = s.at(0);
    Tensor out;
    if (fast_ok(x, res)) {
      try {
        out = conv_->run(x.to_tensor(), residual_ ? res.to_tensor() : Tensor(), channels_last_out_);
      } catch (const InvalidInput&) {
        out = replay(steps_, x, res);  // the original kernels raise PyTorch's message, or handle what we do not
      }
    } else {
      out = replay(steps_, x, res);
    }
    s.assign(1, IValue(std::move(out)));
  }

 private:
  bool fast_ok(const IValue& x, const IValue& res) const {
    if (!x.is_tensor() || x.to_tensor().dtype() != DType::Float32 || x.to_tensor().dim() != weight_dim_) return false;
    return !residual_ || (res.is_tensor() && res.to_tensor().dtype() == DType::Float32);
  }

  std::unique_ptr<cpu::PackedConv> conv_;
  bool channels_last_out_, residual_;
  int64_t weight_dim_;
  std::vector<Step> steps_;
};

class PreparedLinear final : public PreparedKernel {
 public:
  PreparedLinear(std::unique_ptr<cpu::PackedLinear> lin, bool residual, std::vector<Step> steps)
      : lin_(std::move(lin)), residual_(residual), steps_(std::move(steps)) {}

  void run(Stack& s) const override {
    const IValue res = residual_ ? s.at(1) : IValue();
    const IValue x = s.at(0);
    Tensor out;
    const bool ok = x.is_tensor() && x.to_tensor().dtype() == DType::Float32 && x.to_tensor().dim() >= 1 &&
                    (!residual_ || (res.is_tensor() && res.to_tensor().dtype() == DType::Float32));
    if (ok) {
      try {
        out = lin_->run(x.to_tensor(), residual_ ? res.to_tensor() : Tensor());
      } catch (const InvalidInput&) {
        out = replay(steps_, x, res);
      }
    } else {
      out = replay(steps_, x, res);
    }
    s.assign(1, IValue(std::move(out)));
  }

 private:
  std::unique_ptr<cpu::PackedLinear> lin_;
  bool residual_;
  std::vector<Step> steps_;
};

class PreparedCat final : public PreparedKernel {
 public:
  PreparedCat(KernelFn cat, IValue dim, bool channels_last_out) : cat_(cat), dim_(std::move(dim)), channels_last_out_(channels_last_out) {}

  void run(Stack& s) const override {
    std::vector<Tensor> parts;
    bool tensors = true;
    for (const IValue& v : s) {
      if (!v.is_tensor()) {
        tensors = false;
        break;
      }
      parts.push_back(v.to_tensor());
    }
    if (channels_last_out_ && tensors && cpu::concat_channels_last_ok(parts)) {
      s.assign(1, IValue(cpu::concat_channels_last(parts)));
      return;
    }
    auto list = std::make_shared<ListData>();
    list->items = std::move(s);
    Stack st{IValue(std::move(list)), dim_};
    cat_(st);
    s.assign(1, std::move(st.at(0)));
  }

 private:
  KernelFn cat_;
  IValue dim_;
  bool channels_last_out_;
};

// ---- matching --------------------------------------------------------------------------------

struct Anchor {
  bool conv = false;
  Tensor weight, bias;
  cpu::ConvArgs args;
};

std::optional<Anchor> anchor_of(const Node* n) {
  const auto& in = n->inputs();
  Anchor a;
  if (is_kind(n, {"aten::linear"}) && in.size() == 3) {
    auto w = constant_tensor(in[1]);
    auto b = constant_of(in[2]);
    if (!w || !b || (!b->is_none() && !b->is_tensor())) return std::nullopt;
    a.weight = *w;
    a.bias = b->is_none() ? Tensor() : b->to_tensor();
    if (!cpu::PackedLinear::supports(a.weight, a.bias)) return std::nullopt;
    return a;
  }
  // (input, weight, bias, stride, padding, dilation, ...): conv1d/conv2d then groups; convolution
  // and _convolution then transposed, output_padding, groups (and cuDNN flags).
  const bool plain = is_kind(n, {"aten::conv2d", "aten::conv1d"}) && in.size() == 7;
  const bool full = is_kind(n, {"aten::_convolution", "aten::convolution"}) && in.size() >= 9;
  if (!plain && !full) return std::nullopt;
  auto w = constant_tensor(in[1]);
  auto b = constant_of(in[2]);
  if (!w || !b || (!b->is_none() && !b->is_tensor())) return std::nullopt;
  std::vector<IValue> rest;
  for (size_t i = 3; i < in.size(); ++i) {
    auto c = constant_of(in[i]);
    if (!c) return std::nullopt;
    rest.push_back(std::move(*c));
  }
  a.conv = true;
  a.weight = *w;
  a.bias = b->is_none() ? Tensor() : b->to_tensor();
  try {
    a.args.stride = cpu::int_list(rest[0]);
    if (rest[1].is(IValue::Kind::String))
      a.args.padding_mode = rest[1].to_string();
    else
      a.args.padding = cpu::int_list(rest[1]);
    a.args.dilation = cpu::int_list(rest[2]);
    if (plain) {
      a.args.groups = rest[3].to_int();
    } else {
      if (rest[3].to_bool()) return std::nullopt;  // transposed
      a.args.groups = rest[5].to_int();
    }
  } catch (const std::exception&) {
    return std::nullopt;  // arguments of unexpected types: the kernel will say what is wrong
  }
  if (!cpu::PackedConv::supports(a.weight, a.bias, a.args)) return std::nullopt;
  return a;
}

// The post-op a node applies to `v` (its input `slot`), or nullopt; `residual` gets the other
// operand of an add.
std::optional<PostOp> post_op_of(const Node* u, size_t slot, Value** residual) {
  using K = PostOp::Kind;
  const auto& in = u->inputs();
  auto cfloat = [&](size_t i) -> std::optional<float> {
    auto c = constant_of(in[i]);
    if (!c || !(c->is(IValue::Kind::Double) || c->is(IValue::Kind::Int))) return std::nullopt;
    return static_cast<float>(c->is(IValue::Kind::Int) ? static_cast<double>(c->to_int()) : c->to_double());
  };
  if (is_kind(u, {"aten::add", "aten::add_"}) && in.size() == 3) {
    // x + alpha * r with alpha 1 is what a sum post-op computes; an in-place add must write into
    // the convolution's own output (self), not into the residual.
    const bool inplace = u->kind().qual_string() == "aten::add_";
    if (slot == 1 && inplace) return std::nullopt;
    auto alpha = cfloat(2);
    if (!alpha || *alpha != 1.0f) return std::nullopt;
    Value* other = in[slot == 0 ? 1 : 0];
    if (!is_tensor_value(other)) return std::nullopt;
    *residual = other;
    return PostOp{K::Add};
  }
  if (slot != 0) return std::nullopt;
  if (is_kind(u, {"aten::relu", "aten::relu_"}) && in.size() == 1) return PostOp{K::Relu};
  if (is_kind(u, {"aten::silu", "aten::silu_"}) && in.size() == 1) return PostOp{K::Silu};
  if (is_kind(u, {"aten::hardswish", "aten::hardswish_"}) && in.size() == 1) return PostOp{K::Hardswish};
  if (is_kind(u, {"aten::hardsigmoid", "aten::hardsigmoid_"}) && in.size() == 1) return PostOp{K::Hardsigmoid};
  if (is_kind(u, {"aten::sigmoid", "aten::sigmoid_"}) && in.size() == 1) return PostOp{K::Sigmoid};
  if (is_kind(u, {"aten::tanh", "aten::tanh_"}) && in.size() == 1) return PostOp{K::Tanh};
  if (is_kind(u, {"aten::relu6", "aten::relu6_"}) && in.size() == 1) return PostOp{K::Clamp, 0.f, 6.f};
  if (is_kind(u, {"aten::hardtanh", "aten::hardtanh_"}) && in.size() == 3) {
    auto lo = cfloat(1), hi = cfloat(2);
    if (!lo || !hi) return std::nullopt;
    return PostOp{K::Clamp, *lo, *hi};
  }
  if (is_kind(u, {"aten::leaky_relu", "aten::leaky_relu_"}) && in.size() == 2) {
    auto slope = cfloat(1);
    if (!slope) return std::nullopt;
    return PostOp{K::LeakyRelu, *slope};
  }
  if (is_kind(u, {"aten::gelu"}) && in.size() == 2) {
    auto a = constant_of(in[1]);
    if (!a || !a->is(IValue::Kind::String)) return std::nullopt;
    if (a->to_string() == "none") return PostOp{K::GeluErf};
    if (a->to_string() == "tanh") return PostOp{K::GeluTanh};
  }
  return std::nullopt;
}

// Whether the nodes strictly between `a` and `b` (same block), other than the group's own,
// leave every tensor as it was: then the group's first node may run where its last one is.
bool pure_between(const Node* a, const Node* b, const std::vector<Node*>& group) {
  for (const Node* n = a->next(); n && n != b; n = n->next()) {
    if (std::find(group.begin(), group.end(), n) != group.end()) continue;
    const std::string_view k = n->kind().qual_string();
    if (k == "prim::Constant" || k == "prim::ListConstruct" || k == "prim::TupleConstruct") continue;
    if (!n->blocks().empty() || !k.starts_with("aten::")) return false;
    const FunctionSchema* s = n->schema() ? n->schema() : match_builtin_schema(n);
    if (!s || s->is_mutable()) return false;
  }
  return true;
}

// `cat(ListConstruct(parts...), 1)`, the list read by the cat alone: the cat node, else null.
Node* channel_cat_of_list(const Node* list) {
  if (list->kind().qual_string() != "prim::ListConstruct" || list->output()->uses().size() != 1) return nullptr;
  Node* cat = list->output()->uses()[0].user;
  if (cat->kind().qual_string() != "aten::cat" || cat->inputs().size() != 2 || cat->input(0) != list->output()) return nullptr;
  if (cat->owning_block() != list->owning_block()) return nullptr;
  auto dim = constant_of(cat->input(1));
  if (!dim || !dim->is(IValue::Kind::Int) || dim->to_int() != 1) return nullptr;
  for (const Value* v : list->inputs())
    if (!is_tensor_value(v)) return nullptr;
  return cat;
}

// ---- layout ----------------------------------------------------------------------------------

// Readers that take a tensor of any strides and give the same values: the value may be
// channels-last for them. Elementwise ops and pooling pass the layout on (their outputs are
// checked in turn); convolutions and global pooling to 1x1 end it.
enum class Reader { Unsafe, Ends, PassesOn };

Reader reader_kind(const Node* u) {
  const std::string_view k = u->kind().qual_string();
  static const std::unordered_map<std::string_view, Reader> kinds = {
      {"aten::_convolution", Reader::Ends}, {"aten::convolution", Reader::Ends}, {"aten::conv2d", Reader::Ends},
      {"aten::relu", Reader::PassesOn}, {"aten::relu_", Reader::PassesOn}, {"aten::hardtanh", Reader::PassesOn},
      {"aten::hardtanh_", Reader::PassesOn}, {"aten::relu6", Reader::PassesOn}, {"aten::silu", Reader::PassesOn},
      {"aten::silu_", Reader::PassesOn}, {"aten::hardswish", Reader::PassesOn}, {"aten::hardswish_", Reader::PassesOn},
      {"aten::hardsigmoid", Reader::PassesOn}, {"aten::hardsigmoid_", Reader::PassesOn}, {"aten::sigmoid", Reader::PassesOn},
      {"aten::sigmoid_", Reader::PassesOn}, {"aten::tanh", Reader::PassesOn}, {"aten::gelu", Reader::PassesOn},
      {"aten::add", Reader::PassesOn}, {"aten::add_", Reader::PassesOn}, {"aten::mul", Reader::PassesOn},
      {"aten::mul_", Reader::PassesOn}, {"aten::max_pool2d", Reader::PassesOn}, {"aten::avg_pool2d", Reader::PassesOn},
      {"aten::adaptive_avg_pool2d", Reader::PassesOn},
  };
  auto it = kinds.find(k);
  if (it == kinds.end()) return Reader::Unsafe;
  if (k == "aten::adaptive_avg_pool2d") {
    // To 1x1 the result is contiguous whatever the input's layout.
    auto size = constant_of(u->input(1));
    if (size && size->is(IValue::Kind::List)) {
      bool ones = true;
      for (const auto& x : size->to_list()->items) ones = ones && x.is(IValue::Kind::Int) && x.to_int() == 1;
      if (ones) return Reader::Ends;
    }
  }
  return it->second;
}

bool channels_last_ok(const Value* v, std::unordered_map<const Value*, bool>& memo, int depth = 0) {
  if (auto it = memo.find(v); it != memo.end()) return it->second;
  if (depth > 64) return false;
  memo[v] = false;  // while deciding (a cycle through loop-carried values is not taken)
  bool ok = true;
  for (const Use& use : v->uses()) {
    // A part of a channel concatenation: the prepared cat takes any layout (and passes
    // channels-last on when its own readers allow).
    if (channel_cat_of_list(use.user)) continue;
    const Reader r = reader_kind(use.user);
    if (r == Reader::Unsafe) {
      ok = false;
      break;
    }
    if (r == Reader::PassesOn)
      for (const Value* out : use.user->outputs())
        if (!channels_last_ok(out, memo, depth + 1)) {
          ok = false;
          break;
        }
    if (!ok) break;
  }
  memo[v] = ok;
  return ok;
}

}  // namespace

std::shared_ptr<const PreparedKernel> prepare_kernel(const Node* n, const std::string& schema_name) {
  if (!preparation_enabled()) return nullptr;
  const PrepareFn fn = find_preparer(schema_name);
  if (!fn) return nullptr;
  std::vector<std::optional<IValue>> constants;
  for (const Value* v : n->inputs()) constants.push_back(constant_of(v));
  return fn(constants);
}

bool preparation_enabled() {
  static const bool on = [] {
    const char* e = std::getenv("JITCTL_PREPARE");
    return !(e && std::string_view(e) == "0");
  }();
  return on;
}

static std::optional<PreparedGroup> prepare_cat(Node* list, KernelFn (*lookup)(const Node*)) {
  Node* cat = channel_cat_of_list(list);
  if (!cat) return std::nullopt;
  const KernelFn fn = lookup(cat);
  if (!fn) return std::nullopt;
  std::unordered_map<const Value*, bool> memo;
  PreparedGroup g;
  g.nodes = {list, cat};
  g.inputs.assign(list->inputs().begin(), list->inputs().end());
  g.output = cat->output();
  g.op = std::make_shared<PreparedCat>(fn, *constant_of(cat->input(1)), channels_last_ok(cat->output(), memo));
  return g;
}

std::optional<PreparedGroup> prepare_group(Node* n, KernelFn (*lookup)(const Node*)) {
  if (!preparation_enabled()) return std::nullopt;
  if (n->kind().qual_string() == "prim::ListConstruct") return prepare_cat(n, lookup);
  auto anchor = anchor_of(n);
  if (!anchor) return std::nullopt;
  const KernelFn anchor_fn = lookup(n);
  if (!anchor_fn) return std::nullopt;

  PreparedGroup g;
  g.nodes.push_back(n);
  g.inputs.push_back(n->input(0));
  Epilogue epi;
  Value* residual = nullptr;
  std::vector<Step> steps;
  {
    Step s;
    s.fn = anchor_fn;
    for (size_t i = 0; i < n->inputs().size(); ++i) s.args.push_back(i == 0 ? IValue() : *constant_of(n->input(i)));
    steps.push_back(std::move(s));
  }
  // Followers: each the only reader of the value before it, in the same block.
  Value* cur = n->output();
  while (cur->uses().size() == 1) {
    const Use use = cur->uses()[0];
    Node* u = use.user;
    if (u->owning_block() != n->owning_block() || u->outputs().size() != 1) break;
    Value* res = nullptr;
    auto op = post_op_of(u, use.offset, &res);
    if (!op || (res && residual)) break;
    const KernelFn fn = lookup(u);
    if (!fn || !pure_between(n, u, g.nodes)) break;
    Step s;
    s.fn = fn;
    s.chain = use.offset;
    for (size_t i = 0; i < u->inputs().size(); ++i) {
      if (i == use.offset || u->input(i) == res) {
        s.args.emplace_back();
        if (u->input(i) == res && i != use.offset) s.residual = static_cast<int>(i);
        continue;
      }
      auto c = constant_of(u->input(i));
      if (!c) {
        s.fn = nullptr;
        break;
      }
      s.args.push_back(std::move(*c));
    }
    if (!s.fn) break;
    if (res) residual = res;
    epi.push_back(*op);
    steps.push_back(std::move(s));
    g.nodes.push_back(u);
    cur = u->output();
  }
  if (residual) g.inputs.push_back(residual);
  g.output = cur;

  if (anchor->conv) {
    std::unordered_map<const Value*, bool> memo;
    const bool cl = anchor->weight.dim() == 4 && channels_last_ok(cur, memo);
    const int64_t wdim = anchor->weight.dim();
    g.op = std::make_shared<PreparedConv>(std::make_unique<cpu::PackedConv>(anchor->weight, anchor->bias, anchor->args, epi), cl,
                                          residual != nullptr, wdim, std::move(steps));
  } else {
    g.op = std::make_shared<PreparedLinear>(std::make_unique<cpu::PackedLinear>(anchor->weight, anchor->bias, epi), residual != nullptr,
                                            std::move(steps));
  }
  return g;
}

}  // namespace jitctl
