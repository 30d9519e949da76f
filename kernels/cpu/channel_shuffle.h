#pragma once
// ShuffleNet's channel shuffle (view [N, g, C/g, H, W] -> transpose(1, 2) -> contiguous -> view
// [N, C, H, W]) on a float32 channels-last tensor, in one pass that keeps it channels-last: each
// pixel's channels interleaved in place of PyTorch's copy into NCHW order, which the next
// convolution would convert back.
#include <cstdint>
#include <vector>

#include "lib/core/tensor.h"

namespace jitctl::cpu {

// The groups g when views of `x_sizes` [N, C, H, W] to `split` and then `merged` are a channel
// shuffle's: split [N, g, C/g, H, W], merged [N, C, H, W] (C may be written -1); 0 otherwise.
int64_t channel_shuffle_groups(const std::vector<int64_t>& x_sizes, const std::vector<int64_t>& split, const std::vector<int64_t>& merged);

// Whether channel_shuffle_channels_last takes `x`: float32, [N, C, H, W] with C a multiple of
// `groups`, channels-last (dense, or a channel slice of a wider channels-last tensor).
bool channel_shuffle_channels_last_ok(const Tensor& x, int64_t groups);

// Output channel k * groups + j is input channel j * (C / groups) + k; dense channels-last.
Tensor channel_shuffle_channels_last(const Tensor& x, int64_t groups);

// The same shuffle of the concatenation of `parts` along the channels, without the concatenation:
// each pixel's output channels read straight from the parts (ShuffleNet's cat then shuffle).
// Takes float32 [N, Ci, H, W] parts of equal N, H and W, each channels-last (dense or a channel
// slice), whose channel counts are multiples of C / groups (each group within one part).
bool channel_shuffle_parts_channels_last_ok(const std::vector<Tensor>& parts, int64_t groups);
Tensor channel_shuffle_parts_channels_last(const std::vector<Tensor>& parts, int64_t groups);

}  // namespace jitctl::cpu
