#pragma once
// Concatenation along channels of float32 channels-last tensors (SqueezeNet's fire modules,
// Inception and DenseNet blocks): each output pixel is the parts' channel runs one after another,
// so the result is channels-last too, as PyTorch's cat of channels-last tensors is.
#include <vector>

#include "lib/core/tensor.h"

namespace jitctl::cpu {

// Whether concat_channels_last takes these parts: float32, 4-D, dense channels-last, the same
// batch, height and width.
bool concat_channels_last_ok(const std::vector<Tensor>& parts);
Tensor concat_channels_last(const std::vector<Tensor>& parts);

}  // namespace jitctl::cpu
