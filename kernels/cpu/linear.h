#pragma once
// Matrix products other kernels reuse (attention, rnn), with PyTorch's semantics.
#include <cstdint>
#include <optional>

#include "lib/core/tensor.h"

namespace jitctl::cpu {

// torch.nn.functional.linear: input [*, K] · weight[N, K]ᵀ + bias[N] (bias may be undefined).
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias);
// torch.matmul, every rank combination, batch dims broadcast.
Tensor matmul(const Tensor& a, const Tensor& b);
// torch.bmm: [B, n, k] · [B, k, m].
Tensor bmm(const Tensor& a, const Tensor& b);

// The row stride of `t` ([..., k]) seen as a [rows, k] matrix, when its leading dims fold into one
// stride (size-1 dims ignored, so x.transpose(0, 1) of a [1, 3, k] tensor folds); nullopt when
// they do not.
std::optional<int64_t> folded_row_stride(const Tensor& t);

}  // namespace jitctl::cpu
