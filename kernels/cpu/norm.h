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

}  // namespace jitctl::cpu
