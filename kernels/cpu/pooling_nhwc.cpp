#include "kernels/cpu/pooling_nhwc.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "kernels/cpu/dnnl_util.h"
#include "kernels/cpu/isa_dispatch.h"
#include "kernels/cpu/output.h"
#include "kernels/parallel.h"

namespace jitctl::cpu {
namespace {

struct Geometry {
  int64_t n, c, h, w;
  NhwcWindows win;
};

// [y0, y1) x [x0, x1): the window of output pixel (y, x) clipped to the input, and the window's
// size counting padding (avg_pool2d's count_include_pad divisor).
struct Window {
  int64_t y0, y1, x0, x1, padded_size;
};

JITCTL_ALWAYS_INLINE Window window_of(const Geometry& g, int64_t y, int64_t x) {
  const NhwcWindows& w = g.win;
  Window r{};
  if (w.adaptive) {
    r.y0 = (y * g.h) / w.oh;
    r.y1 = ((y + 1) * g.h + w.oh - 1) / w.oh;
    r.x0 = (x * g.w) / w.ow;
    r.x1 = ((x + 1) * g.w + w.ow - 1) / w.ow;
    r.padded_size = (r.y1 - r.y0) * (r.x1 - r.x0);
    return r;
  }
  r.y0 = y * w.sh - w.ph;
  r.y1 = std::min(r.y0 + w.kh, g.h + w.ph);
  r.x0 = x * w.sw - w.pw;
  r.x1 = std::min(r.x0 + w.kw, g.w + w.pw);
  r.padded_size = (r.y1 - r.y0) * (r.x1 - r.x0);
  r.y0 = std::max<int64_t>(r.y0, 0);
  r.y1 = std::min(r.y1, g.h);
  r.x0 = std::max<int64_t>(r.x0, 0);
  r.x1 = std::min(r.x1, g.w);
  return r;
}

// Channels are processed in blocks held in registers across the whole window (the window's
// pixels are read once each and the output written once): blocks of kBlock, 16 and 8 channels,
// then one at a time (a block of run-time length would not stay in registers). `omp simd`: GCC
// otherwise unrolls a 16- or 8-long loop into scalar compares and branches before vectorizing.
constexpr int64_t kBlock = 64;

// B channels' maxima in registers. ATen keeps the last NaN of the window (val > max || isnan(val));
// that is one compare-and-blend chain per vector, so the maximum (s > acc ? s : acc, a single
// vmaxps) and the last NaN seen are kept apart as two short chains and joined at the end.
template <int64_t B>
struct MaxOfWindow {
  float acc[B], nan[B];

  JITCTL_ALWAYS_INLINE MaxOfWindow() {
#pragma omp simd
    for (int64_t j = 0; j < B; ++j) {
      acc[j] = -std::numeric_limits<float>::infinity();
      nan[j] = 0.f;
    }
  }
  JITCTL_ALWAYS_INLINE void add(const float* __restrict s) {
#pragma omp simd
    for (int64_t j = 0; j < B; ++j) {
      acc[j] = s[j] > acc[j] ? s[j] : acc[j];
      nan[j] = s[j] != s[j] ? s[j] : nan[j];
    }
  }
  JITCTL_ALWAYS_INLINE void store(float* __restrict o) const {
#pragma omp simd
    for (int64_t j = 0; j < B; ++j) o[j] = nan[j] != nan[j] ? nan[j] : acc[j];
  }
};

template <int64_t B>
JITCTL_ALWAYS_INLINE void max_block(const float* __restrict in, float* __restrict o, const Geometry& g, const Window& wd, int64_t n) {
  MaxOfWindow<B> m;
  for (int64_t iy = wd.y0; iy < wd.y1; ++iy)
    for (int64_t ix = wd.x0; ix < wd.x1; ++ix) m.add(in + ((n * g.h + iy) * g.w + ix) * g.c);
  m.store(o);
}

template <int64_t B>
JITCTL_ALWAYS_INLINE void sum_block(const float* __restrict in, float* __restrict o, const Geometry& g, const Window& wd, int64_t n, float inv) {
  float acc[B];
#pragma omp simd
  for (int64_t j = 0; j < B; ++j) acc[j] = 0.f;
  for (int64_t iy = wd.y0; iy < wd.y1; ++iy)
    for (int64_t ix = wd.x0; ix < wd.x1; ++ix) {
      const float* s = in + ((n * g.h + iy) * g.w + ix) * g.c;
#pragma omp simd
      for (int64_t j = 0; j < B; ++j) acc[j] += s[j];
    }
#pragma omp simd
  for (int64_t j = 0; j < B; ++j) o[j] = acc[j] * inv;
}

// Output rows [r0, r1) of n * oh.
JITCTL_ALWAYS_INLINE void max_rows_body(const float* in, float* out, const Geometry& g, int64_t r0, int64_t r1) {
  const int64_t c = g.c;
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t n = r / g.win.oh, y = r % g.win.oh;
    for (int64_t x = 0; x < g.win.ow; ++x) {
      const Window wd = window_of(g, y, x);
      float* o = out + (r * g.win.ow + x) * c;
      int64_t ch = 0;
      for (; ch + kBlock <= c; ch += kBlock) max_block<kBlock>(in + ch, o + ch, g, wd, n);
      for (; ch + 16 <= c; ch += 16) max_block<16>(in + ch, o + ch, g, wd, n);
      for (; ch + 8 <= c; ch += 8) max_block<8>(in + ch, o + ch, g, wd, n);
      for (; ch < c; ++ch) max_block<1>(in + ch, o + ch, g, wd, n);
    }
  }
}
JITCTL_ISA_CLONES(void, max_rows, (const float* in, float* out, const Geometry& g, int64_t r0, int64_t r1), (in, out, g, r0, r1))

// A whole 3x3 window, its nine pixels at offsets known to the compiler (`s`: the top-left pixel,
// `row` floats per image row): max_block with the window loops unrolled.
template <int64_t B>
JITCTL_ALWAYS_INLINE void max_block_3x3(const float* __restrict s, float* __restrict o, int64_t row, int64_t c) {
  MaxOfWindow<B> m;
#pragma GCC unroll 3
  for (int iy = 0; iy < 3; ++iy)
#pragma GCC unroll 3
    for (int ix = 0; ix < 3; ++ix) m.add(s + iy * row + ix * c);
  m.store(o);
}

// 3x3 windows at stride 2 (the stem pools of ResNet, SqueezeNet, GoogLeNet): windows inside the
// image take max_block_3x3, the border ones max_block. The separable form's row of maxima
// saves little at stride 2 (a row is shared by two windows, a column by none) and costs a pass
// over the row: 64x111x111, 1 thread, 70 -> 54 us here; 128x55x55 36 -> 27.
JITCTL_ALWAYS_INLINE void max_rows_3x3_body(const float* in, float* out, const Geometry& g, int64_t r0, int64_t r1) {
  const int64_t c = g.c, row = g.w * c;
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t n = r / g.win.oh, y = r % g.win.oh;
    const int64_t y0 = y * g.win.sh - g.win.ph;
    const bool rows_inside = y0 >= 0 && y0 + 3 <= g.h;
    for (int64_t x = 0; x < g.win.ow; ++x) {
      float* o = out + (r * g.win.ow + x) * c;
      const int64_t x0 = x * g.win.sw - g.win.pw;
      int64_t ch = 0;
      if (rows_inside && x0 >= 0 && x0 + 3 <= g.w) {
        const float* s = in + ((n * g.h + y0) * g.w + x0) * c;
        for (; ch + kBlock <= c; ch += kBlock) max_block_3x3<kBlock>(s + ch, o + ch, row, c);
        for (; ch + 16 <= c; ch += 16) max_block_3x3<16>(s + ch, o + ch, row, c);
        for (; ch + 8 <= c; ch += 8) max_block_3x3<8>(s + ch, o + ch, row, c);
        for (; ch < c; ++ch) max_block_3x3<1>(s + ch, o + ch, row, c);
        continue;
      }
      const Window wd = window_of(g, y, x);
      for (; ch + kBlock <= c; ch += kBlock) max_block<kBlock>(in + ch, o + ch, g, wd, n);
      for (; ch + 16 <= c; ch += 16) max_block<16>(in + ch, o + ch, g, wd, n);
      for (; ch + 8 <= c; ch += 8) max_block<8>(in + ch, o + ch, g, wd, n);
      for (; ch < c; ++ch) max_block<1>(in + ch, o + ch, g, wd, n);
    }
  }
}
JITCTL_ISA_CLONES(void, max_rows_3x3, (const float* in, float* out, const Geometry& g, int64_t r0, int64_t r1), (in, out, g, r0, r1))

// ATen's rule, `val > max || isnan(val)`: the maximum, or a NaN when the window holds one.
JITCTL_ALWAYS_INLINE float nan_max(float m, float v) { return (v > m || v != v) ? v : m; }

// Separably: the window's rows reduced into one row of W pixels (a straight pass over W * C
// contiguous floats), then each output pixel's columns of that row. A 3x3 window then costs
// 3 + 3 loads a vector instead of 9, in short independent chains (the windowed loop above is
// one chain of 9 a vector). Here, 1 thread: 192x28x28 3x3/1 26.3 us against 39.4, 480x14x14
// 15.1 against 23.1, 64x112x112 3x3/2 71 against 76; 2x2/2 8.2 against 6.6 (kept windowed).
// The same values (a maximum does not depend on the order, but for which of -0 and +0 is kept;
// any NaN gives NaN). `rb` holds W * C floats.
JITCTL_ALWAYS_INLINE void max_rows_separable_body(const float* in, float* out, const Geometry& g, int64_t r0, int64_t r1, float* rb) {
  const int64_t c = g.c, w = g.w, row = w * c;
  const NhwcWindows& wn = g.win;
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t n = r / wn.oh, y = r % wn.oh;
    const int64_t y0 = std::max<int64_t>(y * wn.sh - wn.ph, 0), y1 = std::min(y * wn.sh - wn.ph + wn.kh, g.h);
    const float* img = in + n * g.h * row;
    if (y1 - y0 == 3) {
      const float* s0 = img + y0 * row;
      const float* s1 = s0 + row;
      const float* s2 = s1 + row;
#pragma omp simd
      for (int64_t i = 0; i < row; ++i) rb[i] = nan_max(nan_max(s0[i], s1[i]), s2[i]);
    } else if (y1 - y0 == 2) {
      const float* s0 = img + y0 * row;
      const float* s1 = s0 + row;
#pragma omp simd
      for (int64_t i = 0; i < row; ++i) rb[i] = nan_max(s0[i], s1[i]);
    } else {
      // Other heights (a window clipped by the border, larger kernels). Windows are never
      // empty: PyTorch's output size keeps each one's start inside the input or its padding.
      for (int64_t i = 0; i < row; ++i) rb[i] = -std::numeric_limits<float>::infinity();
      for (int64_t iy = y0; iy < y1; ++iy) {
        const float* s = img + iy * row;
#pragma omp simd
        for (int64_t i = 0; i < row; ++i) rb[i] = nan_max(rb[i], s[i]);
      }
    }
    float* o = out + r * wn.ow * c;
    for (int64_t x = 0; x < wn.ow; ++x, o += c) {
      const int64_t x0 = std::max<int64_t>(x * wn.sw - wn.pw, 0), x1 = std::min(x * wn.sw - wn.pw + wn.kw, w);
      const float* a = rb + x0 * c;
      if (x1 - x0 == 3) {
        const float* b = a + c;
        const float* d = b + c;
#pragma omp simd
        for (int64_t j = 0; j < c; ++j) o[j] = nan_max(nan_max(a[j], b[j]), d[j]);
        continue;
      }
      for (int64_t j = 0; j < c; ++j) o[j] = -std::numeric_limits<float>::infinity();
      for (int64_t ix = x0; ix < x1; ++ix) {
        const float* b = rb + ix * c;
#pragma omp simd
        for (int64_t j = 0; j < c; ++j) o[j] = nan_max(o[j], b[j]);
      }
    }
  }
}
JITCTL_ISA_CLONES(void, max_rows_separable, (const float* in, float* out, const Geometry& g, int64_t r0, int64_t r1, float* rb),
                  (in, out, g, r0, r1, rb))

void max_rows_separable_run(const float* in, float* out, const Geometry& g, int64_t r0, int64_t r1) {
  static thread_local std::vector<float> rb;
  rb.resize(static_cast<size_t>(g.w * g.c));
  max_rows_separable(in, out, g, r0, r1, rb.data());
}

JITCTL_ALWAYS_INLINE void avg_rows_body(const float* in, float* out, const Geometry& g, int64_t r0, int64_t r1) {
  const int64_t c = g.c;
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t n = r / g.win.oh, y = r % g.win.oh;
    for (int64_t x = 0; x < g.win.ow; ++x) {
      const Window wd = window_of(g, y, x);
      float* o = out + (r * g.win.ow + x) * c;
      const int64_t div = g.win.divisor ? g.win.divisor
                          : (g.win.count_include_pad && !g.win.adaptive) ? wd.padded_size
                                                                          : (wd.y1 - wd.y0) * (wd.x1 - wd.x0);
      if (div == 0) {
        for (int64_t ch = 0; ch < c; ++ch) o[ch] = 0.f;
        continue;
      }
      // ATen divides the window's sum; x / d and x * (1 / d) may differ in the last bit, so
      // divide unless d is a power of two (where the two agree exactly).
      const float d = static_cast<float>(div);
      if ((div & (div - 1)) == 0) {
        const float inv = 1.0f / d;
        int64_t ch = 0;
        for (; ch + kBlock <= c; ch += kBlock) sum_block<kBlock>(in + ch, o + ch, g, wd, n, inv);
        for (; ch + 16 <= c; ch += 16) sum_block<16>(in + ch, o + ch, g, wd, n, inv);
        for (; ch + 8 <= c; ch += 8) sum_block<8>(in + ch, o + ch, g, wd, n, inv);
        for (; ch < c; ++ch) sum_block<1>(in + ch, o + ch, g, wd, n, inv);
      } else {
        int64_t ch = 0;
        for (; ch + kBlock <= c; ch += kBlock) sum_block<kBlock>(in + ch, o + ch, g, wd, n, 1.0f);
        for (; ch + 16 <= c; ch += 16) sum_block<16>(in + ch, o + ch, g, wd, n, 1.0f);
        for (; ch + 8 <= c; ch += 8) sum_block<8>(in + ch, o + ch, g, wd, n, 1.0f);
        for (; ch < c; ++ch) sum_block<1>(in + ch, o + ch, g, wd, n, 1.0f);
        for (ch = 0; ch < c; ++ch) o[ch] /= d;
      }
    }
  }
}
JITCTL_ISA_CLONES(void, avg_rows, (const float* in, float* out, const Geometry& g, int64_t r0, int64_t r1), (in, out, g, r0, r1))

// Global average (adaptive to 1x1): one pass over a run of an image's pixels in memory order,
// adding every pixel's channels into a row of sums `acc` (the same per-channel order of additions
// as the windowed loop, which would read the image once per channel block, strided).
JITCTL_ALWAYS_INLINE void pixel_sums_body(const float* __restrict in, int64_t c, int64_t pixels, float* __restrict acc) {
  for (int64_t j = 0; j < c; ++j) acc[j] = 0.f;
  for (int64_t p = 0; p < pixels; ++p) {
    const float* s = in + p * c;
    for (int64_t j = 0; j < c; ++j) acc[j] += s[j];
  }
}
JITCTL_ISA_CLONES(void, pixel_sums, (const float* in, int64_t c, int64_t pixels, float* acc), (in, c, pixels, acc))

template <class F>
Tensor pool(const Tensor& input, const NhwcWindows& w, F rows) {
  const auto& s = input.sizes();
  const Geometry g{s[0], s[1], s[2], s[3], w};
  const std::vector<int64_t> sizes{g.n, g.c, w.oh, w.ow};
  Tensor out = new_output_strided(DType::Float32, sizes, channels_last_strides(sizes));
  const float* in = static_cast<const float*>(input.data());
  float* o = static_cast<float*>(out.mutable_data());
  const int64_t rows_n = g.n * w.oh;
  const int64_t per_row = std::max<int64_t>(1, w.ow * g.c * (w.adaptive ? (g.h / std::max<int64_t>(w.oh, 1) + 1) * (g.w / std::max<int64_t>(w.ow, 1) + 1) : w.kh * w.kw));
  parallel_for(0, rows_n, std::max<int64_t>(1, kGrainSize / per_row), [&](int64_t r0, int64_t r1) { rows(in, o, g, r0, r1); });
  return out;
}

}  // namespace

Tensor max_pool2d_nhwc(const Tensor& input, const NhwcWindows& w) {
  // Overlapping windows (3x3 stride 1 or 2) share rows and columns, which the separable form
  // reads once; windows that tile the image (2x2 stride 2) have nothing to share.
  if (w.kh == 3 && w.kw == 3 && w.sh == 2 && w.sw == 2) return pool(input, w, max_rows_3x3);
  const bool overlap = w.sh < w.kh || w.sw < w.kw;
  return overlap ? pool(input, w, max_rows_separable_run) : pool(input, w, max_rows);
}
Tensor avg_pool2d_nhwc(const Tensor& input, const NhwcWindows& w) {
  const auto& s = input.sizes();
  if (!w.adaptive || w.oh != 1 || w.ow != 1 || s[2] * s[3] == 0) return pool(input, w, avg_rows);
  const std::vector<int64_t> sizes{s[0], s[1], 1, 1};
  Tensor out = new_output_strided(DType::Float32, sizes, channels_last_strides(sizes));
  const float* in = static_cast<const float*>(input.data());
  float* o = static_cast<float*>(out.mutable_data());
  const int64_t n = s[0], c = s[1], pixels = s[2] * s[3];
  const float d = static_cast<float>(pixels);
  // Fewer images than threads: each image's pixels are split into one run per thread, whose sums
  // are added at the end. On one thread the pool reads the whole image, most of it written by the
  // other threads in the layer before: RegNetY-800MF's squeeze-and-excitation pools were the
  // model's ops slowest at 2 threads against 1 (320 x 14 x 14: 6.4 -> 13.2 us at best in one
  // profile, 5.5 at 2 threads in another, the vCPUs' placement moving between runs).
  constexpr int64_t kPoolRunFloats = 8192;  // 32 KB a thread at least: about a microsecond's reading
  const int64_t threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  const int64_t runs = n >= threads ? 1 : std::clamp<int64_t>(c * pixels / kPoolRunFloats, 1, std::min(threads, pixels));
  if (runs <= 1) {
    parallel_for(0, n, 1, [&](int64_t n0, int64_t n1) {
      std::vector<float> acc(static_cast<size_t>(c));
      for (int64_t i = n0; i < n1; ++i) {
        pixel_sums(in + i * pixels * c, c, pixels, acc.data());
        for (int64_t j = 0; j < c; ++j) o[i * c + j] = acc[j] / d;
      }
    });
    return out;
  }
  std::vector<float> sums(static_cast<size_t>(runs * c));
  for (int64_t i = 0; i < n; ++i) {
    const float* image = in + i * pixels * c;
    parallel_for(0, runs, 1, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t p0 = r * pixels / runs, p1 = (r + 1) * pixels / runs;
        pixel_sums(image + p0 * c, c, p1 - p0, sums.data() + r * c);
      }
    });
    for (int64_t j = 0; j < c; ++j) {
      float t = sums[static_cast<size_t>(j)];
      for (int64_t r = 1; r < runs; ++r) t += sums[static_cast<size_t>(r * c + j)];
      o[i * c + j] = t / d;
    }
  }
  return out;
}

}  // namespace jitctl::cpu
