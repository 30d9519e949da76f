#pragma once
// Matrix products other kernels reuse (attention, rnn), with PyTorch's semantics.
#include "lib/core/tensor.h"

namespace jitctl::cpu {

// torch.nn.functional.linear: input [*, K] · weight[N, K]ᵀ + bias[N] (bias may be undefined).
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias);
// torch.matmul, every rank combination, batch dims broadcast.
Tensor matmul(const Tensor& a, const Tensor& b);
// torch.bmm: [B, n, k] · [B, k, m].
Tensor bmm(const Tensor& a, const Tensor& b);

}  // namespace jitctl::cpu
