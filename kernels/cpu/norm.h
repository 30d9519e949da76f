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

Tensor layer_norm(const Tensor& input, const std::vector<int64_t>& normalized_shape, const Tensor& weight, const Tensor& bias, double eps);
Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean, const Tensor& running_var,
                  bool training, double momentum, double eps);

}  // namespace jitctl::cpu
