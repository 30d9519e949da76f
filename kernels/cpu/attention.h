#pragma once
// The transformer fast path's kernels (attention.cpp) and their prepared forms
// (prepared_attention.cpp): with the projection and feed-forward weights constants of the graph
// (a frozen module's), they are packed once for oneDNN's matrix kernel, the bias, activation and
// residual add fused into each product's output, and the layer's buffers reused from call to call.
#include <memory>
#include <optional>
#include <vector>

#include "kernels/prepared.h"
#include "kernels/registry.h"
#include "lib/core/tensor.h"

namespace jitctl::cpu {

// aten::_native_multi_head_attention and aten::_transformer_encoder_layer_fwd on any floating
// inputs: what the prepared forms fall back to for inputs they do not take.
void native_mha_kernel(Stack& s);
void encoder_layer_kernel(Stack& s);

// The ops' argument checks, from sizes alone (PyTorch's messages; the CUDA kernels share them).
void check_mha_inputs(const Tensor& q, const Tensor& k, const Tensor& v, int64_t e, int64_t heads);
void check_mha_weights(const IValue& qkv_w, const IValue& qkv_b, const IValue& proj_w, const IValue& proj_b, int64_t e);
// _transformer_encoder_layer_fwd's arguments; returns dim_feedforward.
int64_t check_encoder_layer(const Stack& s);

// scaled_dot_product_attention's call, checked: q [..., L, E], k [..., S, E], v [..., S, Ev] and
// the mask broadcast to `batch`; with enable_gqa, q head h reads k/v head h / group.
struct SdpaShape {
  std::vector<int64_t> batch;
  int64_t L, S, E, Ev, group;
  double scale;
  bool causal;
  Tensor mask;  // undefined: none
  std::vector<int64_t> out_sizes() const;
};
SdpaShape sdpa_shape(const Stack& s);

// Preparers (kernels/prepared.h): nullptr unless every weight, bias and size is a float32
// constant of the right shape.
std::unique_ptr<PreparedKernel> prepare_native_mha(const std::vector<std::optional<IValue>>& constants);
std::unique_ptr<PreparedKernel> prepare_encoder_layer(const std::vector<std::optional<IValue>>& constants);

}  // namespace jitctl::cpu
