#pragma once
// Concatenation along channels of float32 channels-last tensors (SqueezeNet's fire modules,
// Inception and DenseNet blocks): each output pixel is the parts' channel runs one after another,
// so the result is channels-last too, as PyTorch's cat of channels-last tensors is.
#include <vector>

#include "lib/core/tensor.h"

namespace jitctl::cpu {

// Whether concat_channels_last takes these parts: float32, 4-D, channels-last (dense, or a channel
// slice of a wider channels-last tensor), the same batch, height and width.
bool concat_channels_last_ok(const std::vector<Tensor>& parts);
Tensor concat_channels_last(const std::vector<Tensor>& parts);

// Channel rows of `pixels` pixels from src (pixel stride ld_src) into dst (pixel stride
// ld_dst), on the team: a channel slice of a channels-last tensor made dense, say.
void copy_channel_rows(const float* src, int64_t ld_src, float* dst, int64_t ld_dst, int64_t channels, int64_t pixels);

}  // namespace jitctl::cpu
