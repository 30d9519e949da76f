#include "kernels/cpu/expand_depthwise.h"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/dnnl_util.h"
#include "kernels/cpu/output.h"
#include "kernels/cpu/scratch.h"
#include "kernels/parallel.h"

namespace jitctl::cpu {

namespace {

// Expanded rows per band, at most: with the band's input rows and output they stay in L2 (1 MB
// a core where this was measured; 384 KB was also the fastest of 128, 192 and 384 on a Zen 3's
// 512 KB). MobileNetV2 at 2 threads, interleaved runs: 384 KB 3.57 ms at best against 3.88
// for 768 KB and 3.72 run apart.
constexpr int64_t kBandBytes = 384 << 10;
// Expanded images that fit one core's L2 stay there between the two layers run apart (the
// band's own cost, a primitive call per band, is then not repaid); the bound is the L2 the
// machine reports, not a constant: on a Zen 3 (512 KiB) MobileNetV3-L's 56x56 pair, 903 KB
// expanded, took 0.221 ms apart and 0.206 in bands (kernel_bench expand_dw_mv3_24_56_72, one
// thread), where a 1 MiB bound had kept it apart.

// A small image (its expansion stays in L2) with more expanded channels than pixels (the 7x7 and
// 14x14 blocks), on two threads or more: each thread expands its own run of PointwiseConv's
// output vectors over the whole image into its scratch, then runs the depthwise layer on those
// channels (DepthwiseChannels), so it reads only what it wrote. Run apart, PointwiseConv splits
// such an expansion by channels and the depthwise layer split it by rows. kernel_bench
// expand_dw_mnas_, two threads, apart -> split: 7x7 1152 channels 5x5 0.122-0.126 -> 0.115 ms
// with the vCPUs near each other, 0.153-0.165 -> 0.128-0.130 far apart; 14x14 576 channels 5x5
// stride 2 0.113-0.121 -> 0.106 and 0.149-0.153 -> 0.113-0.121. With fewer channels than pixels
// (28x28, 120 channels) both layers split by rows already, and split by channels it was slower
// (0.064-0.069 -> 0.073-0.081).
// Undefined when one of the two kernels does not run its layer, or on one thread (there the two
// layers run apart: oneDNN's depthwise kernel).
Tensor by_channels(const PackedConv& expand, const PackedConv& depthwise, const Tensor& input, int64_t oh, int64_t ow) {
  const int64_t threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  const PointwiseConv* pw = expand.pointwise_1x1();
  if (threads < 2 || !pw || expand.weight().sizes()[0] <= input.sizes()[2] * input.sizes()[3]) return Tensor();
  const DepthwiseChannels* dc = depthwise.depthwise_channels();
  if (!dc) return Tensor();
  const int64_t n = input.sizes()[0], c = input.sizes()[1], h = input.sizes()[2], w = input.sizes()[3];
  const int64_t e = expand.weight().sizes()[0], vectors = pw->vector_count();
  const int64_t teams = std::min(threads, vectors);
  // Team t's vectors start at bound(t). An overlapping last vector stays with the one before it,
  // so that no channel is written by two teams.
  const auto bound = [&](int64_t t) {
    int64_t v = vectors * t / teams;
    if (t > 0 && t < teams && v == vectors - 1 && pw->vector_channel(v) % 16 != 0) --v;
    return v;
  };
  Tensor out = new_output_strided(DType::Float32, {n, e, oh, ow}, channels_last_strides({n, e, oh, ow}));
  const float* x = static_cast<const float*>(input.data());
  float* y = static_cast<float*>(out.mutable_data());
  parallel_for(0, teams, 1, [&](int64_t t0, int64_t t1) {
    auto* buf = static_cast<float*>(scratch_buffer(ScratchSlot::ExpandBand, static_cast<size_t>(h * w * e) * sizeof(float)));
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t v0 = bound(t), v1 = bound(t + 1);
      if (v0 >= v1) continue;
      const int64_t c0 = pw->vector_channel(v0), c1 = v1 == vectors ? e : pw->vector_channel(v1);
      for (int64_t img = 0; img < n; ++img) {
        pw->run_vectors(x + img * h * w * c, h * w, buf, v0, v1);
        dc->run(buf, h, w, e, c0, c1, y + img * oh * ow * e);
      }
    }
  });
  return out;
}

}  // namespace

Tensor expand_depthwise(const PackedConv& expand, const PackedConv& depthwise, const Tensor& input) {
  static const bool on = !switched_off("JITCTL_EXPAND_DEPTHWISE");
  if (!on || cpu_features().isa == Isa::Generic || has_residual(depthwise.epilogue())) return Tensor();
  const Tensor& ew = expand.weight();
  const Tensor& dw = depthwise.weight();
  if (ew.dim() != 4 || dw.dim() != 4 || input.dim() != 4 || input.dtype() != DType::Float32 || !is_channels_last(input)) return Tensor();
  const int64_t n = input.sizes()[0], c = input.sizes()[1], h = input.sizes()[2], w = input.sizes()[3];
  const int64_t e = ew.sizes()[0];
  if (ew.sizes()[1] != c || dw.sizes()[0] != e || dw.sizes()[1] != 1) return Tensor();
  const ConvArgs& a = depthwise.args();
  int64_t sh = 0, sw = 0, ph = 0, pw = 0, dil_y = 0, dil_x = 0;
  if (a.groups != e || a.transposed || !a.padding_mode.empty() || !pair_of(a.stride, sh, sw) || !pair_of(a.padding, ph, pw) ||
      !pair_of(a.dilation, dil_y, dil_x) || dil_y != 1 || dil_x != 1 || sh <= 0 || sw <= 0 || ph < 0 || pw < 0)
    return Tensor();
  const int64_t kh = dw.sizes()[2], kw = dw.sizes()[3];
  if (h + 2 * ph < kh || w + 2 * pw < kw || !expand.runs_rows_1x1()) return Tensor();
  const int64_t oh = (h + 2 * ph - kh) / sh + 1, ow = (w + 2 * pw - kw) / sw + 1;
  if (e * h * w * static_cast<int64_t>(sizeof(float)) < cpu_features().l2_bytes) return by_channels(expand, depthwise, input, oh, ow);
  // A band's geometry: the input rows its output rows read, padded at the sides as the image is.
  const auto band_params = [&](int64_t rows) {
    ConvParams b{};
    b.n = 1, b.c = e, b.h = (rows - 1) * sh + kh, b.w = w;
    b.oc = e, b.kh = kh, b.kw = kw, b.sh = sh, b.sw = sw, b.pw = pw, b.pw_after = pw, b.dh = b.dw = 1;
    b.oh = rows, b.ow = ow, b.groups = e, b.spatial_dims = 2;
    b.out_sizes = {1, e, rows, ow};
    return b;
  };

  const int64_t row_floats = w * e;
  const int64_t row_bytes = row_floats * static_cast<int64_t>(sizeof(float));
  const int64_t band = std::clamp<int64_t>((kBandBytes / row_bytes - kh) / sh + 1, 1, oh);
  const ConvParams full = band_params(band);
  // Bands of an image differ by a row at most, and for one image there are as many on each
  // thread: 56 rows in bands of 5 split 30:26 on two threads (MobileNetV2's 56x56 pair).
  int64_t bands_per_image = (oh + band - 1) / band;
  if (const int64_t threads = omp_in_parallel() ? 1 : omp_get_max_threads(); n % threads != 0 && bands_per_image >= threads)
    bands_per_image = std::min(oh, (bands_per_image + threads - 1) / threads * threads);

  // On AVX2 oneDNN's kernel runs the bands: DepthwiseChannels' 8-wide form was slower there
  // (kernel_bench expand_dw_mbv2_24_56_144, one thread, medians of 10 runs: 0.458 against 0.430 ms).
  const DepthwiseChannels* dc = cpu_features().isa == Isa::Avx512 ? depthwise.depthwise_channels() : nullptr;
  Tensor out = new_output_strided(DType::Float32, {n, e, oh, ow}, channels_last_strides({n, e, oh, ow}));
  const float* x = static_cast<const float*>(input.data());
  float* y = static_cast<float*>(out.mutable_data());
  parallel_for(0, n * bands_per_image, 1, [&](int64_t b0, int64_t b1) {
    auto* buf = static_cast<float*>(scratch_buffer(ScratchSlot::ExpandBand, static_cast<size_t>(full.h * row_bytes)));
    int64_t have_image = -1, have0 = 0, have1 = 0;  // buf holds input rows [have0, have1) of have_image
    for (int64_t bi = b0; bi < b1; ++bi) {
      const int64_t img = bi / bands_per_image, k = bi % bands_per_image;
      const int64_t o0 = k * oh / bands_per_image, rows = (k + 1) * oh / bands_per_image - o0;
      const ConvParams bp = rows == band ? full : band_params(rows);
      const int64_t i0 = o0 * sh - ph, i1 = i0 + bp.h;
      int64_t r = i0;
      if (img == have_image && i0 >= have0 && i0 < have1) {
        r = std::min(i1, have1);
        std::memmove(buf, buf + (i0 - have0) * row_floats, static_cast<size_t>((r - i0) * row_bytes));
      }
      while (r < i1) {
        float* dst = buf + (r - i0) * row_floats;
        if (r < 0 || r >= h) {
          std::memset(dst, 0, static_cast<size_t>(row_bytes));
          ++r;
          continue;
        }
        const int64_t r_end = std::min(i1, h);
        expand.rows_1x1(x + (img * h + r) * w * c, r_end - r, w, dst);
        r = r_end;
      }
      have_image = img, have0 = i0, have1 = i1;
      // The zero rows standing for the padding are not read by DepthwiseChannels (it skips taps
      // outside the image); oneDNN's primitive for the band reads them.
      if (dc)
        dc->run_rows(buf + std::max<int64_t>(0, -i0) * row_floats, std::max<int64_t>(0, i0), h, w, e, 0, e, o0, o0 + rows,
                     y + img * oh * ow * e);
      else
        depthwise.rows_from_band(bp, buf, y + (img * oh + o0) * ow * e);
    }
  });
  return out;
}

}  // namespace jitctl::cpu
