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

namespace jitctl::cpu {

// aten::_native_multi_head_attention and aten::_transformer_encoder_layer_fwd on any floating
// inputs: what the prepared forms fall back to for inputs they do not take.
void native_mha_kernel(Stack& s);
void encoder_layer_kernel(Stack& s);

// Preparers (kernels/prepared.h): nullptr unless every weight, bias and size is a float32
// constant of the right shape.
std::unique_ptr<PreparedKernel> prepare_native_mha(const std::vector<std::optional<IValue>>& constants);
std::unique_ptr<PreparedKernel> prepare_encoder_layer(const std::vector<std::optional<IValue>>& constants);

}  // namespace jitctl::cpu
