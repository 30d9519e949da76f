// Elementwise device kernels: one grid-stride kernel over a coalesced strided shape, instantiated
// per operation functor and compute type. The formulas follow kernels/cpu/elementwise.cpp, NaN
// rules included, so device and host results agree to float rounding.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/cuda/elementwise_launch.h"

namespace jitctl::cuda {
namespace {

constexpr int kThreads = 256;

template <int NIN, class A, class B, class C, class F>
// __grid_constant__: the operand structs are read where the launch put them (kernel parameter
// memory), not copied to every thread's local memory first.
__global__ void ew_kernel(const __grid_constant__ DeviceShape sh, const __grid_constant__ DeviceOut out,
                          const __grid_constant__ DeviceOperand a, const __grid_constant__ DeviceOperand b,
                          const __grid_constant__ DeviceOperand c, F f) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < sh.numel; i += step) {
    int64_t oo = 0, oa = 0, ob = 0, oc = 0;
    if (sh.ndim == 1) {
      oo = i * out.strides[0];
      oa = i * a.strides[0];
      ob = i * b.strides[0];
      oc = i * c.strides[0];
    } else {
      int64_t r = i;
      for (int d = sh.ndim - 1; d >= 0; --d) {
        const int64_t k = r % sh.sizes[d];
        r /= sh.sizes[d];
        oo += k * out.strides[d];
        oa += k * a.strides[d];
        ob += k * b.strides[d];
        oc += k * c.strides[d];
      }
    }
    if constexpr (NIN == 1) {
      store_as(out.ptr, out.dtype, oo, f(operand_value<A>(a, oa)));
    } else if constexpr (NIN == 2) {
      store_as(out.ptr, out.dtype, oo, f(operand_value<A>(a, oa), operand_value<B>(b, ob)));
    } else {
      store_as(out.ptr, out.dtype, oo, f(operand_value<A>(a, oa), operand_value<B>(b, ob), operand_value<C>(c, oc)));
    }
  }
}

template <class T>
__device__ __forceinline__ bool is_nan(T v) {
  if constexpr (std::is_floating_point<T>::value) return v != v;
  else return false;
}

// ---- unary -----------------------------------------------------------------------------------

constexpr float kSqrt1_2 = 0.70710678118654752440f;
constexpr float kSqrt2OverPi = 0.79788456080286535588f;  // M_SQRT2 * M_2_SQRTPI * 0.5

// The CPU kernels' tanh (kernels/cpu/activations.cpp: tanh_f, exp_nonpositive), operation for
// operation, with the _rn intrinsics so that nvcc does not contract them into FMAs: both
// backends then round tanh and GELU-tanh alike, which a following floor or comparison can turn
// from a last-bit difference into a different answer (CUDA's tanhf differs by an ulp or two).
__device__ __forceinline__ float mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ float add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ float sub(float a, float b) { return __fsub_rn(a, b); }

__device__ __forceinline__ float exp_nonpositive(float x) {
  const float xc = x < -87.0f ? -87.0f : x;
  const float t = add(mul(xc, 1.44269504088896341f), 12582912.0f);
  const float fx = sub(t, 12582912.0f);
  const int n = __float_as_int(t) - 0x4B400000;
  const float r = sub(sub(xc, mul(fx, 0.693359375f)), mul(fx, -2.12194440e-4f));
  float p = add(mul(1.9875691500e-4f, r), 1.3981999507e-3f);
  p = add(mul(p, r), 8.3334519073e-3f);
  p = add(mul(p, r), 4.1665795894e-2f);
  p = add(mul(p, r), 1.6666665459e-1f);
  p = add(mul(p, r), 5.0000001201e-1f);
  const float y = add(add(mul(p, mul(r, r)), r), 1.0f);
  return mul(y, __int_as_float((n + 127) << 23));
}

__device__ __forceinline__ float cpu_tanh(float x) {
  const float ax = fabsf(x);
  const float e = exp_nonpositive(mul(-2.0f, ax));
  const float big = __fdiv_rn(sub(1.0f, e), add(1.0f, e));
  const float x2 = mul(x, x);
  const float small = mul(ax, add(1.0f, mul(x2, add(-1.0f / 3, mul(x2, add(2.0f / 15, mul(x2, -17.0f / 315)))))));
  const float r = ax < 0.1f ? small : big;
  return x != x ? x : copysignf(r, x);
}

__device__ __forceinline__ float gelu_tanh(float v) {
  const float inner = mul(kSqrt2OverPi, add(v, mul(mul(mul(0.044715f, v), v), v)));
  return mul(mul(0.5f, v), add(1.0f, cpu_tanh(inner)));
}

template <int OP>
struct UnaryFn {
  UnaryParams p;

  template <class T>
  __device__ __forceinline__ auto operator()(T v) const {
    constexpr UnaryOp op = static_cast<UnaryOp>(OP);
    if constexpr (op == UnaryOp::Identity) {
      return v;
    } else if constexpr (op == UnaryOp::Relu) {
      return (v > T(0) || is_nan(v)) ? v : T(0);
    } else if constexpr (op == UnaryOp::Hardtanh) {
      const T l = static_cast<T>(p.a), h = static_cast<T>(p.b);
      if (is_nan(v)) return v;
      return v < l ? l : (v > h ? h : v);
    } else if constexpr (op == UnaryOp::Clamp) {
      const bool has_lo = (p.flags & 1) != 0, has_hi = (p.flags & 2) != 0;
      const T l = has_lo ? static_cast<T>(p.a) : T(0), h = has_hi ? static_cast<T>(p.b) : T(0);
      const bool lo_nan = has_lo && is_nan(l), hi_nan = has_hi && is_nan(h);
      if (is_nan(v) || lo_nan || hi_nan) return lo_nan ? l : hi_nan ? h : v;
      if (has_lo && v < l) v = l;
      if (has_hi && v > h) v = h;
      return v;
    } else if constexpr (op == UnaryOp::Abs) {
      if constexpr (std::is_floating_point<T>::value) return std::fabs(v);
      else return v < T(0) ? static_cast<T>(-v) : v;
    } else if constexpr (op == UnaryOp::Neg) {
      return static_cast<T>(-v);
    } else if constexpr (op == UnaryOp::Square) {
      return static_cast<T>(v * v);
    } else if constexpr (op == UnaryOp::Sign) {
      return static_cast<T>((T(0) < v) - (v < T(0)));
    } else if constexpr (op == UnaryOp::LogicalNot) {
      return v == T(0);
    } else if constexpr (op == UnaryOp::Sigmoid) {
      return 1.0f / (1.0f + expf(-v));
    } else if constexpr (op == UnaryOp::Tanh) {
      return cpu_tanh(v);
    } else if constexpr (op == UnaryOp::Silu) {
      return v / (1.0f + expf(-v));
    } else if constexpr (op == UnaryOp::GeluErf) {
      return v * 0.5f * (1.0f + erff(v * kSqrt1_2));
    } else if constexpr (op == UnaryOp::GeluTanh) {
      return gelu_tanh(v);
    } else if constexpr (op == UnaryOp::Hardswish) {
      return v * fminf(fmaxf(v + 3.0f, 0.0f), 6.0f) / 6.0f;
    } else if constexpr (op == UnaryOp::Hardsigmoid) {
      return fminf(fmaxf(v + 3.0f, 0.0f), 6.0f) / 6.0f;
    } else if constexpr (op == UnaryOp::LeakyRelu) {
      return v > 0.0f ? v : v * static_cast<float>(p.a);
    } else if constexpr (op == UnaryOp::Elu) {
      return v <= 0.0f ? expm1f(v * static_cast<float>(p.c)) * static_cast<float>(p.a * p.b) : v * static_cast<float>(p.b);
    } else if constexpr (op == UnaryOp::Exp) {
      return expf(v);
    } else if constexpr (op == UnaryOp::Expm1) {
      return expm1f(v);
    } else if constexpr (op == UnaryOp::Log) {
      return logf(v);
    } else if constexpr (op == UnaryOp::Log2) {
      return log2f(v);
    } else if constexpr (op == UnaryOp::Log10) {
      return log10f(v);
    } else if constexpr (op == UnaryOp::Log1p) {
      return log1pf(v);
    } else if constexpr (op == UnaryOp::Sqrt) {
      return sqrtf(v);
    } else if constexpr (op == UnaryOp::Rsqrt) {
      return 1.0f / sqrtf(v);
    } else if constexpr (op == UnaryOp::Erf) {
      return erff(v);
    } else if constexpr (op == UnaryOp::Softplus) {
      const float beta = static_cast<float>(p.a);
      const float bv = v * beta;
      return bv > static_cast<float>(p.b) ? v : log1pf(expf(bv)) / beta;
    } else if constexpr (op == UnaryOp::Mish) {
      return v * tanhf(log1pf(expf(v)));
    } else if constexpr (op == UnaryOp::Sin) {
      return sinf(v);
    } else if constexpr (op == UnaryOp::Cos) {
      return cosf(v);
    } else if constexpr (op == UnaryOp::Tan) {
      return tanf(v);
    } else if constexpr (op == UnaryOp::Reciprocal) {
      return 1.0f / v;
    } else if constexpr (op == UnaryOp::PowScalar) {
      return powf(v, static_cast<float>(p.a));
    } else if constexpr (op == UnaryOp::Floor) {
      return floorf(v);
    } else if constexpr (op == UnaryOp::Ceil) {
      return ceilf(v);
    } else if constexpr (op == UnaryOp::Round) {
      return rintf(v);
    } else {
      static_assert(op == UnaryOp::Trunc, "unhandled unary op");
      return truncf(v);
    }
  }
};

template <int OP, class T>
void run_unary(const DeviceShape& sh, const DeviceOut& out, const DeviceOperand& x, const UnaryParams& p, cudaStream_t stream) {
  ew_kernel<1, T, T, T><<<grid_for(sh.numel, kThreads), kThreads, 0, stream>>>(sh, out, x, x, x, UnaryFn<OP>{p});
}

#define UNARY_CASE(NAME)                                                   \
  case UnaryOp::NAME:                                                      \
    run_unary<static_cast<int>(UnaryOp::NAME), T>(sh, out, x, p, stream);  \
    return true;

// The ops every compute type has.
template <class T>
bool unary_any(UnaryOp op, const DeviceShape& sh, const DeviceOut& out, const DeviceOperand& x, const UnaryParams& p, cudaStream_t stream) {
  switch (op) {
    UNARY_CASE(Identity)
    UNARY_CASE(Relu)
    UNARY_CASE(Hardtanh)
    UNARY_CASE(Clamp)
    UNARY_CASE(Abs)
    UNARY_CASE(Neg)
    UNARY_CASE(Square)
    UNARY_CASE(Sign)
    UNARY_CASE(LogicalNot)
    default: return false;
  }
}

bool unary_float(UnaryOp op, const DeviceShape& sh, const DeviceOut& out, const DeviceOperand& x, const UnaryParams& p, cudaStream_t stream) {
  using T = float;
  switch (op) {
    UNARY_CASE(Sigmoid)
    UNARY_CASE(Tanh)
    UNARY_CASE(Silu)
    UNARY_CASE(GeluErf)
    UNARY_CASE(GeluTanh)
    UNARY_CASE(Hardswish)
    UNARY_CASE(Hardsigmoid)
    UNARY_CASE(LeakyRelu)
    UNARY_CASE(Elu)
    UNARY_CASE(Exp)
    UNARY_CASE(Expm1)
    UNARY_CASE(Log)
    UNARY_CASE(Log2)
    UNARY_CASE(Log10)
    UNARY_CASE(Log1p)
    UNARY_CASE(Sqrt)
    UNARY_CASE(Rsqrt)
    UNARY_CASE(Erf)
    UNARY_CASE(Softplus)
    UNARY_CASE(Mish)
    UNARY_CASE(Sin)
    UNARY_CASE(Cos)
    UNARY_CASE(Tan)
    UNARY_CASE(Reciprocal)
    UNARY_CASE(PowScalar)
    UNARY_CASE(Floor)
    UNARY_CASE(Ceil)
    UNARY_CASE(Round)
    UNARY_CASE(Trunc)
    default: return unary_any<float>(op, sh, out, x, p, stream);
  }
}
#undef UNARY_CASE

// ---- binary ----------------------------------------------------------------------------------

template <class T>
__device__ __forceinline__ T floor_div(T a, T b) {
  // PyTorch's div_floor: exact when a is a multiple of b, rounds like Python's //.
  if (b == T(0)) return a / b;
  const T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != T(0) && (b < T(0)) != (mod < T(0))) div -= T(1);
  if (div == T(0)) return std::copysign(T(0), a / b);
  T fl = std::floor(div);
  if (div - fl > T(0.5)) fl += T(1);
  return fl;
}

template <int OP>
struct BinaryFn {
  double alpha;
  int64_t ialpha;

  template <class T>
  __device__ __forceinline__ auto operator()(T x, T y) const {
    constexpr BinaryOp op = static_cast<BinaryOp>(OP);
    if constexpr (op == BinaryOp::Add) {
      if constexpr (std::is_floating_point<T>::value) {
        if (alpha == 1.0) return x + y;
        if (alpha == -1.0) return x - y;
        return x + static_cast<T>(alpha) * y;
      } else {
        return static_cast<T>(x + static_cast<T>(ialpha) * y);
      }
    } else if constexpr (op == BinaryOp::Mul) {
      return static_cast<T>(x * y);
    } else if constexpr (op == BinaryOp::Div) {
      return x / y;
    } else if constexpr (op == BinaryOp::DivTrunc) {
      return std::trunc(x / y);
    } else if constexpr (op == BinaryOp::DivFloor) {
      return floor_div(x, y);
    } else if constexpr (op == BinaryOp::Remainder) {
      T r = std::fmod(x, y);
      if (r != T(0) && ((y < T(0)) != (r < T(0)))) r += y;
      return r;
    } else if constexpr (op == BinaryOp::Pow) {
      return std::pow(x, y);
    } else if constexpr (op == BinaryOp::Maximum) {
      if (is_nan(x)) return x;
      if (is_nan(y)) return y;
      return x > y ? x : y;
    } else if constexpr (op == BinaryOp::Minimum) {
      if (is_nan(x)) return x;
      if (is_nan(y)) return y;
      return x < y ? x : y;
    } else if constexpr (op == BinaryOp::Eq) {
      return x == y;
    } else if constexpr (op == BinaryOp::Ne) {
      return x != y;
    } else if constexpr (op == BinaryOp::Lt) {
      return x < y;
    } else if constexpr (op == BinaryOp::Le) {
      return x <= y;
    } else if constexpr (op == BinaryOp::Gt) {
      return x > y;
    } else if constexpr (op == BinaryOp::Ge) {
      return x >= y;
    } else if constexpr (op == BinaryOp::LogicalAnd) {
      return x != T(0) && y != T(0);
    } else if constexpr (op == BinaryOp::LogicalOr) {
      return x != T(0) || y != T(0);
    } else {
      static_assert(op == BinaryOp::LogicalXor, "unhandled binary op");
      return (x != T(0)) != (y != T(0));
    }
  }
};

template <int OP, class T>
void run_binary(const DeviceShape& sh, const DeviceOut& out, const DeviceOperand& a, const DeviceOperand& b, double alpha, int64_t ialpha,
                cudaStream_t stream) {
  ew_kernel<2, T, T, T><<<grid_for(sh.numel, kThreads), kThreads, 0, stream>>>(sh, out, a, b, b, BinaryFn<OP>{alpha, ialpha});
}

#define BINARY_CASE(NAME)                                                                  \
  case BinaryOp::NAME:                                                                     \
    run_binary<static_cast<int>(BinaryOp::NAME), T>(sh, out, a, b, alpha, ialpha, stream); \
    return true;

template <class T>
bool binary_for(BinaryOp op, const DeviceShape& sh, const DeviceOut& out, const DeviceOperand& a, const DeviceOperand& b, double alpha,
                int64_t ialpha, cudaStream_t stream) {
  if constexpr (std::is_floating_point<T>::value) {
    switch (op) {
      BINARY_CASE(Div)
      BINARY_CASE(DivTrunc)
      BINARY_CASE(DivFloor)
      BINARY_CASE(Remainder)
      BINARY_CASE(Pow)
      default: break;
    }
  }
  switch (op) {
    BINARY_CASE(Add)
    BINARY_CASE(Mul)
    BINARY_CASE(Maximum)
    BINARY_CASE(Minimum)
    BINARY_CASE(Eq)
    BINARY_CASE(Ne)
    BINARY_CASE(Lt)
    BINARY_CASE(Le)
    BINARY_CASE(Gt)
    BINARY_CASE(Ge)
    BINARY_CASE(LogicalAnd)
    BINARY_CASE(LogicalOr)
    BINARY_CASE(LogicalXor)
    default: return false;
  }
}
#undef BINARY_CASE

// ---- where -----------------------------------------------------------------------------------

struct WhereFn {
  template <class T>
  __device__ __forceinline__ T operator()(bool c, T a, T b) const {
    return c ? a : b;
  }
};

template <class T>
void run_where(const DeviceShape& sh, const DeviceOut& out, const DeviceOperand& cond, const DeviceOperand& a, const DeviceOperand& b,
               cudaStream_t stream) {
  ew_kernel<3, bool, T, T><<<grid_for(sh.numel, kThreads), kThreads, 0, stream>>>(sh, out, cond, a, b, WhereFn{});
}

}  // namespace

bool launch_unary(UnaryOp op, int compute_dtype, const DeviceShape& shape, const DeviceOut& out, const DeviceOperand& x,
                  const UnaryParams& params, cudaStream_t stream) {
  if (shape.numel == 0) return true;
  switch (compute_dtype) {
    case kDevFloat32: return unary_float(op, shape, out, x, params, stream);
    case kDevFloat64: return unary_any<double>(op, shape, out, x, params, stream);
    case kDevInt64: return unary_any<int64_t>(op, shape, out, x, params, stream);
    default: return false;
  }
}

bool launch_binary(BinaryOp op, int compute_dtype, const DeviceShape& shape, const DeviceOut& out, const DeviceOperand& a,
                   const DeviceOperand& b, double alpha, int64_t ialpha, cudaStream_t stream) {
  if (shape.numel == 0) return true;
  switch (compute_dtype) {
    case kDevFloat32: return binary_for<float>(op, shape, out, a, b, alpha, ialpha, stream);
    case kDevFloat64: return binary_for<double>(op, shape, out, a, b, alpha, ialpha, stream);
    case kDevInt64: return binary_for<int64_t>(op, shape, out, a, b, alpha, ialpha, stream);
    default: return false;
  }
}

bool launch_where(int compute_dtype, const DeviceShape& shape, const DeviceOut& out, const DeviceOperand& cond, const DeviceOperand& a,
                  const DeviceOperand& b, cudaStream_t stream) {
  if (shape.numel == 0) return true;
  switch (compute_dtype) {
    case kDevFloat32: run_where<float>(shape, out, cond, a, b, stream); return true;
    case kDevFloat64: run_where<double>(shape, out, cond, a, b, stream); return true;
    case kDevInt64: run_where<int64_t>(shape, out, cond, a, b, stream); return true;
    default: return false;
  }
}

}  // namespace jitctl::cuda
