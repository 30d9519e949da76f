#pragma once
// A float32 3-D convolution (video models: R3D, R(2+1)D, MC3) on oneDNN's direct kernels, its
// weights packed once into the layout the kernel for this CPU reads, the bias and a fused
// epilogue applied in the kernel's output loop.
//
// Activations are kept channels-last (NDHWC strides on NCDHW sizes, as torch.channels_last_3d)
// when the caller asks: the layout oneDNN's 3-D kernels read and write without conversion. Other
// inputs are converted on the way in. PackedConv builds one for a 5-D weight and hands it the
// geometry conv_params checked.
#include <memory>
#include <mutex>
#include <vector>

#include "kernels/cpu/conv.h"
#include "kernels/cpu/epilogue.h"
#include "lib/core/tensor.h"

namespace jitctl::cpu {

class PackedConv3d {
 public:
  // weight [OC, IC/groups, KD, KH, KW] float32, bias [OC] or undefined.
  PackedConv3d(Tensor weight, Tensor bias, Epilogue epilogue);
  ~PackedConv3d();

  // input [N, C, D, H, W] any strides, `p` its geometry (conv_params); residual shaped as the
  // output when the epilogue has an Add. The output is NDHWC-strided when channels_last_out.
  Tensor run(const Tensor& input, const Tensor& residual, const ConvParams& p, bool channels_last_out) const;

 private:
  struct Primitive;
  std::shared_ptr<const Primitive> plan_for(const ConvParams& p) const;

  Tensor weight_, bias_;
  Epilogue epilogue_;
  mutable std::mutex mu_;
  mutable std::vector<std::shared_ptr<const Primitive>> plans_;  // most recent last, a few at most
};

// Strides of an NCDHW-sized tensor stored channels-last (torch.channels_last_3d).
std::vector<int64_t> channels_last_3d_strides(const std::vector<int64_t>& sizes);

}  // namespace jitctl::cpu
