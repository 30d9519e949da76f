#include "kernels/cpu/winograd_conv.h"

#include <algorithm>
#include <cstring>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/dnnl_util.h"
#include "kernels/cpu/gemv.h"
#include "kernels/cpu/isa_dispatch.h"
#include "kernels/cpu/packed_conv3d.h"
#include "kernels/cpu/scratch.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/parallel.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define JITCTL_HAVE_AVX2_WINOGRAD 1
#endif

namespace jitctl::cpu {
namespace {

constexpr int64_t kOut = 4;    // outputs per tile side
constexpr int64_t kPos = 36;   // transformed positions: the 6x6 input tile
constexpr int64_t kMr = 6;     // tiles per register tile
// Output channels per register tile: two ymm. On AVX-512 too: a 12x32 zmm tile measured no
// faster here (Zen 5, ResNet-18's layers), and its 32-column panels waste a third of the work on
// 48 output channels.
constexpr int64_t kNr = 16;
constexpr int64_t kLanes = 8;  // floats per ymm

// Scratch for one block of tiles (its transformed inputs and GEMM results) stays in L2.
constexpr int64_t kBlockBytes = 768 * 1024;
// Transformed weights beyond this many bytes come from memory, not L3, for every block (run()).
constexpr int64_t kBigWeightBytes = 16 << 20;
// Calls whose transformed weights are this many times their transformed inputs split over the
// threads by output channels (run()).
constexpr int64_t kWeightsOverInputs = 8;

// When the transforms pay, measured with tests/bench/kernel_bench (packed_ cases, Zen 5, 1 and 2
// threads, against oneDNN's direct kernel and, on AVX-512, its Winograd kernel): every 3x3 layer
// of 13x13 outputs or more was faster, 1.1-2.4x (ResNet's 56x56 64-channel layer 1.94 -> 0.68 ms,
// 14x14 256-channel 1.80 -> 0.82, DenseNet's 14x14 128 -> 32 0.115 -> 0.066); ResNet's 7x7
// 512-channel layer, 4 tiles, was 1.7x slower (the 36 transformed weight matrices, 4x the
// weights' bytes, come from memory for 4 tiles' work).
constexpr int64_t kMinOutSide = 8;
constexpr int64_t kMinTiles = 9;
constexpr double kMinFlops = 2e6;
constexpr int64_t kMinChannels = 16;

int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }

// Channels-last (NHWC) for 4-D, channels-last-3d (NDHWC) for 5-D, with no gaps.
bool dense_channels_last(const Tensor& t) {
  if (t.dtype() != DType::Float32) return false;
  if (t.dim() == 4) return is_channels_last(t);
  return t.dim() == 5 && t.strides() == channels_last_3d_strides(t.sizes());
}

// Lavin and Gray's F(4x4, 3x3) filter transform G (6x3), in double: the weights are transformed
// once, as exactly as float32 storage allows.
constexpr double kG[6][3] = {{1.0 / 4, 0, 0},
                             {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                             {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                             {1.0 / 24, 1.0 / 12, 1.0 / 6},
                             {1.0 / 24, -1.0 / 12, 1.0 / 6},
                             {0, 0, 1}};

#ifdef JITCTL_HAVE_AVX2_WINOGRAD

// Bᵀ applied to six vectors of a tile's column (or row): d0..d5 -> r0..r5.
JITCTL_TARGET_AVX2 inline void input_1d(const __m256* d, __m256* r) {
  const __m256 two = _mm256_set1_ps(2), four = _mm256_set1_ps(4), m4 = _mm256_set1_ps(-4), m5 = _mm256_set1_ps(-5);
  r[0] = _mm256_fmadd_ps(four, d[0], _mm256_fmadd_ps(m5, d[2], d[4]));
  r[1] = _mm256_fmadd_ps(m4, _mm256_add_ps(d[1], d[2]), _mm256_add_ps(d[3], d[4]));
  r[2] = _mm256_fmadd_ps(four, _mm256_sub_ps(d[1], d[2]), _mm256_sub_ps(d[4], d[3]));
  r[3] = _mm256_fmadd_ps(two, _mm256_sub_ps(d[3], d[1]), _mm256_sub_ps(d[4], d[2]));
  r[4] = _mm256_fmadd_ps(two, _mm256_sub_ps(d[1], d[3]), _mm256_sub_ps(d[4], d[2]));
  r[5] = _mm256_fmadd_ps(four, d[1], _mm256_fmadd_ps(m5, d[3], d[5]));
}

// Aᵀ applied to six vectors: m0..m5 -> o0..o3.
JITCTL_TARGET_AVX2 inline void output_1d(const __m256* m, __m256* o) {
  const __m256 s12 = _mm256_add_ps(m[1], m[2]), d12 = _mm256_sub_ps(m[1], m[2]);
  const __m256 s34 = _mm256_add_ps(m[3], m[4]), d34 = _mm256_sub_ps(m[3], m[4]);
  o[0] = _mm256_add_ps(_mm256_add_ps(m[0], s12), s34);
  o[1] = _mm256_fmadd_ps(_mm256_set1_ps(2), d34, d12);
  o[2] = _mm256_fmadd_ps(_mm256_set1_ps(4), s34, s12);
  o[3] = _mm256_add_ps(_mm256_fmadd_ps(_mm256_set1_ps(8), d34, d12), m[5]);
}

// Lanes [0, n) of a ymm set, for the channel tail.
JITCTL_TARGET_AVX2 inline __m256i lane_mask(int64_t n) {
  const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), idx);
}

// The geometry of one call, shared by the three phases. A 2-D convolution has depth 1.
struct Geometry {
  int64_t n, d, h, w, c, oc, od, oh, ow, pd, ph, pw, kd;
  int64_t th, tw, tiles;  // tiles per column and row of a frame; in all (images x output frames x tiles)
  int64_t c8;             // channels rounded up to a vector
  int64_t krow, kpad;     // row lengths of the transformed inputs (kd x c8) and of the GEMM results
};

// Tile t's image, output frame, tile row and tile column.
struct TileAt {
  int64_t img, z, ty, tx;
};
inline TileAt tile_at(const Geometry& g, int64_t t) {
  return {t / (g.od * g.th * g.tw), t / (g.th * g.tw) % g.od, t / g.tw % g.th, t % g.tw};
}

// V[pos][r][q * c8 + c] = Bᵀ d B of input frame z + q - pd (depth tap q) for the tiles
// [t0, t0 + count) of the channels-last input, row r = t - t0; positions rows_pad * krow floats
// apart. Pixels and frames outside the input are zero (the padding), and so are the channels
// from c to c8.
JITCTL_TARGET_AVX2 void transform_inputs(const float* x, const Geometry& g, int64_t t0, int64_t count, int64_t rows_pad, float* v) {
  const int64_t pos_stride = rows_pad * g.krow;
  alignas(32) __m256 tmp[6][6];
  for (int64_t r = 0; r < count; ++r) {
    const TileAt at = tile_at(g, t0 + r);
    const int64_t y0 = at.ty * kOut - g.ph, x0 = at.tx * kOut - g.pw;
    bool row_in[6], col_in[6];
    for (int i = 0; i < 6; ++i) {
      row_in[i] = y0 + i >= 0 && y0 + i < g.h;
      col_in[i] = x0 + i >= 0 && x0 + i < g.w;
    }
    for (int64_t q = 0; q < g.kd; ++q) {
      float* vr = v + r * g.krow + q * g.c8;
      const int64_t z = at.z + q - g.pd;
      if (z < 0 || z >= g.d) {
        for (int64_t pos = 0; pos < kPos; ++pos) std::fill(vr + pos * pos_stride, vr + pos * pos_stride + g.c8, 0.0f);
        continue;
      }
      const float* base = x + (at.img * g.d + z) * g.h * g.w * g.c;
      for (int64_t c = 0; c < g.c; c += kLanes) {
        const int64_t lanes = std::min(kLanes, g.c - c);
        const __m256i mask = lane_mask(lanes);
        // Columns first: Bᵀ over each column's six pixels.
        for (int j = 0; j < 6; ++j) {
          __m256 d[6];
          for (int i = 0; i < 6; ++i) {
            if (!row_in[i] || !col_in[j]) {
              d[i] = _mm256_setzero_ps();
              continue;
            }
            const float* px = base + ((y0 + i) * g.w + x0 + j) * g.c + c;
            d[i] = lanes == kLanes ? _mm256_loadu_ps(px) : _mm256_maskload_ps(px, mask);
          }
          __m256 col[6];
          input_1d(d, col);
          for (int i = 0; i < 6; ++i) tmp[i][j] = col[i];
        }
        // Then B over each row.
        for (int i = 0; i < 6; ++i) {
          __m256 out[6];
          input_1d(tmp[i], out);
          for (int j = 0; j < 6; ++j) _mm256_storeu_ps(vr + (i * 6 + j) * pos_stride + c, out[j]);
        }
      }
    }
  }
}

// c[0:6, 0:16] = a · b over k: a's six rows lda floats apart, b packed [k][16], c rows ldc apart.
JITCTL_TARGET_AVX2 void tile_6x16(const float* __restrict a, int64_t lda, const float* __restrict b, int64_t k, float* __restrict c,
                                  int64_t ldc) {
  __m256 lo[kMr], hi[kMr];
#pragma GCC unroll 6
  for (int i = 0; i < kMr; ++i) lo[i] = hi[i] = _mm256_setzero_ps();
  const float* rows[kMr] = {a, a + lda, a + 2 * lda, a + 3 * lda, a + 4 * lda, a + 5 * lda};
#pragma GCC unroll 2
  for (int64_t q = 0; q < k; ++q) {
    const __m256 b0 = _mm256_load_ps(b + q * 16), b1 = _mm256_load_ps(b + q * 16 + 8);
#pragma GCC unroll 6
    for (int i = 0; i < kMr; ++i) {
      const __m256 ai = _mm256_broadcast_ss(rows[i] + q);
      lo[i] = _mm256_fmadd_ps(ai, b0, lo[i]);
      hi[i] = _mm256_fmadd_ps(ai, b1, hi[i]);
    }
  }
#pragma GCC unroll 6
  for (int i = 0; i < kMr; ++i) {
    _mm256_storeu_ps(c + i * ldc, lo[i]);
    _mm256_storeu_ps(c + i * ldc + 8, hi[i]);
  }
}

// M[pos] = V[pos] · U[pos] for the 36 positions of a block of rows_pad tiles (the depth taps and
// channels summed as one dimension of krow), output panels [pn0, pn1) of 16 channels.
void multiply_positions(const float* v, const float* u, const Geometry& g, int64_t rows_pad, float* m, int64_t pn0, int64_t pn1) {
  const int64_t panels = g.kpad / kNr;
  for (int64_t pos = 0; pos < kPos; ++pos) {
    const float* a = v + pos * rows_pad * g.krow;
    const float* b = u + pos * panels * g.krow * kNr;
    float* c = m + pos * rows_pad * g.kpad;
    for (int64_t pn = pn0; pn < pn1; ++pn)
      for (int64_t r = 0; r < rows_pad; r += kMr) tile_6x16(a + r * g.krow, g.krow, b + pn * g.krow * kNr, g.krow, c + r * g.kpad + pn * kNr, g.kpad);
  }
}

// The outputs of the block's tiles in channels [k0, k1) (multiples of 8, or k1 = OC): Aᵀ m A plus
// the bias into acc (one tile's 16 pixels), then the epilogue row by row into the channels-last
// output (which holds the residual for an Add).
JITCTL_TARGET_AVX2 void transform_outputs(const float* m, const Geometry& g, int64_t t0, int64_t count, int64_t rows_pad, const float* bias,
                                          const Epilogue& epilogue, const float* residual, float* y, float* acc, int64_t k0, int64_t k1) {
  const int64_t pos_stride = rows_pad * g.kpad;
  alignas(32) __m256 tmp[4][6];
  for (int64_t r = 0; r < count; ++r) {
    const TileAt at = tile_at(g, t0 + r);
    const float* mr = m + r * g.kpad;
    for (int64_t k = k0; k < k1; k += kLanes) {
      const int64_t lanes = std::min(kLanes, k1 - k);
      const __m256i mask = lane_mask(lanes);
      const __m256 b = bias ? (lanes == kLanes ? _mm256_loadu_ps(bias + k) : _mm256_maskload_ps(bias + k, mask)) : _mm256_setzero_ps();
      for (int j = 0; j < 6; ++j) {
        __m256 col[6], o[4];
        for (int i = 0; i < 6; ++i) col[i] = _mm256_loadu_ps(mr + (i * 6 + j) * pos_stride + k);
        output_1d(col, o);
        for (int i = 0; i < 4; ++i) tmp[i][j] = o[i];
      }
      for (int i = 0; i < 4; ++i) {
        __m256 o[4];
        output_1d(tmp[i], o);
        for (int j = 0; j < 4; ++j) {
          float* dst = acc + (i * kOut + j) * g.oc + k;
          const __m256 val = _mm256_add_ps(o[j], b);
          if (lanes == kLanes)
            _mm256_storeu_ps(dst, val);
          else
            _mm256_maskstore_ps(dst, mask, val);
        }
      }
    }
    const int64_t x0 = at.tx * kOut, nx = std::min(kOut, g.ow - x0);
    for (int64_t i = 0; i < kOut && at.ty * kOut + i < g.oh; ++i) {
      const int64_t o = (((at.img * g.od + at.z) * g.oh + at.ty * kOut + i) * g.ow + x0) * g.oc;
      if (k0 == 0 && k1 == g.oc) {
        if (residual) std::memcpy(y + o, residual + o, static_cast<size_t>(nx * g.oc) * sizeof(float));
        finish_row_f32(acc + i * kOut * g.oc, nullptr, epilogue, nx * g.oc, y + o);
        continue;
      }
      for (int64_t xx = 0; xx < nx; ++xx) {
        const int64_t at_px = o + xx * g.oc + k0;
        if (residual) std::memcpy(y + at_px, residual + at_px, static_cast<size_t>(k1 - k0) * sizeof(float));
        finish_row_f32(acc + (i * kOut + xx) * g.oc + k0, nullptr, epilogue, k1 - k0, y + at_px);
      }
    }
  }
}

#endif

}  // namespace

bool WinogradConv::suits(const Tensor& weight, const ConvArgs& args) {
#ifdef JITCTL_HAVE_AVX2_WINOGRAD
  // JITCTL_WINOGRAD=0 keeps 3x3 layers on direct kernels; JITCTL_OWN_WINOGRAD=0 on oneDNN's
  // (its Winograd kernel on AVX-512), to compare with this one.
  static const bool on = !switched_off("JITCTL_WINOGRAD") && !switched_off("JITCTL_OWN_WINOGRAD");
  if (!on || cpu_features().isa == Isa::Generic) return false;
  if (args.transposed || args.groups != 1 || weight.dtype() != DType::Float32 || weight.numel() == 0) return false;
  if (weight.dim() != 4 && weight.dim() != 5) return false;
  if (weight.sizes()[weight.dim() - 2] != 3 || weight.sizes()[weight.dim() - 1] != 3) return false;
  for (auto s : args.stride)
    if (s != 1) return false;
  for (auto d : args.dilation)
    if (d != 1) return false;
  return true;
#else
  (void)weight, (void)args;
  return false;
#endif
}

WinogradConv::WinogradConv(const Tensor& weight, const Tensor& bias, Epilogue epilogue)
    : bias_(bias.defined() ? contiguous(bias) : Tensor()),
      epilogue_(std::move(epilogue)),
      oc_(weight.sizes()[0]),
      ic_(weight.sizes()[1]),
      kd_(weight.dim() == 5 ? weight.sizes()[2] : 1),
      oc_padded_(round_up(weight.sizes()[0], kNr)),
      add_(has_residual(epilogue_)),
      weight_(weight) {}

const float* WinogradConv::transformed() const {
  std::call_once(transformed_once_, [&] { transform_weights(); });
  return u_.get();
}

void WinogradConv::transform_weights() const {
  const Tensor wc = contiguous(weight_);
  const float* w = static_cast<const float*>(wc.data());
  const int64_t panels = oc_padded_ / kNr, c8 = round_up(ic_, kLanes), krow = kd_ * c8;
  const size_t floats = static_cast<size_t>(kPos * panels * krow * kNr);
  u_.reset(static_cast<float*>(::operator new[](floats * sizeof(float), std::align_val_t{64})));
  float* u = u_.get();
  // Panel by panel on the team (a model's first call transforms every such layer's weights:
  // 14% of ResNet-18's `jitctl run` on one thread), each zeroing and writing its own columns.
  parallel_for(0, panels, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t pn = p0; pn < p1; ++pn) {
      for (int64_t pos = 0; pos < kPos; ++pos) std::fill_n(u + (pos * panels + pn) * krow * kNr, krow * kNr, 0.0f);
      for (int64_t o = pn * kNr; o < std::min(oc_, (pn + 1) * kNr); ++o)
        for (int64_t c = 0; c < ic_; ++c)
          for (int64_t q = 0; q < kd_; ++q) {
            const float* f = w + ((o * ic_ + c) * kd_ + q) * 9;
            double gf[6][3];  // G g
            for (int i = 0; i < 6; ++i)
              for (int b = 0; b < 3; ++b) gf[i][b] = kG[i][0] * f[b] + kG[i][1] * f[3 + b] + kG[i][2] * f[6 + b];
            for (int i = 0; i < 6; ++i)
              for (int j = 0; j < 6; ++j) {
                const double val = gf[i][0] * kG[j][0] + gf[i][1] * kG[j][1] + gf[i][2] * kG[j][2];
                u[((i * 6 + j) * panels + pn) * krow * kNr + (q * c8 + c) * kNr + o % kNr] = static_cast<float>(val);
              }
          }
    }
  });
}

bool WinogradConv::takes(const Tensor& input, const Tensor& residual, const ConvParams& p) const {
  if (p.spatial_dims != (kd_ == 1 && input.dim() == 4 ? 2u : 3u) || p.c != ic_ || p.oc != oc_ || !dense_channels_last(input)) return false;
  if (p.spatial_dims == 3 && (p.kd != kd_ || p.sd != 1 || p.dd != 1)) return false;
  if (p.oh < kMinOutSide || p.ow < kMinOutSide || p.c < kMinChannels || p.oc < kMinChannels) return false;
  if (p.n * p.od * ceil_div(p.oh, kOut) * ceil_div(p.ow, kOut) < kMinTiles) return false;
  const double flops = 2.0 * static_cast<double>(p.n * p.oc * p.od * p.oh * p.ow) * static_cast<double>(p.c * kd_ * 9);
  if (flops < kMinFlops) return false;
  if (!add_) return true;
  return residual.defined() && dense_channels_last(residual) && residual.sizes() == p.out_sizes;
}

void WinogradConv::run(const Tensor& input, const Tensor& residual, const ConvParams& p, Tensor& out) const {
#ifdef JITCTL_HAVE_AVX2_WINOGRAD
  const bool three_d = p.spatial_dims == 3;
  Geometry g{p.n, three_d ? p.d : 1, p.h, p.w, p.c, p.oc, three_d ? p.od : 1, p.oh, p.ow, three_d ? p.pd : 0, p.ph, p.pw, kd_,
             ceil_div(p.oh, kOut), ceil_div(p.ow, kOut), 0, round_up(p.c, kLanes), 0, oc_padded_};
  g.tiles = g.n * g.od * g.th * g.tw;
  g.krow = g.kd * g.c8;
  const float* u = transformed();
  const float* x = static_cast<const float*>(input.data());
  float* y = static_cast<float*>(out.mutable_data());
  // The residual is copied in tile by tile unless the output is the residual itself.
  const float* res = add_ && residual.data() != out.data() ? static_cast<const float*>(residual.data()) : nullptr;
  const float* bias = bias_.defined() ? static_cast<const float*>(bias_.data()) : nullptr;
  const int64_t per_tile = kPos * static_cast<int64_t>(sizeof(float)) * (g.krow + g.kpad);
  // Each block of tiles reads all the transformed weights (36 x krow x kpad floats). Those of a
  // 512-channel layer (37.7 MB) come from memory, and reading them once per block of 6 tiles made
  // WRN-50-2's 14x14 layers no faster than the direct kernel: with weights past kBigWeightBytes
  // the block grows to a quarter of their bytes (in the model 6.6 -> 4.9-5.1 ms a layer, 1
  // thread). Smaller weights stay in L3 between blocks, and there the larger blocks, whose
  // scratch leaves L2, were slower (256 channels on 28x28 3.0 -> 3.6 ms; on 14x14 1.19 -> 1.35).
  const int64_t weight_bytes = kPos * g.krow * g.kpad * static_cast<int64_t>(sizeof(float));
  const int64_t budget = weight_bytes > kBigWeightBytes ? std::max(kBlockBytes, weight_bytes / 4) : kBlockBytes;
  const int64_t max_rows = std::max(kMr, budget / per_tile / kMr * kMr);
  const SmallWorkOnOneThread small(2.0 * static_cast<double>(g.tiles * kPos) * static_cast<double>(g.krow * g.oc));
  // Weights far larger than the transformed inputs (deep layers on small images: a 14x14 image
  // has 16 tiles): split over the threads by output channels, each thread transforming all the
  // inputs and reading its share of the weights. Split by tiles, every thread read all the
  // weights: two threads ran WRN-50-2's 14x14 512-channel layer in 3.8 ms against 5.2 on one
  // (1.9 split by channels), ResNet's 14x14 256-channel one 0.55 against 0.81 (0.44). Where the
  // inputs weigh more (ResNet's 28x28 128-channel layer, SqueezeNet's 55x55), the duplicated
  // transforms cost more than the weights saved (0.38 -> 0.47 ms): kWeightsOverInputs.
  const int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  const int64_t panels = g.kpad / kNr;
  const int64_t input_bytes = kPos * g.tiles * g.krow * static_cast<int64_t>(sizeof(float));
  const bool by_channels = threads > 1 && panels >= 2 * threads && weight_bytes >= kWeightsOverInputs * input_bytes;
  parallel_for(0, by_channels ? panels : g.tiles, by_channels ? 1 : kMr, [&](int64_t i_begin, int64_t i_end) {
    const int64_t t_begin = by_channels ? 0 : i_begin, t_end = by_channels ? g.tiles : i_end;
    const int64_t pn0 = by_channels ? i_begin : 0, pn1 = by_channels ? i_end : panels;
    const int64_t k0 = pn0 * kNr, k1 = std::min(g.oc, pn1 * kNr);
    const int64_t rows = std::min(max_rows, round_up(t_end - t_begin, kMr));
    auto* v = static_cast<float*>(scratch_buffer(ScratchSlot::ConvSrc, static_cast<size_t>(kPos * rows * g.krow) * sizeof(float)));
    auto* m = static_cast<float*>(scratch_buffer(ScratchSlot::ConvDst, static_cast<size_t>(kPos * rows * g.kpad) * sizeof(float)));
    auto* acc = static_cast<float*>(scratch_buffer(ScratchSlot::ConvAcc, static_cast<size_t>(kOut * kOut * g.oc) * sizeof(float)));
    for (int64_t t0 = t_begin; t0 < t_end; t0 += rows) {
      const int64_t count = std::min(rows, t_end - t0), rows_pad = round_up(count, kMr);
      // Rows past the block's tiles feed register-tile rows nobody reads; zero keeps them finite.
      for (int64_t pos = 0; pos < kPos; ++pos)
        std::fill(v + (pos * rows_pad + count) * g.krow, v + (pos + 1) * rows_pad * g.krow, 0.0f);
      transform_inputs(x, g, t0, count, rows_pad, v);
      multiply_positions(v, u, g, rows_pad, m, pn0, pn1);
      transform_outputs(m, g, t0, count, rows_pad, bias, epilogue_, res, y, acc, k0, k1);
    }
  });
#else
  (void)input, (void)residual, (void)p, (void)out;
#endif
}

}  // namespace jitctl::cpu
