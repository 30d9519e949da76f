#include "passes/frozen_linear_folding.h"

#include <algorithm>
#include <string>
#include <vector>

#include "passes/frozen_params.h"
#include "lib/ir/constants.h"
#include "passes/dead_code_elimination.h"

namespace jitctl {
namespace {

// Input positions of aten::linear(input, weight, bias) and aten::batch_norm.
constexpr size_t kLinWeight = 1, kLinBias = 2;
constexpr size_t kBnWeight = 1, kBnBias = 2, kBnMean = 3, kBnVar = 4, kBnTraining = 5, kBnEps = 7;

bool is_constant(const Value* v) { return v->node()->kind() == prim::Constant; }
bool is_none(const Value* v) { return v->type()->kind() == TypeKind::None; }
std::optional<int64_t> constant_int(const Value* v) {
  const auto c = to_ivalue(v);
  if (!c || !c->is(IValue::Kind::Int)) return std::nullopt;
  return c->to_int();
}

// Elementwise ops whose output has their first input's shape.
bool keeps_shape(Symbol k) {
  static const std::vector<Symbol> kinds = {
      Symbol::aten("relu"),      Symbol::aten("relu_"),     Symbol::aten("sigmoid"),    Symbol::aten("tanh"),
      Symbol::aten("gelu"),      Symbol::aten("silu"),      Symbol::aten("hardtanh"),   Symbol::aten("hardswish"),
      Symbol::aten("hardsigmoid"), Symbol::aten("leaky_relu"), Symbol::aten("elu"),     Symbol::aten("relu6"),
      Symbol::aten("dropout"),   Symbol::aten("feature_dropout"), Symbol::aten("batch_norm"), Symbol::aten("contiguous"),
      Symbol::aten("detach"),    Symbol::aten("linear")};
  return std::find(kinds.begin(), kinds.end(), k) != kinds.end();
}

// Whether `v` is certainly 2-D whenever the graph gets past the node that makes it (which throws
// for inputs of other ranks, or always makes two dims).
bool proven_2d(const Value* v, int depth = 0) {
  if (depth > 32) return false;
  const Node* n = v->node();
  const Symbol k = n->kind();
  if (n->outputs().size() != 1) return false;
  if (k == Symbol::aten("flatten") && n->inputs().size() == 3)
    return constant_int(n->input(1)) == 1 && constant_int(n->input(2)) == -1;
  if (k == Symbol::aten("view") || k == Symbol::aten("reshape")) {
    if (n->inputs().size() != 2) return false;
    if (const auto sizes = to_ivalue(n->input(1)); sizes && sizes->is(IValue::Kind::List))
      return sizes->to_list()->items.size() == 2;
    // A list built in the graph from two sizes (x.view(x.size(0), -1)).
    const Node* list = n->input(1)->node();
    return list->kind() == prim::ListConstruct && list->inputs().size() == 2;
  }
  if (k == Symbol::aten("mm") || k == Symbol::aten("addmm")) return true;
  if (keeps_shape(k) && !n->inputs().empty()) return proven_2d(n->input(0), depth + 1);
  return false;
}

bool reads_only_metadata(const Node* n) {
  static const Symbol kDim = Symbol::aten("dim"), kSize = Symbol::aten("size"), kDtype = Symbol::prim("dtype"),
                      kDevice = Symbol::prim("device");
  const Symbol k = n->kind();
  return k == kDim || k == kSize || k == kDtype || k == kDevice;
}

class Folder {
 public:
  Folder(Graph& g, const PassContext& ctx) : g_(g), run_(ctx.run_operator) {}

  bool walk(Block* b) {
    bool changed = false;
    for (Node* n : b->nodes()) {
      for (Block* sub : n->blocks()) changed |= walk(sub);
      if (n->kind() == aten::batch_norm && n->inputs().size() > kBnEps && foldable(n->input(0)->node(), n)) {
        fold(n->input(0)->node(), n);
        changed = true;
      }
    }
    return changed;
  }

 private:
  bool foldable(const Node* linear, const Node* bn) const {
    if (linear->kind() != Symbol::aten("linear") || linear->inputs().size() != 3) return false;
    for (size_t i = 1; i < 3; ++i)
      if (!is_constant(linear->input(i))) return false;
    for (size_t i = 1; i < bn->inputs().size(); ++i)
      if (!is_constant(bn->input(i))) return false;
    const auto training = to_ivalue(bn->input(kBnTraining));
    if (!training || !training->is(IValue::Kind::Bool) || training->to_bool()) return false;
    if (is_none(bn->input(kBnMean)) || is_none(bn->input(kBnVar))) return false;
    const auto& uses = linear->output()->uses();
    if (!std::all_of(uses.begin(), uses.end(), [&](const Use& u) { return u.user == bn || reads_only_metadata(u.user); }))
      return false;
    if (!proven_2d(linear->input(0))) return false;
    const Tensor w = constant_tensor(linear->input(kLinWeight));
    if (!is_floating(w.dtype()) || w.dim() != 2) return false;
    const Tensor mean = constant_tensor(bn->input(kBnMean));
    return mean.dim() == 1 && mean.sizes()[0] == w.sizes()[0];
  }

  void fold(Node* linear, Node* bn) {
    const Tensor mean = constant_tensor(bn->input(kBnMean));
    const Tensor var = constant_tensor(bn->input(kBnVar));
    const IValue eps = *to_ivalue(bn->input(kBnEps));
    const Tensor w = constant_tensor(linear->input(kLinWeight));
    const Tensor lin_b = is_none(linear->input(kLinBias)) ? like(mean, "aten::zeros_like") : constant_tensor(linear->input(kLinBias));
    const Tensor bn_w = is_none(bn->input(kBnWeight)) ? like(mean, "aten::ones_like") : constant_tensor(bn->input(kBnWeight));
    const Tensor bn_b = is_none(bn->input(kBnBias)) ? like(mean, "aten::zeros_like") : constant_tensor(bn->input(kBnBias));

    // torch/nn/utils/fusion.py's fuse_linear_bn_weights, operation for operation.
    const Tensor scale = mul(bn_w, op1("aten::rsqrt", {op1("aten::add.Scalar", {var, eps, IValue(int64_t{1})})}));
    const Tensor new_w = mul(w, op1("aten::unsqueeze", {IValue(scale), IValue(int64_t{-1})}));
    const Tensor centered = op1("aten::sub.Tensor", {lin_b, mean, IValue(int64_t{1})});
    const Tensor new_b = op1("aten::add.Tensor", {mul(centered, scale), bn_b, IValue(int64_t{1})});

    WithInsertPoint guard(linear);
    Value* fused_w = g_.insert_constant(IValue(new_w));
    Value* fused_b = g_.insert_constant(IValue(new_b));
    Value* old_w = linear->input(kLinWeight);
    Value* old_b = linear->input(kLinBias);
    fused_w->set_debug_name(old_w->debug_name() + "_fused_bn");
    fused_b->set_debug_name(old_b->debug_name() + "_fused_bn");
    linear->replace_input_with(old_w, fused_w);
    linear->replace_input_with(old_b, fused_b);
    bn->output()->replace_all_uses_with(linear->output());
  }

  Tensor op1(std::string_view name, std::vector<IValue> args) { return run_(name, std::move(args)).at(0).to_tensor(); }
  Tensor mul(const Tensor& a, const Tensor& b) { return op1("aten::mul.Tensor", {IValue(a), IValue(b)}); }
  Tensor like(const Tensor& t, std::string_view factory) {
    return op1(factory, {IValue(t), IValue(), IValue(), IValue(), IValue(), IValue()});
  }

  Graph& g_;
  const OperatorRunner& run_;
};

}  // namespace

bool fold_frozen_linear_batchnorm(Graph& g, const PassContext& ctx) {
  if (!ctx.run_operator) return false;
  Folder f(g, ctx);
  const bool changed = f.walk(g.block());
  eliminate_dead_code(g);
  return changed;
}

}  // namespace jitctl
