#pragma once
// Grouped 3x3 float32 convolution of 16 or 24 channels per group on AVX2, channels-last: the group
// widths of RegNetX-400MF and RegNetY-800MF (16) and RegNetX-1.6GF (24).
//
// On AVX2 oneDNN's direct kernel is slow on the stride-2 layers of wide images: on a Zen 3 EPYC
// (one thread) RegNetY-800MF's 64 -> 64 layer of 16 channels a group, 112x112 stride 2, took 1.59
// ms at best in the model (36 GFLOP/s) and RegNetX-1.6GF's 72 -> 72 of 24 a group 1.91, where ONNX
// Runtime took 1.11. Here, for each output row of a group, the group's G channels of the three
// input rows the row's windows read are first copied into a panel ([3][columns][G], a zero column
// at each side for the padding), each input pixel once; then a 6x16 (G = 16) or 4x24 (G = 24)
// register tile multiplies the windows (three runs of 3 x G floats each, S x G floats apart from
// one pixel to the next) by the group's weights [9 x G][G]: every broadcast reads one pointer at a
// constant offset, so the loop keeps its twelve accumulators and the weight vectors in registers
// (WideGroupedConv's windowed loop, a pointer per pixel, spilled on AVX2's 16 registers and lost to
// oneDNN). A row's last pixels take a smaller tile. kernel_bench, one thread, warm, oneDNN -> this:
// 72 112x112 stride 2 1.64-4.04 -> 1.30-1.43 ms, 64 112x112 stride 2 0.87-1.09 -> 0.79-0.83, 160
// 14x14 0.133 -> 0.120, stride-1 layers of 24 a group within 5% either way. The panel first held
// each pixel's whole window (9 x G floats a pixel, every input pixel copied up to nine times at
// stride 1); reading the windows out of input rows instead took 0.86-0.97 of its time
// (kernel_bench, medians of 9 interleaved runs, one thread: RegNetX-1.6GF's 408 on 14x14 0.411 ->
// 0.384 ms, 72 on 56x56 1.109 -> 1.038, RegNetY-800MF's 144 on 28x28 0.407 -> 0.349, the 7x7
// layers 0.92 in a second run), and
// RegNetX-1.6GF's grouped layers 10.08 -> 9.54 ms a call in the model (JITCTL_PROFILE, sum of
// fastest calls, two runs each; ONNX Runtime's nodes 9.09). Bias, a residual add and
// ReLU/ReLU6/hardswish before the store.
#include <cstdint>

#include "kernels/cpu/vector_activation.h"

namespace jitctl::cpu {

struct GroupedPanelJob {
  const float* x;    // input, dense channels-last [N, H, W, C]
  const float* res;  // residual, shaped as y (or null)
  float* y;          // output, dense channels-last [N, OH, OW, C]
  const float* w;    // per group [3][3][G in][G out], as WideGroupedConv packs them
  const float* bias;  // [C]
  int64_t c, per, h, w_in, oh, ow, stride;
  VecActivation mode;  // None, Relu, Clamp or Hardswish
  float lo, hi;        // Clamp's bounds
};

// Whether the panel kernel takes G channels a group: 16 or 24, on a machine with AVX2.
bool grouped_panels_take(int64_t per);

// Items [i0, i1) of (image, output row, group), the group fastest, on the calling thread.
void grouped_panels_avx2(const GroupedPanelJob& j, int64_t i0, int64_t i1);

}  // namespace jitctl::cpu
