#pragma once
// Small helpers every CPU kernel needs: typed data access, contiguity, dtype dispatch, reading
// Scalar/int[]/ScalarType arguments from the stack.
#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstring>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "lib/core/error.h"
#include "lib/core/half.h"
#include "lib/core/ivalue.h"
#include "lib/core/tensor.h"
#include "kernels/parallel.h"

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

// ---------------------------------------------------------------------------------------------
// Tensor-op helpers (elementwise iteration, type promotion, views), shared by the tensor kernels.

// The DType of C++ element type T (the inverse of dispatch_dtype).
template <class T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, float>) return DType::Float32;
  else if constexpr (std::is_same_v<T, double>) return DType::Float64;
  else if constexpr (std::is_same_v<T, int64_t>) return DType::Int64;
  else if constexpr (std::is_same_v<T, int32_t>) return DType::Int32;
  else if constexpr (std::is_same_v<T, int16_t>) return DType::Int16;
  else if constexpr (std::is_same_v<T, int8_t>) return DType::Int8;
  else if constexpr (std::is_same_v<T, uint8_t>) return DType::UInt8;
  else {
    static_assert(std::is_same_v<T, bool>, "no DType for this C++ type");
    return DType::Bool;
  }
}

// PyTorch's promote_types for the dtypes jitctl computes with (bool < integers < floats).
DType promote_types(DType a, DType b);
// torch.result_type over operands that are tensors or Scalars (int, float, bool IValues): dimensioned
// tensors outrank 0-dim tensors, which outrank Scalars, unless a lower rank holds a higher category
// (bool < integer < floating); a float Scalar then counts as the default dtype (float32).
DType result_type(const std::vector<const IValue*>& operands);
// Can a value of dtype `from` be written into a tensor of dtype `to` (an in-place or out= result)?
bool can_cast(DType from, DType to);

// Output shape of broadcasting `a` with `b`; InvalidInput with PyTorch's message when incompatible.
std::vector<int64_t> broadcast_shapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b);
// Does `from` broadcast to exactly `to` (expand() would accept it)?
bool broadcasts_to(const std::vector<int64_t>& from, const std::vector<int64_t>& to);

// A tensor that shares `base`'s storage with the given geometry (no bounds check: callers derive
// it from base's own geometry).
Tensor make_view(const Tensor& base, std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset);
// `t` with sizes/strides of `shape`, inputs broadcast (stride 0) as expand() does.
Tensor expand_to(const Tensor& t, const std::vector<int64_t>& shape);

// A 0-dim tensor of dtype `dt` holding the Scalar `v` (int, float or bool IValue).
Tensor scalar_to_tensor(const IValue& v, DType dt);
// The operand as a tensor of dtype `dt`: a Scalar becomes a 0-dim tensor, a tensor of another
// dtype a converted contiguous copy, a tensor of that dtype itself.
Tensor operand_as(const IValue& v, DType dt);
// A contiguous copy of `t` converted to `dt` (`t` itself when it already is both).
Tensor to_dtype(const Tensor& t, DType dt);
// Writes `src` (broadcast to dst's shape, any dtype, any strides) into `dst`, converting values.
void copy_into(const Tensor& src, Tensor& dst);
// Element `i` (row-major over sizes, any strides) converted to double; for tests and scalars.
double element_as_double(const Tensor& t, int64_t i);

// Iterates tensors that share one shape in row-major order, as ATen's TensorIterator does: dims are
// coalesced where every operand's memory allows, and the work is cut into contiguous runs of the
// innermost dim, split across threads by parallel_for. Operand 0 is the output.
class StridedLoop {
 public:
  static constexpr int kMaxOperands = 4;
  // `inputs` are broadcast to out's shape.
  StridedLoop(Tensor& out, std::initializer_list<const Tensor*> inputs);

  int64_t numel() const { return numel_; }
  // f(char* const* ptrs, const int64_t* byte_strides, int64_t n): one run of n elements.
  template <class F>
  void run(const F& f, int64_t grain = kGrainSize) const;

 private:
  int nops_ = 0;
  int64_t numel_ = 0;
  std::vector<int64_t> shape_;                                 // innermost last, >= 1 dim
  std::vector<std::array<int64_t, kMaxOperands>> strides_;     // bytes, per dim, per operand
  std::array<char*, kMaxOperands> base_{};
};

template <class F>
void StridedLoop::run(const F& f, int64_t grain) const {
  if (numel_ == 0) return;
  const int64_t nd = static_cast<int64_t>(shape_.size());
  const int64_t inner = shape_.back();
  parallel_for(0, numel_, grain, [&](int64_t b, int64_t e) {
    std::array<int64_t, 16> small{};
    std::vector<int64_t> big;
    int64_t* idx = small.data();
    if (nd > 16) {
      big.assign(static_cast<size_t>(nd), 0);
      idx = big.data();
    }
    int64_t r = b;
    for (int64_t d = nd - 1; d >= 0; --d) {
      idx[d] = r % shape_[d];
      r /= shape_[d];
    }
    const int64_t* inner_strides = strides_[static_cast<size_t>(nd - 1)].data();
    char* ptrs[kMaxOperands];
    while (b < e) {
      for (int k = 0; k < nops_; ++k) {
        char* p = base_[k];
        for (int64_t d = 0; d < nd; ++d) p += idx[d] * strides_[static_cast<size_t>(d)][k];
        ptrs[k] = p;
      }
      const int64_t n = std::min(inner - idx[nd - 1], e - b);
      f(ptrs, inner_strides, n);
      b += n;
      idx[nd - 1] += n;
      if (idx[nd - 1] == inner) {
        idx[nd - 1] = 0;
        for (int64_t d = nd - 2; d >= 0; --d) {
          if (++idx[d] < shape_[d]) break;
          idx[d] = 0;
        }
      }
    }
  });
}

// out = f(a) elementwise; the contiguous case is a plain loop the compiler vectorizes.
template <class Out, class A, class F>
void unary_loop(const StridedLoop& it, const F& f) {
  it.run([&](char* const* p, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(Out) && s[1] == sizeof(A)) {
      Out* o = reinterpret_cast<Out*>(p[0]);
      const A* a = reinterpret_cast<const A*>(p[1]);
      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i]);
    } else {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<Out*>(p[0] + i * s[0]) = f(*reinterpret_cast<const A*>(p[1] + i * s[1]));
    }
  });
}

// out = f(a, b) elementwise, with fast paths for contiguous operands and a broadcast scalar.
template <class Out, class A, class B, class F>
void binary_loop(const StridedLoop& it, const F& f) {
  it.run([&](char* const* p, const int64_t* s, int64_t n) {
    Out* o = reinterpret_cast<Out*>(p[0]);
    const A* a = reinterpret_cast<const A*>(p[1]);
    const B* b = reinterpret_cast<const B*>(p[2]);
    if (s[0] == sizeof(Out) && s[1] == sizeof(A) && s[2] == sizeof(B)) {
      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b[i]);
    } else if (s[0] == sizeof(Out) && s[1] == sizeof(A) && s[2] == 0) {
      const B bv = *b;
      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], bv);
    } else if (s[0] == sizeof(Out) && s[1] == 0 && s[2] == sizeof(B)) {
      const A av = *a;
      for (int64_t i = 0; i < n; ++i) o[i] = f(av, b[i]);
    } else {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<Out*>(p[0] + i * s[0]) =
            f(*reinterpret_cast<const A*>(p[1] + i * s[1]), *reinterpret_cast<const B*>(p[2] + i * s[2]));
    }
  });
}

// out = f(a, b, c) elementwise.
template <class Out, class A, class B, class C, class F>
void ternary_loop(const StridedLoop& it, const F& f) {
  it.run([&](char* const* p, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(Out) && s[1] == sizeof(A) && s[2] == sizeof(B) && s[3] == sizeof(C)) {
      Out* o = reinterpret_cast<Out*>(p[0]);
      const A* a = reinterpret_cast<const A*>(p[1]);
      const B* b = reinterpret_cast<const B*>(p[2]);
      const C* c = reinterpret_cast<const C*>(p[3]);
      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b[i], c[i]);
    } else {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<Out*>(p[0] + i * s[0]) =
            f(*reinterpret_cast<const A*>(p[1] + i * s[1]), *reinterpret_cast<const B*>(p[2] + i * s[2]),
              *reinterpret_cast<const C*>(p[3] + i * s[3]));
    }
  });
}

// exp for float32 written so loops calling it vectorize (std::exp does not without -ffast-math):
// Cephes' range reduction and degree-5 polynomial, within 2 ulp of std::exp (subnormal results
// included); below -103.9 it gives 0, above 88.72 infinity, NaN stays NaN.
inline float vexp(float x) {
  const float xc = std::min(std::max(x, -103.9f), 88.72f);
  const float t = xc * 1.44269504088896341f + 12582912.0f;  // 1.5 * 2^23: rounds to an integer
  const float fx = t - 12582912.0f;
  int32_t n;
  std::memcpy(&n, &t, sizeof n);
  n -= 0x4B400000;
  const float r = xc - fx * 0.693359375f - fx * -2.12194440e-4f;
  const float z = r * r;
  const float p =
      ((((1.9875691500e-4f * r + 1.3981999507e-3f) * r + 8.3334519073e-3f) * r + 4.1665795894e-2f) * r + 1.6666665459e-1f) * r +
      5.0000001201e-1f;
  const float y = p * z + r + 1.0f;
  // 2^n as two factors, each a normal float for every n in range.
  const int32_t n1 = n >> 1, n2 = n - n1;
  const int32_t b1 = (n1 + 127) << 23, b2 = (n2 + 127) << 23;
  float s1, s2;
  std::memcpy(&s1, &b1, sizeof s1);
  std::memcpy(&s2, &b2, sizeof s2);
  float out = y * s1 * s2;
  out = x > 88.7228391f ? std::numeric_limits<float>::infinity() : out;
  out = x < -103.9f ? 0.0f : out;
  return x != x ? x : out;
}
inline double vexp(double x) { return std::exp(x); }

// Calls f(T{}) with T = std::complex<float> or std::complex<double> for complex64/complex128.
template <class F>
void dispatch_complex(DType dt, const char* op, F&& f) {
  switch (dt) {
    case DType::Complex64: f(std::complex<float>{}); break;
    case DType::Complex128: f(std::complex<double>{}); break;
    default:
      throw Unsupported(std::string(op) + ": dtype " + std::string(dtype_name(dt)) + " is not supported yet");
  }
}

// Optional arguments: nullopt for None.
std::optional<DType> optional_scalar_type_arg(const IValue& v);
// Reduction dims from an int[1]? argument: every dim when None or empty, wrapped and deduplicated.
std::vector<int64_t> reduction_dims(const IValue& v, int64_t ndim, const char* op);
// Replaces the stack's inputs with the one output.
inline void set_output(std::vector<IValue>& stack, IValue v) {
  stack.clear();
  stack.push_back(std::move(v));
}

}  // namespace jitctl::cpu
