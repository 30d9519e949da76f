#include "kernels/cpu/avx2_gemm.h"

#include <algorithm>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/gemv.h"
#include "kernels/cpu/isa_dispatch.h"
#include "kernels/cpu/scratch.h"
#include "kernels/cpu/transpose8x8.h"
#include "kernels/parallel.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define JITCTL_HAVE_AVX2_GEMM 1
#endif

namespace jitctl::cpu {
namespace {

constexpr int64_t kMr = 6;    // rows of the register tile
constexpr int64_t kNr = 16;   // columns of the register tile: two ymm
// K slice: one panel's slice (8 KB) stays in L1 across the row blocks. 128 against 256: 4.7 against
// 5.0 ms on the MLP's 64x1024 -> 4096 layer (AVX2, one thread); 64 and 192 no better.
constexpr int64_t kKc = 128;
constexpr int64_t kPanelsPerGroup = 8;  // at most 128 columns finished together, while still in cache
// Rows per unit of work. Each tile prefetches a share of the next panel slice while it runs, so
// that the weights, which come from memory in a model, are in L1 when the next slice starts; with
// at most 12 tiles a chunk each share is 11 or more lines and the stream keeps ahead. The earlier
// rule, chunks of up to 192 rows and no prefetch above 72 (where it had cost more than it saved),
// left ViT-B/16's 197-row layers as two chunks of 102 rows waiting on their weights. kernel_bench,
// AVX2, one thread, median of five interleaved runs' fastest: 197x768 -> 3072 10.34 -> 9.92 ms,
// 197x3072 -> 768 10.27 -> 9.83, 197x768 -> 2304 7.67 -> 7.48; the MLP, encoder and ConvNeXt
// cases within 2%. Whole ViT-B/16 (jitctl bench, six alternating rounds): p50 479.6 -> 454.9 ms.
constexpr int64_t kMaxChunkRows = 72;

#ifdef JITCTL_HAVE_AVX2_GEMM

// c[0:MR, 0:16] (+)= a · b over kc: a packed [kc][6], b packed [kc][16], c rows ldc apart. While
// it runs, it prefetches `pf_lines` lines of `pf` (a part of the next panel slice, which would
// otherwise come from memory while the first row block waits on it). The k step stays a lambda:
// written out in the loop's body, GCC 12 made code 10-20% slower on the same shapes.
template <int MR>
JITCTL_TARGET_AVX2 void tile(const float* __restrict a, const float* __restrict b, int64_t kc, float* __restrict c, int64_t ldc, bool accumulate,
                             const float* pf, int64_t pf_lines) {
  __m256 lo[MR], hi[MR];
#pragma GCC unroll 6
  for (int i = 0; i < MR; ++i) {
    lo[i] = accumulate ? _mm256_loadu_ps(c + i * ldc) : _mm256_setzero_ps();
    hi[i] = accumulate ? _mm256_loadu_ps(c + i * ldc + 8) : _mm256_setzero_ps();
  }
  const auto step = [&](int64_t k) JITCTL_TARGET_AVX2 {
    const __m256 b0 = _mm256_loadu_ps(b + k * kNr), b1 = _mm256_loadu_ps(b + k * kNr + 8);
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
      const __m256 ai = _mm256_broadcast_ss(a + k * kMr + i);
      lo[i] = _mm256_fmadd_ps(ai, b0, lo[i]);
      hi[i] = _mm256_fmadd_ps(ai, b1, hi[i]);
    }
  };
  const int64_t with_pf = std::min(kc, pf_lines);
  for (int64_t k = 0; k < with_pf; ++k) {
    _mm_prefetch(reinterpret_cast<const char*>(pf + k * kNr), _MM_HINT_T0);
    step(k);
  }
#pragma GCC unroll 2
  for (int64_t k = with_pf; k < kc; ++k) step(k);
#pragma GCC unroll 6
  for (int i = 0; i < MR; ++i) {
    _mm256_storeu_ps(c + i * ldc, lo[i]);
    _mm256_storeu_ps(c + i * ldc + 8, hi[i]);
  }
}

// dst[kk * 6 + i] = src[i * ld + kk] for i < mr, kk < kc; rows mr..5 zero. Eight k at a time: the
// six rows' 8-float loads (two zero rows added) transposed, each k's 8 lanes stored over the next
// k's first two, the last k's six lanes stored as 4 + 2 (the next floats belong to another block,
// maybe another thread's). Scalar, this was 10% of the encoder's time at two threads.
JITCTL_TARGET_AVX2 void pack_rows(const float* src, int64_t ld, int64_t mr, int64_t kc, float* dst) {
  int64_t kk = 0;
  for (; kk + 8 <= kc; kk += 8) {
    __m256 v[8];
    for (int i = 0; i < 8; ++i) v[i] = i < mr ? _mm256_loadu_ps(src + i * ld + kk) : _mm256_setzero_ps();
    transpose8x8(v);
    float* d = dst + kk * kMr;
    for (int j = 0; j < 7; ++j) _mm256_storeu_ps(d + j * kMr, v[j]);
    _mm_storeu_ps(d + 7 * kMr, _mm256_castps256_ps128(v[7]));
    _mm_storel_pi(reinterpret_cast<__m64*>(d + 7 * kMr + 4), _mm256_extractf128_ps(v[7], 1));
  }
  for (; kk < kc; ++kk)
    for (int64_t i = 0; i < kMr; ++i) dst[kk * kMr + i] = i < mr ? src[i * ld + kk] : 0.0f;
}

void tile_rows(int64_t mr, const float* a, const float* b, int64_t kc, float* c, int64_t ldc, bool accumulate, const float* pf, int64_t pf_lines) {
  switch (mr) {
    case 6: return tile<6>(a, b, kc, c, ldc, accumulate, pf, pf_lines);
    case 5: return tile<5>(a, b, kc, c, ldc, accumulate, pf, pf_lines);
    case 4: return tile<4>(a, b, kc, c, ldc, accumulate, pf, pf_lines);
    case 3: return tile<3>(a, b, kc, c, ldc, accumulate, pf, pf_lines);
    case 2: return tile<2>(a, b, kc, c, ldc, accumulate, pf, pf_lines);
    default: return tile<1>(a, b, kc, c, ldc, accumulate, pf, pf_lines);
  }
}

#endif

}  // namespace

// The panels are spread over the fewest groups of at most 8 as evenly as whole panels allow (192
// columns: two groups of 96, not 128 and 64, which gave one of two threads twice the other's work:
// ConvNeXt-T's 768 -> 192 layer ran at 1.26x its one-thread speed at two threads). kernel_bench
// packed_linear_convnext_784x768_192, two threads, six alternating runs: 1.73-2.47 -> 1.31-2.41 ms.
// An even number of groups when there are several: with few rows (one chunk) each group is a
// unit of work, and three groups on two threads (384 columns: Inception-v3's 8x8 layers through
// Im2colConv) left one thread a third of the work idle.
Avx2PackedWeight::Avx2PackedWeight(const float* w, int64_t n, int64_t k) : n_(n), k_(k) {
  const int64_t panels = ceil_div(n, kNr);
  int64_t groups = std::max<int64_t>(1, ceil_div(panels, kPanelsPerGroup));
  if (groups > 1 && groups % 2 == 1 && groups < panels) ++groups;
  group_panels_ = ceil_div(panels, groups);
  const size_t floats = static_cast<size_t>(panels * k * kNr);
  panels_.reset(static_cast<float*>(::operator new[](floats * sizeof(float), std::align_val_t{64})));
  std::fill(panels_.get(), panels_.get() + floats, 0.0f);
  for (int64_t p = 0; p < panels; ++p)
    for (int64_t k0 = 0; k0 < k; k0 += kKc) {
      float* dst = slice(p, k0);
      for (int64_t j = p * kNr; j < std::min(n, (p + 1) * kNr); ++j) {
        const float* row = w + j * k + k0;
        for (int64_t i = 0; i < std::min(kKc, k - k0); ++i) dst[i * kNr + (j - p * kNr)] = row[i];
      }
    }
}

float* Avx2PackedWeight::slice(int64_t p, int64_t k0) const {
  const int64_t p0 = p / group_panels_ * group_panels_, in_group = std::min(ceil_div(n_, kNr), p0 + group_panels_) - p0;
  return panels_.get() + p0 * k_ * kNr + k0 * in_group * kNr + (p - p0) * std::min(kKc, k_ - k0) * kNr;
}

bool Avx2PackedWeight::preferred() {
#ifdef JITCTL_HAVE_AVX2_GEMM
  static const bool on = !switched_off("JITCTL_AVX2_GEMM");
  return on && cpu_features().isa == Isa::Avx2;
#else
  return false;
#endif
}

void Avx2PackedWeight::multiply(const float* x, int64_t rows, int64_t ld, const float* bias, const Epilogue& epilogue, float* out,
                                int64_t ldo) const {
#ifdef JITCTL_HAVE_AVX2_GEMM
  if (rows <= 0) return;
  // x packed by K slice, then row block: [k0 / kKc][row block][kc][6]. The tile's six broadcasts
  // per k read one line, and a row chunk's part of a slice, which every panel of the group reads
  // again from L2, is one sequential stream.
  const int64_t blocks = ceil_div(rows, kMr);
  auto* packed = static_cast<float*>(scratch_buffer(ScratchSlot::Linear, static_cast<size_t>(blocks * k_ * kMr) * sizeof(float)));
  const auto packed_at = [&](int64_t blk, int64_t k0) { return packed + (k0 * blocks + blk * std::min(kKc, k_ - k0)) * kMr; };
  parallel_for(0, blocks, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, k_ * kMr)), [&](int64_t b0, int64_t b1) {
    for (int64_t blk = b0; blk < b1; ++blk)
      for (int64_t k0 = 0; k0 < k_; k0 += kKc)
        pack_rows(x + blk * kMr * ld + k0, ld, std::min(kMr, rows - blk * kMr), std::min(kKc, k_ - k0), packed_at(blk, k0));
  });

  // Units of work: (column group, row chunk). With fewer groups than threads, the rows are cut
  // into more chunks so that every thread has work.
  const int64_t group_cols = group_panels_ * kNr, groups = ceil_div(n_, group_cols);
  const int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  const int64_t want_chunks = std::max<int64_t>(ceil_div(rows, kMaxChunkRows), ceil_div(threads, groups));
  const int64_t chunk_rows = std::max<int64_t>(kMr, ceil_div(ceil_div(rows, want_chunks), kMr) * kMr);
  const int64_t chunks = ceil_div(rows, chunk_rows);
  parallel_for(0, groups * chunks, 1, [&](int64_t u0, int64_t u1) {
    auto* acc = static_cast<float*>(scratch_buffer(ScratchSlot::GemmTile, static_cast<size_t>(chunk_rows * group_cols) * sizeof(float)));
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t g = u / chunks, ch = u % chunks;
      const int64_t r0 = ch * chunk_rows, r1 = std::min(rows, r0 + chunk_rows);
      const int64_t p0 = g * group_panels_, p1 = std::min(ceil_div(n_, kNr), p0 + group_panels_);
      for (int64_t k0 = 0; k0 < k_; k0 += kKc) {
        const int64_t kc = std::min(kKc, k_ - k0);
        for (int64_t p = p0; p < p1; ++p) {
          const float* b = slice(p, k0);
          // The slice after this one: the next panel's, or the group's first at the next k0.
          const int64_t np = p + 1 < p1 ? p + 1 : p0, nk0 = p + 1 < p1 ? k0 : k0 + kKc;
          const float* next = nk0 < k_ ? slice(np, nk0) : nullptr;
          const int64_t next_lines = next ? std::min(kKc, k_ - nk0) : 0;  // one 64-byte line per k
          const int64_t tiles = ceil_div(r1 - r0, kMr), per_tile = ceil_div(next_lines, tiles);
          for (int64_t r = r0, t = 0; r < r1; r += kMr, ++t) {
            const int64_t pf0 = std::min(next_lines, t * per_tile);
            tile_rows(std::min(kMr, r1 - r), packed_at(r / kMr, k0), b, kc, acc + (r - r0) * group_cols + (p - p0) * kNr, group_cols, k0 > 0,
                      next ? next + pf0 * kNr : nullptr, std::min(per_tile, next_lines - pf0));
          }
        }
      }
      const int64_t c0 = g * group_cols, c1 = std::min(n_, c0 + group_cols);
      for (int64_t r = r0; r < r1; ++r) finish_row_f32(acc + (r - r0) * group_cols, bias ? bias + c0 : nullptr, epilogue, c1 - c0, out + r * ldo + c0);
    }
  });
#else
  (void)x, (void)rows, (void)ld, (void)bias, (void)epilogue, (void)out, (void)ldo;
#endif
}

}  // namespace jitctl::cpu
