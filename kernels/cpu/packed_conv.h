#pragma once
// A float32 convolution with its weights packed once into the layout oneDNN's kernel for this
// CPU reads (its AVX-512/AVX2 direct, 1x1 and depthwise kernels), the bias and a fused epilogue
// (activations, residual add) applied in the kernel's output loop.
//
// Activations are kept channels-last (NHWC strides on NCHW sizes, as torch.channels_last): the
// layout those kernels read and write without conversion, and a plain strided tensor every
// other kernel reads correctly. A contiguous (NCHW) input is converted on the way in; the output
// is channels-last or contiguous as the caller asks.
//
// Built by the runtime's lowering for a conv node whose weight is a constant (packed once per
// method), and ad hoc by the aten::conv kernels (packed per call). Safe to run from several
// threads at once.
#include <memory>
#include <mutex>
#include <vector>

#include "kernels/cpu/conv.h"
#include "kernels/cpu/depthwise_channels.h"
#include "kernels/cpu/depthwise_conv.h"
#include "kernels/cpu/epilogue.h"
#include "kernels/cpu/grouped_conv.h"
#include "kernels/cpu/im2col_conv.h"
#include "kernels/cpu/narrow_conv.h"
#include "kernels/cpu/packed_conv3d.h"
#include "kernels/cpu/pointwise_conv.h"
#include "kernels/cpu/wide_grouped_conv.h"
#include "kernels/cpu/winograd_conv.h"
#include "lib/core/tensor.h"

namespace dnnl {
struct memory;  // oneDNN's header stays out of this one (kernels/cpu/dnnl_util.h has it)
}

namespace jitctl::cpu {

class PackedConv {
 public:
  // weight [OC, IC/groups, KH, KW] (or [OC, IC/groups, K] for conv1d, [OC, IC/groups, KD, KH, KW]
  // for conv3d), float32; bias [OC] or
  // undefined. `args` as the conv op's (not transposed).
  PackedConv(Tensor weight, Tensor bias, ConvArgs args, Epilogue epilogue);
  ~PackedConv();

  // Whether PackedConv implements this convolution (float32, not transposed, 1-D, 2-D or 3-D).
  static bool supports(const Tensor& weight, const Tensor& bias, const ConvArgs& args);

  // input: batched [N, C, H, W] (or [N, C, L], [N, C, D, H, W]), any strides. residual: shaped as the output,
  // required when the epilogue has an Add (any strides). Checks shapes as PyTorch does.
  Tensor run(const Tensor& input, const Tensor& residual, bool channels_last_out) const;

  const Epilogue& epilogue() const { return epilogue_; }

  // Whether `input` (with `residual`, for an epilogue with an Add) runs on a Winograd kernel:
  // oneDNN's (AVX-512, its blocked layout) or WinogradConv (AVX2 and AVX-512, channels-last input) rather
  // than a direct one. For tests that must know which path they checked.
  bool runs_winograd(const Tensor& input, const Tensor& residual) const;

  // Whether `input` (with `residual`) runs on PointwiseConv, strided layers included. For tests.
  bool runs_pointwise(const Tensor& input, const Tensor& residual) const;
  // Whether `input` runs on DepthwiseChannels (a depthwise layer, AVX-512 or AVX2). For tests.
  bool runs_depthwise_channels(const Tensor& input) const;

  const Tensor& weight() const { return weight_; }
  const ConvArgs& args() const { return args_; }

  // For expand_depthwise (expand_depthwise.h), which runs a 1x1 expansion and the depthwise layer
  // after it band by band of rows; both on the calling thread only.
  // Whether rows_1x1 may be called: a 2-D 1x1 layer of stride 1, no padding, dilation or groups,
  // whose epilogue adds no residual.
  bool runs_rows_1x1() const;
  // This 1x1 layer over `rows` rows of `w` dense channels-last pixels at x, into y (PointwiseConv's
  // kernel where it runs the layer, else the layer's oneDNN primitive for that many rows).
  void rows_1x1(const float* x, int64_t rows, int64_t w, float* y) const;
  // Output rows of one image from `band`: the input rows they read, dense channels-last, zero rows
  // standing for the vertical padding. `band_params`: this layer's geometry for such a band (n 1,
  // h the band's rows, ph and ph_after 0, oh the output rows); `out` gets them dense channels-last.
  void rows_from_band(const ConvParams& band_params, const float* band, float* out) const;
  // For expand_depthwise's split by channels: this 1x1 layer's PointwiseConv when runs_rows_1x1()
  // and PointwiseConv runs it, else null; this depthwise layer on DepthwiseChannels when that
  // suits it (built on the first call), else null.
  const PointwiseConv* pointwise_1x1() const;
  const DepthwiseChannels* depthwise_channels() const;

 private:
  struct Primitive;
  std::shared_ptr<const Primitive> primitive_for(const ConvParams& p) const;
  static Tensor pixels_read(const Tensor& input, const ConvParams& p);
  const DepthwiseChannels* depthwise_channels_for(const Tensor& input, const ConvParams& p) const;
  Tensor run_depthwise_channels(const DepthwiseChannels& dc, const Tensor& input, const ConvParams& p) const;
  Tensor run_pointwise_1x1(const Tensor& input, const Tensor& residual, const ConvParams& p, bool channels_last_out) const;
  Tensor run_tiny_pointwise(const Tensor& input, const Tensor& residual, const ConvParams& p, bool channels_last_out) const;
  Tensor run_blocked(const Tensor& input, const Tensor& residual, const ConvParams& p, const Primitive& plan, bool channels_last_out) const;
  void execute(const Primitive& plan, const dnnl::memory& src, const dnnl::memory& dst) const;
  Tensor run_winograd(const Tensor& input, const Tensor& residual, const ConvParams& p) const;

  Tensor weight_, bias_;
  ConvArgs args_;
  Epilogue epilogue_;
  // What oneDNN applies (epilogue_ less a trailing SiLU), and whether that SiLU is applied after
  // it by activations.h (faster than oneDNN's swish post-op on the vector ISAs).
  Epilogue dnnl_epilogue_;
  bool silu_after_ = false;
  // Depthwise 3x3 stride-1 layers on channels-last activations run on DepthwiseConv, not oneDNN.
  std::unique_ptr<const DepthwiseConv> depthwise_;
  // 1x1 layers on channels-last activations run on PointwiseConv (AVX-512); those of a stride
  // over 1 (pointwise_strided_) on the pixels they read, gathered first (pixels_read).
  std::unique_ptr<const PointwiseConv> pointwise_;
  bool pointwise_strided_ = false;
  // Grouped 3x3 layers of 4 or 8 channels a group run on GroupedConv (AVX-512, AVX2).
  std::unique_ptr<const GroupedConv> grouped_;
  // Grouped 3x3 layers of 24 to 248 channels a group (a multiple of 8, not of 16) run on
  // WideGroupedConv (AVX-512).
  std::unique_ptr<const WideGroupedConv> wide_grouped_;
  // Dense layers of at most 8 output channels (kernels over 1x1) run on NarrowConv.
  std::unique_ptr<const NarrowConv> narrow_;
  // On AVX2, layers with few output pixels run as one GEMM on Im2colConv.
  std::unique_ptr<const Im2colConv> im2col_;
  // 3x3 stride-1 layers on larger channels-last images run on WinogradConv (AVX2, AVX-512), and
  // so do 3-D ones with 3x3 frame kernels.
  std::unique_ptr<const WinogradConv> winograd_;
  // A 5-D weight: the 3-D convolution (of the members above only winograd_ may be made).
  std::unique_ptr<const PackedConv3d> conv3d_;
  // Built on the first depthwise_channels() call: most depthwise layers never run on it.
  mutable std::once_flag depthwise_channels_once_;
  mutable std::unique_ptr<const DepthwiseChannels> depthwise_channels_;
  mutable std::mutex mu_;
  mutable std::vector<std::shared_ptr<const Primitive>> primitives_;  // most recent last, a few at most
  // conv_params for the last input size run (under mu_): its argument checks and vectors were ~1%
  // of ShuffleNetV2's time, repeated on every call with the same answer.
  std::shared_ptr<const ConvParams> params_for(const Tensor& input) const;
  mutable std::shared_ptr<const ConvParams> last_params_;
  mutable std::vector<int64_t> last_params_sizes_;
};

}  // namespace jitctl::cpu
