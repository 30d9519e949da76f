#pragma once
// Comparing a trace's outputs with the model's, as PyTorch's trace check does: only the tensors
// of the result's top level (the result itself, or the tensors among the items of a returned
// tuple), compared pairwise with torch.testing.assert_close's rule on both converted to float64:
// |actual - expected| <= atol + rtol * |expected|, NaN equal to NaN, shapes equal.
#include <optional>
#include <string>
#include <vector>

#include "lib/core/ivalue.h"

namespace jitctl {

// torch.testing's default tolerances for comparing tensors of these dtypes (the larger of the
// two): atol 1e-5 for float32/float16/bfloat16/complex64, 1e-7 for float64/complex128, 0 for
// integers and bool; rtol 1.3e-6, 1e-7, 1e-3 (float16), 1.6e-2 (bfloat16), 0 for integers.
double default_atol(DType a, DType b);
double default_rtol(DType a, DType b);

// The tensors PyTorch's check compares.
std::vector<Tensor> compared_tensors(const IValue& result);

// nullopt when `actual` is close to `expected`; else what assert_close reports: the shapes, or
// how many elements differ, and the greatest absolute and relative differences with their indices.
std::optional<std::string> tensors_mismatch(const Tensor& actual, const Tensor& expected, double rtol, double atol);

}  // namespace jitctl
