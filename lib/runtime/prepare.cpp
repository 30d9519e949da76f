#include "lib/runtime/prepare.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "kernels/cpu/epilogue.h"
#include "kernels/cpu/expand_depthwise.h"
#include "kernels/cpu/norm.h"
#include "kernels/cpu/packed_conv.h"
#include "kernels/cpu/packed_linear.h"
#include "kernels/cpu/tensor_util.h"
#include "lib/core/error.h"
#include "lib/frontend/schema_matching.h"
#include "lib/ir/constants.h"
#include "lib/runtime/prepare_internal.h"

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

using namespace prepare_detail;

// ---- what runs: the fast path, and the original kernels for inputs it cannot take ------------

namespace prepare_detail {

const IValue& arg_value(const Arg& a, const Stack& in, const std::vector<IValue>& outs) {
  return a.kind == Arg::Kind::Const ? a.value : a.kind == Arg::Kind::Slot ? in.at(a.index) : outs.at(a.index);
}

IValue call(const Step& st, const Stack& in, const std::vector<IValue>& outs) {
  Stack s;
  s.reserve(st.args.size());
  for (const Arg& a : st.args) s.push_back(arg_value(a, in, outs));
  st.fn(s);
  return std::move(s.at(0));
}

Tensor replay(const std::vector<Step>& steps, const Stack& in, const std::function<void(size_t, IValue&)>& after) {
  // Each output is let go after its last reader, as the ops run one by one would.
  std::vector<size_t> last(steps.size(), 0);
  for (size_t i = 0; i < steps.size(); ++i)
    for (const Arg& a : steps[i].args)
      if (a.kind == Arg::Kind::Output) last[a.index] = i;
  std::vector<IValue> outs(steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    outs[i] = call(steps[i], in, outs);
    if (after) after(i, outs[i]);
    for (const Arg& a : steps[i].args)
      if (a.kind == Arg::Kind::Output && last[a.index] == i) outs[a.index] = IValue();
  }
  return outs.back().to_tensor();
}

}  // namespace prepare_detail

namespace {

using cpu::Epilogue;
using cpu::PostOp;

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

void collect_reads(const Block* b, const std::string& name, std::vector<const Value*>& out) {
  for (const Node* n : b->nodes()) {
    if (n->kind().qual_string() == "prim::GetAttr" && n->s(attr::name) == name) out.push_back(n->output());
    for (const Block* inner : n->blocks()) collect_reads(inner, name, out);
  }
}

}  // namespace

namespace prepare_detail {

const FunctionSchema* schema_of(const Node* n) { return n->schema() ? n->schema() : match_builtin_schema(n); }

size_t GroupBuilder::slot_of(Value* v) {
  for (size_t i = 0; i < g.inputs.size(); ++i)
    if (g.inputs[i] == v) return i;
  g.inputs.push_back(v);
  return g.inputs.size() - 1;
}

std::optional<Param> GroupBuilder::param(Value* v, bool optional) {
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

Arg GroupBuilder::arg_of(Value* v) {
  Arg a;
  if (auto it = outputs.find(v); it != outputs.end()) {
    a.kind = Arg::Kind::Output;
    a.index = it->second;
  } else if (auto c = constant_of(v)) {
    a.value = std::move(*c);
  } else {
    a.kind = Arg::Kind::Slot;
    a.index = slot_of(v);
  }
  return a;
}

void GroupBuilder::add_step(Node* n, KernelFn fn) {
  Step s;
  s.fn = fn;
  for (Value* in : n->inputs()) s.args.push_back(arg_of(in));
  outputs[n->output()] = steps.size();
  steps.push_back(std::move(s));
  g.nodes.push_back(n);
}

bool GroupBuilder::attributes_read_only() const {
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

bool pure_between(const Node* a, const Node* b, const std::vector<Node*>& group) {
  for (const Node* n = a->next(); n && n != b; n = n->next()) {
    if (std::find(group.begin(), group.end(), n) != group.end()) continue;
    const std::string_view k = n->kind().qual_string();
    if (k == "prim::Constant" || k == "prim::ListConstruct" || k == "prim::TupleConstruct" || k == "prim::GetAttr") continue;
    if (!n->blocks().empty() || !k.starts_with("aten::")) return false;
    const FunctionSchema* s = schema_of(n);
    if (!s || s->is_mutable()) return false;
  }
  return true;
}

}  // namespace prepare_detail

namespace {

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

}  // namespace

bool prepare_detail::channels_last_ok(const Value* v, std::unordered_map<const Value*, bool>& memo, int depth) {
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
  b.add_step(bn, bn_fn);
  b.add_step(relu, relu_fn);
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
      b.add_step(u, fn);
      cur = u->output();
      continue;
    }
    Value* res = nullptr;
    auto op = post_op_of(u, use.offset, &res);
    if (!op || (res && residual)) break;
    if (res) residual = res;
    epi.push_back(*op);
    b.add_step(u, fn);
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
  db.add_step(d, dfn);
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
  b.add_step(n, anchor_fn);

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
