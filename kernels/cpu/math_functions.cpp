// Elementwise math beyond elementwise.cpp's arithmetic and activations: inverse and hyperbolic
// trigonometry, exp2/erfc/lgamma/sinc/logit, the float classifications (isnan, isinf, isfinite,
// signbit, ...), nan_to_num, and the two- and three-operand functions (atan2, hypot, fmod,
// copysign, logaddexp, fmax/fmin, xlogy, float_power, heaviside, lerp, addcmul, addcdiv), plus the
// operator aliases PyTorch registers under other names (divide, multiply, subtract, true_divide,
// absolute, negative, clip, arctan2, ...), which run the canonical op's kernel.
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kernels/cpu/register_cpu.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/registry.h"

namespace jitctl {
namespace {

using namespace cpu;

const Tensor& targ(const Stack& s, size_t i) { return s[i].to_tensor(); }

// Integer and bool inputs compute in the default float dtype, as PyTorch's float ops do.
DType float_of(DType d) { return is_floating(d) ? d : DType::Float32; }

template <class T>
constexpr bool kFloat = std::is_floating_point_v<T>;

// out = f(x) for a float function; the output dtype is x's (float32 for integers).
template <class F>
Tensor unary_float(const Tensor& x, const char* op, const F& f) {
  const DType dt = float_of(x.dtype());
  const Tensor in = x.dtype() == dt ? x : to_dtype(x, dt);
  Tensor out = Tensor::empty(dt, x.sizes());
  StridedLoop it(out, {&in});
  dispatch_dtype(dt, op, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (kFloat<T>) unary_loop<T, T>(it, [&](T a) { return static_cast<T>(f(a)); });
  });
  return out;
}

// out (bool) = f(x); integer inputs are never NaN nor infinite.
template <class F>
Tensor classify(const Tensor& x, const char* op, bool for_ints, const F& f) {
  Tensor out = Tensor::empty(DType::Bool, x.sizes());
  StridedLoop it(out, {&x});
  dispatch_dtype(x.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (kFloat<T>) unary_loop<bool, T>(it, [&](T a) { return f(static_cast<double>(a)); });
    else unary_loop<bool, T>(it, [&](T a) { return for_ints ? a < 0 : false; });
  });
  return out;
}

std::vector<int64_t> shape_of(const IValue& v) { return v.is_tensor() ? v.to_tensor().sizes() : std::vector<int64_t>{}; }

// out = f(a, b) with PyTorch's type promotion (result_type); `to_float` promotes an integral
// result to float32 first. Scalars become 0-dim tensors.
template <class F>
Tensor binary(const IValue& a, const IValue& b, bool to_float, const char* op, const F& f) {
  DType dt = result_type({&a, &b});
  if (to_float) dt = float_of(dt);
  const Tensor ta = operand_as(a, dt), tb = operand_as(b, dt);
  Tensor out = Tensor::empty(dt, broadcast_shapes(shape_of(a), shape_of(b)));
  StridedLoop it(out, {&ta, &tb});
  dispatch_dtype(dt, op, [&](auto tag) {
    using T = decltype(tag);
    binary_loop<T, T, T>(it, [&](T x, T y) { return static_cast<T>(f(x, y)); });
  });
  return out;
}

template <class F>
Tensor ternary(const IValue& a, const IValue& b, const IValue& c, bool to_float, const char* op, const F& f) {
  DType dt = result_type({&a, &b, &c});
  if (to_float) dt = float_of(dt);
  const Tensor ta = operand_as(a, dt), tb = operand_as(b, dt), tc = operand_as(c, dt);
  Tensor out = Tensor::empty(dt, broadcast_shapes(broadcast_shapes(shape_of(a), shape_of(b)), shape_of(c)));
  StridedLoop it(out, {&ta, &tb, &tc});
  dispatch_dtype(dt, op, [&](auto tag) {
    using T = decltype(tag);
    ternary_loop<T, T, T, T>(it, [&](T x, T y, T z) { return static_cast<T>(f(x, y, z)); });
  });
  return out;
}

// C++'s fmod for floats; for integers the sign of the dividend, as C's %.
template <class T>
T fmod_of(T a, T b) {
  if constexpr (kFloat<T>) return std::fmod(a, b);
  else if constexpr (std::is_same_v<T, bool>) return b ? false : throw InvalidInput("ZeroDivisionError");
  else {
    if (b == 0) throw InvalidInput("ZeroDivisionError");
    return static_cast<T>(a % b);
  }
}

double logaddexp(double a, double b) {
  if (std::isinf(a) && a == b) return a;
  const double m = std::max(a, b);
  return m + std::log1p(std::exp(-std::abs(a - b)));
}

double logaddexp2(double a, double b) {
  if (std::isinf(a) && a == b) return a;
  const double m = std::max(a, b);
  return m + std::log1p(std::exp2(-std::abs(a - b))) / std::log(2.0);
}

template <class T>
T fmax_of(T a, T b) {
  if constexpr (kFloat<T>) return std::fmax(a, b);
  else return a > b ? a : b;
}
template <class T>
T fmin_of(T a, T b) {
  if constexpr (kFloat<T>) return std::fmin(a, b);
  else return a < b ? a : b;
}

// Runs the kernel registered under `canonical` (an alias's target).
template <const char* Canonical>
void alias(Stack& s) {
  static const KernelFn fn = find_kernel(Canonical);
  if (!fn) throw Unsupported(fmt::format("no kernel for {}", Canonical));
  fn(s);
}

#define JITCTL_ALIAS(var, name) constexpr char var[] = name;
JITCTL_ALIAS(kDivTensor, "aten::div.Tensor")
JITCTL_ALIAS(kDivScalar, "aten::div.Scalar")
JITCTL_ALIAS(kDivTensorMode, "aten::div.Tensor_mode")
JITCTL_ALIAS(kDivScalarMode, "aten::div.Scalar_mode")
JITCTL_ALIAS(kMulTensor, "aten::mul.Tensor")
JITCTL_ALIAS(kMulScalar, "aten::mul.Scalar")
JITCTL_ALIAS(kSubTensor, "aten::sub.Tensor")
JITCTL_ALIAS(kSubScalar, "aten::sub.Scalar")
JITCTL_ALIAS(kAbs, "aten::abs")
JITCTL_ALIAS(kNeg, "aten::neg")
JITCTL_ALIAS(kClamp, "aten::clamp")
JITCTL_ALIAS(kClampTensor, "aten::clamp.Tensor")
JITCTL_ALIAS(kAtan2, "aten::atan2")
JITCTL_ALIAS(kSign, "aten::sign")
JITCTL_ALIAS(kTrunc, "aten::trunc")
JITCTL_ALIAS(kBitAnd, "aten::bitwise_and.Tensor")
JITCTL_ALIAS(kBitOr, "aten::bitwise_or.Tensor")
JITCTL_ALIAS(kBitXor, "aten::bitwise_xor.Tensor")
#undef JITCTL_ALIAS

double f_acos(double x) { return std::acos(x); }
double f_asin(double x) { return std::asin(x); }
double f_atan(double x) { return std::atan(x); }
double f_sinh(double x) { return std::sinh(x); }
double f_cosh(double x) { return std::cosh(x); }
double f_asinh(double x) { return std::asinh(x); }
double f_acosh(double x) { return std::acosh(x); }
double f_atanh(double x) { return std::atanh(x); }
double f_exp2(double x) { return std::exp2(x); }
double f_erfc(double x) { return std::erfc(x); }
double f_lgamma(double x) { return std::lgamma(x); }
double f_deg2rad(double x) { return x * (M_PI / 180.0); }
double f_rad2deg(double x) { return x * (180.0 / M_PI); }
double f_sinc(double x) { return x == 0 ? 1.0 : std::sin(M_PI * x) / (M_PI * x); }

// erfinv: a rational first guess refined by two Newton steps on erf (exact to double rounding).
double f_erfinv(double y) {
  if (y <= -1) return y == -1 ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  if (y >= 1) return y == 1 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  if (y != y) return y;
  const double w = -std::log((1.0 - y) * (1.0 + y));
  double x;
  if (w < 5.0) {
    const double t = w - 2.5;
    double p = 2.81022636e-08;
    for (double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941})
      p = c + p * t;
    x = p * y;
  } else {
    const double t = std::sqrt(w) - 3.0;
    double p = -0.000200214257;
    for (double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682})
      p = c + p * t;
    x = p * y;
  }
  for (int i = 0; i < 2; ++i) x -= (std::erf(x) - y) / (2.0 / std::sqrt(M_PI) * std::exp(-x * x));
  return x;
}

// digamma: the recurrence up to x >= 6, then the asymptotic series; reflection below 0.
double f_digamma(double x) {
  if (x == 0) return std::copysign(std::numeric_limits<double>::infinity(), -x);
  if (x < 0) {
    if (x == std::floor(x)) return std::numeric_limits<double>::quiet_NaN();
    return f_digamma(1 - x) - M_PI / std::tan(M_PI * x);
  }
  double r = 0;
  while (x < 6) r -= 1 / x, x += 1;
  const double f = 1 / (x * x);
  return r + std::log(x) - 0.5 / x - f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132)))));
}

// i0: the power series sum ((x/2)^k / k!)^2, which converges for every x.
double f_i0(double x) {
  const double q = x * x / 4;
  double term = 1, sum = 1;
  for (int k = 1; k < 500 && term > sum * 1e-17; ++k) {
    term *= q / (static_cast<double>(k) * k);
    sum += term;
  }
  return sum;
}

template <double (*F)(double)>
void k_unary(Stack& s) {
  set_output(s, unary_float(targ(s, 0), "math", F));
}

bool f_isnan(double x) { return std::isnan(x); }
bool f_isinf(double x) { return std::isinf(x); }
bool f_isfinite(double x) { return std::isfinite(x); }
bool f_isposinf(double x) { return x == std::numeric_limits<double>::infinity(); }
bool f_isneginf(double x) { return x == -std::numeric_limits<double>::infinity(); }
bool f_signbit(double x) { return std::signbit(x); }

// for_ints: the answer for integers (isfinite: all true; signbit: negative ones).
template <bool (*F)(double), int IntAnswer>
void k_classify(Stack& s) {
  const Tensor& x = targ(s, 0);
  if (IntAnswer == 1 && !is_floating(x.dtype())) {
    Tensor out = Tensor::empty(DType::Bool, x.sizes());
    std::fill(mutable_data_of<bool>(out), mutable_data_of<bool>(out) + out.numel(), true);
    set_output(s, std::move(out));
    return;
  }
  set_output(s, classify(x, "classify", IntAnswer == 2, F));
}

Tensor nan_to_num(const Tensor& x, const IValue& nan, const IValue& posinf, const IValue& neginf) {
  if (!is_floating(x.dtype())) {  // a copy: integers have nothing to replace
    Tensor out = empty_like(x);
    copy_strided(x, out);
    return out;
  }
  Tensor out = Tensor::empty(x.dtype(), x.sizes());
  StridedLoop it(out, {&x});
  dispatch_dtype(x.dtype(), "nan_to_num", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (kFloat<T>) {
      const T n = nan.is_none() ? T(0) : static_cast<T>(nan.to_double());
      const T p = posinf.is_none() ? std::numeric_limits<T>::max() : static_cast<T>(posinf.to_double());
      const T m = neginf.is_none() ? std::numeric_limits<T>::lowest() : static_cast<T>(neginf.to_double());
      unary_loop<T, T>(it, [&](T a) { return a != a ? n : a == std::numeric_limits<T>::infinity() ? p : a == -std::numeric_limits<T>::infinity() ? m : a; });
    }
  });
  return out;
}

// In the input's float type throughout, as ATen clamps and divides.
Tensor logit(const Tensor& x, const IValue& eps) {
  const DType dt = float_of(x.dtype());
  const Tensor in = x.dtype() == dt ? x : to_dtype(x, dt);
  Tensor out = Tensor::empty(dt, x.sizes());
  StridedLoop it(out, {&in});
  dispatch_dtype(dt, "logit", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (kFloat<T>) {
      const bool clamp = !eps.is_none();
      const T lo = clamp ? static_cast<T>(eps.to_double()) : T(0), hi = T(1) - lo;
      unary_loop<T, T>(it, [&](T a) {
        if (clamp) a = a < lo ? lo : a > hi ? hi : a;
        return std::log(a / (T(1) - a));
      });
    }
  });
  return out;
}

}  // namespace

void register_math_kernels() {
  register_kernel("aten::acos", k_unary<f_acos>);
  register_kernel("aten::arccos", k_unary<f_acos>);
  register_kernel("aten::asin", k_unary<f_asin>);
  register_kernel("aten::arcsin", k_unary<f_asin>);
  register_kernel("aten::atan", k_unary<f_atan>);
  register_kernel("aten::arctan", k_unary<f_atan>);
  register_kernel("aten::sinh", k_unary<f_sinh>);
  register_kernel("aten::cosh", k_unary<f_cosh>);
  register_kernel("aten::asinh", k_unary<f_asinh>);
  register_kernel("aten::acosh", k_unary<f_acosh>);
  register_kernel("aten::atanh", k_unary<f_atanh>);
  register_kernel("aten::exp2", k_unary<f_exp2>);
  register_kernel("aten::erfc", k_unary<f_erfc>);
  register_kernel("aten::lgamma", k_unary<f_lgamma>);
  register_kernel("aten::deg2rad", k_unary<f_deg2rad>);
  register_kernel("aten::rad2deg", k_unary<f_rad2deg>);
  register_kernel("aten::sinc", k_unary<f_sinc>);
  register_kernel("aten::erfinv", k_unary<f_erfinv>);
  register_kernel("aten::digamma", k_unary<f_digamma>);
  register_kernel("aten::i0", k_unary<f_i0>);
  register_kernel("aten::frac", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    if (!is_floating(x.dtype())) throw InvalidInput(fmt::format("\"frac_cpu\" not implemented for '{}'", scalar_type_name(x.dtype())));
    set_output(s, unary_float(x, "frac", [](double a) { return a - std::trunc(a); }));
  });
  register_kernel("aten::fix", alias<kTrunc>);
  register_kernel("aten::mvlgamma", [](Stack& s) {  // log of the multivariate gamma function
    const int64_t p = s[1].to_int();
    if (p < 1) throw InvalidInput("p has to be greater than or equal to 1");
    const Tensor& x = targ(s, 0);
    set_output(s, unary_float(x, "mvlgamma", [p](double a) {
      double r = static_cast<double>(p) * static_cast<double>(p - 1) / 4.0 * std::log(M_PI);
      for (int64_t i = 0; i < p; ++i) r += std::lgamma(a - static_cast<double>(i) / 2.0);
      return r;
    }));
  });
  register_kernel("aten::round.decimals", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    const int64_t d = s[1].to_int();
    if (!is_floating(x.dtype())) throw InvalidInput("round_mode is not supported for integer inputs");
    // ATen: scale by 10^d (or divide by 10^-d), round half to even, scale back, in the input's type.
    Tensor out = Tensor::empty(x.dtype(), x.sizes());
    StridedLoop it(out, {&x});
    dispatch_dtype(x.dtype(), "round", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (kFloat<T>) {
        const bool neg = d < 0;
        const T ten = static_cast<T>(std::pow(10.0, static_cast<double>(neg ? -d : d)));
        unary_loop<T, T>(it, [&](T a) { return neg ? std::nearbyint(a / ten) * ten : std::nearbyint(a * ten) / ten; });
      }
    });
    set_output(s, std::move(out));
  });
  register_kernel("aten::logit", [](Stack& s) { set_output(s, logit(targ(s, 0), s[1])); });
  register_kernel("aten::isnan", k_classify<f_isnan, 0>);
  register_kernel("aten::isinf", k_classify<f_isinf, 0>);
  register_kernel("aten::isposinf", k_classify<f_isposinf, 0>);
  register_kernel("aten::isneginf", k_classify<f_isneginf, 0>);
  register_kernel("aten::isfinite", k_classify<f_isfinite, 1>);
  register_kernel("aten::signbit", k_classify<f_signbit, 2>);
  register_kernel("aten::nan_to_num", [](Stack& s) { set_output(s, nan_to_num(targ(s, 0), s[1], s[2], s[3])); });

  register_kernel("aten::atan2", [](Stack& s) {
    set_output(s, binary(s[0], s[1], true, "atan2", [](auto a, auto b) { return std::atan2(a, b); }));
  });
  register_kernel("aten::hypot", [](Stack& s) {
    set_output(s, binary(s[0], s[1], true, "hypot", [](auto a, auto b) { return std::hypot(a, b); }));
  });
  for (const char* name : {"aten::fmod.Tensor", "aten::fmod.Scalar"})
    register_kernel(name, [](Stack& s) { set_output(s, binary(s[0], s[1], false, "fmod", [](auto a, auto b) { return fmod_of(a, b); })); });
  for (const char* name : {"aten::copysign.Tensor", "aten::copysign.Scalar"})
    register_kernel(name, [](Stack& s) {
      set_output(s, binary(s[0], s[1], true, "copysign", [](auto a, auto b) { return std::copysign(a, b); }));
    });
  register_kernel("aten::logaddexp", [](Stack& s) {
    set_output(s, binary(s[0], s[1], true, "logaddexp", [](auto a, auto b) { return logaddexp(a, b); }));
  });
  register_kernel("aten::logaddexp2", [](Stack& s) {
    set_output(s, binary(s[0], s[1], true, "logaddexp2", [](auto a, auto b) { return logaddexp2(a, b); }));
  });
  register_kernel("aten::fmax", [](Stack& s) { set_output(s, binary(s[0], s[1], false, "fmax", [](auto a, auto b) { return fmax_of(a, b); })); });
  register_kernel("aten::fmin", [](Stack& s) { set_output(s, binary(s[0], s[1], false, "fmin", [](auto a, auto b) { return fmin_of(a, b); })); });
  for (const char* name : {"aten::xlogy.Tensor", "aten::xlogy.Scalar_Self", "aten::xlogy.Scalar_Other"})
    register_kernel(name, [](Stack& s) {
      set_output(s, binary(s[0], s[1], true, "xlogy", [](auto x, auto y) {
        using T = decltype(x);
        if (y != y) return y;
        return x == T(0) ? T(0) : static_cast<T>(x * std::log(y));
      }));
    });
  for (const char* name : {"aten::float_power.Tensor_Tensor", "aten::float_power.Tensor_Scalar", "aten::float_power.Scalar"})
    register_kernel(name, [](Stack& s) {
      const Tensor a = operand_as(s[0], DType::Float64), b = operand_as(s[1], DType::Float64);
      set_output(s, binary(IValue(a), IValue(b), true, "float_power", [](auto x, auto y) { return std::pow(x, y); }));
    });
  for (bool g : {true, false})
    register_kernel(g ? "aten::gcd" : "aten::lcm", g ? KernelFn([](Stack& s) {
      if (is_floating(targ(s, 0).dtype()) || is_floating(targ(s, 1).dtype()))
        throw InvalidInput("\"gcd_cpu\" not implemented for 'Float'");
      set_output(s, binary(s[0], s[1], false, "gcd", [](auto a, auto b) {
        using T = decltype(a);
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) return static_cast<T>(std::gcd(a, b));
        else return a;
      }));
    }) : KernelFn([](Stack& s) {
      if (is_floating(targ(s, 0).dtype()) || is_floating(targ(s, 1).dtype()))
        throw InvalidInput("\"lcm_cpu\" not implemented for 'Float'");
      set_output(s, binary(s[0], s[1], false, "lcm", [](auto a, auto b) {
        using T = decltype(a);
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
          const T g = static_cast<T>(std::gcd(a, b));
          return g == 0 ? T(0) : static_cast<T>(std::abs(a / g * b));
        } else {
          return a;
        }
      }));
    }));
  register_kernel("aten::isclose", [](Stack& s) {
    const double rtol = s[2].to_double(), atol = s[3].to_double();
    const bool equal_nan = s[4].to_bool();
    const Tensor &a = targ(s, 0), &b = targ(s, 1);
    if (a.dtype() != b.dtype())
      throw InvalidInput(fmt::format("{} did not match {}", scalar_type_name(a.dtype()), scalar_type_name(b.dtype())));
    const auto shape = broadcast_shapes(a.sizes(), b.sizes());
    const Tensor x = to_dtype(contiguous(expand_to(a, shape)), DType::Float64), y = to_dtype(contiguous(expand_to(b, shape)), DType::Float64);
    Tensor out = Tensor::empty(DType::Bool, shape);
    for (int64_t i = 0; i < out.numel(); ++i) {
      const double u = data_of<double>(x)[i], v = data_of<double>(y)[i];
      bool c = u == v || (equal_nan && u != u && v != v);
      if (!c && std::isfinite(u) && std::isfinite(v)) c = std::abs(u - v) <= atol + rtol * std::abs(v);
      mutable_data_of<bool>(out)[i] = c;
    }
    set_output(s, std::move(out));
  });
  register_kernel("aten::allclose", [](Stack& s) {
    const Stack args = s;
    static const KernelFn isclose = find_kernel("aten::isclose");
    Stack t = args;
    isclose(t);
    const Tensor& c = t[0].to_tensor();
    bool all = true;
    for (int64_t i = 0; i < c.numel() && all; ++i) all = data_of<bool>(c)[i];
    set_output(s, IValue(all));
  });
  register_kernel("aten::equal", [](Stack& s) {
    const Tensor &a = targ(s, 0), &b = targ(s, 1);
    bool eq = a.sizes() == b.sizes();
    if (eq) {
      const Tensor x = to_dtype(contiguous(a), DType::Float64), y = to_dtype(contiguous(b), DType::Float64);
      for (int64_t i = 0; i < x.numel() && eq; ++i) eq = data_of<double>(x)[i] == data_of<double>(y)[i];
    }
    set_output(s, IValue(eq));
  });
  register_kernel("aten::bitwise_and.Scalar_Tensor", alias<kBitAnd>);
  register_kernel("aten::bitwise_or.Scalar_Tensor", alias<kBitOr>);
  register_kernel("aten::bitwise_xor.Scalar_Tensor", alias<kBitXor>);
  register_kernel("aten::heaviside", [](Stack& s) {
    if (targ(s, 0).dtype() != targ(s, 1).dtype())
      throw InvalidInput("heaviside is not yet implemented for tensors with different dtypes");
    set_output(s, binary(s[0], s[1], false, "heaviside", [](auto x, auto v) {
      using T = decltype(x);
      return x == T(0) ? v : static_cast<T>(x > T(0));
    }));
  });
  for (const char* name : {"aten::lerp.Scalar", "aten::lerp.Tensor"})
    register_kernel(name, [](Stack& s) {
      set_output(s, ternary(s[0], s[1], s[2], false, "lerp", [](auto a, auto b, auto w) {
        using T = decltype(a);
        // torch.lerp: exact at both ends.
        return std::abs(w) < T(0.5) ? a + w * (b - a) : b - (b - a) * (T(1) - w);
      }));
    });
  register_kernel("aten::addcmul", [](Stack& s) {
    const double v = s[3].to_double();
    set_output(s, ternary(s[0], s[1], s[2], false, "addcmul", [v](auto a, auto b, auto c) {
      using T = decltype(a);
      return static_cast<T>(a + static_cast<T>(v) * b * c);
    }));
  });
  register_kernel("aten::addcdiv", [](Stack& s) {
    const double v = s[3].to_double();
    const DType dt = result_type({&s[0], &s[1], &s[2]});
    if (!is_floating(dt))
      throw InvalidInput("Integer division with addcdiv is no longer supported, and in a future release addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all dtypes.");
    set_output(s, ternary(s[0], s[1], s[2], false, "addcdiv", [v](auto a, auto b, auto c) {
      using T = decltype(a);
      return static_cast<T>(a + static_cast<T>(v) * (b / c));
    }));
  });

  // Aliases: the same kernel under PyTorch's other names.
  register_kernel("aten::divide.Tensor", alias<kDivTensor>);
  register_kernel("aten::divide.Scalar", alias<kDivScalar>);
  register_kernel("aten::divide.Tensor_mode", alias<kDivTensorMode>);
  register_kernel("aten::divide.Scalar_mode", alias<kDivScalarMode>);
  register_kernel("aten::true_divide.Tensor", alias<kDivTensor>);
  register_kernel("aten::true_divide.Scalar", alias<kDivScalar>);
  register_kernel("aten::multiply.Tensor", alias<kMulTensor>);
  register_kernel("aten::multiply.Scalar", alias<kMulScalar>);
  register_kernel("aten::subtract.Tensor", alias<kSubTensor>);
  register_kernel("aten::subtract.Scalar", alias<kSubScalar>);
  register_kernel("aten::absolute", alias<kAbs>);
  register_kernel("aten::negative", alias<kNeg>);
  register_kernel("aten::clip", alias<kClamp>);
  register_kernel("aten::clip.Tensor", alias<kClampTensor>);
  register_kernel("aten::arctan2", alias<kAtan2>);
  register_kernel("aten::sgn", alias<kSign>);
}

}  // namespace jitctl
