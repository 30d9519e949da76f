#pragma once
// Matrix products for the neural-network kernels over our own buffers (no copies when one stride
// of each operand is 1): float32 on oneDNN's sgemm, float64 on OpenBLAS's dgemm. Both split one
// large product over the OpenMP team and run serially when called inside a parallel region, so
// callers that already parallelize over a batch get one GEMM per thread.
#include <cstdint>

#include "lib/core/tensor.h"

namespace jitctl::cpu {

// Element (i, j) at data[i * rs + j * cs].
template <class T>
struct MatRef {
  const T* data;
  int64_t rows, cols, rs, cs;
};

// Row-major rows x cols matrix with leading dimension ld.
template <class T>
MatRef<T> row_major(const T* data, int64_t rows, int64_t cols, int64_t ld) {
  return {data, rows, cols, ld, 1};
}
// The transpose of a view (no copy).
template <class T>
MatRef<T> transposed(const MatRef<T>& m) {
  return {m.data, m.cols, m.rows, m.cs, m.rs};
}

// Whether gemm() can read `m` in place: one of its strides is 1 (ignoring size-1 dims).
template <class T>
bool gemm_readable(const MatRef<T>& m) {
  return m.cs == 1 || m.rs == 1 || m.rows <= 1 || m.cols <= 1;
}

// C = alpha * A * B + beta * C, C row-major with leading dimension ldc. beta == 0 ignores what C
// holds (NaN included). A and B must be gemm_readable.
template <class T>
void gemm(const MatRef<T>& a, const MatRef<T>& b, T* c, int64_t ldc, T alpha, T beta);

extern template void gemm<float>(const MatRef<float>&, const MatRef<float>&, float*, int64_t, float, float);
extern template void gemm<double>(const MatRef<double>&, const MatRef<double>&, double*, int64_t, double, double);

// The view of a 2-D tensor (its strides as they are; check gemm_readable).
template <class T>
MatRef<T> mat_of(const Tensor& t) {
  return {static_cast<const T*>(t.data()), t.sizes()[0], t.sizes()[1], t.strides()[0], t.strides()[1]};
}

}  // namespace jitctl::cpu
