// int / float / bool arithmetic, comparisons, math functions and conversions, with PyTorch's
// TorchScript semantics: int64 wraps on overflow, // and % round toward negative infinity, float
// division by zero gives inf/nan, only integer division by zero raises.
#include <cmath>
#include <cstdlib>
#include <numbers>
#include <string>

#include "kernels/cpu/register_cpu.h"
#include "kernels/cpu/value_util.h"

namespace jitctl {
namespace {

using cpu::number_of;
using cpu::set_result;

int64_t wrap_add(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
int64_t wrap_sub(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }
int64_t wrap_mul(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }

void check_divisor(int64_t b) {
  if (b == 0) throw InvalidInput("division by 0");
}

int64_t int_floordiv(int64_t a, int64_t b) {
  check_divisor(b);
  if (b == -1) return wrap_sub(0, a);  // INT64_MIN / -1 wraps, as in PyTorch's two's complement build
  const int64_t q = a / b, r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}

int64_t int_remainder(int64_t a, int64_t b) {
  check_divisor(b);
  if (b == -1) return 0;
  return wrap_add(b, a % b) % b;
}

// C++'s float-to-int conversion as PyTorch's x86 build performs it: NaN and out-of-range values
// become INT64_MIN.
int64_t double_to_int(double d) {
  if (std::isnan(d) || d >= 9223372036854775808.0 || d < -9223372036854775808.0) return INT64_MIN;
  return static_cast<int64_t>(d);
}

// ---- binary arithmetic: one functor per op, with an int and a float version -----------------

struct Add {
  static constexpr bool int_result = true;
  int64_t operator()(int64_t a, int64_t b) const { return wrap_add(a, b); }
  double operator()(double a, double b) const { return a + b; }
};
struct Sub {
  static constexpr bool int_result = true;
  int64_t operator()(int64_t a, int64_t b) const { return wrap_sub(a, b); }
  double operator()(double a, double b) const { return a - b; }
};
struct Mul {
  static constexpr bool int_result = true;
  int64_t operator()(int64_t a, int64_t b) const { return wrap_mul(a, b); }
  double operator()(double a, double b) const { return a * b; }
};
struct FloorDiv {
  static constexpr bool int_result = true;
  int64_t operator()(int64_t a, int64_t b) const { return int_floordiv(a, b); }
  double operator()(double a, double b) const { return std::floor(a / b); }
};
struct Remainder {
  static constexpr bool int_result = true;
  int64_t operator()(int64_t a, int64_t b) const { return int_remainder(a, b); }
  double operator()(double a, double b) const { return std::fmod(b + std::fmod(a, b), b); }
};
// Ops whose result is a float even for two ints.
struct Div {
  static constexpr bool int_result = false;
  double operator()(double a, double b) const { return a / b; }
};
struct Pow {
  static constexpr bool int_result = false;
  double operator()(double a, double b) const {
    if (a == 0.0 && b < 0.0) throw InvalidInput("0.0 cannot be raised to a negative power");
    return std::pow(a, b);
  }
};
struct Fmod {
  static constexpr bool int_result = false;
  double operator()(double a, double b) const { return std::fmod(a, b); }
};
struct MathRemainder {
  static constexpr bool int_result = false;
  double operator()(double a, double b) const { return std::remainder(a, b); }
};
struct Atan2 {
  static constexpr bool int_result = false;
  double operator()(double a, double b) const { return std::atan2(a, b); }
};
struct Copysign {
  static constexpr bool int_result = false;
  double operator()(double a, double b) const { return std::copysign(a, b); }
};
struct Min {
  static constexpr bool int_result = true;
  template <class T> T operator()(T a, T b) const { return a < b ? a : b; }
};
struct Max {
  static constexpr bool int_result = true;
  template <class T> T operator()(T a, T b) const { return a > b ? a : b; }
};
struct LogBase {
  static constexpr bool int_result = false;
  double operator()(double a, double b) const { return std::log(a) / std::log(b); }
};

template <class Op>
void arith_int(Stack& s) {
  const int64_t a = s[0].to_int(), b = s[1].to_int();
  if constexpr (Op::int_result)
    set_result(s, Op{}(a, b));
  else
    set_result(s, Op{}(static_cast<double>(a), static_cast<double>(b)));
}
template <class Op>
void arith_float(Stack& s) {
  set_result(s, Op{}(number_of(s[0]), number_of(s[1])));
}
// Scalar x Scalar: an int when both are ints and the op has an int form, else a float.
template <class Op>
void arith_scalar(Stack& s) {
  using K = IValue::Kind;
  const bool ints = !s[0].is(K::Double) && !s[1].is(K::Double);
  if constexpr (Op::int_result) {
    if (ints) {
      set_result(s, Op{}(static_cast<int64_t>(number_of(s[0])), static_cast<int64_t>(number_of(s[1]))));
      return;
    }
  }
  arith_float<Op>(s);
}

template <class Op>
void register_arith(const std::string& name, bool scalar_overload = true) {
  register_kernel(name + ".int", &arith_int<Op>);
  register_kernel(name + ".float", &arith_float<Op>);
  register_kernel(name + ".int_float", &arith_float<Op>);
  register_kernel(name + ".float_int", &arith_float<Op>);
  if (scalar_overload) register_kernel(name, &arith_scalar<Op>);
}

// ---- comparisons ----------------------------------------------------------------------------

struct Eq { template <class T> bool operator()(T a, T b) const { return a == b; } };
struct Ne { template <class T> bool operator()(T a, T b) const { return a != b; } };
struct Lt { template <class T> bool operator()(T a, T b) const { return a < b; } };
struct Le { template <class T> bool operator()(T a, T b) const { return a <= b; } };
struct Gt { template <class T> bool operator()(T a, T b) const { return a > b; } };
struct Ge { template <class T> bool operator()(T a, T b) const { return a >= b; } };

template <class Op>
void compare_int(Stack& s) {
  set_result(s, Op{}(s[0].to_int(), s[1].to_int()));
}
template <class Op>
void compare_float(Stack& s) {
  set_result(s, Op{}(number_of(s[0]), number_of(s[1])));
}
template <class Op>
void compare_bool(Stack& s) {
  set_result(s, Op{}(s[0].to_bool(), s[1].to_bool()));
}
template <class Op>
void compare_scalar(Stack& s) {
  using K = IValue::Kind;
  if (!s[0].is(K::Double) && !s[1].is(K::Double))
    set_result(s, Op{}(static_cast<int64_t>(number_of(s[0])), static_cast<int64_t>(number_of(s[1]))));
  else
    compare_float<Op>(s);
}

template <class Op>
void register_compare(const std::string& name) {
  register_kernel(name + ".int", &compare_int<Op>);
  register_kernel(name + ".float", &compare_float<Op>);
  register_kernel(name + ".int_float", &compare_float<Op>);
  register_kernel(name + ".float_int", &compare_float<Op>);
  register_kernel(name, &compare_scalar<Op>);
}

// ---- unary math -----------------------------------------------------------------------------

using UnaryFn = double (*)(double);

template <UnaryFn F>
void math_float(Stack& s) {
  set_result(s, F(number_of(s[0])));
}

double degrees(double x) { return x * 180.0 / std::numbers::pi; }
double radians(double x) { return x * std::numbers::pi / 180.0; }
double fabs_(double x) { return std::fabs(x); }

template <UnaryFn F>
void register_math(const std::string& name) {
  // Every overload (int, float, Scalar) computes in double and returns a float.
  register_kernel(name + ".int", &math_float<F>);
  register_kernel(name + ".float", &math_float<F>);
  register_kernel(name + ".Scalar", &math_float<F>);
}

// math.floor / math.ceil of a float: an int, or PyTorch's error when it does not fit.
template <UnaryFn F>
void round_to_int(Stack& s) {
  if (s[0].is(IValue::Kind::Int)) return;  // floor(int) and ceil(int) are the int itself
  const double r = F(number_of(s[0]));
  if (!(r >= -9223372036854775808.0 && r < 9223372036854775808.0))
    throw InvalidInput("Cannot convert float " + std::to_string(r) + " to integer");
  set_result(s, static_cast<int64_t>(r));
}

void round_kernel(Stack& s) {
  set_result(s, std::nearbyint(number_of(s[0])));
}

// ---- conversions ----------------------------------------------------------------------------

void int_of(Stack& s) {
  using K = IValue::Kind;
  const IValue& v = s[0];
  if (v.is(K::Int)) return;
  if (v.is(K::Bool)) return set_result(s, static_cast<int64_t>(v.to_bool()));
  set_result(s, double_to_int(v.to_double()));
}

void float_of(Stack& s) { set_result(s, number_of(s[0])); }

void bool_of(Stack& s) { set_result(s, number_of(s[0]) != 0.0); }

bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// int(str) as PyTorch implements it (std::stoll): leading blanks and a sign, then digits; the
// whole string must be consumed.
void int_of_str(Stack& s) {
  const std::string str = s[0].to_string();
  size_t i = 0;
  while (i < str.size() && is_space(str[i])) ++i;
  const char* begin = str.c_str() + i;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(begin, &end, 10);
  if (end == begin) throw InvalidInput("stoll");
  if (errno == ERANGE) throw InvalidInput("stoll");
  if (static_cast<size_t>(end - str.c_str()) != str.size())
    throw InvalidInput("invalid literal for int() with base 10: '" + str + "'");
  set_result(s, static_cast<int64_t>(v));
}

void float_of_str(Stack& s) {
  const std::string str = s[0].to_string();
  const char* begin = str.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  if (end == begin) throw InvalidInput("stod");
  if (errno == ERANGE && std::fabs(v) == HUGE_VAL) throw InvalidInput("stod");
  if (static_cast<size_t>(end - begin) != str.size())
    throw InvalidInput("could not convert string to float: '" + str + "'");
  set_result(s, v);
}

// ---- small int helpers ----------------------------------------------------------------------

void divmod_int(Stack& s) {
  const int64_t a = s[0].to_int(), b = s[1].to_int();
  if (b == 0) throw InvalidInput("ZeroDivisionError: integer division or modulo by zero");
  auto t = std::make_shared<TupleData>();
  t->items = {IValue(int_floordiv(a, b)), IValue(int_remainder(a, b))};
  set_result(s, IValue(std::move(t)));
}

void divmod_float(Stack& s) {
  const double a = number_of(s[0]), b = number_of(s[1]);
  if (b == 0) throw InvalidInput("ZeroDivisionError: float divmod()");
  const double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  double m = mod;
  if (m != 0.0 && ((b < 0) != (m < 0))) {
    m += b;
    div -= 1.0;
  }
  auto t = std::make_shared<TupleData>();
  t->items = {IValue(div), IValue(m)};
  set_result(s, IValue(std::move(t)));
}

void pow_int_to_int(Stack& s) {
  int64_t base = s[0].to_int(), exp = s[1].to_int();
  if (exp < 0) throw InvalidInput("Integers to negative integer powers are not allowed.");
  int64_t r = 1;
  while (exp) {
    if (exp & 1) r = wrap_mul(r, base);
    base = wrap_mul(base, base);
    exp >>= 1;
  }
  set_result(s, r);
}

void factorial(Stack& s) {
  const int64_t n = s[0].to_int();
  if (n < 0) throw InvalidInput("factorial() not defined for negative values");
  int64_t r = 1;
  for (int64_t i = 2; i <= n; ++i) r = wrap_mul(r, i);
  set_result(s, r);
}

void gcd(Stack& s) {
  int64_t a = s[0].to_int(), b = s[1].to_int();
  while (b != 0) {
    const int64_t t = a % b;
    a = b;
    b = t;
  }
  set_result(s, a < 0 ? wrap_sub(0, a) : a);
}

void range_length(Stack& s) {
  const int64_t lo = s[0].to_int(), hi = s[1].to_int(), step = s[2].to_int();
  if (step == 0) throw InvalidInput("range() arg 3 must not be zero");
  int64_t n = 0;
  if (step > 0 && lo < hi) n = 1 + (hi - 1 - lo) / step;
  if (step < 0 && lo > hi) n = 1 + (lo - 1 - hi) / (0 - step);
  set_result(s, n);
}

void derive_index(Stack& s) {
  set_result(s, wrap_add(s[1].to_int(), wrap_mul(s[0].to_int(), s[2].to_int())));
}

void round_to_zero_floordiv(Stack& s) {
  const int64_t a = s[0].to_int(), b = s[1].to_int();
  check_divisor(b);
  set_result(s, b == -1 ? wrap_sub(0, a) : a / b);
}

void shift_left(Stack& s) {
  const int64_t a = s[0].to_int(), b = s[1].to_int();
  set_result(s, (b < 0 || b >= 64) ? int64_t{0} : static_cast<int64_t>(static_cast<uint64_t>(a) << b));
}

void shift_right(Stack& s) {
  const int64_t a = s[0].to_int(), b = s[1].to_int();
  set_result(s, (b < 0 || b >= 64) ? (a < 0 ? int64_t{-1} : int64_t{0}) : a >> b);
}

void modf_kernel(Stack& s) {
  double ip = 0;
  const double fp = std::modf(s[0].to_double(), &ip);
  auto t = std::make_shared<TupleData>();
  t->items = {IValue(fp), IValue(ip)};
  set_result(s, IValue(std::move(t)));
}

void frexp_kernel(Stack& s) {
  int e = 0;
  const double m = std::frexp(s[0].to_double(), &e);
  auto t = std::make_shared<TupleData>();
  t->items = {IValue(m), IValue(static_cast<int64_t>(e))};
  set_result(s, IValue(std::move(t)));
}

}  // namespace

void register_scalar_kernels() {
  register_arith<Add>("aten::add");
  register_arith<Sub>("aten::sub");
  register_arith<Mul>("aten::mul");
  register_arith<FloorDiv>("aten::floordiv");
  register_arith<Remainder>("aten::remainder");
  register_kernel("aten::div.int", &arith_int<Div>);  // int / float mixes use the Scalar overload
  register_kernel("aten::div.float", &arith_float<Div>);
  register_kernel("aten::div", &arith_scalar<Div>);
  register_arith<Fmod>("aten::fmod");
  register_arith<MathRemainder>("aten::mathremainder");
  register_arith<Copysign>("aten::copysign");
  register_arith<Pow>("aten::pow", false);
  register_kernel("aten::pow.Scalar_Scalar", &arith_float<Pow>);
  register_kernel("aten::pow.int_to_int", &pow_int_to_int);
  register_arith<Atan2>("aten::atan2", false);
  register_kernel("aten::atan2.Scalar_Scalar", &arith_float<Atan2>);
  register_kernel("aten::log.int_int", &arith_int<LogBase>);
  register_kernel("aten::log.int_float", &arith_float<LogBase>);
  register_kernel("aten::log.float_int", &arith_float<LogBase>);
  register_kernel("aten::log.float_float", &arith_float<LogBase>);
  register_kernel("aten::log.Scalar_Scalar", &arith_float<LogBase>);

  register_arith<Min>("prim::min");
  register_arith<Max>("prim::max");
  register_kernel("prim::abs.int", [](Stack& s) {
    const int64_t a = s[0].to_int();
    set_result(s, a < 0 ? wrap_sub(0, a) : a);
  });
  register_kernel("prim::abs.float", [](Stack& s) { set_result(s, std::fabs(s[0].to_double())); });
  register_kernel("prim::abs.Scalar", [](Stack& s) {
    if (s[0].is(IValue::Kind::Double)) return set_result(s, std::fabs(s[0].to_double()));
    const auto a = static_cast<int64_t>(number_of(s[0]));
    set_result(s, a < 0 ? wrap_sub(0, a) : a);
  });

  register_compare<Eq>("aten::eq");
  register_compare<Ne>("aten::ne");
  register_compare<Lt>("aten::lt");
  register_compare<Le>("aten::le");
  register_compare<Gt>("aten::gt");
  register_compare<Ge>("aten::ge");
  register_kernel("aten::eq.bool", &compare_bool<Eq>);
  register_kernel("aten::ne.bool", &compare_bool<Ne>);
  register_kernel("aten::eq.device", [](Stack& s) { set_result(s, s[0].to_device() == s[1].to_device()); });
  register_kernel("aten::ne.device", [](Stack& s) { set_result(s, !(s[0].to_device() == s[1].to_device())); });

  register_kernel("aten::neg.int", [](Stack& s) { set_result(s, wrap_sub(0, s[0].to_int())); });
  register_kernel("aten::neg.float", [](Stack& s) { set_result(s, -s[0].to_double()); });
  register_kernel("aten::neg.Scalar", [](Stack& s) {
    if (s[0].is(IValue::Kind::Double))
      set_result(s, -s[0].to_double());
    else
      set_result(s, wrap_sub(0, static_cast<int64_t>(number_of(s[0]))));
  });

  register_kernel("aten::__and__.bool", [](Stack& s) { set_result(s, s[0].to_bool() && s[1].to_bool()); });
  register_kernel("aten::__or__.bool", [](Stack& s) { set_result(s, s[0].to_bool() || s[1].to_bool()); });
  register_kernel("aten::__xor__.bool", [](Stack& s) { set_result(s, s[0].to_bool() != s[1].to_bool()); });
  register_kernel("aten::__and__.int", [](Stack& s) { set_result(s, s[0].to_int() & s[1].to_int()); });
  register_kernel("aten::__or__.int", [](Stack& s) { set_result(s, s[0].to_int() | s[1].to_int()); });
  register_kernel("aten::__xor__.int", [](Stack& s) { set_result(s, s[0].to_int() ^ s[1].to_int()); });
  register_kernel("aten::__not__", [](Stack& s) { set_result(s, !s[0].to_bool()); });
  register_kernel("aten::__lshift__.int", &shift_left);
  register_kernel("aten::__rshift__.int", &shift_right);
  register_kernel("aten::__is__", [](Stack& s) { set_result(s, s[0].identical(s[1])); });
  register_kernel("aten::__isnot__", [](Stack& s) { set_result(s, !s[0].identical(s[1])); });

  register_math<static_cast<UnaryFn>(std::sqrt)>("aten::sqrt");
  register_math<static_cast<UnaryFn>(std::exp)>("aten::exp");
  register_math<static_cast<UnaryFn>(std::expm1)>("aten::expm1");
  register_math<static_cast<UnaryFn>(std::log10)>("aten::log10");
  register_math<static_cast<UnaryFn>(std::log1p)>("aten::log1p");
  register_math<static_cast<UnaryFn>(std::sin)>("aten::sin");
  register_math<static_cast<UnaryFn>(std::cos)>("aten::cos");
  register_math<static_cast<UnaryFn>(std::tan)>("aten::tan");
  register_math<static_cast<UnaryFn>(std::asin)>("aten::asin");
  register_math<static_cast<UnaryFn>(std::acos)>("aten::acos");
  register_math<static_cast<UnaryFn>(std::atan)>("aten::atan");
  register_math<static_cast<UnaryFn>(std::sinh)>("aten::sinh");
  register_math<static_cast<UnaryFn>(std::cosh)>("aten::cosh");
  register_math<static_cast<UnaryFn>(std::tanh)>("aten::tanh");
  register_math<static_cast<UnaryFn>(std::asinh)>("aten::asinh");
  register_math<static_cast<UnaryFn>(std::acosh)>("aten::acosh");
  register_math<static_cast<UnaryFn>(std::atanh)>("aten::atanh");
  register_math<static_cast<UnaryFn>(std::erf)>("aten::erf");
  register_math<static_cast<UnaryFn>(std::erfc)>("aten::erfc");
  register_math<static_cast<UnaryFn>(std::tgamma)>("aten::gamma");
  register_math<static_cast<UnaryFn>(std::lgamma)>("aten::lgamma");
  register_math<&fabs_>("aten::fabs");
  register_math<&degrees>("aten::degrees");
  register_math<&radians>("aten::radians");
  register_kernel("aten::log.int", &math_float<static_cast<UnaryFn>(std::log)>);
  register_kernel("aten::log.float", &math_float<static_cast<UnaryFn>(std::log)>);
  register_kernel("aten::log.Scalar", &math_float<static_cast<UnaryFn>(std::log)>);
  register_kernel("aten::floor.int", &round_to_int<static_cast<UnaryFn>(std::floor)>);
  register_kernel("aten::floor.float", &round_to_int<static_cast<UnaryFn>(std::floor)>);
  register_kernel("aten::floor.Scalar", &round_to_int<static_cast<UnaryFn>(std::floor)>);
  register_kernel("aten::ceil.int", &round_to_int<static_cast<UnaryFn>(std::ceil)>);
  register_kernel("aten::ceil.float", &round_to_int<static_cast<UnaryFn>(std::ceil)>);
  register_kernel("aten::ceil.Scalar", &round_to_int<static_cast<UnaryFn>(std::ceil)>);
  register_kernel("aten::round.int", &round_kernel);
  register_kernel("aten::round.float", &round_kernel);
  register_kernel("aten::round.Scalar", &round_kernel);
  register_kernel("aten::isnan.float", [](Stack& s) { set_result(s, std::isnan(s[0].to_double())); });
  register_kernel("aten::isinf.float", [](Stack& s) { set_result(s, std::isinf(s[0].to_double())); });
  register_kernel("aten::isfinite.float", [](Stack& s) { set_result(s, std::isfinite(s[0].to_double())); });
  register_kernel("aten::modf", &modf_kernel);
  register_kernel("aten::frexp", &frexp_kernel);
  register_kernel("aten::ldexp", [](Stack& s) {
    set_result(s, std::ldexp(s[0].to_double(), static_cast<int>(s[1].to_int())));
  });
  register_kernel("aten::factorial.int", &factorial);
  register_kernel("aten::gcd.int", &gcd);
  register_kernel("aten::divmod.int", &divmod_int);
  register_kernel("aten::divmod.float", &divmod_float);
  register_kernel("aten::divmod.int_float", &divmod_float);
  register_kernel("aten::divmod.float_int", &divmod_float);
  register_kernel("aten::__range_length", &range_length);
  register_kernel("aten::__derive_index", &derive_index);
  register_kernel("aten::__round_to_zero_floordiv.int", &round_to_zero_floordiv);

  register_kernel("aten::Int.bool", &int_of);
  register_kernel("aten::Int.float", &int_of);
  register_kernel("aten::Int.Scalar", &int_of);
  register_kernel("aten::Int.str", &int_of_str);
  register_kernel("aten::Float.int", &float_of);
  register_kernel("aten::Float.bool", &float_of);
  register_kernel("aten::Float.Scalar", &float_of);
  register_kernel("aten::Float.str", &float_of_str);
  register_kernel("aten::Bool.int", &bool_of);
  register_kernel("aten::Bool.float", &bool_of);

  cpu::register_tensor_meta_kernels();
}

}  // namespace jitctl
