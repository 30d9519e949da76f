#include "passes/frozen_conv_folding.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "passes/frozen_params.h"
#include "lib/ir/constants.h"
#include "passes/dead_code_elimination.h"

namespace jitctl {
namespace {

// Input positions, the same in every conv schema (conv1d/2d/3d, their .padding overloads, and
// _convolution) and in batch_norm's.
constexpr size_t kConvWeight = 1, kConvBias = 2, kConvTransposed = 6;
constexpr size_t kBnWeight = 1, kBnBias = 2, kBnMean = 3, kBnVar = 4, kBnEps = 7;

bool is_none(const Value* v) { return v->type()->kind() == TypeKind::None; }

bool supported_conv(const Node* n) {
  static const Symbol k1 = Symbol::aten("conv1d"), k2 = Symbol::aten("conv2d"), k3 = Symbol::aten("conv3d"),
                      kConv = Symbol::aten("_convolution");
  const Symbol k = n->kind();
  if (k == k1 || k == k2 || k == k3) return n->inputs().size() > kConvBias;
  if (k != kConv || n->inputs().size() <= kConvTransposed) return false;
  // Transposed convolutions (or an unknown `transposed`) are not folded.
  const auto transposed = to_ivalue(n->input(kConvTransposed));
  return transposed && transposed->is(IValue::Kind::Bool) && !transposed->to_bool();
}

bool is_tensor(const Value* v) { return v->type()->kind() == TypeKind::Tensor; }
bool is_number(const Value* v) {
  const TypeKind k = v->type()->kind();
  return k == TypeKind::Int || k == TypeKind::Float || k == TypeKind::Number || k == TypeKind::Bool;
}

// aten::add/sub .Tensor(Tensor self, Tensor other, *, Scalar alpha) or .Scalar(Tensor self, Scalar
// other, Scalar alpha); with `alpha_arg` false, mul/div's (Tensor self, Tensor|Scalar other).
bool is_binary_op(const Node* n, Symbol a, Symbol b, bool alpha_arg) {
  if (n->kind() != a && n->kind() != b) return false;
  if (n->inputs().size() != (alpha_arg ? 3u : 2u) || n->outputs().size() != 1) return false;
  if (!is_tensor(n->input(0)) || !(is_tensor(n->input(1)) || is_number(n->input(1)))) return false;
  return !alpha_arg || is_number(n->input(2));
}

bool supported_add_or_sub(const Node* n) {
  return is_binary_op(n, Symbol::aten("add"), Symbol::aten("sub"), true);
}
bool supported_mul_or_div(const Node* n) {
  return is_binary_op(n, Symbol::aten("mul"), Symbol::aten("div"), false);
}

// Whether the op's constant broadcasts against the conv's output without changing its shape and
// fits the weight: every dim 1 except dim 1, which may be the number of out-channels.
bool fits_out_channels(const Tensor& op, const Tensor& weight) {
  if (op.dim() > weight.dim()) return false;
  for (int64_t i = op.dim() - 1; i >= 0; --i) {
    if (i == 1 && op.sizes()[1] == weight.sizes()[0]) continue;
    if (op.sizes()[static_cast<size_t>(i)] != 1) return false;
  }
  return true;
}

// PyTorch's check: a floating constant, or one that c10::promoteTypes with the (floating) weight
// type leaves at the weight type -- any integer or bool, but not a complex one.
bool keeps_weight_dtype(DType t) { return is_floating(t) || !is_complex(t); }

bool conv_and_op_preconditions(const Node* conv, const Node* op) {
  if (!constant_parameters(conv) || !constant_parameters(op)) return false;
  if (conv->output()->uses().size() > 1) return false;
  const Tensor weight = constant_tensor(conv->input(kConvWeight));
  if (!is_floating(weight.dtype())) return false;
  if (is_tensor(op->input(1))) {
    const Tensor t = constant_tensor(op->input(1));
    if (!fits_out_channels(t, weight)) return false;
    if (!keeps_weight_dtype(t.dtype())) return false;
  }
  return true;
}

// Reads of a tensor's metadata only: a folded conv's output has the same shape, dtype and device.
bool reads_only_metadata(const Node* n) {
  static const Symbol kDim = Symbol::aten("dim"), kSize = Symbol::aten("size"), kDtype = Symbol::prim("dtype"),
                      kDevice = Symbol::prim("device");
  const Symbol k = n->kind();
  return k == kDim || k == kSize || k == kDtype || k == kDevice;
}

// Whether `conv`'s output may change under `op`, its one real use: PyTorch's passes want no other
// use; past_shape_reads allows others that read only the output's metadata (scripted BatchNorm's
// input-rank check reads the conv's output's dim()).
bool only_use_besides_metadata(const Node* conv, const Node* op, bool past_shape_reads) {
  const auto& uses = conv->output()->uses();
  if (!past_shape_reads) return uses.size() == 1;
  return std::all_of(uses.begin(), uses.end(), [&](const Use& u) { return u.user == op || reads_only_metadata(u.user); });
}

class Folder {
 public:
  Folder(Graph& g, const PassContext& ctx, bool past_shape_reads = false)
      : g_(g), run_(ctx.run_operator), past_shape_reads_(past_shape_reads) {}

  bool batchnorm(Block* b) {
    bool changed = false;
    for (Node* n : b->nodes()) {
      for (Block* sub : n->blocks()) changed |= batchnorm(sub);
      if (n->kind() != aten::batch_norm || n->inputs().size() <= kBnEps || !supported_conv(n->input(0)->node()))
        continue;
      Node* conv = n->input(0)->node();
      if (!constant_parameters(conv) || !constant_parameters(n) || !only_use_besides_metadata(conv, n, past_shape_reads_))
        continue;
      // track_running_stats=False: no statistics to fold.
      if (is_none(n->input(kBnMean)) && is_none(n->input(kBnVar))) continue;
      if (is_none(n->input(kBnMean)) || is_none(n->input(kBnVar))) continue;
      const Tensor mean = constant_tensor(n->input(kBnMean));
      const Tensor var = constant_tensor(n->input(kBnVar));
      const IValue eps = *to_ivalue(n->input(kBnEps));
      const Tensor w = constant_tensor(conv->input(kConvWeight));
      const Tensor conv_b = is_none(conv->input(kConvBias)) ? like(mean, "aten::zeros_like") : constant_tensor(conv->input(kConvBias));
      const Tensor bn_w = is_none(n->input(kBnWeight)) ? like(mean, "aten::ones_like") : constant_tensor(n->input(kBnWeight));
      const Tensor bn_b = is_none(n->input(kBnBias)) ? like(mean, "aten::zeros_like") : constant_tensor(n->input(kBnBias));

      // torch/nn/utils/fusion.py's arithmetic, operation for operation.
      const Tensor inv_std = op1("aten::rsqrt", op("aten::add.Scalar", {var, eps, IValue(int64_t{1})}));
      std::vector<int64_t> shape(static_cast<size_t>(w.dim()), 1);
      shape[0] = -1;
      const Tensor scale = op1("aten::reshape", {mul(bn_w, inv_std), int_list(shape)});
      const Tensor new_w = to_dtype(mul(w, scale), w.dtype());
      const Tensor centered = op1("aten::sub.Tensor", {conv_b, mean, IValue(int64_t{1})});
      const Tensor new_b = to_dtype(op1("aten::add.Tensor", {mul(mul(centered, inv_std), bn_w), bn_b, IValue(int64_t{1})}),
                                    conv_b.dtype());

      WithInsertPoint guard(conv);
      Value* fused_w = g_.insert_constant(IValue(new_w));
      Value* fused_b = g_.insert_constant(IValue(new_b));
      Value* old_w = conv->input(kConvWeight);
      Value* old_b = conv->input(kConvBias);
      fused_w->set_debug_name(old_w->debug_name() + "_fused_bn");
      fused_b->set_debug_name(old_b->debug_name() + "_fused_bn");
      conv->replace_input_with(old_w, fused_w);
      conv->replace_input_with(old_b, fused_b);
      n->output()->replace_all_uses_with(conv->output());
      changed = true;
    }
    return changed;
  }

  bool add_or_sub(Block* b) {
    bool changed = false;
    for (Node* n : b->nodes()) {
      for (Block* sub : n->blocks()) changed |= add_or_sub(sub);
      if (!supported_add_or_sub(n) || !supported_conv(n->input(0)->node())) continue;
      Node* conv = n->input(0)->node();
      if (!conv_and_op_preconditions(conv, n)) continue;
      const Tensor w = constant_tensor(conv->input(kConvWeight));
      const Tensor operand = resized_operand(n->input(1), {w.sizes()[0]}, w.dtype());
      const Tensor bias = is_none(conv->input(kConvBias)) ? zeros_like(operand, w.dtype()) : constant_tensor(conv->input(kConvBias));
      // The op itself runs on (bias, resized operand, its own alpha).
      const std::string name = std::string(n->kind().qual_string()) + ".Tensor";
      const Tensor fused = to_dtype(op1(name, {bias, operand, *to_ivalue(n->input(2))}), bias.dtype());

      WithInsertPoint guard(conv);
      // As PyTorch, the op is left computing the fold from constants (DCE removes it), so that the
      // conv's output loses this use: the next op in the walk may fold too.
      n->replace_input_with(conv->output(), g_.insert_constant(IValue(bias)));
      n->replace_input(1, g_.insert_constant(IValue(operand)));
      Value* fused_b = g_.insert_constant(IValue(fused));
      Value* old_b = conv->input(kConvBias);
      fused_b->set_debug_name(old_b->debug_name() + "_fused_" + std::string(n->kind().unqual_string()));
      conv->replace_input_with(old_b, fused_b);
      n->output()->replace_all_uses_with(conv->output());
      changed = true;
    }
    return changed;
  }

  bool mul_or_div(Block* b) {
    bool changed = false;
    for (Node* n : b->nodes()) {
      for (Block* sub : n->blocks()) changed |= mul_or_div(sub);
      if (!supported_mul_or_div(n) || !supported_conv(n->input(0)->node())) continue;
      Node* conv = n->input(0)->node();
      if (!conv_and_op_preconditions(conv, n)) continue;
      const Tensor w = constant_tensor(conv->input(kConvWeight));
      const int64_t out_channels = w.sizes()[0];
      std::vector<int64_t> weight_shape(static_cast<size_t>(w.dim()), 1);
      weight_shape[0] = out_channels;
      const std::string name = std::string(n->kind().qual_string()) + ".Tensor";
      const Tensor operand = resized_operand(n->input(1), weight_shape, w.dtype());
      const Tensor fused_w = to_dtype(op1(name, {w, operand}), w.dtype());

      WithInsertPoint guard(conv);
      n->replace_input_with(conv->output(), g_.insert_constant(IValue(w)));
      n->replace_input(1, g_.insert_constant(IValue(operand)));
      Value* new_w = g_.insert_constant(IValue(fused_w));
      Value* old_w = conv->input(kConvWeight);
      const std::string suffix = "_fused_" + std::string(n->kind().unqual_string());
      new_w->set_debug_name(old_w->debug_name() + suffix);
      conv->replace_input_with(old_w, new_w);
      n->output()->replace_all_uses_with(conv->output());
      if (!is_none(conv->input(kConvBias))) {
        const Tensor bias = constant_tensor(conv->input(kConvBias));
        const Tensor fused_b = to_dtype(op1(name, {bias, resized_operand(n->input(1), {out_channels}, bias.dtype())}), bias.dtype());
        Value* new_b = g_.insert_constant(IValue(fused_b));
        Value* old_b = conv->input(kConvBias);
        // PyTorch renames the new weight here (not the new bias): the names follow it.
        new_w->set_debug_name(old_b->debug_name() + suffix);
        conv->replace_input_with(old_b, new_b);
      }
      changed = true;
    }
    return changed;
  }

 private:
  std::vector<IValue> op(std::string_view name, std::vector<IValue> args) { return run_(name, std::move(args)); }
  Tensor op1(std::string_view name, std::vector<IValue> args) { return op(name, std::move(args)).at(0).to_tensor(); }
  Tensor mul(const Tensor& a, const Tensor& b) { return op1("aten::mul.Tensor", {IValue(a), IValue(b)}); }
  static IValue int_list(const std::vector<int64_t>& v) {
    auto l = std::make_shared<ListData>();
    for (int64_t x : v) l->items.emplace_back(x);
    l->elem_type = "int";
    return IValue(std::move(l));
  }
  static IValue dtype_code(DType t) { return IValue(static_cast<int64_t>(t)); }
  Tensor like(const Tensor& t, std::string_view factory) {
    return op1(factory, {IValue(t), IValue(), IValue(), IValue(), IValue(), IValue()});
  }
  Tensor zeros_like(const Tensor& t, DType dtype) {
    return op1("aten::zeros_like", {IValue(t), dtype_code(dtype), IValue(), IValue(), IValue(), IValue()});
  }
  Tensor to_dtype(const Tensor& t, DType dtype) {
    if (t.dtype() == dtype) return t;
    return op1("aten::to.dtype", {IValue(t), dtype_code(dtype), IValue(false), IValue(false), IValue()});
  }
  // PyTorch's resizeConstantScalarOrTensorToShape: a number becomes a tensor of `shape` (the
  // weight's dtype) filled with it; a one-element tensor is expanded to `shape`; any other is
  // viewed as `shape`.
  Tensor resized_operand(const Value* v, const std::vector<int64_t>& shape, DType dtype) {
    Tensor t;
    if (is_tensor(v)) {
      t = constant_tensor(v);
    } else {
      t = op1("aten::full", {int_list(shape), *to_ivalue(v), dtype_code(dtype), IValue(), IValue(), IValue()});
    }
    if (t.numel() == 1) {
      t = op1("aten::reshape", {IValue(t), int_list({1})});
      return op1("aten::expand", {IValue(t), int_list(shape), IValue(false)});
    }
    return op1("aten::view", {IValue(t), int_list(shape)});
  }

  Graph& g_;
  const OperatorRunner& run_;
  bool past_shape_reads_;
};

bool fold(Graph& g, const PassContext& ctx, bool (Folder::*walk)(Block*), bool past_shape_reads = false) {
  // Folding computes new weights; without a way to run operators there is nothing to do.
  if (!ctx.run_operator) return false;
  Folder f(g, ctx, past_shape_reads);
  const bool changed = (f.*walk)(g.block());
  eliminate_dead_code(g);
  return changed;
}

}  // namespace

bool fold_frozen_conv_batchnorm(Graph& g, const PassContext& ctx) { return fold(g, ctx, &Folder::batchnorm); }
bool fold_frozen_conv_add_or_sub(Graph& g, const PassContext& ctx) { return fold(g, ctx, &Folder::add_or_sub); }
bool fold_frozen_conv_mul_or_div(Graph& g, const PassContext& ctx) { return fold(g, ctx, &Folder::mul_or_div); }
bool fold_conv_batchnorm_past_shape_reads(Graph& g, const PassContext& ctx) {
  return fold(g, ctx, &Folder::batchnorm, /*past_shape_reads=*/true);
}

}  // namespace jitctl
