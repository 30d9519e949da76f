// Reductions (sum, mean, prod, max/min, amax/amin, argmax/argmin, any/all, norms), softmax and
// log_softmax, cumsum, topk and sort. Every reduction views its input as [outer, R, inner] with
// the reduced dims in the middle (permuting to [kept..., reduced...] when they are not adjacent),
// so the loops run over contiguous memory: along R when inner == 1, along inner otherwise.
#include <algorithm>
#include <cmath>
#include <optional>
#include <type_traits>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "kernels/cpu/activations.h"
#include "kernels/cpu/dnnl_util.h"
#include "kernels/cpu/reduction.h"
#include "kernels/cpu/register_cpu.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/registry.h"

namespace jitctl {
namespace {

using namespace cpu;
using K = IValue::Kind;

template <class T>
constexpr bool kIsFloat = std::is_floating_point_v<T>;

using Reduce = ReducePlan;

Reduce plan_reduce(const Tensor& input, const std::vector<int64_t>& dims, bool keepdim) {
  return cpu::plan_reduce(input, dims, keepdim, cpu::contiguous);
}

// Splits the output positions (outer x inner) across threads; f(o, i0, i1) reduces positions
// o*inner + [i0, i1).
template <class F>
void parallel_rows(const Reduce& p, const F& f) {
  const int64_t threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  int64_t split = 1;
  if (p.outer < threads && p.inner > 1 && p.outer * p.R * p.inner > kGrainSize) split = std::min(p.inner, threads);
  const int64_t chunk = (p.inner + split - 1) / split;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, p.R * chunk));
  parallel_for(0, p.outer * split, grain, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / split, i0 = (t % split) * chunk, i1 = std::min(p.inner, i0 + chunk);
      if (i0 < i1) f(o, i0, i1);
    }
  });
}

// out[o, i] = finish(fold(step, init, x[o, :, i])). `step` must be associative: along contiguous
// rows it runs in 8 independent lanes (vectorizable) combined with `combine` at the end.
template <class T, class Out, class Acc, class Step, class Combine, class Finish>
Tensor reduce_with(const Reduce& p, DType out_dtype, Acc init, const Step& step, const Combine& combine, const Finish& finish) {
  Tensor out = Tensor::empty(out_dtype, p.out_sizes);
  const T* x = data_of<T>(p.x);
  Out* y = mutable_data_of<Out>(out);
  const int64_t R = p.R, inner = p.inner;
  parallel_rows(p, [&](int64_t o, int64_t i0, int64_t i1) {
    if (inner == 1) {
      const T* row = x + o * R;
      constexpr int kLanes = 8;
      Acc lanes[kLanes];
      for (auto& l : lanes) l = init;
      int64_t r = 0;
      for (; r + kLanes <= R; r += kLanes)
        for (int j = 0; j < kLanes; ++j) lanes[j] = step(lanes[j], row[r + j]);
      Acc a = init;
      for (int j = 0; j < kLanes; ++j) a = combine(a, lanes[j]);
      for (; r < R; ++r) a = step(a, row[r]);
      y[o] = finish(a);
      return;
    }
    std::vector<Acc> acc(static_cast<size_t>(i1 - i0), init);
    for (int64_t r = 0; r < R; ++r) {
      const T* src = x + (o * R + r) * inner + i0;
      for (int64_t i = 0; i < i1 - i0; ++i) acc[i] = step(acc[i], src[i]);
    }
    for (int64_t i = 0; i < i1 - i0; ++i) y[o * inner + i0 + i] = finish(acc[i]);
  });
  return out;
}

template <class T>
using acc_t = std::conditional_t<kIsFloat<T>, double, int64_t>;

std::vector<int64_t> dims_arg(const IValue& v, int64_t nd, const char* op) { return reduction_dims(v, nd, op); }

// A float sum or mean over the pixels (dims 2 and 3) of a channels-last image: the global pooling
// at the end of a CNN whose activations stayed channels-last. The rows of C channels are added
// where they lie, vectorized across channels; viewing the input as [N, C, H*W] first meant a copy
// to NCHW (MNASNet's 1280x7x7: 34.6 us, this 3).
std::optional<Tensor> sum_pixels_channels_last(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim, bool mean) {
  if (x.dtype() != DType::Float32 || x.dim() != 4 || x.is_contiguous() || !is_channels_last(x)) return std::nullopt;
  std::vector<int64_t> d = dims;
  std::sort(d.begin(), d.end());
  if (d != std::vector<int64_t>{2, 3}) return std::nullopt;
  const int64_t n = x.sizes()[0], c = x.sizes()[1], pixels = x.sizes()[2] * x.sizes()[3];
  Tensor out = Tensor::empty(DType::Float32, keepdim ? std::vector<int64_t>{n, c, 1, 1} : std::vector<int64_t>{n, c});
  const float* in = data_of<float>(x);
  float* y = mutable_data_of<float>(out);
  constexpr int64_t kChannels = 64;  // a block's sums stay in registers
  const int64_t blocks = (c + kChannels - 1) / kChannels;
  parallel_for(0, n * blocks, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, pixels * kChannels)), [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t img = b / blocks, c0 = (b % blocks) * kChannels, cn = std::min(kChannels, c - c0);
      double acc[kChannels] = {};
      const float* base = in + img * pixels * c + c0;
      for (int64_t p = 0; p < pixels; ++p) {
        const float* row = base + p * c;
#pragma omp simd
        for (int64_t j = 0; j < cn; ++j) acc[j] += row[j];
      }
      for (int64_t j = 0; j < cn; ++j) y[img * c + c0 + j] = static_cast<float>(mean ? acc[j] / static_cast<double>(pixels) : acc[j]);
    }
  });
  return out;
}

Tensor sum_impl(const Tensor& self, const IValue& dim, bool keepdim, const IValue& dtype, bool mean) {
  if (dtype.is_none() && !dim.is_none()) {
    if (auto r = sum_pixels_channels_last(self, dims_arg(dim, self.dim(), mean ? "mean" : "sum"), keepdim, mean)) return *r;
  }
  DType out_dt = self.dtype();
  if (auto d = optional_scalar_type_arg(dtype)) out_dt = *d;
  else if (!is_floating(out_dt) && !mean) out_dt = DType::Int64;
  if (mean && !is_floating(out_dt))
    throw InvalidInput(fmt::format("mean(): could not infer output dtype. Input dtype must be either a floating point or "
                                   "complex dtype. Got: {}", scalar_type_name(out_dt)));
  const Tensor x = to_dtype(self, out_dt);
  const Reduce p = plan_reduce(x, dims_arg(dim, x.dim(), mean ? "mean" : "sum"), keepdim);
  Tensor out;
  dispatch_dtype(out_dt, "sum", [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const double n = static_cast<double>(p.R);
    auto add = [](A a, T v) { return a + static_cast<A>(v); };
    auto comb = [](A a, A b) { return a + b; };
    if (mean) out = reduce_with<T, T, A>(p, out_dt, A(0), add, comb, [n](A a) { return static_cast<T>(a / n); });
    else out = reduce_with<T, T, A>(p, out_dt, A(0), add, comb, [](A a) { return static_cast<T>(a); });
  });
  return out;
}

Tensor prod_impl(const Tensor& self, const IValue& dim, bool keepdim, const IValue& dtype) {
  DType out_dt = self.dtype();
  if (auto d = optional_scalar_type_arg(dtype)) out_dt = *d;
  else if (!is_floating(out_dt)) out_dt = DType::Int64;
  const Tensor x = to_dtype(self, out_dt);
  const Reduce p = plan_reduce(x, dims_arg(dim, x.dim(), "prod"), keepdim);
  Tensor out;
  dispatch_dtype(out_dt, "prod", [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    out = reduce_with<T, T, A>(p, out_dt, A(1), [](A a, T v) { return a * static_cast<A>(v); }, [](A a, A b) { return a * b; },
                               [](A a) { return static_cast<T>(a); });
  });
  return out;
}

// Selects, not branches, so that the reduction loops vectorize.
template <class T>
T nan_max(T a, T b) {
  const T m = a > b ? a : b;
  if constexpr (kIsFloat<T>) return a != a ? a : b != b ? b : m;
  return m;
}
template <class T>
T nan_min(T a, T b) {
  const T m = a < b ? a : b;
  if constexpr (kIsFloat<T>) return a != a ? a : b != b ? b : m;
  return m;
}

// max/min/amax/amin: NaN wins, as in PyTorch.
Tensor extreme_impl(const Tensor& self, const std::vector<int64_t>& dims, bool keepdim, bool is_max, const char* op) {
  const Reduce p = plan_reduce(self, dims, keepdim);
  if (p.R == 0 || self.numel() == 0)
    throw InvalidInput(fmt::format("{}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction "
                                   "dim with the 'dim' argument.", op));
  Tensor out;
  dispatch_dtype(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T init = is_max ? (kIsFloat<T> ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest())
                          : (kIsFloat<T> ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max());
    auto fin = [](T a) { return a; };
    // Lambdas, not function pointers: the step is inlined into the loop.
    auto mx = [](T a, T b) { return nan_max<T>(a, b); };
    auto mn = [](T a, T b) { return nan_min<T>(a, b); };
    if (is_max) out = reduce_with<T, T, T>(p, self.dtype(), init, mx, mx, fin);
    else out = reduce_with<T, T, T>(p, self.dtype(), init, mn, mn, fin);
  });
  return out;
}

Tensor any_all_impl(const Tensor& self, const std::vector<int64_t>& dims, bool keepdim, bool any) {
  const Reduce p = plan_reduce(self, dims, keepdim);
  Tensor out;
  dispatch_dtype(self.dtype(), any ? "any" : "all", [&](auto tag) {
    using T = decltype(tag);
    auto fin = [](bool a) { return a; };
    if (any) out = reduce_with<T, bool, bool>(p, DType::Bool, false, [](bool a, T v) { return a || v != T(0); },
                                              [](bool a, bool b) { return a || b; }, fin);
    else out = reduce_with<T, bool, bool>(p, DType::Bool, true, [](bool a, T v) { return a && v != T(0); },
                                          [](bool a, bool b) { return a && b; }, fin);
  });
  return out;
}

Tensor norm_impl(const Tensor& self, const IValue& pv, const std::vector<int64_t>& dims, bool keepdim) {
  if (!is_floating(self.dtype()))
    throw InvalidInput(fmt::format("norm(): input dtype should be either floating point or complex. Got {} instead.",
                                   scalar_type_name(self.dtype())));
  const double pw = pv.is_none() ? 2.0 : scalar_double(pv);
  const Reduce p = plan_reduce(self, dims, keepdim);
  Tensor out;
  dispatch_dtype(self.dtype(), "norm", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (kIsFloat<T>) {
      using A = double;
      auto plus = [](A a, A b) { return a + b; };
      if (pw == 2.0) {
        out = reduce_with<T, T, A>(p, self.dtype(), 0.0, [](A a, T v) { return a + static_cast<A>(v) * v; }, plus,
                                   [](A a) { return static_cast<T>(std::sqrt(a)); });
      } else if (pw == 1.0) {
        out = reduce_with<T, T, A>(p, self.dtype(), 0.0, [](A a, T v) { return a + std::abs(static_cast<A>(v)); }, plus,
                                   [](A a) { return static_cast<T>(a); });
      } else if (std::isinf(pw)) {
        const bool hi = pw > 0;
        auto pick = [hi](A a, A b) { return hi ? nan_max(a, b) : nan_min(a, b); };
        out = reduce_with<T, T, A>(p, self.dtype(), hi ? 0.0 : std::numeric_limits<A>::infinity(),
                                   [pick](A a, T v) { return pick(a, std::abs(static_cast<A>(v))); }, pick,
                                   [](A a) { return static_cast<T>(a); });
      } else if (pw == 0.0) {
        out = reduce_with<T, T, A>(p, self.dtype(), 0.0, [](A a, T v) { return a + (v != T(0) ? 1.0 : 0.0); }, plus,
                                   [](A a) { return static_cast<T>(a); });
      } else {
        out = reduce_with<T, T, A>(p, self.dtype(), 0.0, [pw](A a, T v) { return a + std::pow(std::abs(static_cast<A>(v)), pw); },
                                   plus, [pw](A a) { return static_cast<T>(std::pow(a, 1.0 / pw)); });
      }
    }
  });
  return out;
}

// Values and indices along one dim: the first extreme wins; a NaN wins over numbers.
std::pair<Tensor, Tensor> arg_extreme(const Tensor& self, int64_t dim, bool keepdim, bool is_max, bool want_values, const char* op) {
  const Reduce p = plan_reduce(self, {dim}, keepdim);
  if (p.R == 0)
    throw InvalidInput(fmt::format("{}(): Expected reduction dim {} to have non-zero size.", op, dim));
  Tensor values = want_values ? Tensor::empty(self.dtype(), p.out_sizes) : Tensor();
  Tensor indices = Tensor::empty(DType::Int64, p.out_sizes);
  dispatch_dtype(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* x = data_of<T>(p.x);
    T* v = want_values ? mutable_data_of<T>(values) : nullptr;
    int64_t* ix = mutable_data_of<int64_t>(indices);
    const int64_t R = p.R, inner = p.inner;
    parallel_rows(p, [&](int64_t o, int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        const T* src = x + o * R * inner + i;
        T best = src[0];
        int64_t bi = 0;
        for (int64_t r = 1; r < R; ++r) {
          const T c = src[r * inner];
          if constexpr (kIsFloat<T>) {
            if (best != best) break;
            if (c != c) {
              best = c, bi = r;
              break;
            }
          }
          if (is_max ? c > best : c < best) best = c, bi = r;
        }
        if (v) v[o * inner + i] = best;
        ix[o * inner + i] = bi;
      }
    });
  });
  return {values, indices};
}

Tensor argmax_impl(const Tensor& self, const IValue& dim, bool keepdim, bool is_max) {
  const char* op = is_max ? "argmax" : "argmin";
  if (dim.is_none()) {
    if (self.numel() == 0) throw InvalidInput(fmt::format("{}(): Expected reduction dim to be specified for input.numel() == 0.", op));
    Tensor flat_c = contiguous(self);
    Tensor f = make_view(flat_c, {self.numel()}, {1}, flat_c.storage_offset());
    Tensor idx = arg_extreme(f, 0, false, is_max, false, op).second;
    if (keepdim) {
      std::vector<int64_t> ones(static_cast<size_t>(self.dim()), 1);
      return make_view(idx, ones, std::vector<int64_t>(ones.size(), 1), 0);
    }
    return idx;
  }
  return arg_extreme(self, wrap_dim(dim.to_int(), self.dim()), keepdim, is_max, false, op).second;
}

// ---- softmax ---------------------------------------------------------------------------------

// Row max (NaN if any) and sum in 16 independent lanes, so the compiler vectorizes them.
template <class T>
T row_max(const T* a, int64_t n) {
  constexpr int kLanes = 16;
  T lanes[kLanes];
  bool nan = false;
  for (auto& l : lanes) l = -std::numeric_limits<T>::infinity();
  int64_t r = 0;
  for (; r + kLanes <= n; r += kLanes)
    for (int j = 0; j < kLanes; ++j) {
      const T v = a[r + j];
      nan |= v != v;
      lanes[j] = v > lanes[j] ? v : lanes[j];
    }
  T m = -std::numeric_limits<T>::infinity();
  for (int j = 0; j < kLanes; ++j) m = lanes[j] > m ? lanes[j] : m;
  for (; r < n; ++r) {
    nan |= a[r] != a[r];
    m = a[r] > m ? a[r] : m;
  }
  return nan ? std::numeric_limits<T>::quiet_NaN() : m;
}

template <class T>
T row_sum(const T* a, int64_t n) {
  constexpr int kLanes = 16;
  T lanes[kLanes] = {};
  int64_t r = 0;
  for (; r + kLanes <= n; r += kLanes)
    for (int j = 0; j < kLanes; ++j) lanes[j] += a[r + j];
  T s = 0;
  for (int j = 0; j < kLanes; ++j) s += lanes[j];
  for (; r < n; ++r) s += a[r];
  return s;
}

Tensor softmax_impl(const Tensor& self, int64_t dim, const IValue& dtype, bool log) {
  Tensor x = self;
  if (auto d = optional_scalar_type_arg(dtype)) x = to_dtype(self, *d);
  if (!is_floating(x.dtype()))
    throw InvalidInput(fmt::format("\"{}\" not implemented for '{}'", log ? "log_softmax_lastdim_kernel_impl" : "softmax_lastdim_kernel_impl",
                                   scalar_type_name(x.dtype())));
  if (x.dim() == 0) x = make_view(contiguous(x), {1}, {1}, contiguous(x).storage_offset());
  const int64_t d = wrap_dim(dim, x.dim());
  const Reduce p = plan_reduce(x, {d}, true);
  Tensor out = Tensor::empty(x.dtype(), self.sizes());
  if (out.numel() == 0) return out;
  if (x.dtype() == DType::Float32 && p.inner == 1 && !log) {
    const float* src = data_of<float>(p.x);
    float* dst = mutable_data_of<float>(out);
    const int64_t R = p.R;
    parallel_for(0, p.outer, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, R)),
                 [&](int64_t b, int64_t e) { softmax_rows_f32(src + b * R, dst + b * R, e - b, R); });
    return out;
  }
  dispatch_dtype(x.dtype(), "softmax", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (kIsFloat<T>) {
      const T* src = data_of<T>(p.x);
      T* dst = mutable_data_of<T>(out);
      const int64_t R = p.R, inner = p.inner;
      parallel_rows(p, [&](int64_t o, int64_t i0, int64_t i1) {
        if (inner == 1) {
          const T* a = src + o * R;
          T* b = dst + o * R;
          const T mx = row_max(a, R);
          T sum = T(0);
          bool summed = false;
          if constexpr (std::is_same_v<T, float>) {
            // The vectorized exp where the maximum is finite (no NaN, no +-inf to carry through).
            if (std::isfinite(mx)) {
              sum = exp_shifted_f32(a, b, R, mx);
              summed = true;
            }
          }
          if (!summed) {
            for (int64_t r = 0; r < R; ++r) b[r] = vexp(a[r] - mx);
            sum = row_sum(b, R);
          }
          if (log) {
            const T lse = std::log(sum);
            for (int64_t r = 0; r < R; ++r) b[r] = a[r] - mx - lse;
          } else {
            const T inv = T(1) / sum;
            for (int64_t r = 0; r < R; ++r) b[r] *= inv;
          }
          return;
        }
        const int64_t w = i1 - i0;
        std::vector<T> mx(static_cast<size_t>(w), -std::numeric_limits<T>::infinity()), sum(static_cast<size_t>(w), T(0));
        const T* a = src + o * R * inner + i0;
        T* b = dst + o * R * inner + i0;
        for (int64_t r = 0; r < R; ++r)
          for (int64_t i = 0; i < w; ++i) {
            const T v = a[r * inner + i];
            mx[i] = (v != v || v > mx[i]) ? v : mx[i];
          }
        for (int64_t r = 0; r < R; ++r)
          for (int64_t i = 0; i < w; ++i) {
            const T e = vexp(a[r * inner + i] - mx[i]);
            b[r * inner + i] = e;
            sum[i] += e;
          }
        for (int64_t i = 0; i < w; ++i) sum[i] = log ? std::log(sum[i]) : T(1) / sum[i];
        for (int64_t r = 0; r < R; ++r)
          for (int64_t i = 0; i < w; ++i) {
            if (log) b[r * inner + i] = a[r * inner + i] - mx[i] - sum[i];
            else b[r * inner + i] *= sum[i];
          }
      });
    }
  });
  return out;
}

// ---- cumsum, topk, sort ----------------------------------------------------------------------

Tensor cumsum_impl(const Tensor& self, int64_t dim, const IValue& dtype) {
  DType out_dt = self.dtype();
  if (auto d = optional_scalar_type_arg(dtype)) out_dt = *d;
  else if (!is_floating(out_dt)) out_dt = DType::Int64;
  Tensor x = to_dtype(self, out_dt);
  if (x.dim() == 0) return x.same(self) ? to_dtype(contiguous(self), out_dt) : x;
  const int64_t d = wrap_dim(dim, x.dim());
  const Reduce p = plan_reduce(x, {d}, true);
  Tensor out = Tensor::empty(out_dt, x.sizes());
  dispatch_dtype(out_dt, "cumsum", [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* src = data_of<T>(p.x);
    T* dst = mutable_data_of<T>(out);
    const int64_t R = p.R, inner = p.inner;
    parallel_rows(p, [&](int64_t o, int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        A acc = 0;
        for (int64_t r = 0; r < R; ++r) {
          const int64_t k = (o * R + r) * inner + i;
          acc += static_cast<A>(src[k]);
          dst[k] = static_cast<T>(acc);
        }
      }
    });
  });
  return out;
}

// The k largest (or smallest) along `dim`, sorted when asked; NaN counts as the largest value.
std::pair<Tensor, Tensor> topk_impl(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted, bool stable) {
  const int64_t d = self.dim() == 0 ? 0 : wrap_dim(dim, self.dim());
  const int64_t n = self.dim() == 0 ? 1 : self.sizes()[d];
  if (k < 0 || k > n) throw InvalidInput("selected index k out of range");
  std::vector<int64_t> osz = self.sizes();
  if (!osz.empty()) osz[d] = k;
  Tensor values = Tensor::empty(self.dtype(), osz), indices = Tensor::empty(DType::Int64, osz);
  if (values.numel() == 0) return {values, indices};
  const Tensor x = contiguous(self);
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < self.dim(); ++i) {
    if (i < d) outer *= self.sizes()[i];
    if (i > d) inner *= self.sizes()[i];
  }
  dispatch_dtype(self.dtype(), "topk", [&](auto tag) {
    using T = decltype(tag);
    const T* src = data_of<T>(x);
    T* vo = mutable_data_of<T>(values);
    int64_t* io = mutable_data_of<int64_t>(indices);
    auto greater = [](T a, T b) {
      if constexpr (kIsFloat<T>) {
        if (a != a) return b == b;
        if (b != b) return false;
      }
      return a > b;
    };
    parallel_for(0, outer * inner, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(n, 1)), [&](int64_t b, int64_t e) {
      std::vector<std::pair<T, int64_t>> row(static_cast<size_t>(n));
      for (int64_t t = b; t < e; ++t) {
        const int64_t o = t / inner, i = t % inner;
        for (int64_t r = 0; r < n; ++r) row[r] = {src[(o * n + r) * inner + i], r};
        auto cmp = [&](const std::pair<T, int64_t>& a, const std::pair<T, int64_t>& c) {
          const bool before = largest ? greater(a.first, c.first) : greater(c.first, a.first);
          if (before) return true;
          const bool after = largest ? greater(c.first, a.first) : greater(a.first, c.first);
          return !after && a.second < c.second;
        };
        if (stable) std::stable_sort(row.begin(), row.end(), cmp);
        else if (sorted) std::partial_sort(row.begin(), row.begin() + k, row.end(), cmp);
        else std::nth_element(row.begin(), row.begin() + (k > 0 ? k - 1 : 0), row.end(), cmp);
        for (int64_t r = 0; r < k; ++r) {
          vo[(o * k + r) * inner + i] = row[r].first;
          io[(o * k + r) * inner + i] = row[r].second;
        }
      }
    });
  });
  return {values, indices};
}

// ---- logsumexp, nansum/nanmean, count_nonzero, cumulative ops, kthvalue ------------------------

// log(sum(exp(x))) over dims, stable: the max is taken out first (an infinite max is the answer).
Tensor logsumexp_impl(const Tensor& self, const IValue& dim, bool keepdim) {
  const Tensor x = is_floating(self.dtype()) ? self : to_dtype(self, DType::Float32);
  const Reduce p = plan_reduce(x, dims_arg(dim, x.dim(), "logsumexp"), keepdim);
  Tensor out = Tensor::empty(x.dtype(), p.out_sizes);
  dispatch_dtype(x.dtype(), "logsumexp", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (kIsFloat<T>) {
      const T* src = data_of<T>(p.x);
      T* dst = mutable_data_of<T>(out);
      parallel_rows(p, [&](int64_t o, int64_t i0, int64_t i1) {
        for (int64_t i = i0; i < i1; ++i) {
          T m = -std::numeric_limits<T>::infinity();
          for (int64_t r = 0; r < p.R; ++r) m = std::max(m, src[(o * p.R + r) * p.inner + i]);
          if (std::isinf(m)) {
            dst[o * p.inner + i] = m;
            continue;
          }
          double acc = 0;
          for (int64_t r = 0; r < p.R; ++r) acc += std::exp(static_cast<double>(src[(o * p.R + r) * p.inner + i] - m));
          dst[o * p.inner + i] = static_cast<T>(std::log(acc) + m);
        }
      });
    }
  });
  return out;
}

// Sum (or mean) leaving NaNs out.
Tensor nansum_impl(const Tensor& self, const IValue& dim, bool keepdim, const IValue& dtype, bool mean) {
  DType out_dt = self.dtype();
  if (auto d = optional_scalar_type_arg(dtype)) out_dt = *d;
  else if (!is_floating(out_dt)) out_dt = mean ? out_dt : DType::Int64;
  if (mean && !is_floating(out_dt))
    throw InvalidInput(fmt::format("nanmean(): expected input to have floating point or complex dtype but got {}", scalar_type_name(out_dt)));
  if (!is_floating(out_dt)) return sum_impl(self, dim, keepdim, dtype, false);
  const Tensor x = to_dtype(self, out_dt);
  const Reduce p = plan_reduce(x, dims_arg(dim, x.dim(), mean ? "nanmean" : "nansum"), keepdim);
  Tensor out;
  dispatch_dtype(out_dt, "nansum", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (kIsFloat<T>) {
      using P = std::pair<double, int64_t>;
      out = reduce_with<T, T, P>(p, out_dt, P{0.0, 0}, [](P a, T v) { return v != v ? a : P{a.first + v, a.second + 1}; },
                                 [](P a, P b) { return P{a.first + b.first, a.second + b.second}; },
                                 [mean](P a) { return static_cast<T>(mean ? a.first / static_cast<double>(a.second) : a.first); });
    }
  });
  return out;
}

Tensor count_nonzero_impl(const Tensor& self, const std::vector<int64_t>& dims) {
  const Reduce p = plan_reduce(self, dims, false);
  Tensor out;
  dispatch_dtype(self.dtype(), "count_nonzero", [&](auto tag) {
    using T = decltype(tag);
    out = reduce_with<T, int64_t, int64_t>(p, DType::Int64, int64_t{0}, [](int64_t a, T v) { return a + (v != T(0)); },
                                           [](int64_t a, int64_t b) { return a + b; }, [](int64_t a) { return a; });
  });
  return out;
}

// Running product / max / min / log-sum-exp along a dim. Kind: 0 cumprod, 1 cummax, 2 cummin, 3 logcumsumexp.
std::pair<Tensor, Tensor> cumulative(const Tensor& self, int64_t dim, int kind, const IValue& dtype) {
  DType out_dt = self.dtype();
  if (kind == 0) {
    if (auto d = optional_scalar_type_arg(dtype)) out_dt = *d;
    else if (!is_floating(out_dt)) out_dt = DType::Int64;
  }
  if (kind == 3 && !is_floating(out_dt)) out_dt = DType::Float32;
  const Tensor x = to_dtype(self, out_dt);
  Tensor values = Tensor::empty(out_dt, x.sizes());
  Tensor indices = kind == 1 || kind == 2 ? Tensor::empty(DType::Int64, x.sizes()) : Tensor();
  if (x.numel() == 0) return {values, indices};
  const Tensor xs = x.dim() == 0 ? make_view(contiguous(x), {1}, {1}, contiguous(x).storage_offset()) : x;
  const int64_t d = wrap_dim(dim, xs.dim());
  const Reduce p = plan_reduce(xs, {d}, true);
  dispatch_dtype(out_dt, "cumulative", [&](auto tag) {
    using T = decltype(tag);
    const T* src = data_of<T>(p.x);
    T* dst = mutable_data_of<T>(values);
    int64_t* ix = indices.defined() ? mutable_data_of<int64_t>(indices) : nullptr;
    parallel_rows(p, [&](int64_t o, int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        acc_t<T> prod = 1;
        double lse = -std::numeric_limits<double>::infinity();
        T best{};
        int64_t bi = 0;
        for (int64_t r = 0; r < p.R; ++r) {
          const int64_t k = (o * p.R + r) * p.inner + i;
          const T v = src[k];
          if (kind == 0) {
            prod *= static_cast<acc_t<T>>(v);
            dst[k] = static_cast<T>(prod);
          } else if (kind == 3) {
            const double a = static_cast<double>(v);
            const double m = std::max(lse, a);
            lse = std::isinf(m) && m < 0 ? m : m + std::log(std::exp(lse - m) + std::exp(a - m));
            dst[k] = static_cast<T>(lse);
          } else {
            bool take = r == 0;
            if constexpr (kIsFloat<T>) take = take || v != v || (best == best && (kind == 1 ? v >= best : v <= best));
            else take = take || (kind == 1 ? v >= best : v <= best);
            if (take) best = v, bi = r;
            dst[k] = best;
            ix[k] = bi;
          }
        }
      }
    });
  });
  return {values, indices};
}

// The k-th smallest along dim (1-based) and its index.
std::pair<Tensor, Tensor> kthvalue_impl(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  const int64_t d = self.dim() == 0 ? 0 : wrap_dim(dim, self.dim());
  const int64_t n = self.dim() == 0 ? 1 : self.sizes()[d];
  if (k < 1 || k > n) throw InvalidInput(fmt::format("kthvalue(): selected number k out of range for dimension {}", d));
  auto [v, ix] = topk_impl(self, k, d, false, true, true);
  // The last of the k smallest.
  Stack st{IValue(v), IValue(d), IValue(k - 1)};
  find_kernel("aten::select.int")(st);
  Tensor vk = contiguous(st[0].to_tensor());
  Stack si{IValue(ix), IValue(d), IValue(k - 1)};
  find_kernel("aten::select.int")(si);
  Tensor ik = contiguous(si[0].to_tensor());
  if (keepdim && self.dim() > 0) {
    std::vector<int64_t> sz = self.sizes();
    sz[d] = 1;
    vk = make_view(vk, sz, contiguous_strides(sz), vk.storage_offset());
    ik = make_view(ik, sz, contiguous_strides(sz), ik.storage_offset());
  }
  return {vk, ik};
}

void set_two(Stack& s, std::pair<Tensor, Tensor> r) {
  s.clear();
  s.emplace_back(std::move(r.first));
  s.emplace_back(std::move(r.second));
}

const Tensor& targ(const Stack& s, size_t i) { return s[i].to_tensor(); }

}  // namespace

void register_reduction_kernels() {
  register_kernel("aten::sum", [](Stack& s) { set_output(s, sum_impl(targ(s, 0), IValue(), false, s[1], false)); });
  register_kernel("aten::sum.dim_IntList",
                  [](Stack& s) { set_output(s, sum_impl(targ(s, 0), s[1], s[2].to_bool(), s[3], false)); });
  register_kernel("aten::mean", [](Stack& s) { set_output(s, sum_impl(targ(s, 0), IValue(), false, s[1], true)); });
  register_kernel("aten::mean.dim", [](Stack& s) { set_output(s, sum_impl(targ(s, 0), s[1], s[2].to_bool(), s[3], true)); });
  register_kernel("aten::prod", [](Stack& s) { set_output(s, prod_impl(targ(s, 0), IValue(), false, s[1])); });
  register_kernel("aten::prod.dim_int", [](Stack& s) { set_output(s, prod_impl(targ(s, 0), s[1], s[2].to_bool(), s[3])); });

  register_kernel("aten::max", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    set_output(s, extreme_impl(x, reduction_dims(IValue(), x.dim(), "max"), false, true, "max"));
  });
  register_kernel("aten::min", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    set_output(s, extreme_impl(x, reduction_dims(IValue(), x.dim(), "min"), false, false, "min"));
  });
  register_kernel("aten::amax", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    set_output(s, extreme_impl(x, reduction_dims(s[1], x.dim(), "amax"), s[2].to_bool(), true, "amax"));
  });
  register_kernel("aten::amin", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    set_output(s, extreme_impl(x, reduction_dims(s[1], x.dim(), "amin"), s[2].to_bool(), false, "amin"));
  });
  register_kernel("aten::max.dim", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    set_two(s, arg_extreme(x, wrap_dim(s[1].to_int(), x.dim()), s[2].to_bool(), true, true, "max"));
  });
  register_kernel("aten::min.dim", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    set_two(s, arg_extreme(x, wrap_dim(s[1].to_int(), x.dim()), s[2].to_bool(), false, true, "min"));
  });
  register_kernel("aten::argmax", [](Stack& s) { set_output(s, argmax_impl(targ(s, 0), s[1], s[2].to_bool(), true)); });
  register_kernel("aten::argmin", [](Stack& s) { set_output(s, argmax_impl(targ(s, 0), s[1], s[2].to_bool(), false)); });
  register_kernel("aten::any", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    set_output(s, any_all_impl(x, reduction_dims(IValue(), x.dim(), "any"), false, true));
  });
  register_kernel("aten::all", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    set_output(s, any_all_impl(x, reduction_dims(IValue(), x.dim(), "all"), false, false));
  });
  register_kernel("aten::any.dim", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    set_output(s, any_all_impl(x, reduction_dims(s[1], x.dim(), "any"), s[2].to_bool(), true));
  });
  register_kernel("aten::all.dim", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    set_output(s, any_all_impl(x, reduction_dims(s[1], x.dim(), "all"), s[2].to_bool(), false));
  });

  register_kernel("aten::norm.Scalar", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    set_output(s, norm_impl(x, s[1], reduction_dims(IValue(), x.dim(), "norm"), false));
  });
  register_kernel("aten::norm.ScalarOpt_dim", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    set_output(s, norm_impl(x, s[1], reduction_dims(s[2], x.dim(), "norm"), s[3].to_bool()));
  });
  register_kernel("aten::norm.ScalarOpt_dtype", [](Stack& s) {
    const Tensor x = to_dtype(targ(s, 0), scalar_type_arg(s[2]));
    set_output(s, norm_impl(x, s[1], reduction_dims(IValue(), x.dim(), "norm"), false));
  });
  register_kernel("aten::norm.ScalarOpt_dim_dtype", [](Stack& s) {
    const Tensor x = to_dtype(targ(s, 0), scalar_type_arg(s[4]));
    set_output(s, norm_impl(x, s[1], reduction_dims(s[2], x.dim(), "norm"), s[3].to_bool()));
  });
  register_kernel("aten::frobenius_norm", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    set_output(s, norm_impl(x, IValue(), reduction_dims(IValue(), x.dim(), "frobenius_norm"), false));
  });
  register_kernel("aten::frobenius_norm.dim", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    set_output(s, norm_impl(x, IValue(), reduction_dims(s[1], x.dim(), "frobenius_norm"), s[2].to_bool()));
  });

  register_kernel("aten::softmax.int", [](Stack& s) { set_output(s, softmax_impl(targ(s, 0), s[1].to_int(), s[2], false)); });
  register_kernel("aten::log_softmax.int", [](Stack& s) { set_output(s, softmax_impl(targ(s, 0), s[1].to_int(), s[2], true)); });
  register_kernel("aten::cumsum", [](Stack& s) { set_output(s, cumsum_impl(targ(s, 0), s[1].to_int(), s[2])); });
  register_kernel("aten::topk", [](Stack& s) {
    set_two(s, topk_impl(targ(s, 0), s[1].to_int(), s[2].to_int(), s[3].to_bool(), s[4].to_bool(), false));
  });
  register_kernel("aten::logsumexp", [](Stack& s) { set_output(s, logsumexp_impl(targ(s, 0), s[1], s[2].to_bool())); });
  register_kernel("aten::nansum", [](Stack& s) { set_output(s, nansum_impl(targ(s, 0), s[1], s[2].to_bool(), s[3], false)); });
  register_kernel("aten::nanmean", [](Stack& s) { set_output(s, nansum_impl(targ(s, 0), s[1], s[2].to_bool(), s[3], true)); });
  register_kernel("aten::count_nonzero", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    set_output(s, count_nonzero_impl(x, s[1].is_none() ? reduction_dims(IValue(), x.dim(), "count_nonzero")
                                                        : std::vector<int64_t>{wrap_dim(s[1].to_int(), x.dim())}));
  });
  register_kernel("aten::count_nonzero.dim_IntList", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    set_output(s, count_nonzero_impl(x, reduction_dims(s[1], x.dim(), "count_nonzero")));
  });
  register_kernel("aten::all.dims", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    set_output(s, any_all_impl(x, reduction_dims(s[1], x.dim(), "all"), s[2].to_bool(), false));
  });
  register_kernel("aten::any.dims", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    set_output(s, any_all_impl(x, reduction_dims(s[1], x.dim(), "any"), s[2].to_bool(), true));
  });
  register_kernel("aten::aminmax", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    const auto dims = s[1].is_none() ? reduction_dims(IValue(), x.dim(), "aminmax") : std::vector<int64_t>{wrap_dim(s[1].to_int(), x.dim())};
    const bool keep = s[2].to_bool();
    set_two(s, {extreme_impl(x, dims, keep, false, "aminmax"), extreme_impl(x, dims, keep, true, "aminmax")});
  });
  register_kernel("aten::cumprod", [](Stack& s) { set_output(s, cumulative(targ(s, 0), s[1].to_int(), 0, s[2]).first); });
  register_kernel("aten::cummax", [](Stack& s) { set_two(s, cumulative(targ(s, 0), s[1].to_int(), 1, IValue())); });
  register_kernel("aten::cummin", [](Stack& s) { set_two(s, cumulative(targ(s, 0), s[1].to_int(), 2, IValue())); });
  register_kernel("aten::logcumsumexp", [](Stack& s) { set_output(s, cumulative(targ(s, 0), s[1].to_int(), 3, IValue()).first); });
  register_kernel("aten::kthvalue", [](Stack& s) {
    set_two(s, kthvalue_impl(targ(s, 0), s[1].to_int(), s[2].to_int(), s[3].to_bool()));
  });
  register_kernel("aten::sort.stable", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    const int64_t d = x.dim() == 0 ? 0 : wrap_dim(s[2].to_int(), x.dim());
    set_two(s, topk_impl(x, x.dim() == 0 ? 1 : x.sizes()[d], d, s[3].to_bool(), true, true));
  });
  register_kernel("aten::argsort.stable", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    const int64_t d = x.dim() == 0 ? 0 : wrap_dim(s[2].to_int(), x.dim());
    set_output(s, topk_impl(x, x.dim() == 0 ? 1 : x.sizes()[d], d, s[3].to_bool(), true, true).second);
  });
  register_kernel("aten::msort", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    set_output(s, topk_impl(x, x.dim() == 0 ? 1 : x.sizes()[0], 0, false, true, true).first);
  });
  register_kernel("aten::sort", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    const int64_t d = x.dim() == 0 ? 0 : wrap_dim(s[1].to_int(), x.dim());
    set_two(s, topk_impl(x, x.dim() == 0 ? 1 : x.sizes()[d], d, s[2].to_bool(), true, true));
  });
  register_kernel("aten::argsort", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    const int64_t d = x.dim() == 0 ? 0 : wrap_dim(s[1].to_int(), x.dim());
    set_output(s, topk_impl(x, x.dim() == 0 ? 1 : x.sizes()[d], d, s[2].to_bool(), true, true).second);
  });
}

namespace cpu {

ReducePlan plan_reduce(const Tensor& input, const std::vector<int64_t>& dims, bool keepdim, Tensor (*make_contiguous)(const Tensor&)) {
  ReducePlan p;
  const int64_t nd = input.dim();
  const auto& sz = input.sizes();
  std::vector<bool> reduced(static_cast<size_t>(nd), false);
  for (auto d : dims) reduced[d] = true;
  for (int64_t d = 0; d < nd; ++d) {
    if (!reduced[d]) p.out_sizes.push_back(sz[d]);
    else if (keepdim) p.out_sizes.push_back(1);
  }
  if (nd == 0) {
    p.x = input;
    return p;
  }
  const bool adjacent = dims.empty() || dims.back() - dims.front() + 1 == static_cast<int64_t>(dims.size());
  if (adjacent && !dims.empty()) {
    p.x = make_contiguous(input);
    for (int64_t d = 0; d < nd; ++d) {
      if (d < dims.front()) p.outer *= sz[d];
      else if (d <= dims.back()) p.R *= sz[d];
      else p.inner *= sz[d];
    }
    return p;
  }
  // Kept dims first, then the reduced ones: one contiguous copy, then an [outer, R] reduction.
  std::vector<int64_t> order, psizes, pstrides;
  for (int64_t d = 0; d < nd; ++d)
    if (!reduced[d]) order.push_back(d), p.outer *= sz[d];
  for (int64_t d = 0; d < nd; ++d)
    if (reduced[d]) order.push_back(d), p.R *= sz[d];
  for (auto d : order) psizes.push_back(sz[d]), pstrides.push_back(input.strides()[d]);
  p.x = make_contiguous(make_view(input, psizes, pstrides, input.storage_offset()));
  return p;
}

}  // namespace cpu

}  // namespace jitctl
