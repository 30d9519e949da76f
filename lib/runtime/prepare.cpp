#include "lib/runtime/prepare.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "kernels/cpu/channel_shuffle.h"
#include "kernels/cpu/concat_nhwc.h"
#include "kernels/cpu/epilogue.h"
#include "kernels/cpu/expand_depthwise.h"
#include "kernels/cpu/norm.h"
#include "kernels/cpu/packed_conv.h"
#include "kernels/cpu/packed_linear.h"
#include "kernels/cpu/tensor_util.h"
#include "lib/core/error.h"
#include "lib/frontend/schema_matching.h"
#include "lib/ir/constants.h"

namespace jitctl {

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

namespace {

using cpu::Epilogue;
using cpu::PostOp;

bool is_kind(const Node* n, std::initializer_list<std::string_view> kinds) {
  const std::string_view k = n->kind().qual_string();
  for (auto x : kinds)
    if (k == x) return true;
  return false;
}

bool is_tensor_value(const Value* v) { return v->type()->kind() == TypeKind::Tensor; }

// ---- what runs: the fast path, and the original kernels for inputs it cannot take ------------

// A weight, bias or batch-norm parameter: a constant of the graph (a frozen module's), None, or
// an input of the instruction (a module attribute the method reads and never writes).
struct Param {
  std::optional<Tensor> constant;
  int slot = -1;  // input of the instruction

  // The tensor for this call (undefined for None); false when the input is not a tensor.
  bool get(const Stack& in, Tensor& out) const {
    if (constant) {
      out = *constant;
      return true;
    }
    if (slot < 0) {
      out = Tensor();
      return true;
    }
    const IValue& v = in[static_cast<size_t>(slot)];
    if (v.is_none()) {
      out = Tensor();
      return true;
    }
    if (!v.is_tensor()) return false;
    out = v.to_tensor();
    return true;
  }
};

// One argument of an original node replayed through its kernel.
struct Arg {
  enum class Kind { Const, Chain, Slot } kind = Kind::Const;
  IValue value;   // Const
  size_t slot = 0;  // Slot: an input of the instruction
};

struct Step {
  KernelFn fn = nullptr;
  std::vector<Arg> args;
};

// The group's original nodes one by one (inputs it does not take, and PyTorch's own messages).
Tensor replay(const std::vector<Step>& steps, const Stack& in) {
  IValue v = in.at(0);
  for (const Step& s : steps) {
    Stack st;
    st.reserve(s.args.size());
    for (const Arg& a : s.args) st.push_back(a.kind == Arg::Kind::Const ? a.value : a.kind == Arg::Kind::Chain ? v : in.at(a.slot));
    s.fn(st);
    v = std::move(st.at(0));
  }
  return v.to_tensor();
}

// Batch norm in inference folded into the convolution before it: w' = w * g, b' = (b - mean) * g
// + beta with g = gamma / sqrt(var + eps), as torch.jit.freeze folds it.
std::pair<Tensor, Tensor> fold_batch_norm(const Tensor& w, const Tensor& b, const Tensor& gamma, const Tensor& beta, const Tensor& mean,
                                          const Tensor& var, double eps) {
  const int64_t oc = w.sizes()[0], per = oc ? w.numel() / oc : 0;
  auto f32 = [](const Tensor& t) { return t.defined() ? cpu::contiguous(t) : t; };
  const Tensor wc = f32(w), bc = f32(b), gc = f32(gamma), betac = f32(beta), mc = f32(mean), vc = f32(var);
  Tensor nw = Tensor::empty(DType::Float32, w.sizes()), nb = Tensor::empty(DType::Float32, {oc});
  const float* pw = static_cast<const float*>(wc.data());
  float* qw = static_cast<float*>(nw.mutable_data());
  float* qb = static_cast<float*>(nb.mutable_data());
  for (int64_t o = 0; o < oc; ++o) {
    const double g = (gc.defined() ? static_cast<const float*>(gc.data())[o] : 1.0f) /
                     std::sqrt(static_cast<double>(static_cast<const float*>(vc.data())[o]) + eps);
    for (int64_t i = 0; i < per; ++i) qw[o * per + i] = static_cast<float>(pw[o * per + i] * g);
    const double bias = bc.defined() ? static_cast<const float*>(bc.data())[o] : 0.0;
    const double shift = betac.defined() ? static_cast<const float*>(betac.data())[o] : 0.0;
    qb[o] = static_cast<float>((bias - static_cast<const float*>(mc.data())[o]) * g + shift);
  }
  return {nw, nb};
}

// Packed operators by the identity of the tensors they were packed from: one entry for a frozen
// module, one per module instance otherwise (the tensors are kept, so their addresses stay theirs).
template <class Packed>
class PackCache {
 public:
  template <class Make>
  std::shared_ptr<const Packed> get(const std::vector<Tensor>& key, const Make& make) const {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [k, p] : entries_) {
      bool same = true;
      for (size_t i = 0; i < k.size() && same; ++i)
        same = k[i].defined() == key[i].defined() && (!k[i].defined() || k[i].same(key[i]));
      if (same) return p;
    }
    auto p = make();
    if (entries_.size() >= 64) entries_.erase(entries_.begin());
    entries_.emplace_back(key, p);
    return p;
  }

 private:
  mutable std::mutex mu_;
  mutable std::vector<std::pair<std::vector<Tensor>, std::shared_ptr<const Packed>>> entries_;
};

struct ConvSpec {
  Param weight, bias;
  bool batch_norm = false;
  Param bn_weight, bn_bias, bn_mean, bn_var;
  double bn_eps = 1e-5;
  cpu::ConvArgs args;
};

class PreparedConv final : public PreparedKernel {
 public:
  PreparedConv(ConvSpec spec, cpu::Epilogue epi, bool channels_last_out, int residual_slot, int64_t weight_dim, std::vector<Step> steps)
      : spec_(std::move(spec)), epi_(std::move(epi)), channels_last_out_(channels_last_out), residual_slot_(residual_slot),
        weight_dim_(weight_dim), steps_(std::move(steps)) {}

  void run(Stack& s) const override {
    Tensor out;
    auto conv = packed(s);
    const IValue& x = s.at(0);
    // By reference: a residual moved here at its last use stays the stack's only handle, so the
    // convolution may add into its bytes in place (PackedConv::run).
    static const Tensor kNoResidual;
    const IValue* res = residual_slot_ >= 0 ? &s.at(static_cast<size_t>(residual_slot_)) : nullptr;
    const bool ok = conv && x.is_tensor() && x.to_tensor().dtype() == DType::Float32 && x.to_tensor().dim() == weight_dim_ &&
                    (!res || (res->is_tensor() && res->to_tensor().dtype() == DType::Float32));
    if (ok) {
      try {
        out = conv->run(x.to_tensor(), res ? res->to_tensor() : kNoResidual, channels_last_out_);
      } catch (const InvalidInput&) {
        out = replay(steps_, s);  // the original kernels raise PyTorch's message, or handle what we do not
      }
    } else {
      out = replay(steps_, s);
    }
    s.assign(1, IValue(std::move(out)));
  }

  std::string describe() const override {
    if (!spec_.weight.constant) return {};
    std::string d = "w[";
    const auto& ws = spec_.weight.constant->sizes();
    for (size_t i = 0; i < ws.size(); ++i) d += (i ? "," : "") + std::to_string(ws[i]);
    d += "]";
    if (spec_.args.groups != 1) d += " g" + std::to_string(spec_.args.groups);
    for (auto v : spec_.args.stride)
      if (v != 1) {
        d += " s" + std::to_string(v);
        break;
      }
    return d;
  }

  // The packed convolution for this call's parameters, or null when they do not suit it.
  std::shared_ptr<const cpu::PackedConv> packed(const Stack& s) const {
    std::vector<Tensor> key(6);
    const Param* params[6] = {&spec_.weight, &spec_.bias, &spec_.bn_weight, &spec_.bn_bias, &spec_.bn_mean, &spec_.bn_var};
    for (int i = 0; i < (spec_.batch_norm ? 6 : 2); ++i)
      if (!params[i]->get(s, key[static_cast<size_t>(i)])) return nullptr;
    for (const Tensor& t : key)
      if (t.defined() && t.dtype() != DType::Float32) return nullptr;
    if (!key[0].defined() || !cpu::PackedConv::supports(key[0], key[1], spec_.args)) return nullptr;
    if (spec_.batch_norm) {
      const int64_t oc = key[0].sizes()[0];
      for (int i = 1; i < 6; ++i)
        if (key[static_cast<size_t>(i)].defined() && (key[static_cast<size_t>(i)].dim() != 1 || key[static_cast<size_t>(i)].sizes()[0] != oc))
          return nullptr;
      if (!key[4].defined() || !key[5].defined()) return nullptr;
    }
    return cache_.get(key, [&] {
      if (!spec_.batch_norm) return std::make_shared<const cpu::PackedConv>(key[0], key[1], spec_.args, epi_);
      auto [w, b] = fold_batch_norm(key[0], key[1], key[2], key[3], key[4], key[5], spec_.bn_eps);
      return std::make_shared<const cpu::PackedConv>(w, b, spec_.args, epi_);
    });
  }

 private:
  ConvSpec spec_;
  cpu::Epilogue epi_;
  bool channels_last_out_;
  int residual_slot_;
  int64_t weight_dim_;
  std::vector<Step> steps_;
  PackCache<cpu::PackedConv> cache_;
};

// A 1x1 convolution and the depthwise one that alone reads its output (with their post-ops), as
// one instruction: band by band where kernels/cpu/expand_depthwise.h takes the call, else the two
// prepared convolutions one after the other.
class PreparedExpandDepthwise final : public PreparedKernel {
 public:
  PreparedExpandDepthwise(std::shared_ptr<const PreparedConv> expand, std::shared_ptr<const PreparedConv> depthwise)
      : expand_(std::move(expand)), depthwise_(std::move(depthwise)) {}

  void run(Stack& s) const override {
    const auto e = expand_->packed(s), d = depthwise_->packed(s);
    if (e && d && s.at(0).is_tensor()) {
      Tensor out = cpu::expand_depthwise(*e, *d, s.at(0).to_tensor());
      if (out.defined()) {
        s.assign(1, IValue(std::move(out)));
        return;
      }
    }
    expand_->run(s);  // leaves its output alone on the stack: the depthwise layer's input
    depthwise_->run(s);
  }

  std::string describe() const override { return expand_->describe() + " + dw " + depthwise_->describe(); }

 private:
  std::shared_ptr<const PreparedConv> expand_, depthwise_;
};

class PreparedLinear final : public PreparedKernel {
 public:
  PreparedLinear(Param weight, Param bias, cpu::Epilogue epi, int residual_slot, std::vector<Step> steps)
      : weight_(std::move(weight)), bias_(std::move(bias)), epi_(std::move(epi)), residual_slot_(residual_slot), steps_(std::move(steps)) {}

  void run(Stack& s) const override {
    Tensor w, b;
    std::shared_ptr<const cpu::PackedLinear> lin;
    if (weight_.get(s, w) && bias_.get(s, b) && w.defined() && cpu::PackedLinear::supports(w, b))
      lin = cache_.get({w, b}, [&] { return std::make_shared<const cpu::PackedLinear>(w, b, epi_); });
    const IValue& x = s.at(0);
    // By reference, as for PreparedConv: a residual moved here at its last use may become the output.
    static const Tensor kNoResidual;
    const IValue* res = residual_slot_ >= 0 ? &s.at(static_cast<size_t>(residual_slot_)) : nullptr;
    Tensor out;
    const bool ok = lin && x.is_tensor() && x.to_tensor().dtype() == DType::Float32 && x.to_tensor().dim() >= 1 &&
                    (!res || (res->is_tensor() && res->to_tensor().dtype() == DType::Float32));
    if (ok) {
      try {
        out = lin->run(x.to_tensor(), res ? res->to_tensor() : kNoResidual);
      } catch (const InvalidInput&) {
        out = replay(steps_, s);
      }
    } else {
      out = replay(steps_, s);
    }
    s.assign(1, IValue(std::move(out)));
  }

 private:
  Param weight_, bias_;
  cpu::Epilogue epi_;
  int residual_slot_;
  std::vector<Step> steps_;
  PackCache<cpu::PackedLinear> cache_;
};

class PreparedCat final : public PreparedKernel {
 public:
  // pool (may be null): a max_pool2d, the concatenation's only reader, with its other arguments.
  PreparedCat(KernelFn cat, IValue dim, bool channels_last_out, KernelFn pool = nullptr, std::vector<IValue> pool_args = {})
      : cat_(cat), dim_(std::move(dim)), channels_last_out_(channels_last_out), pool_(pool), pool_args_(std::move(pool_args)) {}

  void run(Stack& s) const override {
    // 4-D parts: dim 1 is the channels, which max pooling keeps apart, so each part is pooled
    // and the smaller results concatenated (the same values; a quarter of the copy at stride 2).
    // Other parts (unbatched images: dim 1 is the height) are concatenated, then pooled.
    const bool pool_parts = pool_ && std::all_of(s.begin(), s.end(), [](const IValue& v) { return v.is_tensor() && v.to_tensor().dim() == 4; });
    if (pool_parts)
      for (IValue& v : s) v = pooled(std::move(v));
    concat(s);
    if (pool_ && !pool_parts) s[0] = pooled(std::move(s[0]));
  }

 private:
  IValue pooled(IValue x) const {
    Stack ps{std::move(x)};
    ps.insert(ps.end(), pool_args_.begin(), pool_args_.end());
    pool_(ps);
    return std::move(ps.at(0));
  }

  void concat(Stack& s) const {
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

  KernelFn cat_;
  IValue dim_;
  bool channels_last_out_;
  KernelFn pool_;
  std::vector<IValue> pool_args_;
};

// Inference batch norm with constant parameters followed by ReLU (a pre-activation: DenseNet's
// layers start so): one pass over a channels-last input with the scale and shift computed once,
// instead of the batch norm's pass and the ReLU's. Other inputs replay the two kernels.
class PreparedBatchNormRelu final : public PreparedKernel {
 public:
  PreparedBatchNormRelu(std::vector<float> scale, std::vector<float> shift, std::vector<Step> steps)
      : scale_(std::move(scale)), shift_(std::move(shift)), steps_(std::move(steps)) {}

  void run(Stack& s) const override {
    const IValue& x = s.at(0);
    Tensor out = x.is_tensor() && cpu::batch_norm_channels_last_ok(x.to_tensor(), static_cast<int64_t>(scale_.size()))
                     ? cpu::batch_norm_channels_last(x.to_tensor(), scale_, shift_, true)
                     : replay(steps_, s);
    s.assign(1, IValue(std::move(out)));
  }

 private:
  std::vector<float> scale_, shift_;
  std::vector<Step> steps_;
};

// ---- matching --------------------------------------------------------------------------------

bool sets_attribute(const Block* b, const std::string& name) {
  for (const Node* n : b->nodes()) {
    if (n->kind().qual_string() == "prim::SetAttr" && n->s(attr::name) == name) return true;
    for (const Block* inner : n->blocks())
      if (sets_attribute(inner, name)) return true;
  }
  return false;
}

const FunctionSchema* schema_of(const Node* n) { return n->schema() ? n->schema() : match_builtin_schema(n); }

// Inputs and replay steps of a group being matched.
struct GroupBuilder {
  PreparedGroup g;
  std::vector<Step> steps;
  std::vector<Value*> attributes;  // parameters read from module attributes

  size_t slot_of(Value* v) {
    for (size_t i = 0; i < g.inputs.size(); ++i)
      if (g.inputs[i] == v) return i;
    g.inputs.push_back(v);
    return g.inputs.size() - 1;
  }

  // A weight, bias or batch-norm parameter: a constant tensor (or None when `optional`), or a
  // tensor read from a module attribute (prim::GetAttr) that this graph never assigns.
  std::optional<Param> param(Value* v, bool optional) {
    if (auto c = constant_of(v)) {
      if (c->is_tensor()) return Param{c->to_tensor(), -1};
      if (c->is_none() && optional) return Param{};
      return std::nullopt;
    }
    const Node* n = v->node();
    if (n->kind().qual_string() != "prim::GetAttr") return std::nullopt;
    const TypeKind k = v->type()->kind();
    if (k != TypeKind::Tensor && !(optional && k == TypeKind::Optional)) return std::nullopt;
    if (sets_attribute(v->owning_graph()->block(), n->s(attr::name))) return std::nullopt;
    attributes.push_back(v);
    return Param{std::nullopt, static_cast<int>(slot_of(v))};
  }

  // Replays `n` with `chain` (the value computed so far, or null for the first node) in its slot.
  void add_step(Node* n, KernelFn fn, const Value* chain) {
    Step s;
    s.fn = fn;
    for (Value* in : n->inputs()) {
      Arg a;
      if (in == chain) {
        a.kind = Arg::Kind::Chain;
      } else if (auto c = constant_of(in)) {
        a.value = std::move(*c);
      } else {
        a.kind = Arg::Kind::Slot;
        a.slot = slot_of(in);
      }
      s.args.push_back(std::move(a));
    }
    steps.push_back(std::move(s));
    g.nodes.push_back(n);
  }

  // The attribute parameters are read, never written: no node outside the group may write a
  // value read from an attribute of the same name anywhere in the graph (another read of the
  // same parameter, written in place, would leave the packed copy stale).
  bool attributes_read_only() const {
    for (const Value* v : attributes) {
      const std::string& name = v->node()->s(attr::name);
      std::vector<const Value*> reads;
      collect_reads(v->owning_graph()->block(), name, reads);
      for (const Value* r : reads)
        for (const Use& u : r->uses()) {
          if (std::find(g.nodes.begin(), g.nodes.end(), u.user) != g.nodes.end()) continue;
          const FunctionSchema* sch = schema_of(u.user);
          if (!sch || u.offset >= sch->arguments.size() || sch->arguments[u.offset].is_write()) return false;
        }
    }
    return true;
  }

  static void collect_reads(const Block* b, const std::string& name, std::vector<const Value*>& out) {
    for (const Node* n : b->nodes()) {
      if (n->kind().qual_string() == "prim::GetAttr" && n->s(attr::name) == name) out.push_back(n->output());
      for (const Block* inner : n->blocks()) collect_reads(inner, name, out);
    }
  }
};

struct Anchor {
  bool conv = false;
  ConvSpec spec;  // conv: weight, bias, args; linear: weight and bias
};

std::optional<Anchor> anchor_of(const Node* n, GroupBuilder& b) {
  const auto& in = n->inputs();
  Anchor a;
  if (is_kind(n, {"aten::linear"}) && in.size() == 3) {
    auto w = b.param(in[1], false), bias = b.param(in[2], true);
    if (!w || !bias) return std::nullopt;
    if (w->constant && !cpu::PackedLinear::supports(*w->constant, bias->constant.value_or(Tensor()))) return std::nullopt;
    a.spec.weight = *w;
    a.spec.bias = *bias;
    return a;
  }
  // (input, weight, bias, stride, padding, dilation, ...): conv1d/conv2d then groups; convolution
  // and _convolution then transposed, output_padding, groups (and cuDNN flags).
  const bool plain = is_kind(n, {"aten::conv2d", "aten::conv1d"}) && in.size() == 7;
  const bool full = is_kind(n, {"aten::_convolution", "aten::convolution"}) && in.size() >= 9;
  if (!plain && !full) return std::nullopt;
  std::vector<IValue> rest;
  for (size_t i = 3; i < in.size(); ++i) {
    auto c = constant_of(in[i]);
    if (!c) return std::nullopt;
    rest.push_back(std::move(*c));
  }
  a.conv = true;
  try {
    a.spec.args.stride = cpu::int_list(rest[0]);
    if (rest[1].is(IValue::Kind::String))
      a.spec.args.padding_mode = rest[1].to_string();
    else
      a.spec.args.padding = cpu::int_list(rest[1]);
    a.spec.args.dilation = cpu::int_list(rest[2]);
    if (plain) {
      a.spec.args.groups = rest[3].to_int();
    } else {
      if (rest[3].to_bool()) return std::nullopt;  // transposed
      a.spec.args.groups = rest[5].to_int();
    }
  } catch (const std::exception&) {
    return std::nullopt;  // arguments of unexpected types: the kernel will say what is wrong
  }
  auto w = b.param(in[1], false), bias = b.param(in[2], true);
  if (!w || !bias) return std::nullopt;
  if (w->constant && !cpu::PackedConv::supports(*w->constant, bias->constant.value_or(Tensor()), a.spec.args)) return std::nullopt;
  a.spec.weight = *w;
  a.spec.bias = *bias;
  return a;
}

// batch_norm(x, weight?, bias?, running_mean?, running_var?, training, momentum, eps, cudnn)
// in inference, right after a convolution: folded into its packed weights.
bool fold_batch_norm_into(Node* u, GroupBuilder& b, ConvSpec& spec) {
  if (!is_kind(u, {"aten::batch_norm"}) || u->inputs().size() != 9) return false;
  auto training = constant_of(u->input(5)), eps = constant_of(u->input(7));
  if (!training || !training->is(IValue::Kind::Bool) || training->to_bool() || !eps || !eps->is(IValue::Kind::Double)) return false;
  auto gw = b.param(u->input(1), true), gb = b.param(u->input(2), true), mean = b.param(u->input(3), false), var = b.param(u->input(4), false);
  if (!gw || !gb || !mean || !var) return false;
  spec.batch_norm = true;
  spec.bn_weight = *gw;
  spec.bn_bias = *gb;
  spec.bn_mean = *mean;
  spec.bn_var = *var;
  spec.bn_eps = eps->to_double();
  return true;
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
    if (k == "prim::Constant" || k == "prim::ListConstruct" || k == "prim::TupleConstruct" || k == "prim::GetAttr") continue;
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

// A channel shuffle (ShuffleChain) whose input is channels-last: one pass interleaving each
// pixel's channels into a channels-last output, where the ops would copy into NCHW order and the
// next convolution convert back. Other inputs, and sizes that are no shuffle, replay the ops.
class PreparedChannelShuffle final : public PreparedKernel {
 public:
  struct Sizes {
    std::optional<IValue> constant;
    size_t slot = 0;
  };

  PreparedChannelShuffle(Sizes split, Sizes merged, bool channels_last_out, std::vector<Step> steps)
      : split_(std::move(split)), merged_(std::move(merged)), channels_last_out_(channels_last_out), steps_(std::move(steps)) {}

  void run(Stack& s) const override {
    const IValue& xv = s.at(0);
    if (xv.is_tensor()) {
      const Tensor& x = xv.to_tensor();
      const int64_t g = groups_of(x, s);
      if (g > 0 && channels_last_out_ && cpu::channel_shuffle_channels_last_ok(x, g)) {
        s.assign(1, IValue(cpu::channel_shuffle_channels_last(x, g)));
        return;
      }
      // Not a shuffle of these sizes: the ops on x in the layout PyTorch's producer gave it
      // (a view of a channels-last x would fail where PyTorch's contiguous one does not).
      if (g == 0 && !x.is_contiguous()) {
        Stack copy = s;
        copy[0] = IValue(cpu::contiguous(x));
        s.assign(1, IValue(replay(steps_, copy)));
        return;
      }
    }
    s.assign(1, IValue(replay(steps_, s)));
  }

 private:
  static bool sizes_of(const Sizes& a, const Stack& s, std::vector<int64_t>& out) {
    const IValue& v = a.constant ? *a.constant : s.at(a.slot);
    if (!v.is(IValue::Kind::List)) return false;
    out.clear();
    for (const IValue& e : v.to_list()->items) {
      if (!e.is(IValue::Kind::Int)) return false;
      out.push_back(e.to_int());
    }
    return true;
  }

  // The groups g when the views are a channel shuffle of x, else 0.
  int64_t groups_of(const Tensor& x, const Stack& s) const {
    std::vector<int64_t> a, b;
    if (x.dim() != 4 || !sizes_of(split_, s, a) || !sizes_of(merged_, s, b)) return 0;
    return cpu::channel_shuffle_groups(x.sizes(), a, b);
  }

  Sizes split_, merged_;
  bool channels_last_out_;
  std::vector<Step> steps_;
};

// ShuffleNet's channel shuffle as traced: `view(x, [N, g, C/g, H, W]) -> transpose(1, 2) ->
// contiguous() -> view([N, C, H, W])`, each value read by the next alone, in one block. Its
// sizes are computed (from x.size()) and checked at run time. The layout analysis lets x be
// channels-last for it, so prepare_group must take every chain it finds (lookups of these four
// kernels never fail).
struct ShuffleChain {
  Node* view5 = nullptr;
  Node* transpose = nullptr;
  Node* contiguous = nullptr;
  Node* view4 = nullptr;
};

Node* only_reader(const Node* n, std::initializer_list<std::string_view> kinds) {
  if (n->outputs().size() != 1 || n->output()->uses().size() != 1) return nullptr;
  const Use& u = n->output()->uses()[0];
  if (u.offset != 0 || u.user->owning_block() != n->owning_block() || !is_kind(u.user, kinds)) return nullptr;
  return u.user;
}

std::optional<ShuffleChain> channel_shuffle_at(Node* n) {
  ShuffleChain c;
  if (!is_kind(n, {"aten::view", "aten::reshape"}) || n->inputs().size() != 2) return std::nullopt;
  c.view5 = n;
  c.transpose = only_reader(n, {"aten::transpose"});
  if (!c.transpose || c.transpose->inputs().size() != 3) return std::nullopt;
  auto d0 = constant_of(c.transpose->input(1)), d1 = constant_of(c.transpose->input(2));
  if (!d0 || !d1 || !d0->is(IValue::Kind::Int) || !d1->is(IValue::Kind::Int)) return std::nullopt;
  const int64_t a = d0->to_int() < 0 ? d0->to_int() + 5 : d0->to_int(), b = d1->to_int() < 0 ? d1->to_int() + 5 : d1->to_int();
  if (std::min(a, b) != 1 || std::max(a, b) != 2) return std::nullopt;
  c.contiguous = only_reader(c.transpose, {"aten::contiguous"});
  if (!c.contiguous || c.contiguous->inputs().size() != 2) return std::nullopt;
  auto format = constant_of(c.contiguous->input(1));  // torch.contiguous_format is 0
  if (!format || !format->is(IValue::Kind::Int) || format->to_int() != 0) return std::nullopt;
  c.view4 = only_reader(c.contiguous, {"aten::view", "aten::reshape"});
  if (!c.view4 || c.view4->inputs().size() != 2) return std::nullopt;
  // Nothing that writes between them, so that the four can run as one instruction at the last.
  if (!pure_between(c.view5, c.view4, {c.view5, c.transpose, c.contiguous, c.view4})) return std::nullopt;
  return c;
}

// ShuffleNet's block end: `cat([a, b], 1)`, then the channel shuffle (ShuffleChain) of the
// result, whose view sizes torchvision computes from the concatenation's (aten::size,
// NumToTensor, floor_divide, Int, ListConstruct). The concatenation and the shuffle would each
// copy every value; here each pixel's shuffled channels are written straight from the parts, in
// one pass, channels-last. The size computations run on the parts' sizes (no concatenation
// needed for them). Other inputs, and sizes that are no shuffle, replay every node.
class PreparedCatShuffle final : public PreparedKernel {
 public:
  struct Arg {
    enum class Kind { Const, Slot, Local } kind = Kind::Const;
    IValue value;       // Const
    size_t index = 0;   // Slot: an input of the instruction; Local: an earlier step's output
  };
  struct Step {
    KernelFn fn = nullptr;
    std::vector<Arg> args;
    std::optional<int64_t> size_dim;  // aten::size(cat, dim): on the fast path, the concatenation's size
    bool sizes = false;     // a size computation (not the concatenation, not the shuffle's views)
  };

  PreparedCatShuffle(size_t parts, size_t cat_step, Arg split, Arg merged, bool channels_last_out, std::vector<Step> steps)
      : parts_(parts), cat_step_(cat_step), split_(std::move(split)), merged_(std::move(merged)), channels_last_out_(channels_last_out),
        steps_(std::move(steps)) {}

  void run(Stack& s) const override {
    if (channels_last_out_) {
      std::vector<Tensor> parts;
      for (size_t i = 0; i < parts_; ++i) {
        if (!s.at(i).is_tensor()) break;
        parts.push_back(s[i].to_tensor());
      }
      std::vector<int64_t> cat;
      if (parts.size() == parts_ && same_image(parts, cat)) {
        std::vector<IValue> locals(steps_.size());
        bool ok = true;
        for (size_t i = 0; i < steps_.size() && ok; ++i) {
          const Step& st = steps_[i];
          if (!st.sizes) continue;
          if (st.size_dim) {
            const int64_t d = *st.size_dim < 0 ? *st.size_dim + 4 : *st.size_dim;
            ok = d >= 0 && d < 4;
            if (ok) locals[i] = IValue(cat[static_cast<size_t>(d)]);
            continue;
          }
          locals[i] = call(st, s, locals);
        }
        std::vector<int64_t> a, b;
        const int64_t g = ok && ints_of(arg(split_, s, locals), a) && ints_of(arg(merged_, s, locals), b) ? cpu::channel_shuffle_groups(cat, a, b) : 0;
        if (g > 0 && cpu::channel_shuffle_parts_channels_last_ok(parts, g)) {
          s.assign(1, IValue(cpu::channel_shuffle_parts_channels_last(parts, g)));
          return;
        }
        // A group across two parts (three groups of 16 over 24 + 24 channels): two passes.
        if (g > 0 && cpu::concat_channels_last_ok(parts)) {
          const Tensor x = cpu::concat_channels_last(parts);
          if (cpu::channel_shuffle_channels_last_ok(x, g)) {
            s.assign(1, IValue(cpu::channel_shuffle_channels_last(x, g)));
            return;
          }
        }
      }
    }
    std::vector<IValue> locals(steps_.size());
    for (size_t i = 0; i < steps_.size(); ++i) {
      locals[i] = call(steps_[i], s, locals);
      // The parts may be channels-last where PyTorch's are contiguous: its concatenation then
      // is too, and a view PyTorch can take of it must not fail here.
      if (i == cat_step_ && locals[i].is_tensor() && !locals[i].to_tensor().is_contiguous())
        locals[i] = IValue(cpu::contiguous(locals[i].to_tensor()));
    }
    s.assign(1, std::move(locals.back()));
  }

 private:
  static const IValue& arg(const Arg& a, const Stack& s, const std::vector<IValue>& locals) {
    return a.kind == Arg::Kind::Const ? a.value : a.kind == Arg::Kind::Slot ? s.at(a.index) : locals.at(a.index);
  }

  static IValue call(const Step& st, const Stack& s, const std::vector<IValue>& locals) {
    Stack in;
    in.reserve(st.args.size());
    for (const Arg& a : st.args) in.push_back(arg(a, s, locals));
    st.fn(in);
    return std::move(in.at(0));
  }

  // 4-D parts of one N, H and W: the sizes of their concatenation along the channels.
  static bool same_image(const std::vector<Tensor>& parts, std::vector<int64_t>& cat) {
    for (const Tensor& t : parts)
      if (t.dim() != 4 || t.sizes()[0] != parts[0].sizes()[0] || t.sizes()[2] != parts[0].sizes()[2] || t.sizes()[3] != parts[0].sizes()[3])
        return false;
    cat = {parts[0].sizes()[0], 0, parts[0].sizes()[2], parts[0].sizes()[3]};
    for (const Tensor& t : parts) cat[1] += t.sizes()[1];
    return true;
  }

  static bool ints_of(const IValue& v, std::vector<int64_t>& out) {
    if (!v.is(IValue::Kind::List)) return false;
    for (const IValue& e : v.to_list()->items) {
      if (!e.is(IValue::Kind::Int)) return false;
      out.push_back(e.to_int());
    }
    return true;
  }

  size_t parts_, cat_step_;
  Arg split_, merged_;
  bool channels_last_out_;
  std::vector<Step> steps_;
};

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
      {"aten::adaptive_avg_pool2d", Reader::PassesOn}, {"aten::batch_norm", Reader::PassesOn},
      // Shape queries (a scripted batch norm's dim() check) read no values.
      {"aten::dim", Reader::Ends}, {"aten::size", Reader::Ends}, {"aten::len", Reader::Ends},
      // Reductions, layer norm and linear read any strides into fresh outputs. A permute is a view
      // whose readers are checked in turn (ConvNeXt's NCHW -> NHWC permute before its layer norm
      // then finds the channels-last values already in NHWC order, without a copy).
      {"aten::mean", Reader::Ends}, {"aten::layer_norm", Reader::Ends}, {"aten::linear", Reader::Ends},
      {"aten::permute", Reader::PassesOn},
      // flatten and reshape give a view where the strides allow one (its readers are checked in
      // turn), else a contiguous copy: AlexNet's and VGG's last convolution -> max pool ->
      // flatten -> linear then keep the convolution channels-last (AlexNet's 13x13 256 -> 256
      // layer on WinogradConv) and copy 9216 values at the flatten.
      {"aten::flatten", Reader::PassesOn}, {"aten::reshape", Reader::PassesOn},
      // Elementwise (the identity in eval mode): an archive not optimized keeps its dropouts.
      {"aten::dropout", Reader::PassesOn}, {"aten::dropout_", Reader::PassesOn},
      // A chunk along any dim is views of any strides; its pieces' readers are checked in turn
      // (ShuffleNet's blocks split their input so: one half to a convolution, one to a cat).
      {"aten::chunk", Reader::PassesOn}, {"prim::ListUnpack", Reader::PassesOn},
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

bool is_flatten_or_reshape(std::string_view k) { return k == "aten::flatten" || k == "aten::reshape"; }

// An op that writes its first input (aten::relu_, aten::add_, ...; not a dunder like __getitem__).
bool in_place(std::string_view k) { return k.size() > 2 && k.back() == '_' && k[k.size() - 2] != '_'; }

// Over the readers of v and, through the ops that pass the layout on, of their outputs: whether
// a flatten or reshape and whether an in-place op is among them.
void scan_aliases(const Value* v, bool& reshapes, bool& mutates, int depth) {
  if (depth > 64) {
    reshapes = mutates = true;
    return;
  }
  for (const Use& use : v->uses()) {
    const std::string_view k = use.user->kind().qual_string();
    reshapes = reshapes || is_flatten_or_reshape(k);
    mutates = mutates || in_place(k);
    if (reader_kind(use.user) == Reader::PassesOn)
      for (const Value* out : use.user->outputs()) scan_aliases(out, reshapes, mutates, depth + 1);
  }
}

bool channels_last_ok(const Value* v, std::unordered_map<const Value*, bool>& memo, int depth = 0) {
  if (auto it = memo.find(v); it != memo.end()) return it->second;
  if (depth > 64) return false;
  // flatten and reshape are views of a contiguous tensor but may copy a channels-last one; an
  // in-place op on one side would then no longer reach the other (x.flatten(1), then x.relu_():
  // PyTorch's flattened values have the ReLU). Such a value stays contiguous.
  if (depth == 0) {
    bool reshapes = false, mutates = false;
    scan_aliases(v, reshapes, mutates, 0);
    if (reshapes && mutates) {
      memo[v] = false;
      return false;
    }
  }
  memo[v] = false;  // while deciding (a cycle through loop-carried values is not taken)
  bool ok = true;
  for (const Use& use : v->uses()) {
    // A part of a channel concatenation: the prepared cat takes any layout (and passes
    // channels-last on when its own readers allow).
    if (channel_cat_of_list(use.user)) continue;
    // A channel shuffle: the prepared one keeps channels-last when its own readers allow.
    if (auto shuffle = use.offset == 0 ? channel_shuffle_at(use.user) : std::nullopt) {
      if (!channels_last_ok(shuffle->view4->output(), memo, depth + 1)) {
        ok = false;
        break;
      }
      continue;
    }
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

// aten::max_pool2d(cat, constant arguments), the concatenation's only reader: its node, else null.
static Node* max_pool_reading(const Node* cat, const std::function<bool(const Node*)>& taken) {
  if (cat->output()->uses().size() != 1) return nullptr;
  Node* pool = cat->output()->uses()[0].user;
  const FunctionSchema* s = schema_of(pool);
  if (!s || s->name != "aten::max_pool2d" || !s->overload_name.empty() || pool->inputs().size() != 6 || pool->input(0) != cat->output() ||
      pool->owning_block() != cat->owning_block() || taken(pool))
    return nullptr;
  for (size_t i = 1; i < pool->inputs().size(); ++i)
    if (!constant_of(pool->input(i))) return nullptr;
  return pool;
}

// The concatenation at `list` and the channel shuffle of its result, with the size computations
// between them (PreparedCatShuffle), when every node from the list to the shuffle's last view is
// one of them or a constant, and no value they define is read after.
static std::optional<PreparedGroup> prepare_cat_shuffle(Node* list, Node* cat, KernelFn (*lookup)(const Node*),
                                                        const std::function<bool(const Node*)>& taken) {
  using CS = PreparedCatShuffle;
  std::optional<ShuffleChain> chain;
  for (const Use& u : cat->output()->uses()) {
    if (is_kind(u.user, {"aten::size"})) continue;
    if (chain || u.offset != 0 || !(chain = channel_shuffle_at(u.user))) return std::nullopt;
  }
  if (!chain) return std::nullopt;
  const std::vector<Node*> views{chain->view5, chain->transpose, chain->contiguous, chain->view4};
  std::vector<Node*> nodes{list};
  for (Node* n = list->next(); n; n = n->next()) {
    if (n->kind().qual_string() == "prim::Constant") {
      if (n == chain->view4) return std::nullopt;
      continue;
    }
    nodes.push_back(n);
    if (n == chain->view4) break;
  }
  if (nodes.back() != chain->view4) return std::nullopt;
  std::unordered_map<const Value*, size_t> local;  // a value defined in the group: its step
  GroupBuilder b;
  for (Value* v : list->inputs()) b.slot_of(v);
  std::vector<CS::Step> steps;
  size_t cat_step = 0;
  auto arg_of = [&](Value* v) {
    CS::Arg a;
    if (auto it = local.find(v); it != local.end()) {
      a.kind = CS::Arg::Kind::Local;
      a.index = it->second;
    } else if (auto c = constant_of(v)) {
      a.value = std::move(*c);
    } else {
      a.kind = CS::Arg::Kind::Slot;
      a.index = b.slot_of(v);
    }
    return a;
  };
  for (Node* n : nodes) {
    const KernelFn fn = lookup(n);
    if (taken(n) || !fn || !n->blocks().empty() || n->outputs().size() != 1) return std::nullopt;
    const bool is_view = std::find(views.begin(), views.end(), n) != views.end();
    CS::Step st;
    st.fn = fn;
    st.sizes = n != list && n != cat && !is_view;
    if (st.sizes) {
      // Pure, and reading the concatenation only for its sizes.
      const std::string_view k = n->kind().qual_string();
      const FunctionSchema* s = schema_of(n);
      if (k != "prim::ListConstruct" && k != "prim::NumToTensor" && (!k.starts_with("aten::") || !s || s->is_mutable())) return std::nullopt;
      for (const Value* in : n->inputs())
        if (in == cat->output()) {
          auto d = n->inputs().size() == 2 && is_kind(n, {"aten::size"}) ? constant_of(n->input(1)) : std::nullopt;
          if (!d || !d->is(IValue::Kind::Int)) return std::nullopt;
          st.size_dim = d->to_int();
        }
    }
    for (Value* in : n->inputs()) st.args.push_back(arg_of(in));
    if (n == cat) cat_step = steps.size();
    local[n->output()] = steps.size();
    steps.push_back(std::move(st));
  }
  for (Node* n : nodes)
    for (const Use& u : n->output()->uses())
      if (n != chain->view4 && std::find(nodes.begin(), nodes.end(), u.user) == nodes.end()) return std::nullopt;
  auto side = [&](Value* v) { return arg_of(v); };
  CS::Arg split = side(chain->view5->input(1)), merged = side(chain->view4->input(1));
  std::unordered_map<const Value*, bool> memo;
  b.g.nodes = nodes;
  b.g.output = chain->view4->output();
  b.g.op = std::make_shared<CS>(list->inputs().size(), cat_step, std::move(split), std::move(merged), channels_last_ok(b.g.output, memo),
                                std::move(steps));
  return std::move(b.g);
}

static std::optional<PreparedGroup> prepare_cat(Node* list, KernelFn (*lookup)(const Node*), const std::function<bool(const Node*)>& taken) {
  Node* cat = channel_cat_of_list(list);
  if (!cat) return std::nullopt;
  if (auto g = prepare_cat_shuffle(list, cat, lookup, taken)) return g;
  const KernelFn fn = lookup(cat);
  if (!fn) return std::nullopt;
  std::unordered_map<const Value*, bool> memo;
  PreparedGroup g;
  g.nodes = {list, cat};
  g.inputs.assign(list->inputs().begin(), list->inputs().end());
  Node* pool = max_pool_reading(cat, taken);
  const KernelFn pool_fn = pool ? lookup(pool) : nullptr;
  if (pool && pool_fn && pure_between(list, pool, {list, cat, pool})) {
    std::vector<IValue> args;
    for (size_t i = 1; i < pool->inputs().size(); ++i) args.push_back(*constant_of(pool->input(i)));
    g.nodes.push_back(pool);
    g.output = pool->output();
    g.op = std::make_shared<PreparedCat>(fn, *constant_of(cat->input(1)), channels_last_ok(pool->output(), memo), pool_fn, std::move(args));
    return g;
  }
  g.output = cat->output();
  g.op = std::make_shared<PreparedCat>(fn, *constant_of(cat->input(1)), channels_last_ok(cat->output(), memo));
  return g;
}

static std::optional<PreparedGroup> prepare_channel_shuffle(Node* view5, KernelFn (*lookup)(const Node*),
                                                            const std::function<bool(const Node*)>& taken) {
  auto chain = channel_shuffle_at(view5);
  if (!chain) return std::nullopt;
  const std::vector<Node*> nodes{chain->view5, chain->transpose, chain->contiguous, chain->view4};
  for (Node* n : nodes)
    if (taken(n) || !lookup(n)) return std::nullopt;
  GroupBuilder b;
  b.slot_of(view5->input(0));
  auto sizes = [&](Value* v) {
    PreparedChannelShuffle::Sizes s;
    s.constant = constant_of(v);
    if (!s.constant) s.slot = b.slot_of(v);
    return s;
  };
  PreparedChannelShuffle::Sizes split = sizes(chain->view5->input(1)), merged = sizes(chain->view4->input(1));
  const Value* prev = nullptr;
  for (Node* n : nodes) {
    b.add_step(n, lookup(n), prev);
    prev = n->output();
  }
  b.g.output = chain->view4->output();
  std::unordered_map<const Value*, bool> memo;
  b.g.op = std::make_shared<PreparedChannelShuffle>(std::move(split), std::move(merged), channels_last_ok(b.g.output, memo), std::move(b.steps));
  return std::move(b.g);
}

// batch_norm(x, weight?, bias?, mean, var, training=False, momentum, eps, cudnn) with constant
// parameters, read only by a relu or relu_ right after it.
static std::optional<PreparedGroup> prepare_batch_norm_relu(Node* bn, KernelFn (*lookup)(const Node*),
                                                            const std::function<bool(const Node*)>& taken) {
  if (bn->inputs().size() != 9 || bn->output()->uses().size() != 1) return std::nullopt;
  auto training = constant_of(bn->input(5)), eps = constant_of(bn->input(7));
  if (!training || !training->is(IValue::Kind::Bool) || training->to_bool() || !eps || !eps->is(IValue::Kind::Double)) return std::nullopt;
  Tensor params[4];
  for (int i = 0; i < 4; ++i) {
    auto c = constant_of(bn->input(static_cast<size_t>(i + 1)));
    if (!c) return std::nullopt;
    if (c->is_none() && i < 2) continue;  // weight and bias are optional
    if (!c->is_tensor() || c->to_tensor().dtype() != DType::Float32 || c->to_tensor().dim() != 1) return std::nullopt;
    params[i] = c->to_tensor();
  }
  if (!params[2].defined() || !params[3].defined()) return std::nullopt;
  const int64_t ch = params[2].sizes()[0];
  for (const Tensor& t : params)
    if (t.defined() && t.sizes()[0] != ch) return std::nullopt;
  Node* relu = bn->output()->uses()[0].user;
  if (!is_kind(relu, {"aten::relu", "aten::relu_"}) || relu->inputs().size() != 1 || relu->owning_block() != bn->owning_block() ||
      taken(relu) || !pure_between(bn, relu, {bn}))
    return std::nullopt;
  const KernelFn bn_fn = lookup(bn), relu_fn = lookup(relu);
  if (!bn_fn || !relu_fn) return std::nullopt;
  GroupBuilder b;
  b.slot_of(bn->input(0));
  b.add_step(bn, bn_fn, nullptr);
  b.add_step(relu, relu_fn, bn->output());
  b.g.output = relu->output();
  std::vector<float> scale, shift;
  cpu::batch_norm_scale_shift(params[0], params[1], params[2], params[3], eps->to_double(), ch, scale, shift);
  b.g.op = std::make_shared<PreparedBatchNormRelu>(std::move(scale), std::move(shift), std::move(b.steps));
  return std::move(b.g);
}

// The nodes after `n` (the group's anchor) that fold into it: each the only reader of the value
// before it, in the same block, with nothing impure between the anchor and it; a batch norm right
// after a convolution, then post-ops (at most one residual add). Returns the last value taken.
Value* take_followers(Node* n, GroupBuilder& b, Anchor& anchor, Epilogue& epi, Value*& residual, KernelFn (*lookup)(const Node*),
                      const std::function<bool(const Node*)>& taken) {
  Value* cur = n->output();
  const size_t first = b.g.nodes.size();
  while (cur->uses().size() == 1) {
    const Use use = cur->uses()[0];
    Node* u = use.user;
    if (u->owning_block() != n->owning_block() || u->outputs().size() != 1 || taken(u)) break;
    const KernelFn fn = lookup(u);
    if (!fn || !pure_between(n, u, b.g.nodes)) break;
    if (anchor.conv && b.g.nodes.size() == first && use.offset == 0 && fold_batch_norm_into(u, b, anchor.spec)) {
      b.add_step(u, fn, cur);
      cur = u->output();
      continue;
    }
    Value* res = nullptr;
    auto op = post_op_of(u, use.offset, &res);
    if (!op || (res && residual)) break;
    if (res) residual = res;
    epi.push_back(*op);
    b.add_step(u, fn, cur);
    cur = u->output();
  }
  return cur;
}

// The group of a 1x1 convolution (`n`, its followers taken into `b`) and the depthwise
// convolution that alone reads its output, or nullopt. Constant weights only (a frozen or
// optimized graph's), no residual on either, and the depthwise layer's output left channels-last.
std::optional<PreparedGroup> prepare_expand_depthwise(Node* n, const GroupBuilder& b, const Anchor& a, const Epilogue& epi, const Value* residual,
                                                      Value* cur, KernelFn (*lookup)(const Node*), const std::function<bool(const Node*)>& taken) {
  if (residual || !b.attributes.empty() || !a.spec.weight.constant || cur->uses().size() != 1) return std::nullopt;
  const Tensor& ew = *a.spec.weight.constant;
  if (ew.dim() != 4 || ew.sizes()[2] != 1 || ew.sizes()[3] != 1 || a.spec.args.groups != 1) return std::nullopt;
  const Use use = cur->uses()[0];
  Node* d = use.user;
  if (use.offset != 0 || d->owning_block() != n->owning_block() || d->outputs().size() != 1 || taken(d) ||
      !is_kind(d, {"aten::conv2d", "aten::_convolution", "aten::convolution"}) || !pure_between(n, d, b.g.nodes))
    return std::nullopt;
  const KernelFn dfn = lookup(d);
  if (!dfn) return std::nullopt;
  GroupBuilder db;  // the depthwise layer as its own instruction would be: its input in slot 0
  db.slot_of(cur);
  auto da = anchor_of(d, db);
  if (!da || !da->conv || !da->spec.weight.constant) return std::nullopt;
  const Tensor& dw = *da->spec.weight.constant;
  if (dw.dim() != 4 || dw.sizes()[0] != ew.sizes()[0] || dw.sizes()[1] != 1 || da->spec.args.groups != dw.sizes()[0]) return std::nullopt;
  db.add_step(d, dfn, nullptr);
  Epilogue depi;
  Value* dres = nullptr;
  Value* out = take_followers(d, db, *da, depi, dres, lookup, taken);
  std::unordered_map<const Value*, bool> memo;
  if (dres || !db.attributes.empty() || !channels_last_ok(out, memo)) return std::nullopt;
  auto expand = std::make_shared<const PreparedConv>(a.spec, epi, true, -1, 4, b.steps);
  auto depthwise = std::make_shared<const PreparedConv>(da->spec, depi, true, -1, 4, std::move(db.steps));
  PreparedGroup g = b.g;
  g.nodes.insert(g.nodes.end(), db.g.nodes.begin(), db.g.nodes.end());
  g.output = out;
  g.op = std::make_shared<PreparedExpandDepthwise>(std::move(expand), std::move(depthwise));
  return g;
}

std::optional<PreparedGroup> prepare_group(Node* n, KernelFn (*lookup)(const Node*), const std::function<bool(const Node*)>& taken) {
  if (!preparation_enabled()) return std::nullopt;
  if (n->kind().qual_string() == "prim::ListConstruct") return prepare_cat(n, lookup, taken);
  if (is_kind(n, {"aten::batch_norm"})) return prepare_batch_norm_relu(n, lookup, taken);
  if (is_kind(n, {"aten::view", "aten::reshape"})) return prepare_channel_shuffle(n, lookup, taken);
  if (!is_kind(n, {"aten::linear", "aten::conv1d", "aten::conv2d", "aten::_convolution", "aten::convolution"}) || n->inputs().empty())
    return std::nullopt;
  GroupBuilder b;
  b.slot_of(n->input(0));
  auto anchor = anchor_of(n, b);
  if (!anchor) return std::nullopt;
  const KernelFn anchor_fn = lookup(n);
  if (!anchor_fn) return std::nullopt;
  b.add_step(n, anchor_fn, nullptr);

  Epilogue epi;
  Value* residual = nullptr;
  Value* cur = take_followers(n, b, *anchor, epi, residual, lookup, taken);
  if (!b.attributes_read_only()) return std::nullopt;
  const int residual_slot = residual ? static_cast<int>(b.slot_of(residual)) : -1;
  b.g.output = cur;

  if (anchor->conv) {
    if (auto pair = prepare_expand_depthwise(n, b, *anchor, epi, residual, cur, lookup, taken)) return pair;
    std::unordered_map<const Value*, bool> memo;
    const int64_t wdim = anchor->spec.weight.constant ? anchor->spec.weight.constant->dim() : 4;
    // An attribute weight's rank shows at run time: a 3-D one runs the replay (conv1d is rare).
    const bool cl = (wdim == 4 || wdim == 5) && channels_last_ok(cur, memo);
    b.g.op = std::make_shared<PreparedConv>(anchor->spec, epi, cl, residual_slot, wdim, std::move(b.steps));
  } else {
    b.g.op = std::make_shared<PreparedLinear>(anchor->spec.weight, anchor->spec.bias, epi, residual_slot, std::move(b.steps));
  }
  return std::move(b.g);
}

}  // namespace jitctl
