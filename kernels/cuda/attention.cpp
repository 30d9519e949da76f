// The attention paths on the GPU: scaled_dot_product_attention, _native_multi_head_attention
// (nn.MultiheadAttention's fast path) and _transformer_encoder_layer_fwd
// (nn.TransformerEncoderLayer's). The arguments are checked by the CPU side's functions
// (kernels/cpu/attention.h: the same messages); the products are cuBLAS batched GEMMs through
// the matmul and linear kernels, the masked softmax one kernel (reduction.cu), the rest the
// layer-norm, add and activation kernels (compose.h). float32; other dtypes run on the CPU.
#include <cmath>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "kernels/cpu/attention.h"
#include "kernels/cpu/attention_core.h"
#include "kernels/cpu/nn_util.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/cuda/compose.h"
#include "kernels/cuda/context.h"
#include "kernels/cuda/reduction_launch.h"
#include "kernels/cuda/register_cuda.h"

namespace jitctl::cuda {
namespace {

void float32_only(const char* op, std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts)
    if (t->defined() && t->dtype() != DType::Float32) throw NotOnDevice(fmt::format("{}: dtype {} (float32 only)", op, dtype_name(t->dtype())));
}

int64_t numel_of(const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

// [..., Hk, S, E] -> [..., Hk * group, S, E], each head repeated `group` times (enable_gqa).
Tensor repeat_heads(const Tensor& t, int64_t group) {
  std::vector<int64_t> sizes = t.sizes(), strides = t.strides();
  const size_t h = sizes.size() - 3;
  sizes.insert(sizes.begin() + static_cast<std::ptrdiff_t>(h) + 1, group);
  strides.insert(strides.begin() + static_cast<std::ptrdiff_t>(h) + 1, 0);
  const Tensor c = contiguous(cpu::make_view(t, sizes, strides, t.storage_offset()));
  std::vector<int64_t> merged = t.sizes();
  merged[h] *= group;
  return cpu::make_view(c, merged, contiguous_strides(merged), c.storage_offset());
}

// softmax(q kᵀ · scale, masked) v per batch entry (kernels/cpu/attention.cpp's k_sdpa).
void k_sdpa(Stack& s) {
  const cpu::SdpaShape shape = cpu::sdpa_shape(s);
  const Tensor &q = s[0].to_tensor(), &k = s[1].to_tensor(), &v = s[2].to_tensor();
  const char* op = "scaled_dot_product_attention";
  float32_only(op, {&q});
  if (shape.mask.defined() && shape.mask.dtype() != DType::Bool) float32_only(op, {&shape.mask});
  const std::vector<int64_t> out_sizes = shape.out_sizes();
  if (numel_of(out_sizes) == 0 || shape.S == 0) throw NotOnDevice(fmt::format("{}: an empty attention", op));
  const Tensor kk = shape.group > 1 ? repeat_heads(on_device(k), shape.group) : on_device(k);
  const Tensor vv = shape.group > 1 ? repeat_heads(on_device(v), shape.group) : on_device(v);
  // q read with the full batch, so the scores have it even where only v or the mask brings a dim.
  std::vector<int64_t> q_sizes = shape.batch;
  q_sizes.push_back(shape.L);
  q_sizes.push_back(shape.E);
  const Tensor scores = contiguous(call_tensor_op("aten::matmul", {cpu::expand_to(on_device(q), q_sizes), transposed_view(kk)}));
  Tensor mask;
  std::vector<int64_t> score_sizes = shape.batch;
  score_sizes.push_back(shape.L);
  score_sizes.push_back(shape.S);
  if (scores.sizes() != score_sizes) throw NotOnDevice(fmt::format("{}: scores of shape {}, expected {}", op, shape_string(scores.sizes()), shape_string(score_sizes)));
  if (shape.mask.defined()) mask = contiguous(cpu::expand_to(on_device(shape.mask), score_sizes));
  const bool float_mask = mask.defined() && mask.dtype() == DType::Float32;
  launch_masked_softmax(ptr<float>(scores), numel_of(score_sizes) / shape.S, shape.S, shape.L, static_cast<float>(shape.scale), shape.causal,
                        float_mask ? SoftmaxMask::Additive : SoftmaxMask::KeepNonzero, mask.defined() ? address(mask) : nullptr, float_mask,
                        stream());
  check_launch(op);
  Tensor out = call_tensor_op("aten::matmul", {scores, vv});
  if (out.sizes() != out_sizes) throw NotOnDevice(fmt::format("{}: output of shape {}, expected {}", op, shape_string(out.sizes()), shape_string(out_sizes)));
  cpu::set_output(s, IValue(std::move(out)));
}

// [B, T, ld] rows, columns [offset, offset + E) split into heads: the [B, H, T, dh] view.
Tensor heads_view(const Tensor& rows, int64_t offset, int64_t heads, int64_t dh) {
  const int64_t b = rows.sizes()[0], t = rows.sizes()[1], ld = rows.sizes()[2];
  return cpu::make_view(rows, {b, heads, t, dh}, {t * ld, dh, ld, 1}, rows.storage_offset() + offset);
}

// Multi-head attention of [B, T, E] inputs (kernels/cpu/attention.cpp's mha): the output, and the
// softmax [B, H, T, T] in `weights` when it is not null.
Tensor mha(const Tensor& q_in, const Tensor& k_in, const Tensor& v_in, int64_t e, int64_t heads, const IValue& qkv_w_arg, const IValue& qkv_b_arg,
           const IValue& proj_w, const IValue& proj_b, const Tensor& mask_arg, const IValue& mask_type, Tensor* weights) {
  const char* op = "_native_multi_head_attention";
  const int64_t batch = q_in.sizes()[0], seq = q_in.sizes()[1], dh = e / heads;
  const Tensor qkv_w = on_device(qkv_w_arg.to_tensor()), qkv_b = on_device(qkv_b_arg.to_tensor());
  Tensor qh, kh, vh;
  if (k_in.same(q_in) && v_in.same(k_in)) {
    const Tensor qkv = contiguous(call_tensor_op("aten::linear", {q_in, qkv_w, qkv_b}));
    qh = heads_view(qkv, 0, heads, dh);
    kh = heads_view(qkv, e, heads, dh);
    vh = heads_view(qkv, 2 * e, heads, dh);
  } else {
    const Tensor w = contiguous(qkv_w), b = contiguous(qkv_b);
    auto project = [&](const Tensor& x, int64_t part) {
      const Tensor wp = cpu::make_view(w, {e, e}, {e, 1}, w.storage_offset() + part * e * e);
      const Tensor bp = cpu::make_view(b, {e}, {1}, b.storage_offset() + part * e);
      return heads_view(contiguous(call_tensor_op("aten::linear", {x, wp, bp})), 0, heads, dh);
    };
    qh = project(q_in, 0);
    kh = project(k_in, 1);
    vh = project(v_in, 2);
  }
  const Tensor scores = contiguous(call_tensor_op("aten::matmul", {qh, transposed_view(kh)}));
  Tensor mask;
  if (mask_arg.defined()) {
    if (mask_arg.dtype() != DType::Bool) float32_only(op, {&mask_arg});
    const Tensor m = on_device(mask_arg);
    const cpu::AttentionMaskStrides st = cpu::attention_mask_strides(m.sizes(), m.strides(), batch, heads, seq, seq, mask_type);
    mask = contiguous(cpu::make_view(m, {batch, heads, seq, seq}, {st.sb, st.sh, st.st, st.ss}, m.storage_offset()));
  }
  // The CPU's scale, computed in float: 1 / sqrt(head_dim).
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  launch_masked_softmax(ptr<float>(scores), batch * heads * seq, seq, seq, scale, false, SoftmaxMask::DropNonzero,
                        mask.defined() ? address(mask) : nullptr, mask.defined() && mask.dtype() == DType::Float32, stream());
  check_launch(op);
  const Tensor ctx = call_tensor_op("aten::matmul", {scores, vh});  // [B, H, T, dh]
  // [B, T, H, dh] rows of E.
  const Tensor merged = contiguous(cpu::make_view(ctx, {batch, seq, heads, dh}, {ctx.strides()[0], ctx.strides()[2], ctx.strides()[1], ctx.strides()[3]},
                                                  ctx.storage_offset()));
  const Tensor rows = cpu::make_view(merged, {batch, seq, e}, {seq * e, e, 1}, merged.storage_offset());
  if (weights) *weights = scores;
  return call_tensor_op("aten::linear", {rows, on_device(proj_w.to_tensor()), on_device(proj_b.to_tensor())});
}

// (query, key, value, embed_dim, num_head, qkv_weight, qkv_bias, proj_weight, proj_bias, mask,
// need_weights, average_attn_weights, mask_type) -> (out, weights?)
void k_native_mha(Stack& s) {
  const Tensor &q = s[0].to_tensor(), &k = s[1].to_tensor(), &v = s[2].to_tensor();
  const int64_t e = s[3].to_int(), heads = s[4].to_int();
  cpu::check_mha_inputs(q, k, v, e, heads);
  cpu::check_mha_weights(s[5], s[6], s[7], s[8], e);
  float32_only("_native_multi_head_attention", {&q});
  if (q.numel() == 0) throw NotOnDevice("_native_multi_head_attention: an empty input");
  const bool need_weights = s[10].to_bool(), average = s[11].to_bool();
  Tensor weights;
  Tensor out = mha(q, k, v, e, heads, s[5], s[6], s[7], s[8], cpu::optional_tensor(s[9]), s[12], need_weights ? &weights : nullptr);
  IValue second;
  if (need_weights) second = average ? call_op("aten::mean.dim", {weights, int_list({1}), IValue(false), IValue()}) : IValue(weights);
  s.assign({IValue(std::move(out)), std::move(second)});
}

// (src, embed_dim, num_heads, qkv_weight, qkv_bias, proj_weight, proj_bias, use_gelu, norm_first,
// eps, norm_weight_1, norm_bias_1, norm_weight_2, norm_bias_2, ffn_weight_1, ffn_bias_1,
// ffn_weight_2, ffn_bias_2, mask, mask_type) -> out, in kernels/cpu/attention.cpp's order.
void k_encoder_layer(Stack& s) {
  cpu::check_encoder_layer(s);
  const Tensor& src = s[0].to_tensor();
  const int64_t e = s[1].to_int(), heads = s[2].to_int();
  float32_only("_transformer_encoder_layer_fwd", {&src});
  if (src.numel() == 0) throw NotOnDevice("_transformer_encoder_layer_fwd: an empty input");
  const bool use_gelu = s[7].to_bool(), norm_first = s[8].to_bool();
  const IValue eps = s[9];
  auto norm = [&](const Tensor& x, size_t w) { return call_tensor_op("aten::layer_norm", {x, int_list({e}), s[w], s[w + 1], eps, IValue(false)}); };
  auto add = [](const Tensor& a, const Tensor& b) { return call_tensor_op("aten::add.Tensor", {a, b, IValue(int64_t{1})}); };
  const Tensor attn_in = norm_first ? norm(src, 10) : src;
  Tensor attn = mha(attn_in, attn_in, attn_in, e, heads, s[3], s[4], s[5], s[6], cpu::optional_tensor(s[18]), s[19], nullptr);
  attn = add(attn, src);
  if (!norm_first) attn = norm(attn, 10);
  const Tensor ffn_in = norm_first ? norm(attn, 12) : attn;
  Tensor hidden = call_tensor_op("aten::linear", {ffn_in, s[14], s[15]});
  hidden = use_gelu ? call_tensor_op("aten::gelu", {hidden, IValue("none")}) : call_tensor_op("aten::relu", {hidden});
  Tensor out = add(call_tensor_op("aten::linear", {hidden, s[16], s[17]}), attn);
  if (!norm_first) out = norm(out, 12);
  cpu::set_output(s, IValue(std::move(out)));
}

}  // namespace

void register_attention_kernels() {
  register_kernel("aten::scaled_dot_product_attention", k_sdpa, Backend::CUDA);
  register_kernel("aten::_native_multi_head_attention", k_native_mha, Backend::CUDA);
  register_kernel("aten::_transformer_encoder_layer_fwd", k_encoder_layer, Backend::CUDA);
}

}  // namespace jitctl::cuda
