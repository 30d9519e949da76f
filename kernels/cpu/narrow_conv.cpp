#include "kernels/cpu/narrow_conv.h"

#include <algorithm>
#include <cstring>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/grouped_conv.h"
#include "kernels/cpu/scratch.h"
#include "kernels/cpu/simd_vectors.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/cpu/vector_activation.h"
#include "kernels/parallel.h"

namespace jitctl::cpu {

namespace {

using Mode = VecActivation;
constexpr int kOut = 8;  // output channels a vector holds (OC is padded to it)
constexpr int kMaxKernelRows = 8;  // the rows a window holds at most (rows()' ring)

struct Job {
  const float* x;    // input, dense channels-last
  const float* res;  // residual, shaped as y (or null)
  float* y;          // output, dense channels-last
  const float* w;    // [KH][KW][C][8]
  const float* bias;  // [8]
  int64_t c, oc, h, w_in, kh, kw, sh, sw, ph, pw, pw_after, oh, ow;
  float lo, hi;  // Mode::Clamp's bounds
};

#ifdef JITCTL_TARGET_AVX512

using avx2::load;
using avx2::splat;
using avx2::vf;

// Output pixels ox0 .. ox0 + R of one output row: rows[ky] is input row ky of the output row's
// window, padded with zero pixels at both ends, so every tap reads inside its row; only the rows
// [ky0, ky1) inside the image are read. CT, ST: the input's channel count and the stride, known at
// compile time so that a tap's R input pixels are constant offsets from one pointer (with run-time
// ones each needed its own register).
template <int R, Mode M, bool Add, int CT, int ST>
JITCTL_AVX2_INLINE void tile(const Job& j, const float* const* rows, int64_t ky0, int64_t ky1, int64_t at, int64_t ox0) {
  vf acc[R];
  const vf bias = load(j.bias);
#pragma GCC unroll 24
  for (int r = 0; r < R; ++r) acc[r] = bias;
  // One loop over the taps (ky, kx) inside the image: nested, GCC kept the accumulators in memory
  // between taps.
  for (int64_t t = ky0 * j.kw, kx = 0, ky = ky0; t < ky1 * j.kw; ++t) {
    // Neighbouring taps read the same input values for neighbouring outputs; GCC carried them
    // from tap to tap in registers (predictive commoning) and spilled the accumulators (28 us for
    // the 8 -> 8 layer, kernel_bench narrow_only_8_32_8). The pointer, opaque to it, stops that.
    const float* xt = rows[ky] + (ox0 * ST + kx) * CT;
    __asm__("" : "+r"(xt));
    const float* wt = j.w + t * CT * kOut;
#pragma GCC unroll 16
    for (int k = 0; k < CT; ++k) {
      const vf wv = load(wt + k * kOut);
#pragma GCC unroll 24
      for (int r = 0; r < R; ++r) acc[r] += splat(xt[r * ST * CT + k]) * wv;
    }
    if (++kx == j.kw) kx = 0, ++ky;
  }
  const vf lo = splat(j.lo), hi = splat(j.hi);
  at += ox0 * j.oc;
#pragma GCC unroll 24
  for (int r = 0; r < R; ++r) {
    vf v = acc[r];
    if (j.oc == kOut) {
      if constexpr (Add) v += load(j.res + at + r * kOut);
      avx2::store(j.y + at + r * kOut, activate<M>(v, lo, hi));
    } else {
      float t[kOut] = {};
      if constexpr (Add) {
        std::memcpy(t, j.res + at + r * j.oc, static_cast<size_t>(j.oc) * sizeof(float));
        v += load(t);
      }
      avx2::store(t, activate<M>(v, lo, hi));
      std::memcpy(j.y + at + r * j.oc, t, static_cast<size_t>(j.oc) * sizeof(float));
    }
  }
}

// Output pixel ox alone (rows narrower than 4), as tile() reads: four sums over the input
// channels, so that its multiply-adds do not wait for each other.
template <Mode M, bool Add, int CT, int ST>
JITCTL_AVX2_INLINE void pixel(const Job& j, const float* const* rows, int64_t ky0, int64_t ky1, int64_t at, int64_t ox) {
  vf part[4] = {load(j.bias), {}, {}, {}};
  for (int64_t ky = ky0; ky < ky1; ++ky)
    for (int64_t kx = 0; kx < j.kw; ++kx) {
      const float* xt = rows[ky] + (ox * ST + kx) * CT;
      const float* wt = j.w + (ky * j.kw + kx) * CT * kOut;
#pragma GCC unroll 16
      for (int k = 0; k < CT; ++k) part[k & 3] += splat(xt[k]) * load(wt + k * kOut);
    }
  vf v = (part[0] + part[1]) + (part[2] + part[3]);
  at += ox * j.oc;
  float t[kOut] = {};
  if constexpr (Add) {
    std::memcpy(t, j.res + at, static_cast<size_t>(j.oc) * sizeof(float));
    v += load(t);
  }
  avx2::store(t, activate<M>(v, splat(j.lo), splat(j.hi)));
  std::memcpy(j.y + at, t, static_cast<size_t>(j.oc) * sizeof(float));
}

// Output rows [r0, r1) of the n * oh. Each input row a window reads is copied once into a ring
// of KH padded rows (`ring`, (w + padding) * C floats each, L1-resident for these layers): a
// padded copy of the whole input, written to L2 and read back, took 10% of the layer's time.
// Tiles of R outputs, the last one moved back to end at the row's end (its first outputs
// computed twice, equally); rows narrower than R in tiles of 4.
template <int R, Mode M, bool Add, int CT, int ST>
JITCTL_AVX2_INLINE void rows(const Job& j, int64_t r0, int64_t r1, float* ring) {
  const int64_t wp = j.pw + j.w_in + j.pw_after, ld = wp * CT;
  int64_t held[kMaxKernelRows];  // the input row (image * h + iy) each ring slot holds, -1 for none
  std::fill_n(held, kMaxKernelRows, int64_t{-1});
  const float* window[kMaxKernelRows];
  for (int64_t i = r0; i < r1; ++i) {
    const int64_t b = i / j.oh, oy = i % j.oh, iy0 = oy * j.sh - j.ph;
    const int64_t ky0 = std::max<int64_t>(0, -iy0), ky1 = std::min(j.kh, j.h - iy0);
    for (int64_t ky = ky0; ky < ky1; ++ky) {
      const int64_t g = b * j.h + iy0 + ky, slot = g % j.kh;
      float* d = ring + slot * ld;
      if (held[slot] != g) {
        std::fill_n(d, j.pw * CT, 0.0f);
        std::copy_n(j.x + g * j.w_in * CT, j.w_in * CT, d + j.pw * CT);
        std::fill_n(d + (j.pw + j.w_in) * CT, j.pw_after * CT, 0.0f);
        held[slot] = g;
      }
      window[ky] = d;
    }
    const int64_t at = i * j.ow * j.oc;
    if (j.ow >= R) {
      for (int64_t ox = 0;; ox += R) {
        const int64_t o = std::min(ox, j.ow - R);
        tile<R, M, Add, CT, ST>(j, window, ky0, ky1, at, o);
        if (o + R >= j.ow) break;
      }
    } else if (j.ow >= 4) {
      for (int64_t ox = 0;; ox += 4) {
        const int64_t o = std::min(ox, j.ow - 4);
        tile<4, M, Add, CT, ST>(j, window, ky0, ky1, at, o);
        if (o + 4 >= j.ow) break;
      }
    } else {
      for (int64_t ox = 0; ox < j.ow; ++ox) pixel<M, Add, CT, ST>(j, window, ky0, ky1, at, ox);
    }
  }
}

// The channel counts of networks' first layers (RGB) and of the narrow layers after them, stride
// 1 or 2 (takes() declines the others).
template <int R, Mode M, bool Add>
JITCTL_AVX2_INLINE void rows_shape(const Job& j, int64_t r0, int64_t r1, float* ring) {
  const bool s1 = j.sw == 1;
  switch (j.c) {
    case 3: return s1 ? rows<R, M, Add, 3, 1>(j, r0, r1, ring) : rows<R, M, Add, 3, 2>(j, r0, r1, ring);
    case 8: return s1 ? rows<R, M, Add, 8, 1>(j, r0, r1, ring) : rows<R, M, Add, 8, 2>(j, r0, r1, ring);
    default: return s1 ? rows<R, M, Add, 16, 1>(j, r0, r1, ring) : rows<R, M, Add, 16, 2>(j, r0, r1, ring);
  }
}

template <int R, bool Add>
JITCTL_AVX2_INLINE void rows_mode(const Job& j, Mode m, int64_t r0, int64_t r1, float* ring) {
  switch (m) {
    case Mode::Relu: return rows_shape<R, Mode::Relu, Add>(j, r0, r1, ring);
    case Mode::Clamp: return rows_shape<R, Mode::Clamp, Add>(j, r0, r1, ring);
    default: return rows_shape<R, Mode::None, Add>(j, r0, r1, ring);
  }
}

// 12 accumulators in AVX2's 16 registers; 16 in AVX-512's 32 (the weight vector and, where the
// multiply-add does not fold it, the broadcast take the others).
JITCTL_TARGET_AVX2 void rows_avx2(const Job& j, Mode m, int64_t r0, int64_t r1, float* ring) {
  if (j.res) return rows_mode<12, true>(j, m, r0, r1, ring);
  rows_mode<12, false>(j, m, r0, r1, ring);
}

JITCTL_TARGET_AVX512 void rows_avx512(const Job& j, Mode m, int64_t r0, int64_t r1, float* ring) {
  if (j.res) return rows_mode<16, true>(j, m, r0, r1, ring);
  rows_mode<16, false>(j, m, r0, r1, ring);
}

#endif  // JITCTL_TARGET_AVX512

}  // namespace

bool NarrowConv::suits(const Tensor& weight, const ConvArgs& args, const Epilogue& epilogue) {
#ifdef JITCTL_TARGET_AVX512
  if (cpu_features().isa == Isa::Generic || weight.dtype() != DType::Float32 || weight.dim() != 4 || args.transposed || args.groups != 1 ||
      !args.padding_mode.empty())
    return false;
  const auto& ws = weight.sizes();
  if (ws[0] < 1 || ws[0] > kOut || ws[2] * ws[3] <= 1 || ws[2] > kMaxKernelRows || (ws[1] != 3 && ws[1] != 8 && ws[1] != 16)) return false;
  int64_t dh = 0, dw = 0, sh = 0, sw = 0;
  if (!pair_of(args.dilation, dh, dw) || dh != 1 || dw != 1 || !pair_of(args.stride, sh, sw) || sh < 1 || (sw != 1 && sw != 2)) return false;
  Mode m;
  bool add;
  return vec_epilogue_of(epilogue, m, add) && (m == Mode::None || m == Mode::Relu || m == Mode::Clamp);
#else
  (void)weight, (void)args, (void)epilogue;
  return false;
#endif
}

NarrowConv::NarrowConv(const Tensor& weight, const Tensor& bias, Epilogue epilogue)
    : c_(weight.sizes()[1]), oc_(weight.sizes()[0]), kh_(weight.sizes()[2]), kw_(weight.sizes()[3]), epilogue_(std::move(epilogue)) {
  const Tensor wc = contiguous(weight);
  const float* w = static_cast<const float*>(wc.data());
  w_.assign(static_cast<size_t>(kh_ * kw_ * c_ * kOut), 0.0f);
  for (int64_t o = 0; o < oc_; ++o)
    for (int64_t k = 0; k < c_; ++k)
      for (int64_t t = 0; t < kh_ * kw_; ++t) w_[static_cast<size_t>((t * c_ + k) * kOut + o)] = w[(o * c_ + k) * kh_ * kw_ + t];
  bias_.assign(kOut, 0.0f);
  if (bias.defined()) {
    const Tensor bc = contiguous(bias);
    std::copy_n(static_cast<const float*>(bc.data()), oc_, bias_.begin());
  }
}

bool NarrowConv::takes(const Tensor& input, const Tensor& residual, const ConvParams& p) const {
  return p.spatial_dims == 2 && grouped_takes(input, c_, residual, epilogue_, p);
}

void NarrowConv::run(const Tensor& input, const Tensor& residual, const ConvParams& p, Tensor& out) const {
#ifdef JITCTL_TARGET_AVX512
  const VecEpilogue e = vec_epilogue(epilogue_);
  Job j{};
  j.x = static_cast<const float*>(input.data());
  j.res = e.add ? static_cast<const float*>(residual.data()) : nullptr;
  j.y = static_cast<float*>(out.mutable_data());
  j.w = w_.data();
  j.bias = bias_.data();
  j.c = c_, j.oc = oc_, j.h = p.h, j.w_in = p.w, j.kh = kh_, j.kw = kw_;
  j.sh = p.sh, j.sw = p.sw, j.ph = p.ph, j.pw = p.pw, j.pw_after = p.pw_after, j.oh = p.oh, j.ow = p.ow;
  j.lo = e.lo, j.hi = e.hi;
  const auto ring_bytes = static_cast<size_t>(kh_ * (p.pw + p.w + p.pw_after) * c_) * sizeof(float);
  const double row_flops = 2.0 * static_cast<double>(p.ow * kOut * c_ * kh_ * kw_);
  const int64_t grain = grain_for_flops(row_flops);
  const bool wide = cpu_features().isa == Isa::Avx512;
  parallel_for(0, p.n * p.oh, grain, [&](int64_t r0, int64_t r1) {
    auto* ring = static_cast<float*>(scratch_buffer(ScratchSlot::ConvSrc, ring_bytes));
    if (wide)
      rows_avx512(j, e.mode, r0, r1, ring);
    else
      rows_avx2(j, e.mode, r0, r1, ring);
  });
#else
  (void)input, (void)residual, (void)p, (void)out;
#endif
}

}  // namespace jitctl::cpu
