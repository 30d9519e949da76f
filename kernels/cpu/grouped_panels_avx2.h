#pragma once
// Grouped 3x3 float32 convolution of 16 or 24 channels per group on AVX2, channels-last: the
// group widths of RegNetX-400MF and RegNetY-800MF (16) and RegNetX-1.6GF (24).
//
// On AVX2 oneDNN's direct kernel runs these at 35-65 GFLOP/s of a Zen 3 core's ~100, and its
// stride-2 layers on 112-wide images at a third of its stride-1 speed (RegNetY-800MF's 64 -> 64
// of 16 channels a group, 112x112 stride 2, one thread: 1.6 ms in the model, where ONNX Runtime
// takes 0.4 at two threads). Here, for each output row of a group, the 3x3xG inputs each output
// pixel reads are first copied into one panel row (K = 9 x G floats, zeros for the padding),
// then a 6x16 (G = 16) or 4x24 (G = 24) register tile multiplies panel rows by the group's
// weights [K][G]: every broadcast reads one pointer at a constant offset, so the loop keeps its
// twelve accumulators and the weight vectors in registers (the windowed form in
// wide_grouped_conv_rows.h, with a pointer per pixel, spilled on AVX2's 16 registers). Bias,
// a residual add and ReLU/ReLU6/hardswish before the store.
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
