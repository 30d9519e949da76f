#pragma once
// Normalization entry points other kernels reuse (the transformer layer's layer norms).
#include <cstdint>
#include <vector>

#include "lib/core/tensor.h"

namespace jitctl::cpu {

// y[r, :] = (x[r, :] - mean) / sqrt(var + eps) * w + b over rows of `inner` contiguous values
// (w and b may be null).
template <class T>
void layer_norm_rows(const T* x, T* y, int64_t rows, int64_t inner, const T* w, const T* b, double eps);

// The ops' argument checks, with PyTorch's messages, shared with the CUDA kernels; each gives the
// geometry of its (contiguous) input: n images of c channels of `plane` values.
struct NormGeometry {
  int64_t n = 0, c = 0, plane = 0;
};
NormGeometry check_batch_norm_args(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                                   const Tensor& running_var);
NormGeometry check_group_norm_args(const Tensor& input, int64_t groups, const Tensor& weight, const Tensor& bias, const char* op);
// The number of values each row normalizes over.
int64_t check_layer_norm_args(const Tensor& input, const std::vector<int64_t>& normalized_shape, const Tensor& weight, const Tensor& bias);

Tensor layer_norm(const Tensor& input, const std::vector<int64_t>& normalized_shape, const Tensor& weight, const Tensor& bias, double eps);
Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean, const Tensor& running_var,
                  bool training, double momentum, double eps);

// Inference batch norm as a per-channel scale and shift (computed as the kernel computes them:
// in double, rounded to float), and their application to a float32 channels-last 4-D tensor
// into a new channels-last one, optionally followed by ReLU in the same pass (the runtime's
// batch_norm + relu group: DenseNet's pre-activations).
void batch_norm_scale_shift(const Tensor& weight, const Tensor& bias, const Tensor& running_mean, const Tensor& running_var, double eps,
                            int64_t c, std::vector<float>& scale, std::vector<float>& shift);
bool batch_norm_channels_last_ok(const Tensor& x, int64_t c);
Tensor batch_norm_channels_last(const Tensor& x, const std::vector<float>& scale, const std::vector<float>& shift, bool relu);

}  // namespace jitctl::cpu
