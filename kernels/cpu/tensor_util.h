#pragma once
// Small helpers every CPU kernel needs: typed data access, contiguity, dtype dispatch, reading
// Scalar/int[]/ScalarType arguments from the stack.
#include <cstdint>
#include <string>
#include <vector>

#include "lib/core/error.h"
#include "lib/core/ivalue.h"
#include "lib/core/tensor.h"

namespace jitctl::cpu {

template <class T>
const T* data_of(const Tensor& t) {
  return static_cast<const T*>(t.data());
}
template <class T>
T* mutable_data_of(Tensor& t) {
  return static_cast<T*>(t.mutable_data());
}

// `t` itself when contiguous, else a contiguous copy (same dtype).
Tensor contiguous(const Tensor& t);
// Copies `src` (any strides) into `dst` (any strides), same dtype and shape.
void copy_strided(const Tensor& src, Tensor& dst);
Tensor empty_like(const Tensor& t);

// Arguments. int[] arrives as a list of ints; ScalarType as its int code (6 = float32).
std::vector<int64_t> int_list(const IValue& v);
DType scalar_type_arg(const IValue& v);  // int code -> DType
double scalar_double(const IValue& v);   // Scalar (int, float, bool) as double
// Wraps a dim into [0, ndim) as PyTorch does; InvalidInput with PyTorch's message when out of range.
int64_t wrap_dim(int64_t dim, int64_t ndim);

// Calls f(T{}) with T the C++ type of `dt` (float, double, int64_t, int32_t, int16_t, int8_t,
// uint8_t, bool); Unsupported for other dtypes, naming `op`.
template <class F>
void dispatch_dtype(DType dt, const char* op, F&& f) {
  switch (dt) {
    case DType::Float32: f(float{}); break;
    case DType::Float64: f(double{}); break;
    case DType::Int64: f(int64_t{}); break;
    case DType::Int32: f(int32_t{}); break;
    case DType::Int16: f(int16_t{}); break;
    case DType::Int8: f(int8_t{}); break;
    case DType::UInt8: f(uint8_t{}); break;
    case DType::Bool: f(bool{}); break;
    default:
      throw Unsupported(std::string(op) + ": dtype " + std::string(dtype_name(dt)) + " is not supported yet");
  }
}

}  // namespace jitctl::cpu
