// Matrix products: float32 on oneDNN's sgemm (OpenBLAS's for large ones on AVX2), float64 on
// OpenBLAS's dgemm (oneDNN has none), both with kernels chosen for the CPU at run time. Products
// too small to amortize a BLAS call (its argument checks and packing cost about a microsecond)
// run as plain loops.
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/dnnl_util.h"
#include "kernels/cpu/small_gemm.h"

#include <cblas.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <limits>
#include <type_traits>

#include <omp.h>

namespace jitctl::cpu {
namespace {

// How BLAS reads one operand: row-major as stored (NoTrans), or the transpose of a row-major
// matrix (a column-major view). A size-1 dimension's stride does not matter, so it is given the
// leading dimension BLAS requires. `ok` is false for layouts BLAS cannot express (rows that
// overlap, as an expanded operand's stride-0 rows do).
struct BlasOperand {
  CBLAS_TRANSPOSE trans = CblasNoTrans;
  int64_t ld = 1;
  bool ok = false;
};

template <class T>
BlasOperand blas_operand(const MatRef<T>& m) {
  const int64_t rows = std::max<int64_t>(m.rows, 1), cols = std::max<int64_t>(m.cols, 1);
  if (m.cs == 1 || m.cols <= 1) {
    const int64_t ld = m.rows <= 1 ? cols : m.rs;
    if (ld >= cols) return {CblasNoTrans, ld, true};
  }
  if (m.rs == 1 || m.rows <= 1) {
    const int64_t ld = m.cols <= 1 ? rows : m.cs;
    if (ld >= rows) return {CblasTrans, ld, true};
  }
  return {};
}

// Below this many multiply-adds a plain loop beats the library call.
constexpr int64_t kSmallProduct = 4096;
// Below this many, small_gemm.h's kernel on one thread beats the library on the whole team.
constexpr int64_t kSmallSerialProduct = int64_t{1} << 16;

template <class T>
void small_gemm(const MatRef<T>& a, const MatRef<T>& b, T* c, int64_t ldc, T alpha, T beta) {
  for (int64_t i = 0; i < a.rows; ++i) {
    T* crow = c + i * ldc;
    for (int64_t j = 0; j < b.cols; ++j) crow[j] = beta == T(0) ? T(0) : beta * crow[j];
    for (int64_t p = 0; p < a.cols; ++p) {
      const T av = alpha * a.data[i * a.rs + p * a.cs];
      const T* brow = b.data + p * b.rs;
      for (int64_t j = 0; j < b.cols; ++j) crow[j] += av * brow[j * b.cs];
    }
  }
}

// float32 on AVX-512: oneDNN's sgemm, at least as fast as OpenBLAS's on every shape measured
// here, and much faster at 2 threads. On AVX2, products of 2^24 multiply-adds and more go to
// OpenBLAS, whose Haswell kernel reached 251 GFLOP/s on 1024x1024 at 2 threads where oneDNN's
// reached 235; smaller ones (the attention heads' 128x128x32) stay on oneDNN, about 1% faster
// there end to end (README's dependency table).
void blas_gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k, float alpha, const float* a, blasint lda,
               const float* b, blasint ldb, float beta, float* c, blasint ldc) {
  dnnl_engine();  // applies JITCTL_ISA's cap before oneDNN's first use
  const SmallWorkOnOneThread small(2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k));
  if (cpu_features().isa == Isa::Avx2 && static_cast<double>(m) * n * k >= 0x1p24)
    return cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  dnnl_sgemm(ta == CblasTrans ? 'T' : 'N', tb == CblasTrans ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void blas_gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k, double alpha, const double* a, blasint lda,
               const double* b, blasint ldb, double beta, double* c, blasint ldc) {
  cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace

template <class T>
void gemm(const MatRef<T>& a, const MatRef<T>& b, T* c, int64_t ldc, T alpha, T beta) {
  const int64_t m = a.rows, n = b.cols, k = a.cols;
  if (m == 0 || n == 0) return;
  if (k == 0 || alpha == T(0)) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == T(0) ? T(0) : beta * c[i * ldc + j];
    return;
  }
  if constexpr (std::is_same_v<T, float>) {
    // One thread's small product (a batch or head loop runs them inside its parallel region), or
    // one too small to split: small_gemm.h. Larger ones outside a region go to the library, which
    // splits them over the team.
    const int64_t macs = m * n * k;
    if (macs > kSmallProduct && small_sgemm_takes(a, b) && (omp_in_parallel() || omp_get_max_threads() == 1 || macs <= kSmallSerialProduct))
      return small_sgemm(a, b, c, ldc, alpha, beta);
  }
  const BlasOperand oa = blas_operand(a), ob = blas_operand(b);
  constexpr int64_t kMaxBlas = std::numeric_limits<blasint>::max();
  if (m * n * k <= kSmallProduct || !oa.ok || !ob.ok || ldc < n || std::max({m, n, k, oa.ld, ob.ld, ldc}) > kMaxBlas)
    return small_gemm(a, b, c, ldc, alpha, beta);
  blas_gemm(oa.trans, ob.trans, static_cast<blasint>(m), static_cast<blasint>(n), static_cast<blasint>(k), alpha, a.data,
            static_cast<blasint>(oa.ld), b.data, static_cast<blasint>(ob.ld), beta, c, static_cast<blasint>(ldc));
}

template void gemm<float>(const MatRef<float>&, const MatRef<float>&, float*, int64_t, float, float);
template void gemm<double>(const MatRef<double>&, const MatRef<double>&, double*, int64_t, double, double);

}  // namespace jitctl::cpu
