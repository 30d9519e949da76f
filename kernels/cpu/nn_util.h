#pragma once
// Helpers shared by the neural-network kernels (linear, conv, pooling, norm, rnn, attention):
// floating-point dtype dispatch, optional tensor arguments, the bias-into-output pass.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kernels/cpu/tensor_util.h"
#include "lib/core/error.h"
#include "lib/core/ivalue.h"
#include "lib/core/tensor.h"

namespace jitctl::cpu {

// Calls f(T{}) for float32 (float) and float64 (double); Unsupported naming `op` otherwise.
template <class F>
void dispatch_floating(DType dt, const char* op, F&& f) {
  if (dt == DType::Float32)
    f(float{});
  else if (dt == DType::Float64)
    f(double{});
  else
    throw Unsupported(fmt::format("{}: dtype {} is not supported (float32 and float64 only)", op, dtype_name(dt)));
}

// A `Tensor?` argument: the tensor, or an undefined Tensor for None.
inline Tensor optional_tensor(const IValue& v) { return v.is_none() ? Tensor() : v.to_tensor(); }

// PyTorch's "expected scalar type Float but found Double" check between two operands.
inline void check_same_dtype(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype())
    throw InvalidInput(fmt::format("expected scalar type {} but found {}", scalar_type_name(a.dtype()), scalar_type_name(b.dtype())));
}

// The float[]? / int[] arguments that may be None.
inline std::optional<std::vector<int64_t>> optional_int_list(const IValue& v) {
  if (v.is_none()) return std::nullopt;
  return int_list(v);
}
inline std::optional<std::vector<double>> optional_double_list(const IValue& v) {
  if (v.is_none()) return std::nullopt;
  std::vector<double> out;
  for (auto& x : v.to_list()->items) out.push_back(x.to_double());
  return out;
}

// Repeats a 1-element list to `n` entries (int[2] arguments accept a single int), and checks the
// length otherwise.
inline std::vector<int64_t> expand_param(std::vector<int64_t> v, size_t n, const char* op, const char* name) {
  if (v.size() == 1 && n > 1) v.assign(n, v[0]);
  if (v.size() != n)
    throw InvalidInput(fmt::format("{}: expected {} to be a single integer value or a list of {} values to match the convolution dimensions, but got {}={}",
                                   op, name, n, name, shape_string(v)));
  return v;
}

}  // namespace jitctl::cpu
