// 3-D pooling (video models: R3D, MC3, R(2+1)D end in adaptive_avg_pool3d, S3D pools with
// max_pool3d and avg_pool3d): plain loops over contiguous [D, H, W] planes, one plane per task.
// The argument rules and messages are pooling.h's, as for the 1-D and 2-D kernels.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/cpu/nn_util.h"
#include "kernels/cpu/output.h"
#include "kernels/cpu/pooling.h"
#include "kernels/cpu/register_cpu.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/parallel.h"
#include "lib/core/error.h"

namespace jitctl::cpu {
namespace {

// [planes, d, h, w] of a 4-D (unbatched) or 5-D input, contiguous; `lead` the sizes before them.
struct Volumes {
  Tensor t;
  int64_t planes = 1, d = 1, h = 1, w = 1;
  std::vector<int64_t> lead;
};

Volumes as_volumes(const Tensor& input, const char* message) {
  if ((input.dim() != 4 && input.dim() != 5)) throw InvalidInput(message);
  for (int64_t i = input.dim() - 4; i < input.dim(); ++i)
    if (input.sizes()[static_cast<size_t>(i)] == 0) throw InvalidInput(message);
  Volumes v;
  v.t = contiguous(input);
  const auto& s = input.sizes();
  v.lead.assign(s.begin(), s.end() - 3);
  for (auto x : v.lead) v.planes *= x;
  v.d = s[s.size() - 3];
  v.h = s[s.size() - 2];
  v.w = s[s.size() - 1];
  return v;
}

std::vector<int64_t> out_sizes(const Volumes& v, int64_t od, int64_t oh, int64_t ow) {
  std::vector<int64_t> s = v.lead;
  s.insert(s.end(), {od, oh, ow});
  return s;
}

template <class F>
void over_volumes(int64_t planes, int64_t work, const F& f) {
  parallel_for(0, planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(work, 1)), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) f(i);
  });
}

int64_t adaptive_start(int64_t i, int64_t out, int64_t in) { return (i * in) / out; }
int64_t adaptive_end(int64_t i, int64_t out, int64_t in) { return ((i + 1) * in + out - 1) / out; }

void k_adaptive_avg_pool3d(Stack& s) {
  const char* op = "adaptive_avg_pool3d";
  const auto os = adaptive_size(s[1], 3, op);
  const Volumes v = as_volumes(s[0].to_tensor(), "adaptive_avg_pool3d(): Expected 4D or 5D tensor with non-zero sizes for non-batch dimensions");
  const int64_t od = os[0], oh = os[1], ow = os[2];
  Tensor out = new_output(v.t.dtype(), out_sizes(v, od, oh, ow));
  dispatch_floating(v.t.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* in = data_of<T>(v.t);
    T* o = mutable_data_of<T>(out);
    const int64_t vol = v.d * v.h * v.w;
    over_volumes(v.planes, vol, [&](int64_t plane) {
      const T* src = in + plane * vol;
      T* dst = o + plane * od * oh * ow;
      if (od == 1 && oh == 1 && ow == 1) {  // global average pooling: one vectorized sum
        T sum = 0;
#pragma omp simd reduction(+ : sum)
        for (int64_t i = 0; i < vol; ++i) sum += src[i];
        dst[0] = sum / T(vol);
        return;
      }
      for (int64_t z = 0; z < od; ++z) {
        const int64_t z0 = adaptive_start(z, od, v.d), z1 = adaptive_end(z, od, v.d);
        for (int64_t y = 0; y < oh; ++y) {
          const int64_t y0 = adaptive_start(y, oh, v.h), y1 = adaptive_end(y, oh, v.h);
          for (int64_t x = 0; x < ow; ++x) {
            const int64_t x0 = adaptive_start(x, ow, v.w), x1 = adaptive_end(x, ow, v.w);
            T sum = 0;
            for (int64_t iz = z0; iz < z1; ++iz)
              for (int64_t iy = y0; iy < y1; ++iy)
                for (int64_t ix = x0; ix < x1; ++ix) sum += src[(iz * v.h + iy) * v.w + ix];
            dst[(z * oh + y) * ow + x] = sum / T((z1 - z0) * (y1 - y0) * (x1 - x0));
          }
        }
      }
    });
  });
  s.assign(1, IValue(std::move(out)));
}

// max_pool3d (dilation) and avg_pool3d (count_include_pad, divisor_override) share the windows.
struct Windows {
  PoolArgs a;
  bool ceil_mode = false;
  int64_t od = 0, oh = 0, ow = 0;
};

Windows windows(const Stack& s, const Volumes& v, bool has_dilation, const char* op) {
  Windows w;
  w.a = pool_args(s, 3, has_dilation, op);
  w.ceil_mode = s[has_dilation ? 5 : 4].to_bool();
  const auto& a = w.a;
  w.od = pooled_size(v.d, a.k[0], a.p[0], a.s[0], a.d[0], w.ceil_mode);
  w.oh = pooled_size(v.h, a.k[1], a.p[1], a.s[1], a.d[1], w.ceil_mode);
  w.ow = pooled_size(v.w, a.k[2], a.p[2], a.s[2], a.d[2], w.ceil_mode);
  if (w.od < 1 || w.oh < 1 || w.ow < 1)
    throw InvalidInput(fmt::format("Given input size: ({}x{}x{}x{}). Calculated output size: ({}x{}x{}x{}). Output size is too small",
                                   v.lead.empty() ? 1 : v.lead.back(), v.d, v.h, v.w, v.lead.empty() ? 1 : v.lead.back(), w.od, w.oh, w.ow));
  return w;
}

constexpr const char* kPoolInput = "non-empty 4D or 5D (batch mode) tensor expected for input";

// The output of a max or average pooling: value(src, z, y, x), src the input plane, at every
// output position of every plane, planes spread over the team.
template <class F>
Tensor pool_volumes(const Volumes& v, const Windows& w, const char* op, const F& value) {
  Tensor out = new_output(v.t.dtype(), out_sizes(v, w.od, w.oh, w.ow));
  dispatch_floating(v.t.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* in = data_of<T>(v.t);
    T* o = mutable_data_of<T>(out);
    over_volumes(v.planes, w.od * w.oh * w.ow * w.a.k[0] * w.a.k[1] * w.a.k[2], [&](int64_t plane) {
      const T* src = in + plane * v.d * v.h * v.w;
      T* dst = o + plane * w.od * w.oh * w.ow;
      for (int64_t z = 0; z < w.od; ++z)
        for (int64_t y = 0; y < w.oh; ++y)
          for (int64_t x = 0; x < w.ow; ++x) dst[(z * w.oh + y) * w.ow + x] = value(src, z, y, x);
    });
  });
  return out;
}

void k_max_pool3d(Stack& s) {
  const char* op = "max_pool3d";
  const Volumes v = as_volumes(s[0].to_tensor(), kPoolInput);
  const Windows w = windows(s, v, true, op);
  const auto& a = w.a;
  Tensor out = pool_volumes(v, w, op, [&](const auto* src, int64_t z, int64_t y, int64_t x) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(src)>>;
    T best = -std::numeric_limits<T>::infinity();
    for (int64_t kz = 0; kz < a.k[0]; ++kz) {
      const int64_t iz = z * a.s[0] - a.p[0] + kz * a.d[0];
      if (iz < 0 || iz >= v.d) continue;
      for (int64_t ky = 0; ky < a.k[1]; ++ky) {
        const int64_t iy = y * a.s[1] - a.p[1] + ky * a.d[1];
        if (iy < 0 || iy >= v.h) continue;
        for (int64_t kx = 0; kx < a.k[2]; ++kx) {
          const int64_t ix = x * a.s[2] - a.p[2] + kx * a.d[2];
          if (ix < 0 || ix >= v.w) continue;
          const T val = src[(iz * v.h + iy) * v.w + ix];
          if (std::isnan(val)) return val;  // NaN wins, as in PyTorch
          if (val > best) best = val;
        }
      }
    }
    return best;
  });
  s.assign(1, IValue(std::move(out)));
}

void k_avg_pool3d(Stack& s) {
  const char* op = "avg_pool3d";
  const Volumes v = as_volumes(s[0].to_tensor(), kPoolInput);
  const Windows w = windows(s, v, false, op);
  const auto& a = w.a;
  const bool count_include_pad = s[5].to_bool();
  const int64_t divisor = divisor_arg(s);
  Tensor out = pool_volumes(v, w, op, [&](const auto* src, int64_t z, int64_t y, int64_t x) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(src)>>;
    // The window, clipped to the padded input (its size counts the padding), then to the input.
    int64_t z0 = z * a.s[0] - a.p[0], y0 = y * a.s[1] - a.p[1], x0 = x * a.s[2] - a.p[2];
    int64_t z1 = std::min(z0 + a.k[0], v.d + a.p[0]), y1 = std::min(y0 + a.k[1], v.h + a.p[1]), x1 = std::min(x0 + a.k[2], v.w + a.p[2]);
    const int64_t padded = (z1 - z0) * (y1 - y0) * (x1 - x0);
    z0 = std::max<int64_t>(z0, 0);
    y0 = std::max<int64_t>(y0, 0);
    x0 = std::max<int64_t>(x0, 0);
    z1 = std::min(z1, v.d);
    y1 = std::min(y1, v.h);
    x1 = std::min(x1, v.w);
    T sum = 0;
    for (int64_t iz = z0; iz < z1; ++iz)
      for (int64_t iy = y0; iy < y1; ++iy)
        for (int64_t ix = x0; ix < x1; ++ix) sum += src[(iz * v.h + iy) * v.w + ix];
    const int64_t div = divisor ? divisor : count_include_pad ? padded : (z1 - z0) * (y1 - y0) * (x1 - x0);
    return sum / T(div);
  });
  s.assign(1, IValue(std::move(out)));
}

}  // namespace
}  // namespace jitctl::cpu

namespace jitctl {

void register_pooling3d_kernels() {
  register_kernel("aten::adaptive_avg_pool3d", cpu::k_adaptive_avg_pool3d);
  register_kernel("aten::max_pool3d", cpu::k_max_pool3d);
  register_kernel("aten::avg_pool3d", cpu::k_avg_pool3d);
}

}  // namespace jitctl
