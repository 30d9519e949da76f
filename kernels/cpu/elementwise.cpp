// Elementwise tensor ops: arithmetic, comparisons, logical ops, where/masked_fill/clamp and the
// activation functions, with PyTorch's broadcasting and type promotion. Each op picks its compute
// dtype once, converts operands that differ (Scalars become 0-dim tensors), and runs one typed
// loop; in-place forms write into `self` (through to a view's base storage).
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "kernels/cpu/activations.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/output.h"
#include "kernels/cpu/register_cpu.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/registry.h"

namespace jitctl {
namespace {

using namespace cpu;
using K = IValue::Kind;

template <class T>
constexpr bool kIsFloat = std::is_floating_point_v<T>;

bool same_strides(const Tensor& a, const Tensor& b) {
  if (a.sizes() != b.sizes()) return false;
  for (int64_t i = 0; i < a.dim(); ++i)
    if (a.sizes()[i] != 1 && a.strides()[i] != b.strides()[i]) return false;
  return true;
}

// The strides the result of an elementwise op over `inputs` gets, as PyTorch's TensorIterator
// gives it for the common cases: the first input of the full shape decides, passing its layout on
// when it is dense (a channels-last activation); otherwise contiguous.
std::vector<int64_t> result_strides(const std::vector<int64_t>& shape, std::initializer_list<const Tensor*> inputs) {
  for (const Tensor* t : inputs)
    if (t->sizes() == shape) return !t->is_contiguous() && is_dense(*t) ? t->strides() : contiguous_strides(shape);
  return contiguous_strides(shape);
}

// `t` as the 1-D run of memory it densely covers (a one-element tensor stays one element).
Tensor flat(const Tensor& t) { return make_view(t, {t.numel() == 1 ? 1 : t.numel()}, {1}, t.storage_offset()); }

// When every operand has out's layout (or is one element), the loop runs over flat memory: a
// channels-last tensor is then as fast as a contiguous one.
bool flat_loop_ok(const Tensor& out, std::initializer_list<const Tensor*> inputs) {
  if (out.is_contiguous() || !is_dense(out)) return false;
  for (const Tensor* t : inputs)
    if (t->numel() != 1 && !same_strides(*t, out)) return false;
  return true;
}

// `t` broadcast to `out`'s shape, with its dims reordered into `out`'s memory order (outermost
// first): a strided loop over such views walks `out` sequentially, so a channels-last output
// with a per-channel operand ([N, C, 1, 1], a squeeze-and-excitation scale) runs over contiguous
// channels instead of jumping by C every element.
std::vector<size_t> memory_order(const Tensor& out) {
  std::vector<size_t> perm(static_cast<size_t>(out.dim()));
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = i;
  std::stable_sort(perm.begin(), perm.end(), [&](size_t a, size_t b) { return out.strides()[a] > out.strides()[b]; });
  return perm;
}
Tensor in_order(const Tensor& t, const std::vector<int64_t>& shape, const std::vector<size_t>& perm) {
  const Tensor e = t.sizes() == shape ? t : expand_to(t, shape);
  std::vector<int64_t> sizes, strides;
  for (size_t p : perm) {
    sizes.push_back(e.sizes()[p]);
    strides.push_back(e.strides()[p]);
  }
  return make_view(e, std::move(sizes), std::move(strides), e.storage_offset());
}

bool nhwc_dense(const Tensor& t) {
  const auto& s = t.sizes();
  const int64_t want[4] = {s[1] * s[2] * s[3], 1, s[3] * s[1], s[1]};
  for (int i = 0; i < 4; ++i)
    if (s[i] != 1 && t.strides()[i] != want[i]) return false;
  return true;
}

// A channels-last [N, C, H, W] output whose operands are `full` (the same layout) and `per`, one
// value per (image, channel) ([N or 1, C, 1, 1], channels contiguous): a squeeze-and-excitation
// scale. Runs as a loop over channels per pixel (vectorized), not through the strided loop.
template <class R, class T, class F>
bool per_channel_loop(Tensor& out, const Tensor& full, const Tensor& per, bool per_first, const F& f) {
  if (out.dim() != 4 || out.is_contiguous() || !nhwc_dense(out) || !same_strides(full, out)) return false;
  const auto& s = out.sizes();
  const int64_t n = s[0], c = s[1], pixels = s[2] * s[3];
  const auto& ps = per.sizes();
  if (per.dim() != 4 || ps[2] != 1 || ps[3] != 1 || ps[1] != c || (ps[0] != n && ps[0] != 1) || (c > 1 && per.strides()[1] != 1)) return false;
  const int64_t per_n = ps[0] == 1 ? 0 : per.strides()[0];
  const T* x = static_cast<const T*>(full.data());
  const T* v = static_cast<const T*>(per.data());
  R* o = static_cast<R*>(out.mutable_data());
  parallel_for(0, n * pixels, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(c, 1)), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T* xr = x + p * c;
      const T* vr = v + (p / pixels) * per_n;
      R* orow = o + p * c;
      if (per_first)
        for (int64_t j = 0; j < c; ++j) orow[j] = f(vr[j], xr[j]);
      else
        for (int64_t j = 0; j < c; ++j) orow[j] = f(xr[j], vr[j]);
    }
  });
  return true;
}

// out = f(a, b) with a and b converted to `compute`; `make(T{})` returns the typed functor, whose
// return type is the result's element type. With `into`, writes there (in-place forms).
template <class Make>
Tensor binary(const IValue& a, const IValue& b, DType compute, const char* op, const Make& make, Tensor* into = nullptr) {
  const Tensor ta = operand_as(a, compute), tb = operand_as(b, compute);
  const auto shape = broadcast_shapes(ta.sizes(), tb.sizes());
  Tensor out;
  dispatch_dtype(compute, op, [&](auto tag) {
    using T = decltype(tag);
    const auto f = make(tag);
    using R = decltype(f(T{}, T{}));
    if (into) check_out(*into, dtype_of<R>(), shape);
    if (into && into->dtype() == dtype_of<R>()) {
      out = *into;
    } else {
      out = new_output_strided(dtype_of<R>(), shape, result_strides(shape, {&ta, &tb}));
    }
    if (!into && (per_channel_loop<R, T>(out, tb, ta, true, f) || per_channel_loop<R, T>(out, ta, tb, false, f))) return;
    if (flat_loop_ok(out, {&ta, &tb})) {
      Tensor fo = flat(out);
      const Tensor fa = flat(ta), fb = flat(tb);
      StridedLoop it(fo, {&fa, &fb});
      binary_loop<R, T, T>(it, f);
      return;
    }
    if (!out.is_contiguous() && is_dense(out)) {
      const auto perm = memory_order(out);
      Tensor po = in_order(out, shape, perm);
      const Tensor pa = in_order(ta, shape, perm), pb = in_order(tb, shape, perm);
      StridedLoop it(po, {&pa, &pb});
      binary_loop<R, T, T>(it, f);
      return;
    }
    StridedLoop it(out, {&ta, &tb});
    binary_loop<R, T, T>(it, f);
  });
  if (into && !out.same(*into)) {
    copy_into(out, *into);
    return *into;
  }
  return out;
}

// `bulk`: a float32 op with a vectorized run kernel (activations.h), used on contiguous runs.
template <class Make>
Tensor unary(const Tensor& x, DType compute, const char* op, const Make& make, Tensor* into = nullptr,
             std::optional<Activation> bulk = std::nullopt) {
  const Tensor tx = x.dtype() == compute ? x : to_dtype(x, compute);
  Tensor out;
  dispatch_dtype(compute, op, [&](auto tag) {
    using T = decltype(tag);
    const auto f = make(tag);
    using R = decltype(f(T{}));
    if (into) check_out(*into, dtype_of<R>(), x.sizes());
    out = into && into->dtype() == dtype_of<R>() ? *into : new_output_strided(dtype_of<R>(), x.sizes(), result_strides(x.sizes(), {&tx}));
    auto loop = [&](const StridedLoop& it) {
      if constexpr (std::is_same_v<T, float> && std::is_same_v<R, float>) {
        if (bulk) {
          // Transcendentals cost tens of cycles an element: split finer than memory-bound ops.
          it.run([&](char* const* p, const int64_t* st, int64_t n) {
            if (st[0] == sizeof(float) && st[1] == sizeof(float)) {
              activation_f32(*bulk, reinterpret_cast<const float*>(p[1]), reinterpret_cast<float*>(p[0]), n);
            } else {
              for (int64_t i = 0; i < n; ++i)
                *reinterpret_cast<float*>(p[0] + i * st[0]) = f(*reinterpret_cast<const float*>(p[1] + i * st[1]));
            }
          }, kGrainSize / 8);
          return;
        }
      }
      unary_loop<R, T>(it, f);
    };
    if (flat_loop_ok(out, {&tx})) {
      Tensor fo = flat(out);
      const Tensor fx = flat(tx);
      loop(StridedLoop(fo, {&fx}));
      return;
    }
    loop(StridedLoop(out, {&tx}));
  });
  if (into && !out.same(*into)) {
    copy_into(out, *into);
    return *into;
  }
  return out;
}

// Complex arithmetic (add, sub, mul, div): complex tensors only meet these ops in the corpus.
template <class Fn>
Tensor complex_binary(const IValue& a, const IValue& b, DType dt, const Fn& fn, Tensor* into) {
  if (into) throw Unsupported("in-place arithmetic on complex tensors is not supported yet");
  const Tensor ta = operand_as(a, dt), tb = operand_as(b, dt);
  Tensor out = new_output(dt, broadcast_shapes(ta.sizes(), tb.sizes()));
  StridedLoop it(out, {&ta, &tb});
  dispatch_complex(dt, "complex arithmetic", [&](auto tag) {
    using C = decltype(tag);
    binary_loop<C, C, C>(it, [&fn](C x, C y) -> C { return fn(x, y); });
  });
  return out;
}

const Tensor& tensor_arg(const Stack& s, size_t i) { return s[i].to_tensor(); }
DType rtype(const IValue& a, const IValue& b) { return result_type({&a, &b}); }
DType float_rtype(DType d) { return is_floating(d) ? d : DType::Float32; }

// ---- arithmetic ------------------------------------------------------------------------------

Tensor add_impl(const IValue& a, const IValue& b, const IValue& alpha, bool negate, const char* op, Tensor* into) {
  const DType dt = rtype(a, b);
  check_add_args(alpha, dt, negate);
  const double al = scalar_double(alpha) * (negate ? -1.0 : 1.0);
  if (is_complex(dt))
    return complex_binary(a, b, dt, [al](auto x, auto y) { return x + decltype(x)(al) * y; }, into);
  if (al == 1.0)
    return binary(a, b, dt, op, [](auto t) { using T = decltype(t); return [](T x, T y) -> T { return x + y; }; }, into);
  if (al == -1.0)
    return binary(a, b, dt, op, [](auto t) { using T = decltype(t); return [](T x, T y) -> T { return x - y; }; }, into);
  return binary(a, b, dt, op, [&](auto t) {
    using T = decltype(t);
    const T alpha_t = alpha.is(K::Int) ? static_cast<T>(alpha.to_int() * (negate ? -1 : 1)) : static_cast<T>(al);
    return [alpha_t](T x, T y) -> T {
      if constexpr (std::is_same_v<T, bool>) return x || (alpha_t && y);
      else return static_cast<T>(x + alpha_t * y);
    };
  }, into);
}

Tensor mul_impl(const IValue& a, const IValue& b, Tensor* into) {
  if (const DType dt = rtype(a, b); is_complex(dt)) return complex_binary(a, b, dt, [](auto x, auto y) { return x * y; }, into);
  return binary(a, b, rtype(a, b), "mul", [](auto t) {
    using T = decltype(t);
    if constexpr (std::is_same_v<T, bool>) return [](T x, T y) -> T { return x && y; };
    else return [](T x, T y) -> T { return x * y; };
  }, into);
}

template <class T>
T floor_div(T a, T b) {
  if constexpr (kIsFloat<T>) {
    // PyTorch's div_floor: exact when a is a multiple of b, rounds like Python's //.
    if (b == 0) return a / b;
    T mod = std::fmod(a, b);
    T div = (a - mod) / b;
    if (mod != 0 && (b < 0) != (mod < 0)) div -= T(1);
    if (div == 0) return std::copysign(T(0), a / b);
    T fl = std::floor(div);
    if (div - fl > T(0.5)) fl += T(1);
    return fl;
  } else if constexpr (std::is_same_v<T, bool>) {
    return a;
  } else {
    if (b == 0) throw InvalidInput("ZeroDivisionError");
    const T q = static_cast<T>(a / b);
    return (a % b != 0 && ((a < 0) != (b < 0))) ? static_cast<T>(q - 1) : q;
  }
}

Tensor div_impl(const IValue& a, const IValue& b, const IValue& mode, Tensor* into) {
  const DType dt = rtype(a, b);
  if (mode.is_none() && is_complex(dt)) return complex_binary(a, b, dt, [](auto x, auto y) { return x / y; }, into);
  if (mode.is_none()) {
    return binary(a, b, float_rtype(dt), "div", [](auto t) {
      using T = decltype(t);
      return [](T x, T y) -> T { return x / y; };
    }, into);
  }
  const std::string& m = mode.to_string();
  if (m == "trunc") {
    return binary(a, b, dt, "div", [](auto t) {
      using T = decltype(t);
      return [](T x, T y) -> T {
        if constexpr (kIsFloat<T>) return std::trunc(x / y);
        else if constexpr (std::is_same_v<T, bool>) return x;
        else {
          if (y == 0) throw InvalidInput("ZeroDivisionError");
          return static_cast<T>(x / y);
        }
      };
    }, into);
  }
  if (m == "floor") {
    return binary(a, b, dt, "div", [](auto t) {
      using T = decltype(t);
      return [](T x, T y) -> T { return floor_div(x, y); };
    }, into);
  }
  throw InvalidInput(fmt::format("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{}'", m));
}

Tensor remainder_impl(const IValue& a, const IValue& b, Tensor* into) {
  return binary(a, b, rtype(a, b), "remainder", [](auto t) {
    using T = decltype(t);
    return [](T x, T y) -> T {
      if constexpr (kIsFloat<T>) {
        T r = std::fmod(x, y);
        if (r != 0 && ((y < 0) != (r < 0))) r += y;
        return r;
      } else if constexpr (std::is_same_v<T, bool>) {
        throw InvalidInput("\"remainder_cpu\" not implemented for 'Bool'");
      } else {
        if (y == 0) throw InvalidInput("ZeroDivisionError");
        T r = static_cast<T>(x % y);
        if (r != 0 && ((y < 0) != (r < 0))) r = static_cast<T>(r + y);
        return r;
      }
    };
  }, into);
}

template <class T>
T int_pow(T base, T exp) {
  if constexpr (std::is_same_v<T, bool>) {
    return base || !exp;
  } else {
    if (exp < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exp % 2 == 0) ? 1 : -1;
      throw InvalidInput("Integers to negative integer powers are not allowed.");
    }
    T r = 1;
    while (exp) {
      if (exp & 1) r = static_cast<T>(r * base);
      exp = static_cast<T>(exp >> 1);
      base = static_cast<T>(base * base);
    }
    return r;
  }
}

Tensor pow_impl(const IValue& a, const IValue& b, Tensor* into) {
  const DType dt = rtype(a, b);
  if (!b.is_tensor() && is_floating(dt)) {
    const double e = scalar_double(b);
    if (e == 2.0)
      return unary(a.to_tensor(), dt, "pow", [](auto t) { using T = decltype(t); return [](T x) -> T {
        if constexpr (std::is_same_v<T, bool>) return x;
        else return static_cast<T>(x * x);
      }; }, into);
    if (e == 0.5)
      return unary(a.to_tensor(), dt, "pow", [](auto t) { using T = decltype(t); return [](T x) -> T { return std::sqrt(x); }; }, into);
    if (e == 1.0)
      return unary(a.to_tensor(), dt, "pow", [](auto t) { using T = decltype(t); return [](T x) -> T { return x; }; }, into);
  }
  return binary(a, b, dt, "pow", [](auto t) {
    using T = decltype(t);
    return [](T x, T y) -> T {
      if constexpr (kIsFloat<T>) return std::pow(x, y);
      else return int_pow(x, y);
    };
  }, into);
}

// NaN-propagating maximum/minimum (torch.maximum, clamp, max.other).
template <class T>
T max_nan(T a, T b) {
  if constexpr (kIsFloat<T>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return a > b ? a : b;
}
template <class T>
T min_nan(T a, T b) {
  if constexpr (kIsFloat<T>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return a < b ? a : b;
}

Tensor maximum_impl(const IValue& a, const IValue& b) {
  return binary(a, b, rtype(a, b), "maximum", [](auto t) { using T = decltype(t); return [](T x, T y) -> T { return max_nan(x, y); }; });
}
Tensor minimum_impl(const IValue& a, const IValue& b) {
  return binary(a, b, rtype(a, b), "minimum", [](auto t) { using T = decltype(t); return [](T x, T y) -> T { return min_nan(x, y); }; });
}

Tensor clamp_impl(const Tensor& x, const IValue& lo, const IValue& hi, Tensor* into) {
  if (lo.is_none() && hi.is_none()) throw InvalidInput("torch.clamp: At least one of 'min' or 'max' must not be None");
  if (lo.is_tensor() || hi.is_tensor()) {
    Tensor r = x;
    IValue xv(x);
    if (!lo.is_none()) r = maximum_impl(IValue(r), lo);
    if (!hi.is_none()) r = minimum_impl(IValue(r), hi);
    if (into) {
      check_out(*into, r.dtype(), r.sizes());
      copy_into(r, *into);
      return *into;
    }
    return r;
  }
  const DType dt = clamp_result_type(x, lo, hi);
  return unary(x, dt, "clamp", [&](auto t) {
    using T = decltype(t);
    const bool has_lo = !lo.is_none(), has_hi = !hi.is_none();
    const T l = has_lo ? static_cast<T>(lo.is(K::Int) ? static_cast<double>(lo.to_int()) : scalar_double(lo)) : T{};
    const T h = has_hi ? static_cast<T>(hi.is(K::Int) ? static_cast<double>(hi.to_int()) : scalar_double(hi)) : T{};
    const bool lo_nan = has_lo && l != l, hi_nan = has_hi && h != h;
    return [=](T v) -> T {
      if constexpr (kIsFloat<T>) {
        if (v != v || lo_nan || hi_nan) return lo_nan ? l : hi_nan ? h : v;
      }
      if (has_lo && v < l) v = l;
      if (has_hi && v > h) v = h;
      return v;
    };
  }, into);
}

// ---- comparisons and logical ops -------------------------------------------------------------

template <class Cmp>
Tensor compare(const IValue& a, const IValue& b, const char* op, Tensor* into = nullptr) {
  return binary(a, b, rtype(a, b), op, [](auto t) {
    using T = decltype(t);
    return [](T x, T y) -> bool { return Cmp{}(x, y); };
  }, into);
}

template <char Kind>
Tensor logical(const IValue& a, const IValue& b) {
  return binary(a, b, rtype(a, b), "logical", [](auto t) {
    using T = decltype(t);
    return [](T x, T y) -> bool {
      if constexpr (Kind == '&') return x != T(0) && y != T(0);
      else if constexpr (Kind == '|') return x != T(0) || y != T(0);
      else return (x != T(0)) != (y != T(0));
    };
  });
}

template <char Kind>
Tensor bitwise(const IValue& a, const IValue& b) {
  const DType dt = rtype(a, b);
  if (is_floating(dt)) throw InvalidInput(fmt::format("\"bitwise_cpu\" not implemented for '{}'", scalar_type_name(dt)));
  return binary(a, b, dt, "bitwise", [](auto t) {
    using T = decltype(t);
    return [](T x, T y) -> T {
      if constexpr (kIsFloat<T>) return x;
      else if constexpr (Kind == '&') return static_cast<T>(x & y);
      else if constexpr (Kind == '|') return static_cast<T>(x | y);
      else return static_cast<T>(x ^ y);
    };
  });
}

Tensor where_impl(const Tensor& cond, const IValue& a, const IValue& b) {
  if (cond.dtype() != DType::Bool && cond.dtype() != DType::UInt8)
    throw InvalidInput(fmt::format("where expected condition to be a boolean tensor, but got a tensor with dtype {}",
                                   scalar_type_name(cond.dtype())));
  const DType dt = rtype(a, b);
  const Tensor c = operand_as(IValue(cond), DType::Bool);
  const Tensor ta = operand_as(a, dt), tb = operand_as(b, dt);
  const auto shape = broadcast_shapes(broadcast_shapes(c.sizes(), ta.sizes()), tb.sizes());
  Tensor out = new_output(dt, shape);
  StridedLoop it(out, {&c, &ta, &tb});
  dispatch_dtype(dt, "where", [&](auto tag) {
    using T = decltype(tag);
    ternary_loop<T, bool, T, T>(it, [](bool m, T x, T y) { return m ? x : y; });
  });
  return out;
}

Tensor masked_fill_impl(const Tensor& self, const Tensor& mask_in, const IValue& value, bool inplace) {
  // PyTorch 1.13 accepts integer masks too (uint8 with a deprecation warning), nonzero = set.
  const Tensor mask = operand_as(IValue(mask_in), DType::Bool);
  IValue v = value;
  if (value.is_tensor()) {
    const Tensor& vt = value.to_tensor();
    if (vt.dim() != 0)
      throw InvalidInput(fmt::format("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
                                     vt.dim()));
    v = is_floating(vt.dtype()) ? IValue(element_as_double(vt, 0))
        : vt.dtype() == DType::Bool ? IValue(element_as_double(vt, 0) != 0)
                                    : IValue(static_cast<int64_t>(element_as_double(vt, 0)));
  }
  Tensor out;
  if (inplace) {
    out = self;
    const auto shape = broadcast_shapes(self.sizes(), mask.sizes());
    if (shape != self.sizes())
      throw InvalidInput(fmt::format("output with shape {} doesn't match the broadcast shape {}", shape_string(self.sizes()),
                                     shape_string(shape)));
  } else {
    const auto shape = broadcast_shapes(self.sizes(), mask.sizes());
    out = new_output(self.dtype(), shape);
  }
  StridedLoop it(out, {&self, &mask});
  dispatch_dtype(self.dtype(), "masked_fill", [&](auto tag) {
    using T = decltype(tag);
    const T fill = v.is(K::Int) ? static_cast<T>(v.to_int()) : static_cast<T>(scalar_double(v));
    binary_loop<T, T, bool>(it, [fill](T x, bool m) { return m ? fill : x; });
  });
  return out;
}

// ---- unary math and activations --------------------------------------------------------------

// An op computed in floating point: integer inputs compute (and return) float32.
template <class Fn>
Tensor float_unary(const Tensor& x, const char* op, const Fn& fn, Tensor* into = nullptr, std::optional<Activation> bulk = std::nullopt) {
  return unary(x, float_rtype(x.dtype()), op, [&](auto t) {
    using T = decltype(t);
    if constexpr (kIsFloat<T>) return [&fn](T v) -> T { return fn(v); };
    else return [](T v) -> T { return v; };  // unreachable: compute dtype is floating
  }, into, bulk);
}

// tanh through the vectorizable exp: (1 - e) / (1 + e) with e = exp(-2|x|), and its Taylor series
// near 0 where that difference would cancel.
inline float fast_tanh(float x) {
  const float ax = std::abs(x);
  const float e = vexp(-2.0f * ax);
  const float big = (1.0f - e) / (1.0f + e);
  const float x2 = x * x;
  const float small = ax * (1.0f + x2 * (-1.0f / 3 + x2 * (2.0f / 15 + x2 * (-17.0f / 315))));
  const float r = ax < 0.1f ? small : big;
  return x != x ? x : std::copysign(r, x);
}
inline double fast_tanh(double x) { return std::tanh(x); }

#define FLOAT_UNARY_BULK(NAME, EXPR, BULK)                                             \
  Tensor NAME##_fn(const Tensor& x, Tensor* into = nullptr) {                          \
    return float_unary(x, #NAME, [](auto v) -> decltype(v) {                           \
      using T = decltype(v);                                                           \
      (void)sizeof(T);                                                                 \
      return EXPR;                                                                     \
    }, into, BULK);                                                                    \
  }
#define FLOAT_UNARY(NAME, EXPR) FLOAT_UNARY_BULK(NAME, EXPR, std::nullopt)

FLOAT_UNARY(sqrt, std::sqrt(v))
FLOAT_UNARY(rsqrt, T(1) / std::sqrt(v))
FLOAT_UNARY_BULK(exp, std::exp(v), Activation::Exp)
FLOAT_UNARY(expm1, std::expm1(v))
FLOAT_UNARY(log, std::log(v))
FLOAT_UNARY(log2, std::log2(v))
FLOAT_UNARY(log10, std::log10(v))
FLOAT_UNARY(log1p, std::log1p(v))
FLOAT_UNARY(sin, std::sin(v))
FLOAT_UNARY(cos, std::cos(v))
FLOAT_UNARY(tan, std::tan(v))
FLOAT_UNARY_BULK(erf, std::erf(v), Activation::Erf)
FLOAT_UNARY(reciprocal, T(1) / v)
FLOAT_UNARY_BULK(tanh, fast_tanh(v), Activation::Tanh)
FLOAT_UNARY_BULK(sigmoid, T(1) / (T(1) + vexp(-v)), Activation::Sigmoid)
FLOAT_UNARY_BULK(silu, v / (T(1) + vexp(-v)), Activation::Silu)
FLOAT_UNARY(mish, v * std::tanh(std::log1p(std::exp(v))))
FLOAT_UNARY(hardswish, v * std::min(std::max(v + T(3), T(0)), T(6)) / T(6))
FLOAT_UNARY(hardsigmoid, std::min(std::max(v + T(3), T(0)), T(6)) / T(6))
#undef FLOAT_UNARY
#undef FLOAT_UNARY_BULK

// Ops that keep the input's dtype (integers included).
template <class Make>
Tensor same_unary(const Tensor& x, const char* op, const Make& make, Tensor* into = nullptr) {
  return unary(x, x.dtype(), op, make, into);
}

Tensor abs_fn(const Tensor& x, Tensor* into = nullptr) {
  return same_unary(x, "abs", [](auto t) {
    using T = decltype(t);
    return [](T v) -> T {
      if constexpr (std::is_unsigned_v<T> || std::is_same_v<T, bool>) return v;
      else if constexpr (kIsFloat<T>) return std::abs(v);
      else return static_cast<T>(v < 0 ? -v : v);
    };
  }, into);
}

Tensor neg_fn(const Tensor& x, Tensor* into = nullptr) {
  if (x.dtype() == DType::Bool)
    throw InvalidInput("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use "
                       "the `~` or `logical_not()` operator instead.");
  return same_unary(x, "neg", [](auto t) { using T = decltype(t); return [](T v) -> T { return static_cast<T>(-v); }; }, into);
}

Tensor relu_fn(const Tensor& x, Tensor* into = nullptr) {
  if (x.dtype() == DType::Bool) throw InvalidInput("\"clamp_min_cpu\" not implemented for 'Bool'");
  return same_unary(x, "relu", [](auto t) {
    using T = decltype(t);
    return [](T v) -> T {
      if constexpr (kIsFloat<T>) return (v > T(0) || v != v) ? v : T(0);
      else return v > T(0) ? v : T(0);
    };
  }, into);
}

Tensor hardtanh_fn(const Tensor& x, double lo, double hi, Tensor* into = nullptr) {
  if (x.dtype() == DType::Bool) throw InvalidInput("\"hardtanh\" not implemented for 'Bool'");
  return same_unary(x, "hardtanh", [lo, hi](auto t) {
    using T = decltype(t);
    const T l = static_cast<T>(lo), h = static_cast<T>(hi);
    return [l, h](T v) -> T {
      if constexpr (kIsFloat<T>) {
        if (v != v) return v;
      }
      return v < l ? l : (v > h ? h : v);
    };
  }, into);
}

void require_float(const Tensor& x, const char* kernel) {
  if (!is_floating(x.dtype()))
    throw InvalidInput(fmt::format("\"{}\" not implemented for '{}'", kernel, scalar_type_name(x.dtype())));
}

Tensor leaky_relu_fn(const Tensor& x, double slope, Tensor* into = nullptr) {
  require_float(x, "leaky_relu_cpu");
  return float_unary(x, "leaky_relu", [slope](auto v) -> decltype(v) {
    using T = decltype(v);
    return v > T(0) ? v : v * static_cast<T>(slope);
  }, into);
}

Tensor elu_fn(const Tensor& x, double alpha, double scale, double input_scale, Tensor* into = nullptr) {
  require_float(x, "elu_cpu");
  return float_unary(x, "elu", [=](auto v) -> decltype(v) {
    using T = decltype(v);
    return v <= T(0) ? std::expm1(v * static_cast<T>(input_scale)) * static_cast<T>(alpha * scale) : v * static_cast<T>(scale);
  }, into);
}

Tensor gelu_fn(const Tensor& x, const std::string& approximate, Tensor* into = nullptr) {
  require_float(x, "GeluKernelImpl");
  if (approximate == "tanh") {
    return float_unary(x, "gelu", [](auto v) -> decltype(v) {
      using T = decltype(v);
      const T k = static_cast<T>(M_SQRT2 * M_2_SQRTPI * 0.5);
      return T(0.5) * v * (T(1) + std::tanh(k * (v + T(0.044715) * v * v * v)));
    }, into, Activation::GeluTanh);
  }
  if (approximate != "none") throw InvalidInput(fmt::format("approximate argument must be either none or tanh."));
  return float_unary(x, "gelu", [](auto v) -> decltype(v) {
    using T = decltype(v);
    return v * T(0.5) * (T(1) + std::erf(v * static_cast<T>(M_SQRT1_2)));
  }, into, Activation::GeluErf);
}

Tensor softplus_fn(const Tensor& x, double beta, double threshold) {
  require_float(x, "softplus_cpu");
  return float_unary(x, "softplus", [=](auto v) -> decltype(v) {
    using T = decltype(v);
    const T bv = v * static_cast<T>(beta);
    return bv > static_cast<T>(threshold) ? v : std::log1p(std::exp(bv)) / static_cast<T>(beta);
  });
}

Tensor rounding_fn(const Tensor& x, int kind, Tensor* into = nullptr) {
  return same_unary(x, "round", [kind](auto t) {
    using T = decltype(t);
    return [kind](T v) -> T {
      if constexpr (kIsFloat<T>) {
        switch (kind) {
          case 0: return std::floor(v);
          case 1: return std::ceil(v);
          case 2: return std::nearbyint(v);
          default: return std::trunc(v);
        }
      } else {
        return v;
      }
    };
  }, into);
}

Tensor sign_fn(const Tensor& x) {
  return same_unary(x, "sign", [](auto t) {
    using T = decltype(t);
    return [](T v) -> T {
      if constexpr (std::is_same_v<T, bool>) return v;
      else return static_cast<T>((T(0) < v) - (v < T(0)));
    };
  });
}

Tensor logical_not_fn(const Tensor& x) {
  return unary(x, x.dtype(), "logical_not", [](auto t) { using T = decltype(t); return [](T v) -> bool { return v == T(0); }; });
}

Tensor bitwise_not_fn(const Tensor& x) {
  if (is_floating(x.dtype())) throw InvalidInput(fmt::format("\"bitwise_not_cpu\" not implemented for '{}'", scalar_type_name(x.dtype())));
  return same_unary(x, "bitwise_not", [](auto t) {
    using T = decltype(t);
    return [](T v) -> T {
      if constexpr (std::is_same_v<T, bool>) return !v;
      else if constexpr (kIsFloat<T>) return v;
      else return static_cast<T>(~v);
    };
  });
}

// ---- registration ----------------------------------------------------------------------------

// The in-place form of a unary op: result written into self, self returned.
#define REG_UNARY(NAME, FN)                                                                   \
  register_kernel("aten::" NAME, [](Stack& s) { set_output(s, FN(tensor_arg(s, 0))); });       \
  register_kernel("aten::" NAME "_", [](Stack& s) {                                           \
    Tensor self = s[0].to_tensor();                                                           \
    FN(self, &self);                                                                          \
    set_output(s, self);                                                                      \
  })

void register_unary() {
  REG_UNARY("abs", abs_fn);
  REG_UNARY("neg", neg_fn);
  REG_UNARY("sqrt", sqrt_fn);
  REG_UNARY("rsqrt", rsqrt_fn);
  REG_UNARY("exp", exp_fn);
  REG_UNARY("expm1", expm1_fn);
  REG_UNARY("log", log_fn);
  REG_UNARY("log2", log2_fn);
  REG_UNARY("log10", log10_fn);
  REG_UNARY("log1p", log1p_fn);
  REG_UNARY("sin", sin_fn);
  REG_UNARY("cos", cos_fn);
  REG_UNARY("tan", tan_fn);
  REG_UNARY("erf", erf_fn);
  REG_UNARY("reciprocal", reciprocal_fn);
  REG_UNARY("tanh", tanh_fn);
  REG_UNARY("sigmoid", sigmoid_fn);
  REG_UNARY("silu", silu_fn);
  REG_UNARY("mish", mish_fn);
  REG_UNARY("hardswish", hardswish_fn);
  REG_UNARY("hardsigmoid", hardsigmoid_fn);
  REG_UNARY("relu", relu_fn);
  register_kernel("aten::floor", [](Stack& s) { set_output(s, rounding_fn(tensor_arg(s, 0), 0)); });
  register_kernel("aten::ceil", [](Stack& s) { set_output(s, rounding_fn(tensor_arg(s, 0), 1)); });
  register_kernel("aten::round", [](Stack& s) { set_output(s, rounding_fn(tensor_arg(s, 0), 2)); });
  register_kernel("aten::trunc", [](Stack& s) { set_output(s, rounding_fn(tensor_arg(s, 0), 3)); });
  register_kernel("aten::sign", [](Stack& s) { set_output(s, sign_fn(tensor_arg(s, 0))); });
  register_kernel("aten::logical_not", [](Stack& s) { set_output(s, logical_not_fn(tensor_arg(s, 0))); });
  register_kernel("aten::bitwise_not", [](Stack& s) { set_output(s, bitwise_not_fn(tensor_arg(s, 0))); });
  register_kernel("aten::relu6", [](Stack& s) { set_output(s, hardtanh_fn(tensor_arg(s, 0), 0, 6)); });
  register_kernel("aten::relu6_", [](Stack& s) {
    Tensor self = s[0].to_tensor();
    set_output(s, hardtanh_fn(self, 0, 6, &self));
  });
  register_kernel("aten::hardtanh", [](Stack& s) {
    set_output(s, hardtanh_fn(tensor_arg(s, 0), scalar_double(s[1]), scalar_double(s[2])));
  });
  register_kernel("aten::hardtanh_", [](Stack& s) {
    Tensor self = s[0].to_tensor();
    set_output(s, hardtanh_fn(self, scalar_double(s[1]), scalar_double(s[2]), &self));
  });
  register_kernel("aten::leaky_relu", [](Stack& s) { set_output(s, leaky_relu_fn(tensor_arg(s, 0), scalar_double(s[1]))); });
  register_kernel("aten::leaky_relu_", [](Stack& s) {
    Tensor self = s[0].to_tensor();
    set_output(s, leaky_relu_fn(self, scalar_double(s[1]), &self));
  });
  register_kernel("aten::elu", [](Stack& s) {
    set_output(s, elu_fn(tensor_arg(s, 0), scalar_double(s[1]), scalar_double(s[2]), scalar_double(s[3])));
  });
  register_kernel("aten::elu_", [](Stack& s) {
    Tensor self = s[0].to_tensor();
    set_output(s, elu_fn(self, scalar_double(s[1]), scalar_double(s[2]), scalar_double(s[3]), &self));
  });
  register_kernel("aten::gelu", [](Stack& s) { set_output(s, gelu_fn(tensor_arg(s, 0), s[1].to_string())); });
  register_kernel("aten::gelu_", [](Stack& s) {
    Tensor self = s[0].to_tensor();
    set_output(s, gelu_fn(self, s[1].to_string(), &self));
  });
  register_kernel("aten::softplus", [](Stack& s) {
    set_output(s, softplus_fn(tensor_arg(s, 0), scalar_double(s[1]), scalar_double(s[2])));
  });
  register_kernel("aten::square", [](Stack& s) { set_output(s, pow_impl(s[0], IValue(int64_t{2}), nullptr)); });
}
#undef REG_UNARY

// Binary ops: "X.Tensor"/"X.Scalar" and the in-place "X_.Tensor"/"X_.Scalar" share one body.
#define REG_BINARY(NAME, BODY)                                                                   \
  register_kernel("aten::" NAME ".Tensor", [](Stack& s) { Tensor* into = nullptr; set_output(s, BODY); }); \
  register_kernel("aten::" NAME ".Scalar", [](Stack& s) { Tensor* into = nullptr; set_output(s, BODY); }); \
  register_kernel("aten::" NAME "_.Tensor", [](Stack& s) {                                      \
    Tensor self = s[0].to_tensor();                                                              \
    Tensor* into = &self;                                                                        \
    set_output(s, BODY);                                                                         \
  });                                                                                            \
  register_kernel("aten::" NAME "_.Scalar", [](Stack& s) {                                      \
    Tensor self = s[0].to_tensor();                                                              \
    Tensor* into = &self;                                                                        \
    set_output(s, BODY);                                                                         \
  })

template <class Cmp>
void register_compare(const char* name) {
  const std::string n = std::string("aten::") + name;
  register_kernel(n + ".Tensor", [](Stack& s) { set_output(s, compare<Cmp>(s[0], s[1], "compare")); });
  register_kernel(n + ".Scalar", [](Stack& s) { set_output(s, compare<Cmp>(s[0], s[1], "compare")); });
  register_kernel(n + "_.Tensor", [](Stack& s) {
    Tensor self = s[0].to_tensor();
    set_output(s, compare<Cmp>(s[0], s[1], "compare", &self));
  });
  register_kernel(n + "_.Scalar", [](Stack& s) {
    Tensor self = s[0].to_tensor();
    set_output(s, compare<Cmp>(s[0], s[1], "compare", &self));
  });
}

void register_binary() {
  REG_BINARY("add", add_impl(s[0], s[1], s[2], false, "add", into));
  REG_BINARY("sub", add_impl(s[0], s[1], s[2], true, "sub", into));
  REG_BINARY("mul", mul_impl(s[0], s[1], into));
  REG_BINARY("div", div_impl(s[0], s[1], IValue(), into));
  REG_BINARY("remainder", remainder_impl(s[0], s[1], into));
  register_kernel("aten::rsub.Tensor", [](Stack& s) { set_output(s, add_impl(s[1], s[0], s[2], true, "rsub", nullptr)); });
  register_kernel("aten::rsub.Scalar", [](Stack& s) { set_output(s, add_impl(s[1], s[0], s[2], true, "rsub", nullptr)); });
  register_kernel("aten::div.Tensor_mode", [](Stack& s) { set_output(s, div_impl(s[0], s[1], s[2], nullptr)); });
  register_kernel("aten::div.Scalar_mode", [](Stack& s) { set_output(s, div_impl(s[0], s[1], s[2], nullptr)); });
  register_kernel("aten::div_.Tensor_mode", [](Stack& s) {
    Tensor self = s[0].to_tensor();
    set_output(s, div_impl(s[0], s[1], s[2], &self));
  });
  register_kernel("aten::floor_divide", [](Stack& s) { set_output(s, div_impl(s[0], s[1], IValue("floor"), nullptr)); });
  register_kernel("aten::floor_divide.Scalar", [](Stack& s) { set_output(s, div_impl(s[0], s[1], IValue("floor"), nullptr)); });
  register_kernel("aten::remainder.Scalar_Tensor", [](Stack& s) { set_output(s, remainder_impl(s[0], s[1], nullptr)); });
  register_kernel("aten::pow.Tensor_Tensor", [](Stack& s) { set_output(s, pow_impl(s[0], s[1], nullptr)); });
  register_kernel("aten::pow.Tensor_Scalar", [](Stack& s) { set_output(s, pow_impl(s[0], s[1], nullptr)); });
  register_kernel("aten::pow.Scalar", [](Stack& s) { set_output(s, pow_impl(s[0], s[1], nullptr)); });
  register_kernel("aten::pow_.Scalar", [](Stack& s) {
    Tensor self = s[0].to_tensor();
    set_output(s, pow_impl(s[0], s[1], &self));
  });
  register_kernel("aten::pow_.Tensor", [](Stack& s) {
    Tensor self = s[0].to_tensor();
    set_output(s, pow_impl(s[0], s[1], &self));
  });
  register_kernel("aten::maximum", [](Stack& s) { set_output(s, maximum_impl(s[0], s[1])); });
  register_kernel("aten::minimum", [](Stack& s) { set_output(s, minimum_impl(s[0], s[1])); });
  register_kernel("aten::max.other", [](Stack& s) { set_output(s, maximum_impl(s[0], s[1])); });
  register_kernel("aten::min.other", [](Stack& s) { set_output(s, minimum_impl(s[0], s[1])); });

  register_compare<std::equal_to<>>("eq");
  register_compare<std::not_equal_to<>>("ne");
  register_compare<std::less<>>("lt");
  register_compare<std::less_equal<>>("le");
  register_compare<std::greater<>>("gt");
  register_compare<std::greater_equal<>>("ge");

  register_kernel("aten::logical_and", [](Stack& s) { set_output(s, logical<'&'>(s[0], s[1])); });
  register_kernel("aten::logical_or", [](Stack& s) { set_output(s, logical<'|'>(s[0], s[1])); });
  register_kernel("aten::logical_xor", [](Stack& s) { set_output(s, logical<'^'>(s[0], s[1])); });
  for (const char* name : {"aten::bitwise_and.Tensor", "aten::bitwise_and.Scalar", "aten::__and__.Tensor", "aten::__and__.Scalar"})
    register_kernel(name, [](Stack& s) { set_output(s, bitwise<'&'>(s[0], s[1])); });
  for (const char* name : {"aten::bitwise_or.Tensor", "aten::bitwise_or.Scalar", "aten::__or__.Tensor", "aten::__or__.Scalar"})
    register_kernel(name, [](Stack& s) { set_output(s, bitwise<'|'>(s[0], s[1])); });
  for (const char* name : {"aten::bitwise_xor.Tensor", "aten::bitwise_xor.Scalar", "aten::__xor__.Tensor", "aten::__xor__.Scalar"})
    register_kernel(name, [](Stack& s) { set_output(s, bitwise<'^'>(s[0], s[1])); });
}
#undef REG_BINARY

void register_selection() {
  for (const char* name : {"aten::where.self", "aten::where.ScalarOther", "aten::where.ScalarSelf", "aten::where.Scalar"})
    register_kernel(name, [](Stack& s) { set_output(s, where_impl(tensor_arg(s, 0), s[1], s[2])); });
  for (const char* name : {"aten::masked_fill.Scalar", "aten::masked_fill.Tensor"})
    register_kernel(name, [](Stack& s) { set_output(s, masked_fill_impl(tensor_arg(s, 0), tensor_arg(s, 1), s[2], false)); });
  for (const char* name : {"aten::masked_fill_.Scalar", "aten::masked_fill_.Tensor"})
    register_kernel(name, [](Stack& s) { set_output(s, masked_fill_impl(tensor_arg(s, 0), tensor_arg(s, 1), s[2], true)); });
  for (const char* name : {"aten::clamp", "aten::clamp.Tensor"})
    register_kernel(name, [](Stack& s) { set_output(s, clamp_impl(tensor_arg(s, 0), s[1], s[2], nullptr)); });
  for (const char* name : {"aten::clamp_", "aten::clamp_.Tensor"})
    register_kernel(name, [](Stack& s) {
      Tensor self = s[0].to_tensor();
      set_output(s, clamp_impl(self, s[1], s[2], &self));
    });
  for (const char* name : {"aten::clamp_min", "aten::clamp_min.Tensor"})
    register_kernel(name, [](Stack& s) { set_output(s, clamp_impl(tensor_arg(s, 0), s[1], IValue(), nullptr)); });
  for (const char* name : {"aten::clamp_max", "aten::clamp_max.Tensor"})
    register_kernel(name, [](Stack& s) { set_output(s, clamp_impl(tensor_arg(s, 0), IValue(), s[1], nullptr)); });
  register_kernel("aten::clamp_min_", [](Stack& s) {
    Tensor self = s[0].to_tensor();
    set_output(s, clamp_impl(self, s[1], IValue(), &self));
  });
  register_kernel("aten::clamp_max_", [](Stack& s) {
    Tensor self = s[0].to_tensor();
    set_output(s, clamp_impl(self, IValue(), s[1], &self));
  });
}

}  // namespace

void register_elementwise_kernels() {
  register_unary();
  register_binary();
  register_selection();
}

namespace cpu {

void check_out(const Tensor& out, DType result, const std::vector<int64_t>& shape) {
  if (out.sizes() != shape)
    throw InvalidInput(fmt::format("output with shape {} doesn't match the broadcast shape {}", shape_string(out.sizes()),
                                   shape_string(shape)));
  if (!can_cast(result, out.dtype()))
    throw InvalidInput(fmt::format("result type {} can't be cast to the desired output type {}", scalar_type_name(result),
                                   scalar_type_name(out.dtype())));
}

bool is_dense(const Tensor& t) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size)
  for (int64_t i = 0; i < t.dim(); ++i)
    if (t.sizes()[i] != 1) dims.emplace_back(t.strides()[i], t.sizes()[i]);
  std::sort(dims.begin(), dims.end());
  int64_t expected = 1;
  for (const auto& [stride, size] : dims) {
    if (stride != expected) return false;
    expected *= size;
  }
  return true;
}

DType clamp_result_type(const Tensor& x, const IValue& lo, const IValue& hi) {
  const IValue xv(x);
  std::vector<const IValue*> ops{&xv};
  if (!lo.is_none()) ops.push_back(&lo);
  if (!hi.is_none()) ops.push_back(&hi);
  return result_type(ops);
}

void check_add_args(const IValue& alpha, DType compute, bool negate) {
  if (negate && compute == DType::Bool)
    throw InvalidInput("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` "
                       "operator instead.");
  if (alpha.is(IValue::Kind::Double) && !is_floating(compute))
    throw InvalidInput("For integral input tensors, argument alpha must not be a floating point number.");
  if (alpha.is(IValue::Kind::Bool) == false && compute == DType::Bool && scalar_double(alpha) != 1.0)
    throw InvalidInput("Boolean alpha only supported for Boolean results.");
}

}  // namespace cpu

}  // namespace jitctl
