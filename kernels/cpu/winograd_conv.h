#pragma once
// A float32 3x3 stride-1 convolution through Winograd's F(4x4, 3x3) on AVX2 and AVX-512 machines: each 6x6
// input tile and each 3x3 filter are transformed so that 4x4 outputs cost 36 multiplications
// per (input, output) channel pair instead of 144; the 36 transformed positions are then 36
// independent GEMMs [tiles, IC] x [IC, OC], run on an AVX2 6x16 register tile. Channels-last in
// and out; the bias and the epilogue (activations, the residual add) applied as each tile's
// outputs are written.
//
// 3-D convolutions with a 3x3 frame kernel (R3D's 3x3x3, R(2+1)D's 1x3x3), stride 1, run here too,
// channels-last-3d: Winograd over height and width, the depth taps summed directly (each output
// frame's GEMM runs over [depth taps x input channels], the taps' input frames transformed once
// per tile).
//
// Why: oneDNN's Winograd kernel is AVX-512 only; on AVX2 it runs its direct kernel, the same one
// PyTorch runs, so the ResNets' 3x3 layers were at parity with PyTorch there. On AVX-512 this one
// was faster than oneDNN's Winograd too (1.1-1.3x at 1 thread, 2x at 2, and it takes the 13x13 and
// 14x14 layers oneDNN's skipped), so it runs there as well.
//
// Its results differ from direct summation by a few times direct's own rounding (the transforms
// scale values by up to 8 and add them back), as oneDNN's F(4x4, 3x3) does.
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>

#include "kernels/cpu/conv.h"
#include "kernels/cpu/epilogue.h"
#include "lib/core/tensor.h"

namespace jitctl::cpu {

class WinogradConv {
 public:
  // Whether this kernel may take the convolution: float32 [OC, IC, 3, 3] or [OC, IC, KD, 3, 3]
  // weight, one group, not transposed, stride 1 and dilation 1, on an AVX2 or AVX-512 machine,
  // JITCTL_WINOGRAD and JITCTL_OWN_WINOGRAD not 0.
  static bool suits(const Tensor& weight, const ConvArgs& args);

  WinogradConv(const Tensor& weight, const Tensor& bias, Epilogue epilogue);

  // Whether run() takes this call: a dense channels-last input (channels-last-3d for a 5-D one)
  // with enough output pixels and work for the transforms to pay (and, with an Add, a residual
  // in the same layout).
  bool takes(const Tensor& input, const Tensor& residual, const ConvParams& p) const;

  // out: dense channels-last [N, OC, OH, OW] (channels-last-3d [N, OC, OD, OH, OW]), not aliasing
  // input; it may be the residual itself.
  void run(const Tensor& input, const Tensor& residual, const ConvParams& p, Tensor& out) const;

 private:
  struct AlignedFree {
    void operator()(float* p) const { ::operator delete[](p, std::align_val_t{64}); }
  };
  const float* transformed() const;
  void transform_weights() const;

  Tensor bias_;
  Epilogue epilogue_;
  int64_t oc_, ic_, kd_;  // kd_: depth taps, 1 for a 2-D convolution
  int64_t oc_padded_;  // oc_ rounded up to the register tile's 16 columns
  bool add_;
  Tensor weight_;
  // The transformed weights G g Gᵀ, [36 positions][oc_padded_ / 16 panels][KD][IC rounded up to
  // 8][16], the missing columns and channels zero; made on the first call this kernel takes (4x the weight's bytes, which the
  // layers whose images are too small for it never need).
  mutable std::once_flag transformed_once_;
  mutable std::unique_ptr<float[], AlignedFree> u_;
};

}  // namespace jitctl::cpu
