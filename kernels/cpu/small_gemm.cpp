#include "kernels/cpu/small_gemm.h"

#include <algorithm>
#include <cstring>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/isa_dispatch.h"
#include "kernels/cpu/scratch.h"
#include "kernels/cpu/transpose8x8.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define JITCTL_HAVE_SMALL_GEMM 1
#endif

namespace jitctl::cpu {
namespace {

constexpr int64_t kMr = 6, kNr = 16;
// Above this many multiply-adds oneDNN's call overhead is a few percent and its cache blocking
// and threading win.
constexpr int64_t kMaxProduct = int64_t{1} << 20;
constexpr int64_t kMaxPackedB = 16384;  // floats: B's padded copy stays within 64 KB

int64_t round_up(int64_t a, int64_t b) { return (a + b - 1) / b * b; }

#ifdef JITCTL_HAVE_SMALL_GEMM

// bp[kk * ldb + j] = b(kk, j) for j < n, zeros up to ldb. A transposed view (b.rs == 1, each of
// B's columns contiguous) goes through 8x8 transposes.
JITCTL_TARGET_AVX2 void copy_b(const MatRef<float>& b, float* bp, int64_t ldb) {
  const int64_t k = b.rows, n = b.cols;
  for (int64_t kk = 0; kk < k; ++kk) std::fill(bp + kk * ldb + n, bp + (kk + 1) * ldb, 0.0f);
  if (b.cs == 1 || n == 1) {
    for (int64_t kk = 0; kk < k; ++kk) std::memcpy(bp + kk * ldb, b.data + kk * b.rs, static_cast<size_t>(n) * sizeof(float));
    return;
  }
  int64_t j0 = 0;
  if (b.rs == 1) {
    for (; j0 + 8 <= n; j0 += 8) {
      int64_t k0 = 0;
      for (; k0 + 8 <= k; k0 += 8) {
        __m256 v[8];
        for (int r = 0; r < 8; ++r) v[r] = _mm256_loadu_ps(b.data + (j0 + r) * b.cs + k0);
        transpose8x8(v);
        for (int r = 0; r < 8; ++r) _mm256_storeu_ps(bp + (k0 + r) * ldb + j0, v[r]);
      }
      for (; k0 < k; ++k0)
        for (int64_t j = j0; j < j0 + 8; ++j) bp[k0 * ldb + j] = b.data[j * b.cs + k0];
    }
  }
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t j = j0; j < n; ++j) bp[kk * ldb + j] = b.data[kk * b.rs + j * b.cs];
}

// c[0:MR, 0:cols] = alpha * a[0:MR, :] · bp[:, 0:8 NV] (+ beta * c): a's rows lda apart, bp's ldb.
// NV = 1 serves a last column block of 8 or fewer (Swin's 49 = 3 x 16 + 1), at half the cost.
template <int MR, int NV>
JITCTL_TARGET_AVX2 void tile(const float* a, int64_t lda, const float* bp, int64_t ldb, int64_t k, float* c, int64_t ldc, int64_t cols,
                             float alpha, float beta) {
  // Every loop over the rows unrolled: with one left rolled, GCC kept the accumulators on the stack.
  __m256 acc[MR][NV];
#pragma GCC unroll 6
  for (int i = 0; i < MR; ++i)
    for (int v = 0; v < NV; ++v) acc[i][v] = _mm256_setzero_ps();
  for (int64_t kk = 0; kk < k; ++kk) {
    __m256 bv[NV];
    for (int v = 0; v < NV; ++v) bv[v] = _mm256_loadu_ps(bp + kk * ldb + 8 * v);
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
      const __m256 ai = _mm256_broadcast_ss(a + i * lda + kk);
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm256_fmadd_ps(ai, bv[v], acc[i][v]);
    }
  }
  const __m256 va = _mm256_set1_ps(alpha);
#pragma GCC unroll 6
  for (int i = 0; i < MR; ++i) {
    float* ci = c + i * ldc;
    if (cols == 8 * NV) {
      for (int v = 0; v < NV; ++v) {
        __m256 r = _mm256_mul_ps(va, acc[i][v]);
        if (beta != 0.0f) r = _mm256_fmadd_ps(_mm256_set1_ps(beta), _mm256_loadu_ps(ci + 8 * v), r);
        _mm256_storeu_ps(ci + 8 * v, r);
      }
    } else {
      alignas(32) float t[8 * NV];
      for (int v = 0; v < NV; ++v) _mm256_store_ps(t + 8 * v, _mm256_mul_ps(va, acc[i][v]));
      for (int64_t j = 0; j < cols; ++j) ci[j] = beta != 0.0f ? t[j] + beta * ci[j] : t[j];
    }
  }
}

template <int NV>
JITCTL_TARGET_AVX2 void column_block(const float* a, int64_t lda, int64_t m, const float* bp, int64_t ldb, int64_t k, float* c, int64_t ldc,
                                     int64_t cols, float alpha, float beta) {
  for (int64_t i0 = 0; i0 < m; i0 += kMr) {
    const float* ai = a + i0 * lda;
    float* ci = c + i0 * ldc;
    switch (std::min(kMr, m - i0)) {
      case 6: tile<6, NV>(ai, lda, bp, ldb, k, ci, ldc, cols, alpha, beta); break;
      case 5: tile<5, NV>(ai, lda, bp, ldb, k, ci, ldc, cols, alpha, beta); break;
      case 4: tile<4, NV>(ai, lda, bp, ldb, k, ci, ldc, cols, alpha, beta); break;
      case 3: tile<3, NV>(ai, lda, bp, ldb, k, ci, ldc, cols, alpha, beta); break;
      case 2: tile<2, NV>(ai, lda, bp, ldb, k, ci, ldc, cols, alpha, beta); break;
      default: tile<1, NV>(ai, lda, bp, ldb, k, ci, ldc, cols, alpha, beta); break;
    }
  }
}

JITCTL_TARGET_AVX2 void run(const MatRef<float>& a_in, const MatRef<float>& b, float* c, int64_t ldc, float alpha, float beta) {
  const int64_t m = a_in.rows, k = a_in.cols, n = b.cols, ldb = round_up(n, kNr);
  const bool a_in_place = a_in.cs == 1 || k == 1;
  auto* bp = static_cast<float*>(scratch_buffer(ScratchSlot::SmallGemm, static_cast<size_t>(k * ldb + (a_in_place ? 0 : m * k)) * sizeof(float)));
  copy_b(b, bp, ldb);
  const float* a = a_in.data;
  int64_t lda = a_in.rs;
  if (!a_in_place) {
    float* ap = bp + k * ldb;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t kk = 0; kk < k; ++kk) ap[i * k + kk] = a_in.data[i * a_in.rs + kk * a_in.cs];
    a = ap;
    lda = k;
  }
  for (int64_t j0 = 0; j0 < n; j0 += kNr) {
    const int64_t cols = std::min(kNr, n - j0);
    if (cols > 8)
      column_block<2>(a, lda, m, bp + j0, ldb, k, c + j0, ldc, cols, alpha, beta);
    else
      column_block<1>(a, lda, m, bp + j0, ldb, k, c + j0, ldc, cols, alpha, beta);
  }
}

#endif

}  // namespace

bool small_sgemm_takes(const MatRef<float>& a, const MatRef<float>& b) {
#ifdef JITCTL_HAVE_SMALL_GEMM
  static const bool on = !switched_off("JITCTL_SMALL_GEMM");
  const int64_t m = a.rows, k = a.cols, n = b.cols;
  return on && cpu_features().isa != Isa::Generic && m > 0 && n > 0 && k > 0 && m * n * k <= kMaxProduct &&
         k * round_up(n, kNr) <= kMaxPackedB;
#else
  (void)a, (void)b;
  return false;
#endif
}

void small_sgemm(const MatRef<float>& a, const MatRef<float>& b, float* c, int64_t ldc, float alpha, float beta) {
#ifdef JITCTL_HAVE_SMALL_GEMM
  run(a, b, c, ldc, alpha, beta);
#else
  (void)a, (void)b, (void)c, (void)ldc, (void)alpha, (void)beta;
#endif
}

}  // namespace jitctl::cpu
