#pragma once
// Output tensors for kernels that write every element: fresh storage that is not zero-filled
// first (zero-filling a large output costs as much memory traffic as writing it).
#include <cstdint>
#include <vector>

#include "lib/core/tensor.h"

namespace jitctl::cpu {

// Contiguous.
Tensor new_output(DType dtype, const std::vector<int64_t>& sizes);
// With the given strides (non-negative; they may leave gaps, which stay uninitialized).
Tensor new_output_strided(DType dtype, const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides);

}  // namespace jitctl::cpu
