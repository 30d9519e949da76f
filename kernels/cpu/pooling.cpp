// Pooling and upsampling over NCHW planes (1-D ops as height-1 planes), one plane per task.
// Window arithmetic, NaN propagation and index conventions follow ATen's CPU kernels.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/cpu/dnnl_util.h"
#include "kernels/cpu/isa_dispatch.h"
#include "kernels/cpu/nn_util.h"
#include "kernels/cpu/output.h"
#include "kernels/cpu/pooling.h"
#include "kernels/cpu/pooling_nhwc.h"
#include "kernels/cpu/register_cpu.h"
#include "kernels/parallel.h"
#include "kernels/registry.h"

namespace jitctl::cpu {

PlaneShape plane_shape(const Tensor& input, int64_t spatial, const char* op) {
  const int64_t d = input.dim();
  if (d != spatial + 1 && d != spatial + 2)
    throw InvalidInput(fmt::format("{}: Expected {}D or {}D input tensor, but got {}", op, spatial + 1, spatial + 2, shape_string(input.sizes())));
  for (int64_t i = 1; i < d; ++i)
    if (input.sizes()[i] == 0)
      throw InvalidInput(fmt::format("{}(): Expected input to have non-zero size for non-batch dimensions, but input has sizes {} with dimension {} being empty",
                                     op, shape_string(input.sizes()), i));
  PlaneShape p;
  p.lead.assign(input.sizes().begin(), input.sizes().end() - spatial);
  p.h = spatial == 2 ? input.sizes()[d - 2] : 1;
  p.w = input.sizes()[d - 1];
  for (auto x : p.lead) p.planes *= x;
  return p;
}

std::vector<int64_t> out_shape(const PlaneShape& p, int64_t spatial, int64_t oh, int64_t ow) {
  std::vector<int64_t> s = p.lead;
  if (spatial == 2) s.push_back(oh);
  s.push_back(ow);
  return s;
}

int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation, bool ceil_mode) {
  const int64_t num = in + 2 * pad - dilation * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = (num >= 0 ? num / stride : -((-num + stride - 1) / stride)) + 1;
  // The last window must start inside the input or its left padding.
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

void check_output_size(const PlaneShape& pl, int64_t oh, int64_t ow) {
  if (oh < 1 || ow < 1)
    throw InvalidInput(fmt::format("Given input size: ({}x{}x{}). Calculated output size: ({}x{}x{}). Output size is too small",
                                   pl.lead.empty() ? 1 : pl.lead.back(), pl.h, pl.w, pl.lead.empty() ? 1 : pl.lead.back(), oh, ow));
}

PoolArgs pool_args(const Stack& st, int64_t spatial, bool has_dilation, const char* op) {
  PoolArgs a;
  const size_t n = static_cast<size_t>(spatial);
  auto fix = [&](std::vector<int64_t> v, const char* what, std::vector<int64_t> dflt) {
    if (v.empty()) return dflt;
    if (v.size() == 1) v.assign(n, v[0]);
    if (v.size() != n) throw InvalidInput(fmt::format("{}: {} must either be a single int, or a tuple of {} ints", op, what, n));
    return v;
  };
  a.k = fix(int_list(st[1]), "kernel_size", {});
  if (a.k.empty()) throw InvalidInput(fmt::format("{}: kernel_size must either be a single int, or a tuple of {} ints", op, n));
  a.s = fix(int_list(st[2]), "stride", a.k);
  a.p = fix(int_list(st[3]), "padding", std::vector<int64_t>(n, 0));
  a.d = has_dilation ? fix(int_list(st[4]), "dilation", std::vector<int64_t>(n, 1)) : std::vector<int64_t>(n, 1);
  for (size_t i = 0; i < n; ++i) {
    if (a.k[i] <= 0) throw InvalidInput(fmt::format("{}: kernel_size must be greater than zero", op));
    if (a.s[i] <= 0) throw InvalidInput(fmt::format("{}: stride must be greater than zero", op));
    if (a.d[i] <= 0) throw InvalidInput(fmt::format("{}: dilation must be greater than zero", op));
    if (a.p[i] < 0 || a.p[i] > a.k[i] / 2)
      throw InvalidInput(fmt::format("pad should be at most half of kernel size, but got pad={} and kernel_size={}", a.p[i], a.k[i]));
  }
  if (spatial == 1) {  // as height-1 planes
    a.k.insert(a.k.begin(), 1);
    a.s.insert(a.s.begin(), 1);
    a.p.insert(a.p.begin(), 0);
    a.d.insert(a.d.begin(), 1);
  }
  return a;
}

int64_t divisor_arg(const Stack& st) {
  const bool has_divisor = st.size() > 6 && !st[6].is_none();
  const int64_t divisor = has_divisor ? st[6].to_int() : 0;
  if (has_divisor && divisor == 0) throw InvalidInput("divisor must be not zero");
  return divisor;
}

void check_avg_pool1d_args(const Stack& s) {
  const Tensor& x = s[0].to_tensor();
  if (x.dim() != 2 && x.dim() != 3)
    throw InvalidInput(fmt::format("Expected 2 to 3 dimensions, but got {}-dimensional tensor for argument #1 'self' (while checking arguments for avg_pool1d)",
                                   x.dim()));
  const char* names[] = {"kernel_size", "stride", "padding"};
  for (int i = 0; i < 3; ++i) {
    const size_t n = int_list(s[1 + i]).size();
    if (n > 1 || (n == 0 && i == 0))
      throw InvalidInput(fmt::format("avg_pool1d() argument '{}' should contain one int (got {})", names[i], n));
  }
}

std::vector<int64_t> adaptive_size(const IValue& v, int64_t spatial, const char* op) {
  std::vector<int64_t> s = int_list(v);
  if (s.size() == 1 && spatial == 2) s.assign(2, s[0]);
  if (static_cast<int64_t>(s.size()) != spatial) throw InvalidInput(fmt::format("{}: output_size must be {}", op, spatial));
  for (auto x : s)
    if (x < 0) throw InvalidInput(fmt::format("{}: elements of output_size must be greater than or equal to 0 but received {}", op, x));
  if (spatial == 1) s.insert(s.begin(), 1);
  return s;
}

namespace {

void check_upsample_sizes(const PlaneShape& pl, const UpsampleArgs& u) {
  if (u.oh <= 0 || u.ow <= 0)
    throw InvalidInput(fmt::format("Input and output sizes should be greater than 0, but got input (H: {}, W: {}) output (H: {}, W: {})", pl.h,
                                   pl.w, u.oh, u.ow));
}

}  // namespace

PlaneShape upsample_shape(const Tensor& input, bool plain, const char* op) {
  if (input.dim() != 4) {
    if (plain) throw InvalidInput(fmt::format("It is expected input_size equals to 4, but got size {}", input.dim()));
    throw InvalidInput(fmt::format("{}: expected a 4-D input, got {}", op, shape_string(input.sizes())));
  }
  return plane_shape(input, 2, op);
}

UpsampleArgs upsample_args(const PlaneShape& pl, const IValue& size, const IValue& scales, const char* op) {
  UpsampleArgs u{};
  const auto os = optional_int_list(size);
  const auto sf = optional_double_list(scales);
  if (os && sf) throw InvalidInput("Must specify exactly one of output_size and scale_factors");
  if (os) {
    if (os->size() != 2) throw InvalidInput(fmt::format("{}: output_size must have 2 elements", op));
    u.oh = (*os)[0];
    u.ow = (*os)[1];
  } else if (sf) {
    if (sf->size() != 2) throw InvalidInput(fmt::format("{}: scale_factors must have 2 elements", op));
    u.oh = static_cast<int64_t>(std::floor(static_cast<double>(pl.h) * (*sf)[0]));
    u.ow = static_cast<int64_t>(std::floor(static_cast<double>(pl.w) * (*sf)[1]));
    u.scale_h = (*sf)[0];
    u.scale_w = (*sf)[1];
  } else {
    throw InvalidInput("Must specify exactly one of output_size and scale_factors");
  }
  check_upsample_sizes(pl, u);
  return u;
}

UpsampleArgs upsample_args_plain(const PlaneShape& pl, const IValue& size, const IValue& scale_h, const IValue& scale_w) {
  const auto os = int_list(size);
  if (os.size() != 2) throw InvalidInput(fmt::format("It is expected output_size equals to 2, but got size {}", os.size()));
  UpsampleArgs u{os[0], os[1]};
  u.scale_h = scale_h.is_none() ? 0 : scale_h.to_double();
  u.scale_w = scale_w.is_none() ? 0 : scale_w.to_double();
  check_upsample_sizes(pl, u);
  return u;
}

namespace {

// The input's plane shape and the input itself, contiguous.
struct Planes : PlaneShape {
  Tensor t;
};

// The pooled channels-last path (pooling_nhwc.h): float32 4-D channels-last input, which
// PyTorch pools into a channels-last output.
bool nhwc_input(const Tensor& t) { return t.dtype() == DType::Float32 && t.dim() == 4 && !t.is_contiguous() && is_channels_last(t); }

// `contiguous_copy` false: the checks only (p.t is the input as it is).
Planes as_planes(const Tensor& input, int64_t spatial, const char* op, bool contiguous_copy = true) {
  Planes p;
  static_cast<PlaneShape&>(p) = plane_shape(input, spatial, op);
  p.t = contiguous_copy ? contiguous(input) : input;
  return p;
}

template <class F>
void over_planes(int64_t planes, int64_t plane_work, const F& f) {
  parallel_for(0, planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(plane_work, 1)), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) f(i);
  });
}

// f(stride) with the usual strides 1 and 2 as compile-time constants (a loop over x * stride the
// compiler then vectorizes), any other as a value.
template <class F>
JITCTL_ALWAYS_INLINE void with_constant_stride(int64_t stride, const F& f) {
  if (stride == 1)
    f(std::integral_constant<int64_t, 1>{});
  else if (stride == 2)
    f(std::integral_constant<int64_t, 2>{});
  else
    f(stride);
}

// max with NaN winning, as ATen's pooling compares (val > max || isnan(val)).
template <class T>
T nan_max(T m, T v) {
  return (v > m || v != v) ? v : m;
}

// Planes' rows are short (111 floats in SqueezeNet's first pool), and the scalar remainder of a
// 16-wide loop took more time than its vector part: the loops here run to a multiple of
// kRowPad, into the work buffer (max_pool_work_size), reading past a row's end only while that
// stays inside the input, and only the real outputs are copied out.
constexpr int64_t kRowPad = 16;
inline int64_t row_padded(int64_t n) { return (n + kRowPad - 1) / kRowPad * kRowPad; }

// The work buffer: the rows' maximum, its even and odd columns, one output row.
inline size_t max_pool_work_size(int64_t w, int64_t ow, int64_t kw) {
  return static_cast<size_t>(row_padded(w) + 2 * kRowPad + 2 * (row_padded(w) / 2 + kw + 2 * kRowPad) + row_padded(ow) + kRowPad);
}

// One plane of values-only max pooling without dilation, separably: the max over the window's
// rows into one row (vectorized across the width), then over the window's columns (vectorized
// across the outputs whose window lies inside the row; the edges one by one). `avail`: elements
// readable from `src` (to the end of the input).
template <class T>
JITCTL_ALWAYS_INLINE void max_pool_plane_body(const T* src, T* dst, T* work, int64_t h, int64_t w, int64_t oh, int64_t ow, const PoolArgs& a,
                                              int64_t avail) {
  const int64_t kw = a.k[1], sw = a.s[1], pw = a.p[1];
  const bool pad = sw == 1 || sw == 2;
  const int64_t wp = row_padded(w);
  T* rm = work;
  T* ev = rm + wp + 2 * kRowPad;
  T* od = ev + wp / 2 + kw + 2 * kRowPad;
  T* row_out = od + wp / 2 + kw + 2 * kRowPad;
  // Outputs [xa, xb) read columns x * sw - pw .. + kw - 1, all inside [0, w).
  const int64_t xa = std::min(ow, (pw + sw - 1) / sw);
  const int64_t xb = std::max(xa, std::min(ow, w - kw + pw >= 0 ? (w - kw + pw) / sw + 1 : 0));
  const int64_t inner = pad ? row_padded(xb - xa) : xb - xa;
  for (int64_t y = 0; y < oh; ++y) {
    const int64_t y0 = std::max<int64_t>(y * a.s[0] - a.p[0], 0), y1 = std::min(y * a.s[0] - a.p[0] + a.k[0], h);
    const int64_t n = pad && (y1 - 1) * w + wp <= avail ? wp : w;
    const T* r0 = src + y0 * w;
    for (int64_t x = 0; x < n; ++x) rm[x] = r0[x];
    for (int64_t iy = y0 + 1; iy < y1; ++iy) {
      const T* r = src + iy * w;
      for (int64_t x = 0; x < n; ++x) rm[x] = nan_max(rm[x], r[x]);
    }
    T* d = dst + y * ow;
    auto edge = [&](int64_t x) {
      const int64_t x0 = std::max<int64_t>(x * sw - pw, 0), x1 = std::min(x * sw - pw + kw, w);
      T m = -std::numeric_limits<T>::infinity();
      for (int64_t ixx = x0; ixx < x1; ++ixx) m = nan_max(m, rm[ixx]);
      d[x] = m;
    };
    for (int64_t x = 0; x < xa; ++x) edge(x);
    // Window column by window column, each a loop over outputs the compiler vectorizes.
    T* o = row_out - xa;
    if (sw == 1) {
      for (int64_t x = xa; x < xa + inner; ++x) o[x] = rm[x - pw];
      for (int64_t j = 1; j < kw; ++j)
        for (int64_t x = xa; x < xa + inner; ++x) o[x] = nan_max(o[x], rm[x - pw + j]);
    } else if (sw == 2) {
      // Every other column: GCC makes that loop scalar loads and stores, but splits the row into
      // its even and odd columns with vector permutes, after which each window column is a
      // contiguous run.
      for (int64_t i = 0; i < wp / 2; ++i) {
        ev[i] = rm[2 * i];
        od[i] = rm[2 * i + 1];
      }
      for (int64_t j = 0; j < kw; ++j) {
        const int64_t q = j - pw;  // column 2x + q
        const T* col = q % 2 == 0 ? ev + q / 2 : od + (q - 1) / 2;
        if (j == 0)
          for (int64_t x = xa; x < xa + inner; ++x) o[x] = col[x];
        else
          for (int64_t x = xa; x < xa + inner; ++x) o[x] = nan_max(o[x], col[x]);
      }
    } else {
      for (int64_t x = xa; x < xb; ++x) o[x] = rm[x * sw - pw];
      for (int64_t j = 1; j < kw; ++j)
        for (int64_t x = xa; x < xb; ++x) o[x] = nan_max(o[x], rm[x * sw - pw + j]);
    }
    std::copy(o + xa, o + xb, d + xa);
    for (int64_t x = xb; x < ow; ++x) edge(x);
  }
}

JITCTL_ALWAYS_INLINE void max_pool_plane_f32_body(const float* src, float* dst, float* work, int64_t h, int64_t w, int64_t oh, int64_t ow,
                                                  const PoolArgs& a, int64_t avail) {
  max_pool_plane_body<float>(src, dst, work, h, w, oh, ow, a, avail);
}
JITCTL_ISA_CLONES(void, max_pool_plane_f32,
                  (const float* src, float* dst, float* work, int64_t h, int64_t w, int64_t oh, int64_t ow, const PoolArgs& a, int64_t avail),
                  (src, dst, work, h, w, oh, ow, a, avail))

// One plane of avg pooling. Each window is summed in ATen's order (its rows, left to right) and
// divided as ATen divides, so the result is the same to the bit; the outputs whose window lies
// inside the row are summed together, one window column at a time, in a loop over outputs the
// compiler vectorizes, the edges one by one.
template <class T>
JITCTL_ALWAYS_INLINE void avg_pool_plane_body(const T* src, T* dst, int64_t h, int64_t w, int64_t oh, int64_t ow, const PoolArgs& a,
                                              bool count_include_pad, int64_t divisor) {
  const int64_t kw = a.k[1], sw = a.s[1], pw = a.p[1];
  const int64_t xa = std::min(ow, (pw + sw - 1) / sw);
  const int64_t xb = std::max(xa, std::min(ow, w - kw + pw >= 0 ? (w - kw + pw) / sw + 1 : 0));
  for (int64_t y = 0; y < oh; ++y) {
    int64_t y0 = y * a.s[0] - a.p[0];
    int64_t y1 = std::min(y0 + a.k[0], h + a.p[0]);
    const int64_t pool_h = y1 - y0;
    y0 = std::max<int64_t>(y0, 0);
    y1 = std::min(y1, h);
    T* d = dst + y * ow;
    auto edge = [&](int64_t x) {
      int64_t x0 = x * sw - pw;
      int64_t x1 = std::min(x0 + kw, w + pw);
      const int64_t pool_size = pool_h * (x1 - x0);
      x0 = std::max<int64_t>(x0, 0);
      x1 = std::min(x1, w);
      T sum = 0;
      for (int64_t iy = y0; iy < y1; ++iy)
        for (int64_t ix = x0; ix < x1; ++ix) sum += src[iy * w + ix];
      const int64_t div = divisor ? divisor : count_include_pad ? pool_size : (y1 - y0) * (x1 - x0);
      d[x] = div == 0 ? T(0) : sum / T(div);
    };
    for (int64_t x = 0; x < xa; ++x) edge(x);
    auto columns = [&](auto stride) {
      const int64_t st = stride;
      T* out = d;
      for (int64_t x = xa; x < xb; ++x) out[x] = T(0);
      for (int64_t iy = y0; iy < y1; ++iy)
        for (int64_t j = 0; j < kw; ++j) {
          const T* r = src + iy * w - pw + j;
          // The output never overlaps the input; GCC cannot tell and would keep the loop scalar.
#pragma omp simd
          for (int64_t x = xa; x < xb; ++x) out[x] += r[x * st];
        }
      const int64_t div = divisor ? divisor : count_include_pad ? pool_h * kw : (y1 - y0) * kw;
      for (int64_t x = xa; x < xb; ++x) out[x] = div == 0 ? T(0) : out[x] / T(div);
    };
    with_constant_stride(sw, columns);
    for (int64_t x = xb; x < ow; ++x) edge(x);
  }
}

JITCTL_ALWAYS_INLINE void avg_pool_plane_f32_body(const float* src, float* dst, int64_t h, int64_t w, int64_t oh, int64_t ow, const PoolArgs& a,
                                                  bool count_include_pad, int64_t divisor) {
  avg_pool_plane_body<float>(src, dst, h, w, oh, ow, a, count_include_pad, divisor);
}
JITCTL_ISA_CLONES(void, avg_pool_plane_f32,
                  (const float* src, float* dst, int64_t h, int64_t w, int64_t oh, int64_t ow, const PoolArgs& a, bool count_include_pad,
                   int64_t divisor),
                  (src, dst, h, w, oh, ow, a, count_include_pad, divisor))

template <class T>
void max_pool_separable(const T* in, T* out, const Planes& pl, int64_t oh, int64_t ow, const PoolArgs& a) {
  over_planes(pl.planes, oh * ow * a.k[0] * a.k[1], [&](int64_t plane) {
    static thread_local std::vector<T> work;
    work.resize(max_pool_work_size(pl.w, ow, a.k[1]));
    const T* src = in + plane * pl.h * pl.w;
    T* dst = out + plane * oh * ow;
    const int64_t avail = (pl.planes - plane) * pl.h * pl.w;
    if constexpr (std::is_same_v<T, float>)
      max_pool_plane_f32(src, dst, work.data(), pl.h, pl.w, oh, ow, a, avail);
    else
      max_pool_plane_body(src, dst, work.data(), pl.h, pl.w, oh, ow, a, avail);
  });
}

// max_pool1d/2d(_with_indices): (values, indices into each input plane).
std::pair<Tensor, Tensor> max_pool(const Stack& st, int64_t spatial, bool want_indices, const char* op) {
  const PoolArgs a = pool_args(st, spatial, true, op);
  const bool ceil_mode = st[5].to_bool();
  const bool nhwc = spatial == 2 && !want_indices && a.d[0] == 1 && a.d[1] == 1 && nhwc_input(st[0].to_tensor());
  const Planes pl = as_planes(st[0].to_tensor(), spatial, op, !nhwc);
  const int64_t oh = pooled_size(pl.h, a.k[0], a.p[0], a.s[0], a.d[0], ceil_mode);
  const int64_t ow = pooled_size(pl.w, a.k[1], a.p[1], a.s[1], a.d[1], ceil_mode);
  check_output_size(pl, oh, ow);
  if (nhwc) return {max_pool2d_nhwc(pl.t, {oh, ow, a.k[0], a.k[1], a.s[0], a.s[1], a.p[0], a.p[1]}), Tensor()};
  const auto shape = out_shape(pl, spatial, oh, ow);
  Tensor out = new_output(pl.t.dtype(), shape);
  Tensor idx = want_indices ? new_output(DType::Int64, shape) : Tensor();
  dispatch_floating(pl.t.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* in = data_of<T>(pl.t);
    T* o = mutable_data_of<T>(out);
    int64_t* ix = want_indices ? mutable_data_of<int64_t>(idx) : nullptr;
    if (!want_indices && a.d[0] == 1 && a.d[1] == 1) {
      max_pool_separable(in, o, pl, oh, ow, a);
      return;
    }
    over_planes(pl.planes, oh * ow * a.k[0] * a.k[1], [&](int64_t plane) {
      const T* src = in + plane * pl.h * pl.w;
      for (int64_t y = 0; y < oh; ++y) {
        int64_t y0 = y * a.s[0] - a.p[0];
        const int64_t y1 = std::min(y0 + (a.k[0] - 1) * a.d[0] + 1, pl.h);
        while (y0 < 0) y0 += a.d[0];
        for (int64_t x = 0; x < ow; ++x) {
          int64_t x0 = x * a.s[1] - a.p[1];
          const int64_t x1 = std::min(x0 + (a.k[1] - 1) * a.d[1] + 1, pl.w);
          while (x0 < 0) x0 += a.d[1];
          T best = -std::numeric_limits<T>::infinity();
          int64_t best_i = y0 * pl.w + x0;
          for (int64_t iy = y0; iy < y1; iy += a.d[0])
            for (int64_t ixx = x0; ixx < x1; ixx += a.d[1]) {
              const T v = src[iy * pl.w + ixx];
              if (v > best || std::isnan(v)) {
                best = v;
                best_i = iy * pl.w + ixx;
              }
            }
          const int64_t oi = plane * oh * ow + y * ow + x;
          o[oi] = best;
          if (ix) ix[oi] = best_i;
        }
      }
    });
  });
  return {out, idx};
}

// avg_pool2d, and avg_pool1d (no divisor_override argument) as height-1 planes.
Tensor avg_pool(const Stack& st, int64_t spatial, const char* op) {
  const PoolArgs a = pool_args(st, spatial, false, op);
  const bool ceil_mode = st[4].to_bool(), count_include_pad = st[5].to_bool();
  const int64_t divisor = divisor_arg(st);
  const bool nhwc = spatial == 2 && nhwc_input(st[0].to_tensor());
  const Planes pl = as_planes(st[0].to_tensor(), spatial, op, !nhwc);
  const int64_t oh = pooled_size(pl.h, a.k[0], a.p[0], a.s[0], 1, ceil_mode);
  const int64_t ow = pooled_size(pl.w, a.k[1], a.p[1], a.s[1], 1, ceil_mode);
  check_output_size(pl, oh, ow);
  if (nhwc) {
    NhwcWindows w{oh, ow, a.k[0], a.k[1], a.s[0], a.s[1], a.p[0], a.p[1]};
    w.count_include_pad = count_include_pad;
    w.divisor = divisor;
    return avg_pool2d_nhwc(pl.t, w);
  }
  Tensor out = new_output(pl.t.dtype(), out_shape(pl, spatial, oh, ow));
  dispatch_floating(pl.t.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* in = data_of<T>(pl.t);
    T* o = mutable_data_of<T>(out);
    over_planes(pl.planes, oh * ow * a.k[0] * a.k[1], [&](int64_t plane) {
      const T* src = in + plane * pl.h * pl.w;
      T* dst = o + plane * oh * ow;
      if constexpr (std::is_same_v<T, float>)
        avg_pool_plane_f32(src, dst, pl.h, pl.w, oh, ow, a, count_include_pad, divisor);
      else
        avg_pool_plane_body(src, dst, pl.h, pl.w, oh, ow, a, count_include_pad, divisor);
    });
  });
  return out;
}

int64_t adaptive_start(int64_t i, int64_t out, int64_t in) { return (i * in) / out; }
int64_t adaptive_end(int64_t i, int64_t out, int64_t in) { return ((i + 1) * in + out - 1) / out; }

std::pair<Tensor, Tensor> adaptive_pool(const Stack& st, int64_t spatial, bool is_max, const char* op) {
  const bool nhwc = spatial == 2 && !is_max && nhwc_input(st[0].to_tensor());
  const Planes pl = as_planes(st[0].to_tensor(), spatial, op, !nhwc);
  const auto os = adaptive_size(st[1], spatial, op);
  const int64_t oh = os[0], ow = os[1];
  if (nhwc && oh > 0 && ow > 0) {
    NhwcWindows w{oh, ow, 0, 0, 1, 1, 0, 0};
    w.adaptive = true;
    return {avg_pool2d_nhwc(pl.t, w), Tensor()};
  }
  const auto shape = out_shape(pl, spatial, oh, ow);
  Tensor out = new_output(pl.t.dtype(), shape);
  Tensor idx = is_max ? new_output(DType::Int64, shape) : Tensor();
  dispatch_floating(pl.t.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* in = data_of<T>(pl.t);
    T* o = mutable_data_of<T>(out);
    int64_t* ix = is_max ? mutable_data_of<int64_t>(idx) : nullptr;
    over_planes(pl.planes, pl.h * pl.w, [&](int64_t plane) {
      const T* src = in + plane * pl.h * pl.w;
      for (int64_t y = 0; y < oh; ++y) {
        const int64_t y0 = adaptive_start(y, oh, pl.h), y1 = adaptive_end(y, oh, pl.h);
        for (int64_t x = 0; x < ow; ++x) {
          const int64_t x0 = adaptive_start(x, ow, pl.w), x1 = adaptive_end(x, ow, pl.w);
          const int64_t oi = plane * oh * ow + y * ow + x;
          if (is_max) {
            T best = -std::numeric_limits<T>::infinity();
            int64_t best_i = y0 * pl.w + x0;
            for (int64_t iy = y0; iy < y1; ++iy)
              for (int64_t ixx = x0; ixx < x1; ++ixx) {
                const T v = src[iy * pl.w + ixx];
                if (v > best || std::isnan(v)) {
                  best = v;
                  best_i = iy * pl.w + ixx;
                }
              }
            o[oi] = best;
            ix[oi] = best_i;
          } else if (oh == 1 && ow == 1) {  // global average pooling: one vectorized sum
            T sum = 0;
            const int64_t n = pl.h * pl.w;
#pragma omp simd reduction(+ : sum)
            for (int64_t i = 0; i < n; ++i) sum += src[i];
            o[oi] = sum / T(n);
          } else {
            T sum = 0;
            for (int64_t iy = y0; iy < y1; ++iy)
              for (int64_t ixx = x0; ixx < x1; ++ixx) sum += src[iy * pl.w + ixx];
            o[oi] = sum / T((y1 - y0) * (x1 - x0));
          }
        }
      }
    });
  });
  return {out, idx};
}

Planes upsample_planes(const Tensor& input, bool plain, const char* op) {
  Planes p;
  static_cast<PlaneShape&>(p) = upsample_shape(input, plain, op);
  p.t = contiguous(input);
  return p;
}

int64_t nearest_index(int64_t o, int64_t in, int64_t out, double scale) {
  if (out == in) return o;
  if (out == 2 * in) return o >> 1;
  const float s = pixel_scale<float>(in, out, false, scale);
  return std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * s)), in - 1);
}

// .vec (input, output_size?, scale_factors?) or, `plain`, (self, output_size, scales_h?, scales_w?).
Tensor upsample_nearest2d(const Stack& st, bool plain) {
  const char* op = "upsample_nearest2d";
  const Planes pl = upsample_planes(st[0].to_tensor(), plain, op);
  const UpsampleArgs u = plain ? upsample_args_plain(pl, st[1], st[2], st[3]) : upsample_args(pl, st[1], st[2], op);
  Tensor out = new_output(pl.t.dtype(), out_shape(pl, 2, u.oh, u.ow));
  std::vector<int64_t> xs(static_cast<size_t>(u.ow));
  for (int64_t x = 0; x < u.ow; ++x) xs[x] = nearest_index(x, pl.w, u.ow, u.scale_w);
  dispatch_floating(pl.t.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* in = data_of<T>(pl.t);
    T* o = mutable_data_of<T>(out);
    over_planes(pl.planes, u.oh * u.ow, [&](int64_t plane) {
      for (int64_t y = 0; y < u.oh; ++y) {
        const T* srow = in + plane * pl.h * pl.w + nearest_index(y, pl.h, u.oh, u.scale_h) * pl.w;
        T* drow = o + plane * u.oh * u.ow + y * u.ow;
        for (int64_t x = 0; x < u.ow; ++x) drow[x] = srow[xs[x]];
      }
    });
  });
  return out;
}

// Source index and weights of linear interpolation along one axis (ATen's
// area_pixel_compute_source_index).
template <class T>
struct Lerp {
  int64_t i0, i1;
  T w0, w1;
};

template <class T>
std::vector<Lerp<T>> lerp_table(int64_t in, int64_t out, bool align_corners, double scale) {
  const T s = pixel_scale<T>(in, out, align_corners, scale);
  std::vector<Lerp<T>> t(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    T src = align_corners ? s * static_cast<T>(o) : std::max(s * (static_cast<T>(o) + T(0.5)) - T(0.5), T(0));
    const int64_t i0 = std::min(static_cast<int64_t>(src), in - 1);
    const int64_t i1 = i0 + (i0 < in - 1 ? 1 : 0);
    const T l1 = std::min(std::max(src - static_cast<T>(i0), T(0)), T(1));
    t[o] = {i0, i1, T(1) - l1, l1};
  }
  return t;
}

// .vec (input, output_size?, align_corners, scale_factors?) or, `plain`, (self, output_size,
// align_corners, scales_h?, scales_w?).
Tensor upsample_bilinear2d(const Stack& st, bool plain) {
  const char* op = "upsample_bilinear2d";
  const bool align_corners = st[2].to_bool();
  const Planes pl = upsample_planes(st[0].to_tensor(), plain, op);
  const UpsampleArgs u = plain ? upsample_args_plain(pl, st[1], st[3], st[4]) : upsample_args(pl, st[1], st[3], op);
  Tensor out = new_output(pl.t.dtype(), out_shape(pl, 2, u.oh, u.ow));
  dispatch_floating(pl.t.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const auto ty = lerp_table<T>(pl.h, u.oh, align_corners, u.scale_h);
    const auto tx = lerp_table<T>(pl.w, u.ow, align_corners, u.scale_w);
    const T* in = data_of<T>(pl.t);
    T* o = mutable_data_of<T>(out);
    over_planes(pl.planes, u.oh * u.ow * 4, [&](int64_t plane) {
      const T* src = in + plane * pl.h * pl.w;
      for (int64_t y = 0; y < u.oh; ++y) {
        const Lerp<T>& ly = ty[y];
        const T* r0 = src + ly.i0 * pl.w;
        const T* r1 = src + ly.i1 * pl.w;
        T* drow = o + plane * u.oh * u.ow + y * u.ow;
        for (int64_t x = 0; x < u.ow; ++x) {
          const Lerp<T>& lx = tx[x];
          drow[x] = ly.w0 * (lx.w0 * r0[lx.i0] + lx.w1 * r0[lx.i1]) + ly.w1 * (lx.w0 * r1[lx.i0] + lx.w1 * r1[lx.i1]);
        }
      }
    });
  });
  return out;
}

void k_max_pool2d(Stack& s) {
  Tensor r = max_pool(s, 2, false, "max_pool2d").first;
  s.assign(1, IValue(std::move(r)));
}
void k_max_pool1d(Stack& s) {
  Tensor r = max_pool(s, 1, false, "max_pool1d").first;
  s.assign(1, IValue(std::move(r)));
}
void k_max_pool2d_with_indices(Stack& s) {
  auto [v, i] = max_pool(s, 2, true, "max_pool2d_with_indices");
  s.assign({IValue(std::move(v)), IValue(std::move(i))});
}
void k_avg_pool2d(Stack& s) {
  Tensor r = avg_pool(s, 2, "avg_pool2d");
  s.assign(1, IValue(std::move(r)));
}
// ATen's own checks first (its messages), then avg_pool2d's arithmetic on height-1 planes.
void k_avg_pool1d(Stack& s) {
  check_avg_pool1d_args(s);
  Tensor r = avg_pool(s, 1, "avg_pool1d");
  s.assign(1, IValue(std::move(r)));
}
void k_adaptive_avg_pool2d(Stack& s) {
  Tensor r = adaptive_pool(s, 2, false, "adaptive_avg_pool2d").first;
  s.assign(1, IValue(std::move(r)));
}
void k_adaptive_avg_pool1d(Stack& s) {
  Tensor r = adaptive_pool(s, 1, false, "adaptive_avg_pool1d").first;
  s.assign(1, IValue(std::move(r)));
}
void k_adaptive_max_pool2d(Stack& s) {
  auto [v, i] = adaptive_pool(s, 2, true, "adaptive_max_pool2d");
  s.assign({IValue(std::move(v)), IValue(std::move(i))});
}
void k_adaptive_max_pool1d(Stack& s) {
  auto [v, i] = adaptive_pool(s, 1, true, "adaptive_max_pool1d");
  s.assign({IValue(std::move(v)), IValue(std::move(i))});
}
template <bool Plain>
void k_upsample_nearest2d(Stack& s) {
  Tensor r = upsample_nearest2d(s, Plain);
  s.assign(1, IValue(std::move(r)));
}
template <bool Plain>
void k_upsample_bilinear2d(Stack& s) {
  Tensor r = upsample_bilinear2d(s, Plain);
  s.assign(1, IValue(std::move(r)));
}

}  // namespace
}  // namespace jitctl::cpu

namespace jitctl {

void register_pooling_kernels() {
  register_kernel("aten::max_pool1d", cpu::k_max_pool1d);
  register_kernel("aten::max_pool2d", cpu::k_max_pool2d);
  register_kernel("aten::max_pool2d_with_indices", cpu::k_max_pool2d_with_indices);
  register_kernel("aten::avg_pool2d", cpu::k_avg_pool2d);
  register_kernel("aten::adaptive_avg_pool1d", cpu::k_adaptive_avg_pool1d);
  register_kernel("aten::adaptive_avg_pool2d", cpu::k_adaptive_avg_pool2d);
  register_kernel("aten::adaptive_max_pool1d", cpu::k_adaptive_max_pool1d);
  register_kernel("aten::adaptive_max_pool2d", cpu::k_adaptive_max_pool2d);
  register_kernel("aten::avg_pool1d", cpu::k_avg_pool1d);
  register_kernel("aten::upsample_nearest2d.vec", cpu::k_upsample_nearest2d<false>);
  register_kernel("aten::upsample_nearest2d", cpu::k_upsample_nearest2d<true>);
  register_kernel("aten::upsample_bilinear2d.vec", cpu::k_upsample_bilinear2d<false>);
  register_kernel("aten::upsample_bilinear2d", cpu::k_upsample_bilinear2d<true>);
}

}  // namespace jitctl
