#pragma once
// The geometry every reduction runs over, one definition for the CPU and CUDA kernels.
#include <cstdint>
#include <vector>

#include "lib/core/tensor.h"

namespace jitctl::cpu {

// The input as [outer, R, inner] with the reduced dims in the middle.
struct ReducePlan {
  Tensor x;  // contiguous (permuted to [kept..., reduced...] when the reduced dims are not adjacent)
  int64_t outer = 1, R = 1, inner = 1;
  std::vector<int64_t> out_sizes;  // honoring keepdim
};

// `make_contiguous` is the backend's contiguous(): the copy stays in the memory the input is in.
ReducePlan plan_reduce(const Tensor& input, const std::vector<int64_t>& dims, bool keepdim, Tensor (*make_contiguous)(const Tensor&));

}  // namespace jitctl::cpu
