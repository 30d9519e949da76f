#pragma once
// A 1x1 expansion and the depthwise convolution that reads it alone (the first two layers of a
// MobileNetV2/V3, MNASNet or EfficientNet block), run band by band of output rows, so that the
// expanded activations stay in L2 between the two layers instead of going to memory and back.
//
// Why: MobileNetV2's 112x112 expansion writes 96 channels, 4.8 MB, more than L2; run apart, the
// depthwise layer then reads them back from L3 or memory (in the model, one thread: 163 us at
// best and 360 us on average for 5.4 MFLOP, against 394 and 479 us for the expansion's 38.5).
//
// Each thread takes consecutive bands of one image: it expands the input rows a band reads into
// its scratch (rows the band before also read are moved down, not computed again), then runs the
// depthwise layer on them: on DepthwiseChannels where it takes the layer on AVX-512, else (AVX2
// too: it was faster there) the layer's oneDNN primitive, with rows of zeros for the vertical padding. The
// expansion runs on PointwiseConv where that takes it (AVX-512), else on its oneDNN primitive per
// band. Capped at AVX2 (JITCTL_ISA=avx2; the median of six interleaved runs' fastest calls),
// MobileNetV2 took 7.31 against 7.44 ms run apart at 1 thread, 4.40 against 4.60 at 2;
// EfficientNet-B0 12.51 against 12.59 at 1.
#include "kernels/cpu/packed_conv.h"
#include "lib/core/tensor.h"

namespace jitctl::cpu {

// Smaller images (the expansion under 1 MB) with more expanded channels than pixels (7x7 and
// 14x14 blocks) are split by channels instead when two threads or more run them (AVX-512, AVX2): each
// thread expands its own channels and runs the depthwise layer on them (depthwise_channels.h),
// reading nothing the other wrote.
//
// depthwise(expand(input)), channels-last; an undefined tensor when this call is not one to run
// band by band or split by channels: neither AVX2 nor AVX-512, expand not a 2-D 1x1 stride-1
// layer without a residual, depthwise not a 2-D depthwise layer of its output channels (groups =
// channels, explicit padding, no dilation, no residual), input not a dense channels-last
// [N, C, H, W] of expand's channels, or an expanded image small enough to stay in L2 anyway that
// does not split by channels (one thread, fewer channels than pixels, or a layer
// PointwiseConv or DepthwiseChannels does not take).
Tensor expand_depthwise(const PackedConv& expand, const PackedConv& depthwise, const Tensor& input);

}  // namespace jitctl::cpu
