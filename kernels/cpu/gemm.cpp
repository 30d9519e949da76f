#include "kernels/cpu/gemm.h"

#include <Eigen/Core>

namespace jitctl::cpu {
namespace {

template <class T, int Order>
using ConstMap = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Order>, 0, Eigen::OuterStride<>>;
template <class T>
using OutMap = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>, 0, Eigen::OuterStride<>>;

// Gives size-1 dimensions a stride that makes the view plainly row- or column-major.
template <class T>
MatRef<T> canonical(MatRef<T> m) {
  if (m.rows <= 1) m.rs = m.cs == 1 ? m.cols : 1;
  if (m.cols <= 1) m.cs = (m.rs == 1 && m.rows > 1) ? m.rows : 1;
  return m;
}

template <class T, class A, class B>
void product(const A& a, const B& b, OutMap<T>& c, T alpha, T beta) {
  if (beta == T(0)) {
    if (alpha == T(1))
      c.noalias() = a * b;
    else
      c.noalias() = alpha * a * b;
    return;
  }
  if (beta != T(1)) c *= beta;
  if (alpha == T(1))
    c.noalias() += a * b;
  else
    c.noalias() += alpha * a * b;
}

template <class T, class A>
void with_b(const A& a, const MatRef<T>& b, OutMap<T>& c, T alpha, T beta) {
  if (b.cs == 1)
    product<T>(a, ConstMap<T, Eigen::RowMajor>(b.data, b.rows, b.cols, Eigen::OuterStride<>(b.rs)), c, alpha, beta);
  else
    product<T>(a, ConstMap<T, Eigen::ColMajor>(b.data, b.rows, b.cols, Eigen::OuterStride<>(b.cs)), c, alpha, beta);
}

}  // namespace

template <class T>
void gemm(const MatRef<T>& a_in, const MatRef<T>& b_in, T* c, int64_t ldc, T alpha, T beta) {
  if (a_in.rows == 0 || b_in.cols == 0) return;
  OutMap<T> cm(c, a_in.rows, b_in.cols, Eigen::OuterStride<>(ldc));
  if (a_in.cols == 0) {
    if (beta == T(0))
      cm.setZero();
    else
      cm *= beta;
    return;
  }
  const MatRef<T> a = canonical(a_in), b = canonical(b_in);
  if (a.cs == 1)
    with_b(ConstMap<T, Eigen::RowMajor>(a.data, a.rows, a.cols, Eigen::OuterStride<>(a.rs)), b, cm, alpha, beta);
  else
    with_b(ConstMap<T, Eigen::ColMajor>(a.data, a.rows, a.cols, Eigen::OuterStride<>(a.cs)), b, cm, alpha, beta);
}

template void gemm<float>(const MatRef<float>&, const MatRef<float>&, float*, int64_t, float, float);
template void gemm<double>(const MatRef<double>&, const MatRef<double>&, double*, int64_t, double, double);

}  // namespace jitctl::cpu
