// Statistics over dims: var/std and their _mean forms (every overload: unbiased, dim, correction),
// median/nanmedian, mode, quantile/nanquantile. Each kernel moves the reduced dims last and makes
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
  for (const char* name : {"aten::nanquantile", "aten::nanquantile.scalar"})
    register_kernel(name, [](Stack& s) { set_output(s, quantile_impl(targ(s, 0), s[1], s[2], s[3].to_bool(), s[4].to_string(), true)); });
}

}  // namespace jitctl
