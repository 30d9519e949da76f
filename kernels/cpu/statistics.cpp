// Statistics over dims: var/std and their _mean forms (every overload: unbiased, dim, correction),
// median/nanmedian, mode, quantile/nanquantile; and histc, bincount, cov, corrcoef, cdist, dist. Each kernel moves the reduced dims last and makes
// the input contiguous, so a reduction is a loop over contiguous rows of length R; the results
// have the kept dims (or size-1 dims under keepdim) in their original order.
#include <algorithm>
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

// The input as `rows` contiguous rows of R elements (the reduced dims last).
struct Rows {
  Tensor x;
  int64_t rows = 1, R = 1;
  std::vector<int64_t> out_sizes;
};

Rows rows_of(const Tensor& input, const std::vector<int64_t>& dims, bool keepdim) {
  Rows r;
  const int64_t nd = input.dim();
  std::vector<bool> reduced(static_cast<size_t>(nd), false);
  for (auto d : dims) reduced[d] = true;
  std::vector<int64_t> order, sizes, strides;
  for (int64_t d = 0; d < nd; ++d) {
    if (reduced[d]) {
      if (keepdim) r.out_sizes.push_back(1);
      continue;
    }
    r.out_sizes.push_back(input.sizes()[d]);
    order.push_back(d);
    r.rows *= input.sizes()[d];
  }
  for (auto d : dims) {
    order.push_back(d);
    r.R *= input.sizes()[d];
  }
  for (auto d : order) {
    sizes.push_back(input.sizes()[d]);
    strides.push_back(input.strides()[d]);
  }
  r.x = nd == 0 ? contiguous(input) : contiguous(make_view(input, sizes, strides, input.storage_offset()));
  return r;
}

const Tensor& targ(const Stack& s, size_t i) { return s[i].to_tensor(); }

void set_two(Stack& s, Tensor a, Tensor b) {
  s.clear();
  s.emplace_back(std::move(a));
  s.emplace_back(std::move(b));
}

// ---- var, std ---------------------------------------------------------------------------------

// (var or std, mean) of `self` over `dims`, divided by max(0, N - correction) as PyTorch does.
std::pair<Tensor, Tensor> var_mean_impl(const Tensor& self, const IValue& dim, double correction, bool keepdim, bool take_sqrt,
                                        const char* op) {
  if (!is_floating(self.dtype()))
    throw InvalidInput(fmt::format("{}(): std and var only support floating point and complex dtypes", op));
  const Rows r = rows_of(self, reduction_dims(dim, self.dim(), op), keepdim);
  Tensor var = Tensor::empty(self.dtype(), r.out_sizes), mean = Tensor::empty(self.dtype(), r.out_sizes);
  dispatch_dtype(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const T* x = data_of<T>(r.x);
      T* v = mutable_data_of<T>(var);
      T* m = mutable_data_of<T>(mean);
      const int64_t R = r.R;
      const double divisor = std::max(0.0, static_cast<double>(R) - correction);
      parallel_for(0, r.rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(R, 1)), [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          const T* row = x + i * R;
          double sum = 0;
          for (int64_t k = 0; k < R; ++k) sum += row[k];
          const double mu = R ? sum / static_cast<double>(R) : std::numeric_limits<double>::quiet_NaN();
          double ss = 0;
          for (int64_t k = 0; k < R; ++k) ss += (row[k] - mu) * (row[k] - mu);
          const double out = ss / divisor;
          v[i] = static_cast<T>(take_sqrt ? std::sqrt(out) : out);
          m[i] = static_cast<T>(mu);
        }
      });
    }
  });
  return {var, mean};
}

// `unbiased` overloads: correction 1 or 0; `correction` overloads: None means 1.
double correction_arg(const IValue& v) { return v.is_none() ? 1.0 : v.to_double(); }
double unbiased_arg(const IValue& v) { return v.to_bool() ? 1.0 : 0.0; }

// The kernels of one family: (self, unbiased), (self, dim, unbiased, keepdim),
// (self, dim, *, correction, keepdim).
template <bool Sqrt, bool WithMean>
void finish(Stack& s, std::pair<Tensor, Tensor> r) {
  if constexpr (WithMean) set_two(s, std::move(r.first), std::move(r.second));
  else set_output(s, std::move(r.first));
}

template <bool Sqrt, bool WithMean>
constexpr const char* var_name() {
  return Sqrt ? (WithMean ? "std_mean" : "std") : (WithMean ? "var_mean" : "var");
}

template <bool Sqrt, bool WithMean>
void k_var_all(Stack& s) {
  finish<Sqrt, WithMean>(s, var_mean_impl(targ(s, 0), IValue(), unbiased_arg(s[1]), false, Sqrt, var_name<Sqrt, WithMean>()));
}
template <bool Sqrt, bool WithMean>
void k_var_dim(Stack& s) {
  finish<Sqrt, WithMean>(s, var_mean_impl(targ(s, 0), s[1], unbiased_arg(s[2]), s[3].to_bool(), Sqrt, var_name<Sqrt, WithMean>()));
}
template <bool Sqrt, bool WithMean>
void k_var_correction(Stack& s) {
  finish<Sqrt, WithMean>(s, var_mean_impl(targ(s, 0), s[1], correction_arg(s[2]), s[3].to_bool(), Sqrt, var_name<Sqrt, WithMean>()));
}

template <bool Sqrt, bool WithMean>
void register_var_family(const char* name) {
  const std::string n(name);
  register_kernel(n, k_var_all<Sqrt, WithMean>);
  register_kernel(n + ".dim", k_var_dim<Sqrt, WithMean>);
  register_kernel(n + ".correction", k_var_correction<Sqrt, WithMean>);
}

// ---- median, nanmedian, mode --------------------------------------------------------------------

template <class T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return v != v;
  else return false;
}

// Lower median of a row and its index; NaN (and its first index) when the row holds one, unless
// `skip_nan`, when NaNs are left out (all NaN: NaN and index 0).
template <class T>
std::pair<T, int64_t> row_median(const T* row, int64_t n, bool skip_nan, std::vector<std::pair<T, int64_t>>& buf) {
  buf.clear();
  for (int64_t k = 0; k < n; ++k) {
    if (is_nan(row[k])) {
      if (!skip_nan) return {row[k], k};
      continue;
    }
    buf.emplace_back(row[k], k);
  }
  if (buf.empty()) return {std::numeric_limits<T>::quiet_NaN(), 0};
  const size_t mid = (buf.size() - 1) / 2;
  std::nth_element(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(mid), buf.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return buf[mid];
}

Tensor median_all(const Tensor& self, bool skip_nan, const char* op) {
  Tensor out = Tensor::empty(self.dtype(), {});
  if (self.numel() == 0) {
    dispatch_dtype(self.dtype(), op, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_floating_point_v<T>) *mutable_data_of<T>(out) = std::numeric_limits<T>::quiet_NaN();
      else throw InvalidInput(fmt::format("{}() input tensor cannot be empty", op));
    });
    return out;
  }
  const Tensor x = contiguous(self);
  dispatch_dtype(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    std::vector<std::pair<T, int64_t>> buf;
    *mutable_data_of<T>(out) = row_median(data_of<T>(x), x.numel(), skip_nan, buf).first;
  });
  return out;
}

std::pair<Tensor, Tensor> median_dim(const Tensor& self, int64_t dim, bool keepdim, bool skip_nan, const char* op) {
  const int64_t d = self.dim() == 0 ? 0 : wrap_dim(dim, self.dim());
  const Rows r = rows_of(self, self.dim() == 0 ? std::vector<int64_t>{} : std::vector<int64_t>{d}, keepdim);
  if (r.R == 0 && r.rows > 0)
    throw InvalidInput(fmt::format("{}() cannot compute {} for a dimension of size 0 because the operation does not have an identity", op, op));
  Tensor values = Tensor::empty(self.dtype(), r.out_sizes), indices = Tensor::empty(DType::Int64, r.out_sizes);
  dispatch_dtype(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* x = data_of<T>(r.x);
    T* v = mutable_data_of<T>(values);
    int64_t* ix = mutable_data_of<int64_t>(indices);
    parallel_for(0, r.rows, 1, [&](int64_t b, int64_t e) {
      std::vector<std::pair<T, int64_t>> buf;
      for (int64_t i = b; i < e; ++i) std::tie(v[i], ix[i]) = row_median(x + i * r.R, r.R, skip_nan, buf);
    });
  });
  return {values, indices};
}

// The most frequent value of each row (the smallest among equally frequent ones) and the last
// index where it occurs, as PyTorch's CPU kernel returns.
std::pair<Tensor, Tensor> mode_impl(const Tensor& self, int64_t dim, bool keepdim) {
  const int64_t d = self.dim() == 0 ? 0 : wrap_dim(dim, self.dim());
  const Rows r = rows_of(self, self.dim() == 0 ? std::vector<int64_t>{} : std::vector<int64_t>{d}, keepdim);
  if (r.R == 0 && r.rows > 0)
    throw InvalidInput("mode(): Expected reduction dim to have non-zero size.");
  Tensor values = Tensor::empty(self.dtype(), r.out_sizes), indices = Tensor::empty(DType::Int64, r.out_sizes);
  dispatch_dtype(self.dtype(), "mode", [&](auto tag) {
    using T = decltype(tag);
    const T* x = data_of<T>(r.x);
    T* v = mutable_data_of<T>(values);
    int64_t* ix = mutable_data_of<int64_t>(indices);
    parallel_for(0, r.rows, 1, [&](int64_t b, int64_t e) {
      std::vector<std::pair<T, int64_t>> buf(static_cast<size_t>(r.R));
      for (int64_t i = b; i < e; ++i) {
        for (int64_t k = 0; k < r.R; ++k) buf[k] = {x[i * r.R + k], k};
        std::sort(buf.begin(), buf.end(), [](const auto& a, const auto& c) {
          if (a.first < c.first) return true;
          if (c.first < a.first) return false;
          return a.second < c.second;
        });
        int64_t best = 0, best_len = 0;
        for (int64_t k = 0; k < r.R;) {
          int64_t j = k;
          while (j < r.R && !(buf[k].first < buf[j].first) && !(buf[j].first < buf[k].first)) ++j;
          if (j - k > best_len) best = j - 1, best_len = j - k;
          k = j;
        }
        v[i] = buf[best].first;
        ix[i] = buf[best].second;
      }
    });
  });
  return {values, indices};
}

// ---- quantile -----------------------------------------------------------------------------------

enum class Interp { Linear, Lower, Higher, Midpoint, Nearest };

Interp interpolation_arg(const std::string& s, const char* op) {
  if (s == "linear") return Interp::Linear;
  if (s == "lower") return Interp::Lower;
  if (s == "higher") return Interp::Higher;
  if (s == "midpoint") return Interp::Midpoint;
  if (s == "nearest") return Interp::Nearest;
  throw InvalidInput(fmt::format("{}() interpolation must be one of linear, lower, higher, midpoint or nearest. Got {}", op, s));
}

Tensor quantile_impl(const Tensor& self, const IValue& q_arg, const IValue& dim, bool keepdim, const std::string& interp_name,
                     bool skip_nan) {
  const char* op = skip_nan ? "nanquantile" : "quantile";
  const Interp interp = interpolation_arg(interp_name, op);
  if (self.numel() == 0) throw InvalidInput(fmt::format("{}() input tensor must be non-empty", op));
  if (self.dtype() != DType::Float32 && self.dtype() != DType::Float64)
    throw InvalidInput(fmt::format("{}() input tensor must be either float or double dtype", op));
  std::vector<double> qs;
  bool q_scalar = true;
  if (q_arg.is_tensor()) {
    const Tensor& q = q_arg.to_tensor();
    if (q.dim() > 1) throw InvalidInput(fmt::format("{}() q must be a scalar or 1D tensor", op));
    if (q.dtype() != self.dtype())
      throw InvalidInput(fmt::format("{}() q tensor must be same dtype as the input tensor", op));
    q_scalar = q.dim() == 0;
    for (int64_t i = 0; i < q.numel(); ++i) qs.push_back(element_as_double(q, i));
  } else {
    qs.push_back(q_arg.to_double());
  }
  for (double q : qs)
    if (!(q >= 0 && q <= 1)) throw InvalidInput(fmt::format("{}() q must be in the range [0, 1] but got {}", op, q));
  // dim None: over the flattened input; keepdim then keeps every dim as 1.
  Tensor x = self;
  std::vector<int64_t> dims;
  std::vector<int64_t> keep_sizes;
  if (dim.is_none()) {
    Tensor c = contiguous(self);
    x = make_view(c, {self.numel()}, {1}, c.storage_offset());
    dims = {0};
    if (keepdim) keep_sizes.assign(static_cast<size_t>(self.dim()), 1);
  } else {
    dims = {self.dim() == 0 ? 0 : wrap_dim(dim.to_int(), self.dim())};
  }
  if (x.dim() == 0) {
    Tensor c = contiguous(x);
    x = make_view(c, {1}, {1}, c.storage_offset());
  }
  const Rows r = rows_of(x, dims, dim.is_none() ? false : keepdim);
  std::vector<int64_t> row_sizes = dim.is_none() ? (keepdim ? keep_sizes : std::vector<int64_t>{}) : r.out_sizes;
  if (!dim.is_none() && self.dim() == 0) row_sizes = {};
  std::vector<int64_t> out_sizes;
  if (!q_scalar) out_sizes.push_back(static_cast<int64_t>(qs.size()));
  out_sizes.insert(out_sizes.end(), row_sizes.begin(), row_sizes.end());
  Tensor out = Tensor::empty(self.dtype(), out_sizes);
  const int64_t nq = static_cast<int64_t>(qs.size());
  dispatch_dtype(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const T* src = data_of<T>(r.x);
      T* o = mutable_data_of<T>(out);
      std::vector<T> buf;
      for (int64_t i = 0; i < r.rows; ++i) {
        buf.clear();
        bool has_nan = false;
        for (int64_t k = 0; k < r.R; ++k) {
          const T v = src[i * r.R + k];
          if (v != v) has_nan = true;
          else buf.push_back(v);
        }
        std::sort(buf.begin(), buf.end());
        const int64_t n = static_cast<int64_t>(buf.size());
        for (int64_t j = 0; j < nq; ++j) {
          T res;
          if ((has_nan && !skip_nan) || n == 0) {
            res = std::numeric_limits<T>::quiet_NaN();
          } else {
            // PyTorch computes the rank in the input's dtype.
            const T rank = static_cast<T>(qs[j]) * static_cast<T>(n - 1);
            const int64_t lo = static_cast<int64_t>(std::floor(rank)), hi = static_cast<int64_t>(std::ceil(rank));
            switch (interp) {
              case Interp::Lower: res = buf[lo]; break;
              case Interp::Higher: res = buf[hi]; break;
              case Interp::Nearest: res = buf[static_cast<int64_t>(std::nearbyint(rank))]; break;
              case Interp::Midpoint: res = buf[lo] + (buf[hi] - buf[lo]) * T(0.5); break;
              default: {
                const T w = rank - static_cast<T>(lo);
                // torch.lerp's form: exact at both ends.
                res = w < T(0.5) ? buf[lo] + w * (buf[hi] - buf[lo]) : buf[hi] - (buf[hi] - buf[lo]) * (T(1) - w);
              }
            }
          }
          o[j * r.rows + i] = res;
        }
      }
    }
  });
  return out;
}

// ---- histc, bincount ----------------------------------------------------------------------------

// `bins` equal bins over [min, max] (the data's range when min == max); the last bin holds max;
// values outside are not counted.
Tensor histc_impl(const Tensor& self, int64_t bins, double lo, double hi) {
  if (!is_floating(self.dtype()))
    throw InvalidInput(fmt::format("\"histogram_cpu\" not implemented for '{}'", scalar_type_name(self.dtype())));
  if (bins <= 0) throw InvalidInput("torch.histc(): bins must be > 0, but got " + std::to_string(bins) + " for dimension 0");
  const Tensor x = contiguous(self);
  if (lo == hi && x.numel() > 0) {
    lo = hi = element_as_double(x, 0);
    for (int64_t i = 0; i < x.numel(); ++i) {
      const double v = element_as_double(x, i);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (lo == hi) lo -= 1, hi += 1;
  if (lo > hi) throw InvalidInput(fmt::format("torch.histc(): max must be larger than min, but got min {} max {}", lo, hi));
  Tensor out = Tensor::empty(self.dtype(), {bins});
  std::vector<double> counts(static_cast<size_t>(bins), 0.0);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double v = element_as_double(x, i);
    if (!(v >= lo && v <= hi)) continue;
    int64_t b = static_cast<int64_t>((v - lo) / (hi - lo) * static_cast<double>(bins));
    if (b == bins) b -= 1;
    counts[b] += 1;
  }
  dispatch_dtype(self.dtype(), "histc", [&](auto tag) {
    using T = decltype(tag);
    for (int64_t b = 0; b < bins; ++b) mutable_data_of<T>(out)[b] = static_cast<T>(counts[b]);
  });
  return out;
}

Tensor bincount_impl(const Tensor& self, const IValue& weights_arg, int64_t minlength) {
  if (self.dim() != 1 || is_floating(self.dtype()) || self.dtype() == DType::Bool)
    throw InvalidInput("bincount only supports 1-d non-negative integral inputs.");
  if (minlength < 0) throw InvalidInput("minlength should be >= 0");
  const Tensor x = to_dtype(contiguous(self), DType::Int64);
  int64_t n = minlength;
  for (int64_t i = 0; i < x.numel(); ++i) {
    const int64_t v = data_of<int64_t>(x)[i];
    if (v < 0) throw InvalidInput("bincount only supports 1-d non-negative integral inputs.");
    n = std::max(n, v + 1);
  }
  if (weights_arg.is_none()) {
    Tensor out = Tensor::empty(DType::Int64, {n});
    std::fill(mutable_data_of<int64_t>(out), mutable_data_of<int64_t>(out) + n, 0);
    for (int64_t i = 0; i < x.numel(); ++i) ++mutable_data_of<int64_t>(out)[data_of<int64_t>(x)[i]];
    return out;
  }
  const Tensor& w = weights_arg.to_tensor();
  if (w.dim() != 1 || w.numel() != x.numel()) throw InvalidInput("weights should be 1-d and have the same length as input");
  // float weights count in float, any other in double (ATen's two instantiations).
  const DType dt = w.dtype() == DType::Float32 ? DType::Float32 : DType::Float64;
  const Tensor wc = to_dtype(contiguous(w), DType::Float64);
  std::vector<double> acc(static_cast<size_t>(n), 0.0);
  for (int64_t i = 0; i < x.numel(); ++i) acc[data_of<int64_t>(x)[i]] += data_of<double>(wc)[i];
  Tensor out = Tensor::empty(dt, {n});
  for (int64_t i = 0; i < n; ++i) {
    if (dt == DType::Float32) mutable_data_of<float>(out)[i] = static_cast<float>(acc[i]);
    else mutable_data_of<double>(out)[i] = acc[i];
  }
  return out;
}

// ---- cov, corrcoef, cdist, dist -------------------------------------------------------------------

// Rows are variables, columns observations (a 1-D input is one variable); no weights.
Tensor cov_impl(const Tensor& self, int64_t correction, const IValue& fweights, const IValue& aweights, const char* op) {
  if (self.dim() > 2) throw InvalidInput(fmt::format("{}(): expected input to have two or fewer dimensions but got an input with {} dimensions", op, self.dim()));
  if (!fweights.is_none() || !aweights.is_none()) throw Unsupported("cov(): fweights and aweights");
  const DType dt = is_floating(self.dtype()) ? self.dtype() : DType::Float32;
  const Tensor x = to_dtype(contiguous(self), DType::Float64);
  const int64_t vars = self.dim() < 2 ? 1 : self.sizes()[0];
  const int64_t obs = self.dim() == 0 ? 1 : self.sizes()[self.dim() - 1];
  std::vector<double> mean(static_cast<size_t>(vars), 0.0);
  const double* p = data_of<double>(x);
  for (int64_t v = 0; v < vars; ++v) {
    for (int64_t o = 0; o < obs; ++o) mean[v] += p[v * obs + o];
    mean[v] /= static_cast<double>(obs);
  }
  const double denom = std::max(0.0, static_cast<double>(obs - correction));
  Tensor out = Tensor::empty(dt, self.dim() < 2 ? std::vector<int64_t>{} : std::vector<int64_t>{vars, vars});
  dispatch_dtype(dt, op, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      for (int64_t a = 0; a < vars; ++a)
        for (int64_t b = 0; b < vars; ++b) {
          double acc = 0;
          for (int64_t o = 0; o < obs; ++o) acc += (p[a * obs + o] - mean[a]) * (p[b * obs + o] - mean[b]);
          mutable_data_of<T>(out)[a * vars + b] = static_cast<T>(acc / denom);
        }
    }
  });
  return out;
}

Tensor corrcoef_impl(const Tensor& self) {
  Tensor c = cov_impl(self, 1, IValue(), IValue(), "corrcoef");
  if (c.dim() == 0) {  // one variable: c / c
    dispatch_dtype(c.dtype(), "corrcoef", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_floating_point_v<T>) {
        T& v = *mutable_data_of<T>(c);
        v = v / v;
      }
    });
    return c;
  }
  const int64_t n = c.sizes()[0];
  dispatch_dtype(c.dtype(), "corrcoef", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      T* m = mutable_data_of<T>(c);
      std::vector<T> sd(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) sd[i] = std::sqrt(m[i * n + i]);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) m[i * n + j] = std::clamp(m[i * n + j] / sd[i] / sd[j], T(-1), T(1));
    }
  });
  return c;
}

double p_distance(const double* a, const double* b, int64_t m, double p) {
  double acc = 0;
  if (p == 0) {
    for (int64_t k = 0; k < m; ++k) acc += a[k] != b[k];
    return acc;
  }
  if (std::isinf(p)) {
    for (int64_t k = 0; k < m; ++k) acc = std::max(acc, std::abs(a[k] - b[k]));
    return acc;
  }
  for (int64_t k = 0; k < m; ++k) acc += std::pow(std::abs(a[k] - b[k]), p);
  return p == 1 ? acc : std::pow(acc, 1.0 / p);
}

Tensor cdist_impl(const Tensor& x1, const Tensor& x2, double p) {
  if (x1.dim() < 2 || x2.dim() < 2) throw InvalidInput("cdist only supports at least 2D tensors, X1 got: " + std::to_string(x1.dim()) + "D");
  if (x1.sizes().back() != x2.sizes().back())
    throw InvalidInput(fmt::format("X1 and X2 must have the same number of columns. X1: {} X2: {}", x1.sizes().back(), x2.sizes().back()));
  if (!is_floating(x1.dtype())) throw InvalidInput(fmt::format("cdist only supports floating-point dtypes, X1 got: {}", scalar_type_name(x1.dtype())));
  if (p < 0) throw InvalidInput("cdist only supports non-negative p values");
  std::vector<int64_t> b1(x1.sizes().begin(), x1.sizes().end() - 2), b2(x2.sizes().begin(), x2.sizes().end() - 2);
  const std::vector<int64_t> batch = broadcast_shapes(b1, b2);
  const int64_t P = x1.sizes()[x1.dim() - 2], R = x2.sizes()[x2.dim() - 2], M = x1.sizes().back();
  auto full = [&](const Tensor& t, int64_t rows) {
    std::vector<int64_t> sz = batch;
    sz.push_back(rows);
    sz.push_back(M);
    return to_dtype(contiguous(expand_to(t, sz)), DType::Float64);
  };
  const Tensor a = full(x1, P), b = full(x2, R);
  std::vector<int64_t> osz = batch;
  osz.push_back(P);
  osz.push_back(R);
  Tensor out = Tensor::empty(x1.dtype(), osz);
  int64_t nb = 1;
  for (auto d : batch) nb *= d;
  dispatch_dtype(x1.dtype(), "cdist", [&](auto tag) {
    using T = decltype(tag);
    T* o = mutable_data_of<T>(out);
    for (int64_t bi = 0; bi < nb; ++bi)
      for (int64_t i = 0; i < P; ++i)
        for (int64_t j = 0; j < R; ++j)
          o[(bi * P + i) * R + j] =
              static_cast<T>(p_distance(data_of<double>(a) + (bi * P + i) * M, data_of<double>(b) + (bi * R + j) * M, M, p));
  });
  return out;
}

// pdist: the distances between every pair of rows i < j, in that order.
Tensor pdist_impl(const Tensor& self, double p) {
  if (self.dim() != 2) throw InvalidInput(fmt::format("pdist only supports 2D tensors, got: {}D", self.dim()));
  if (!is_floating(self.dtype())) throw InvalidInput(fmt::format("pdist only supports floating-point dtypes"));
  if (p < 0) throw InvalidInput("pdist only supports non-negative p values");
  const int64_t n = self.sizes()[0], m = self.sizes()[1];
  const Tensor x = to_dtype(contiguous(self), DType::Float64);
  Tensor out = Tensor::empty(self.dtype(), {n * (n - 1) / 2});
  dispatch_dtype(self.dtype(), "pdist", [&](auto tag) {
    using T = decltype(tag);
    int64_t k = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = i + 1; j < n; ++j)
        mutable_data_of<T>(out)[k++] = static_cast<T>(p_distance(data_of<double>(x) + i * m, data_of<double>(x) + j * m, m, p));
  });
  return out;
}

Tensor dist_impl(const Tensor& a, const Tensor& b, double p) {
  const std::vector<int64_t> shape = broadcast_shapes(a.sizes(), b.sizes());
  const DType dt = promote_types(a.dtype(), b.dtype());
  if (!is_floating(dt)) throw InvalidInput(fmt::format("dist only supports floating-point dtypes, got: {}", scalar_type_name(dt)));
  const Tensor x = to_dtype(contiguous(expand_to(a, shape)), DType::Float64), y = to_dtype(contiguous(expand_to(b, shape)), DType::Float64);
  const double d = p_distance(data_of<double>(x), data_of<double>(y), x.numel(), p);
  return scalar_to_tensor(IValue(d), dt);
}

}  // namespace

void register_statistics_kernels() {
  register_var_family<true, false>("aten::std");
  register_var_family<false, false>("aten::var");
  register_var_family<true, true>("aten::std_mean");
  register_var_family<false, true>("aten::var_mean");

  register_kernel("aten::median", [](Stack& s) { set_output(s, median_all(targ(s, 0), false, "median")); });
  register_kernel("aten::nanmedian", [](Stack& s) { set_output(s, median_all(targ(s, 0), true, "nanmedian")); });
  register_kernel("aten::median.dim", [](Stack& s) {
    auto r = median_dim(targ(s, 0), s[1].to_int(), s[2].to_bool(), false, "median");
    set_two(s, std::move(r.first), std::move(r.second));
  });
  register_kernel("aten::nanmedian.dim", [](Stack& s) {
    auto r = median_dim(targ(s, 0), s[1].to_int(), s[2].to_bool(), true, "nanmedian");
    set_two(s, std::move(r.first), std::move(r.second));
  });
  register_kernel("aten::mode", [](Stack& s) {
    auto r = mode_impl(targ(s, 0), s[1].to_int(), s[2].to_bool());
    set_two(s, std::move(r.first), std::move(r.second));
  });
  for (const char* name : {"aten::quantile", "aten::quantile.scalar"})
    register_kernel(name, [](Stack& s) { set_output(s, quantile_impl(targ(s, 0), s[1], s[2], s[3].to_bool(), s[4].to_string(), false)); });
  register_kernel("aten::histc", [](Stack& s) { set_output(s, histc_impl(targ(s, 0), s[1].to_int(), s[2].to_double(), s[3].to_double())); });
  register_kernel("aten::bincount", [](Stack& s) { set_output(s, bincount_impl(targ(s, 0), s[1], s[2].to_int())); });
  register_kernel("aten::cov", [](Stack& s) { set_output(s, cov_impl(targ(s, 0), s[1].to_int(), s[2], s[3], "cov")); });
  register_kernel("aten::corrcoef", [](Stack& s) { set_output(s, corrcoef_impl(targ(s, 0))); });
  register_kernel("aten::cdist", [](Stack& s) { set_output(s, cdist_impl(targ(s, 0), targ(s, 1), s[2].to_double())); });
  register_kernel("aten::pdist", [](Stack& s) { set_output(s, pdist_impl(targ(s, 0), s[1].to_double())); });
  register_kernel("aten::dist", [](Stack& s) { set_output(s, dist_impl(targ(s, 0), targ(s, 1), s[2].to_double())); });
  for (const char* name : {"aten::nanquantile", "aten::nanquantile.scalar"})
    register_kernel(name, [](Stack& s) { set_output(s, quantile_impl(targ(s, 0), s[1], s[2], s[3].to_bool(), s[4].to_string(), true)); });
}

}  // namespace jitctl
