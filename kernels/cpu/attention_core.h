#pragma once
// The middle of multi-head attention, shared by _native_multi_head_attention,
// _transformer_encoder_layer_fwd and their prepared (packed-weight) forms: softmax(q kᵀ · scale)
// v per (batch, head), reading q, k and v in place from the projection's output rows (no per-head
// copies) and writing each head's context into its columns of the [B*T, E] context.
#include <cstdint>
#include <vector>

#include "lib/core/ivalue.h"
#include "lib/core/tensor.h"

namespace jitctl::cpu {

// Which (query, key) pairs are excluded, as a bool tensor broadcast to [B, H, T, S] by strides.
struct AttentionMask {
  Tensor owned;  // a float mask's bool form
  const bool* data = nullptr;
  int64_t sb = 0, sh = 0, st = 0, ss = 0;
  bool masked(int64_t b, int64_t h, int64_t t, int64_t s) const { return data && data[b * sb + h * sh + t * st + s * ss]; }
};

// Where each (b, h, t, s) of the scores reads `mask` (sizes and strides of a mask tensor), under
// the rules below; shape checks only, no element read (the CUDA kernels share it).
struct AttentionMaskStrides {
  int64_t sb = 0, sh = 0, st = 0, ss = 0;
};
AttentionMaskStrides attention_mask_strides(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides, int64_t b, int64_t h, int64_t t,
                                            int64_t s, const IValue& mask_type);

// mask_type 0: [T, S] attention mask; 1: [B, S] key padding mask; otherwise a mask of up to 4
// dims broadcast to [B, H, T, S] (2-D masks read as [T, S] unless they are [B, S] and not [T, S]).
// An undefined `mask` masks nothing. InvalidInput when its shape does not fit.
AttentionMask make_attention_mask(const Tensor& mask, int64_t b, int64_t h, int64_t t, int64_t s, const IValue& mask_type);

// For each batch entry b and head h: rows b*seq .. b*seq+seq-1 of q, k and v (each `ld` elements
// apart; head h is columns h*dh .. h*dh+dh-1, dh = e / heads) give
//   ctx[row, h*dh : h*dh+dh] = softmax(scale · q kᵀ, masked) v
// with ctx rows `ldc` apart. A row whose keys are all masked gives zeros (ATen's masked softmax).
// `weights` ([B, H, T, T]), when not null, receives the softmax. Parallel over (batch, head).
template <class T>
void attention_heads(const T* q, const T* k, const T* v, int64_t ld, int64_t batch, int64_t seq, int64_t e, int64_t heads, T scale,
                     const AttentionMask& mask, T* ctx, int64_t ldc, T* weights);

extern template void attention_heads<float>(const float*, const float*, const float*, int64_t, int64_t, int64_t, int64_t, int64_t, float,
                                            const AttentionMask&, float*, int64_t, float*);
extern template void attention_heads<double>(const double*, const double*, const double*, int64_t, int64_t, int64_t, int64_t, int64_t, double,
                                             const AttentionMask&, double*, int64_t, double*);

// need_weights with average_attn_weights: dst[b, i] = mean over heads of src[b, h, i], for
// planes of `plane` (= T*S) elements.
template <class T>
void average_heads(const T* src, int64_t batch, int64_t heads, int64_t plane, T* dst) {
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < plane; ++i) {
      T sum = 0;
      for (int64_t h = 0; h < heads; ++h) sum += src[(b * heads + h) * plane + i];
      dst[b * plane + i] = sum / static_cast<T>(heads);
    }
}

}  // namespace jitctl::cpu
