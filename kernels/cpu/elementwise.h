#pragma once
// The argument rules of the elementwise ops, one definition for the CPU and CUDA kernels.
#include <cstdint>
#include <vector>

#include "lib/core/ivalue.h"
#include "lib/core/tensor.h"

namespace jitctl::cpu {

// As ATen checks an in-place/out result: the broadcast shape, and a dtype the result casts to.
void check_out(const Tensor& out, DType result, const std::vector<int64_t>& shape);
// Whether `t` covers its memory without gaps or overlaps in some dim order (contiguous,
// channels-last, a transpose of either): elementwise over its elements is elementwise over memory.
bool is_dense(const Tensor& t);
// add/sub's checks of the compute dtype against `alpha` (sub: `negate`).
void check_add_args(const IValue& alpha, DType compute, bool negate);
// clamp's result dtype with Scalar bounds: torch.result_type over x and the bounds given.
DType clamp_result_type(const Tensor& x, const IValue& lo, const IValue& hi);

}  // namespace jitctl::cpu
