// mm, addmm, bmm, baddbmm, mv, addmv, dot, matmul, linear on cuBLAS: every product is one
// cublasGemmEx, or one cublasGemmStridedBatchedEx over a batch, reading each operand in place when
// its matrix is row- or column-major (a transposed view is a transpose flag, not a copy).
//
// cuBLAS is column-major: the row-major product C[m, n] = A[m, k] · B[k, n] is computed as
// Cᵀ[n, m] = Bᵀ[n, k] · Aᵀ[k, m], so B is cuBLAS's first operand.
//
// A bias or `self` term is broadcast into the output first (a strided device copy) and the GEMM
// accumulates onto it with beta. Arguments PyTorch rejects are left to the CPU kernel (NotOnDevice
// before anything runs): its messages are the ones the tests check, and its shape helpers are
// private to kernels/cpu/linear.cpp.
#include <climits>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kernels/cpu/linear.h"
#include "kernels/cpu/nn_util.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/cuda/context.h"
#include "kernels/cuda/copy_launch.h"
#include "kernels/cuda/register_cuda.h"
#include "kernels/cuda_backend.h"
#include "kernels/registry.h"

namespace jitctl::cuda {
namespace {

[[noreturn]] void to_cpu(const char* op, const std::string& why) { throw NotOnDevice(fmt::format("{}: {}", op, why)); }

// Arguments the CPU kernel rejects with PyTorch's message.
[[noreturn]] void invalid(const char* op) { to_cpu(op, "invalid arguments (the CPU kernel reports PyTorch's error)"); }

// float32 and float64 run on cuBLAS; the other dtypes (which the CPU kernel rejects or handles)
// do not.
void check_dtypes(const char* op, std::initializer_list<const Tensor*> ts) {
  const DType dt = (*ts.begin())->dtype();
  for (const Tensor* t : ts)
    if (t->dtype() != dt) invalid(op);
  if (dt != DType::Float32 && dt != DType::Float64) to_cpu(op, fmt::format("dtype {}", dtype_name(dt)));
}

bool fits_int(int64_t v) { return v >= 0 && v <= INT_MAX; }

// A matrix operand: element (i, j) of batch entry b at p + b * batch_stride + i * rs + j * cs.
struct Mat {
  const void* p = nullptr;
  int64_t rows = 0, cols = 0, rs = 0, cs = 0;
  int64_t batch_stride = 0;
};

// How cuBLAS reads `m`'s transpose (row-major m is column-major mᵀ): op N with ld = rs when rows
// are contiguous, op T with ld = cs when columns are. False when neither stride is 1.
bool blas_layout(const Mat& m, cublasOperation_t& op, int64_t& ld) {
  if (m.cs == 1 || m.cols <= 1) {
    const int64_t l = m.rows <= 1 ? std::max<int64_t>(m.cols, 1) : m.rs;
    if (l >= std::max<int64_t>(m.cols, 1)) {
      op = CUBLAS_OP_N;
      ld = l;
      return true;
    }
  }
  if (m.rs == 1 || m.rows <= 1) {
    const int64_t l = m.cols <= 1 ? std::max<int64_t>(m.rows, 1) : m.cs;
    if (l >= std::max<int64_t>(m.rows, 1)) {
      op = CUBLAS_OP_T;
      ld = l;
      return true;
    }
  }
  return false;
}

// The last two dims of `t` as a matrix (rows = 1 for a 1-D tensor read as a row).
Mat mat_of(const Tensor& t) {
  Mat m;
  m.p = address(t);
  const int64_t d = t.dim();
  m.rows = t.sizes()[d - 2];
  m.cols = t.sizes()[d - 1];
  m.rs = t.strides()[d - 2];
  m.cs = t.strides()[d - 1];
  return m;
}

bool readable(const Tensor& t) {
  cublasOperation_t op;
  int64_t ld;
  return t.dim() >= 2 && blas_layout(mat_of(t), op, ld);
}

// `t` itself when cuBLAS can read its last two dims, else a contiguous device copy.
Tensor gemm_operand(const Tensor& t) { return readable(t) ? t : contiguous(t); }

// out (row-major, contiguous [batch, m, n]) = alpha * a · b + beta * out, batch entries
// batch_stride apart in a and b (0: the same matrix for every entry).
void gemm(DType dt, const Mat& a, const Mat& b, void* out, int64_t batch, double alpha, double beta, const char* op) {
  const int64_t m = a.rows, k = a.cols, n = b.cols;
  cublasOperation_t opa, opb;
  int64_t lda, ldb;
  if (!blas_layout(a, opa, lda) || !blas_layout(b, opb, ldb)) to_cpu(op, "an operand cuBLAS cannot read");  // callers copy first
  const int64_t ldc = std::max<int64_t>(n, 1);
  for (int64_t v : {m, n, k, lda, ldb, ldc, batch})
    if (!fits_int(v)) to_cpu(op, "a dimension beyond 32 bits");
  const bool f32 = dt == DType::Float32;
  const cudaDataType_t type = f32 ? CUDA_R_32F : CUDA_R_64F;
  const cublasComputeType_t compute = !f32 ? CUBLAS_COMPUTE_64F : tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  const float alpha_f = static_cast<float>(alpha), beta_f = static_cast<float>(beta);
  const void* alpha_p = f32 ? static_cast<const void*>(&alpha_f) : static_cast<const void*>(&alpha);
  const void* beta_p = f32 ? static_cast<const void*>(&beta_f) : static_cast<const void*>(&beta);
  const std::string what = fmt::format("{}: cublasGemmEx", op);
  if (batch == 1) {
    check(cublasGemmEx(cublas(), opb, opa, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), alpha_p, b.p, type,
                       static_cast<int>(ldb), a.p, type, static_cast<int>(lda), beta_p, out, type, static_cast<int>(ldc), compute,
                       CUBLAS_GEMM_DEFAULT),
          what.c_str());
  } else {
    check(cublasGemmStridedBatchedEx(cublas(), opb, opa, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), alpha_p, b.p, type,
                                     static_cast<int>(ldb), b.batch_stride, a.p, type, static_cast<int>(lda), a.batch_stride, beta_p, out,
                                     type, static_cast<int>(ldc), m * n, static_cast<int>(batch), compute, CUBLAS_GEMM_DEFAULT),
          what.c_str());
  }
}

// Strides of `t` broadcast to `shape` (right-aligned, 0 where broadcast), or nullopt when it does
// not broadcast.
std::optional<std::vector<int64_t>> broadcast_strides(const Tensor& t, const std::vector<int64_t>& shape) {
  const int64_t nd = static_cast<int64_t>(shape.size()), td = t.dim();
  if (td > nd) return std::nullopt;
  std::vector<int64_t> st(static_cast<size_t>(nd), 0);
  for (int64_t i = 0; i < td; ++i) {
    const int64_t d = nd - td + i, s = t.sizes()[i];
    if (s == shape[d])
      st[d] = s == 1 ? 0 : t.strides()[i];
    else if (s != 1)
      return std::nullopt;
  }
  return st;
}

// Writes `term` (on the device, broadcast by `strides`) into the contiguous output.
void fill_broadcast(const Tensor& term, const std::vector<int64_t>& strides, Tensor& out, const char* op) {
  launch_strided_copy(address(term), address(out), out.numel(), element_size(out.dtype()), out.sizes(), strides, stream());
  check_launch(op);
}

// One stride that steps through the batch dims `batch` of an operand with `strides` (in a
// linear batch index), or nullopt when its batch dims do not fold into one.
std::optional<int64_t> folded_batch_stride(const std::vector<int64_t>& batch, const std::vector<int64_t>& strides) {
  std::optional<int64_t> step;
  int64_t expected = 0;
  for (int64_t d = static_cast<int64_t>(batch.size()) - 1; d >= 0; --d) {
    if (batch[d] == 1) continue;
    if (!step) {
      step = strides[d];
    } else if (strides[d] != expected) {
      return std::nullopt;
    }
    expected = strides[d] * batch[d];
  }
  return step.value_or(0);
}

// A batched operand [batch..., r, c] (its own batch dims broadcast to `batch`) as a Mat whose
// batch entries are one stride apart; copied into a contiguous expanded tensor when its layout
// does not allow that. `keep` holds the copy.
Mat batched_operand(const Tensor& t, const std::vector<int64_t>& batch, Tensor& keep) {
  const int64_t d = t.dim();
  std::vector<int64_t> shape = batch;
  shape.push_back(t.sizes()[d - 2]);
  shape.push_back(t.sizes()[d - 1]);
  const std::vector<int64_t> st = *broadcast_strides(t, shape);  // batch dims were broadcast by the caller
  const std::vector<int64_t> bst(st.begin(), st.end() - 2);
  keep = t;
  std::optional<int64_t> step = folded_batch_stride(batch, bst);
  if (!step || !readable(t)) {
    keep = contiguous(cpu::make_view(t, shape, st, t.storage_offset()));
    step = t.sizes()[d - 2] * t.sizes()[d - 1];
  }
  Mat m = mat_of(keep);
  m.batch_stride = *step;
  return m;
}

// out[batch..., n, p] = beta * term + alpha * a[..., n, k] · b[..., k, p] with batch dims broadcast;
// `out` contiguous with that many elements (its shape may drop a 1-D operand's dim). term may be
// undefined.
void batched_product(const Tensor& a, const Tensor& b, const std::vector<int64_t>& batch, const Tensor& term, double beta, double alpha,
                     Tensor& out, const char* op) {
  int64_t count = 1;
  for (int64_t x : batch) count *= x;
  const int64_t n = a.sizes()[a.dim() - 2], k = a.sizes()[a.dim() - 1], p = b.sizes()[b.dim() - 1];
  if (count == 0 || n == 0 || p == 0) return;
  if (k == 0) to_cpu(op, "an empty inner dimension");
  Tensor ka, kb;
  Mat ma = batched_operand(a, batch, ka);
  Mat mb = batched_operand(b, batch, kb);
  double gemm_beta = 0.0;
  if (term.defined() && beta != 0.0) {
    std::vector<int64_t> full = batch;
    full.push_back(n);
    full.push_back(p);
    const Tensor t = on_device(term);
    const auto st = broadcast_strides(t, full);
    Tensor view = cpu::make_view(out, full, contiguous_strides(full), out.storage_offset());
    fill_broadcast(t, *st, view, op);
    gemm_beta = beta;
  }
  gemm(out.dtype(), ma, mb, address(out), count, alpha, gemm_beta, op);
}

// self [m, k] · mat2 [k, n] (+ term broadcast to [m, n]).
Tensor mm_impl(const Tensor& self_arg, const Tensor& mat2_arg, const Tensor& term_arg, double beta, double alpha, const char* op) {
  if (self_arg.dim() != 2 || mat2_arg.dim() != 2 || self_arg.sizes()[1] != mat2_arg.sizes()[0]) invalid(op);
  const bool use_term = term_arg.defined() && beta != 0.0;
  const int64_t m = self_arg.sizes()[0], n = mat2_arg.sizes()[1];
  if (term_arg.defined()) {
    check_dtypes(op, {&self_arg, &mat2_arg, &term_arg});
    if (use_term && (term_arg.dim() > 2 || !broadcast_strides(term_arg, {m, n}))) invalid(op);
  } else {
    check_dtypes(op, {&self_arg, &mat2_arg});
  }
  if (self_arg.sizes()[1] == 0 && m > 0 && n > 0) to_cpu(op, "an empty inner dimension");
  const Tensor self = gemm_operand(on_device(self_arg)), mat2 = gemm_operand(on_device(mat2_arg));
  Tensor out = empty(self.dtype(), {m, n});
  if (out.numel() == 0) return out;
  if (use_term) {
    const Tensor t = on_device(term_arg);
    fill_broadcast(t, *broadcast_strides(t, {m, n}), out, op);
  }
  gemm(out.dtype(), mat_of(self), mat_of(mat2), address(out), 1, alpha, use_term ? beta : 0.0, op);
  return out;
}

Tensor bmm_impl(const Tensor& self_arg, const Tensor& mat2_arg, const Tensor& term, double beta, double alpha, const char* op) {
  if (self_arg.dim() != 3 || mat2_arg.dim() != 3) invalid(op);
  const int64_t bs = self_arg.sizes()[0], n = self_arg.sizes()[1], k = self_arg.sizes()[2], p = mat2_arg.sizes()[2];
  if (mat2_arg.sizes()[0] != bs || mat2_arg.sizes()[1] != k) invalid(op);
  if (term.defined()) {
    check_dtypes(op, {&self_arg, &mat2_arg, &term});
    // The CPU kernel checks the term whatever beta is.
    if (term.dim() > 3 || !broadcast_strides(term, {bs, n, p})) invalid(op);
  } else {
    check_dtypes(op, {&self_arg, &mat2_arg});
  }
  if (k == 0 && bs > 0 && n > 0 && p > 0) to_cpu(op, "an empty inner dimension");
  const Tensor a = on_device(self_arg), b = on_device(mat2_arg);
  Tensor out = empty(a.dtype(), {bs, n, p});
  batched_product(a, b, {bs}, term, beta, alpha, out, op);
  return out;
}

// The shared [rows, k] view of `t` ([..., k]) when its leading dims fold into one row stride.
std::optional<Mat> folded_rows(const Tensor& t) {
  const auto ld = cpu::folded_row_stride(t);
  if (!ld) return std::nullopt;
  const int64_t k = t.sizes()[t.dim() - 1];
  Mat m;
  m.p = address(t);
  m.rows = k == 0 ? 0 : t.numel() / k;
  m.cols = k;
  m.rs = m.rows <= 1 ? std::max<int64_t>(k, 1) : *ld;
  m.cs = t.strides()[t.dim() - 1];
  cublasOperation_t op;
  int64_t l;
  if (!blas_layout(m, op, l)) return std::nullopt;
  return m;
}

// A 1-D device tensor that cuBLAS can read as a vector (an expanded one, stride 0, is copied).
Tensor vector_operand(const Tensor& v) { return v.sizes()[0] > 1 && v.strides()[0] == 0 ? contiguous(v) : v; }

// A 1-D tensor [k] as a [k, 1] column.
Mat column_of(const Tensor& v) {
  Mat m;
  m.p = address(v);
  m.rows = v.sizes()[0];
  m.cols = 1;
  m.rs = v.strides()[0];
  m.cs = 1;
  return m;
}

// mat [r, k] · vec [k] (+ term broadcast to [r]).
Tensor mv_impl(const Tensor& mat_arg, const Tensor& vec_arg, const Tensor& term_arg, double beta, double alpha, const char* op) {
  if (mat_arg.dim() != 2 || vec_arg.dim() != 1 || mat_arg.sizes()[1] != vec_arg.sizes()[0]) invalid(op);
  const bool use_term = term_arg.defined() && beta != 0.0;
  const int64_t r = mat_arg.sizes()[0];
  if (term_arg.defined()) {
    check_dtypes(op, {&mat_arg, &vec_arg, &term_arg});
    if (use_term && (term_arg.dim() > 1 || !broadcast_strides(term_arg, {r}))) invalid(op);
  } else {
    check_dtypes(op, {&mat_arg, &vec_arg});
  }
  if (vec_arg.sizes()[0] == 0 && r > 0) to_cpu(op, "an empty inner dimension");
  const Tensor mat = gemm_operand(on_device(mat_arg)), vec = vector_operand(on_device(vec_arg));
  Tensor out = empty(mat.dtype(), {r});
  if (r == 0) return out;
  if (use_term) {
    const Tensor t = on_device(term_arg);
    fill_broadcast(t, *broadcast_strides(t, {r}), out, op);
  }
  gemm(out.dtype(), mat_of(mat), column_of(vec), address(out), 1, alpha, use_term ? beta : 0.0, op);
  return out;
}

Tensor dot_impl(const Tensor& a_arg, const Tensor& b_arg, const char* op) {
  if (a_arg.dim() != 1 || b_arg.dim() != 1 || a_arg.sizes()[0] != b_arg.sizes()[0]) invalid(op);
  check_dtypes(op, {&a_arg, &b_arg});
  if (a_arg.sizes()[0] == 0) to_cpu(op, "empty operands");
  const Tensor a = vector_operand(on_device(a_arg)), b = vector_operand(on_device(b_arg));
  Mat row;
  row.p = address(a);
  row.rows = 1;
  row.cols = a.sizes()[0];
  row.rs = row.cols;
  row.cs = a.strides()[0];
  Tensor out = empty(a.dtype(), {});
  gemm(out.dtype(), row, column_of(b), address(out), 1, 1.0, 0.0, op);
  return out;
}

// Broadcasts two batch shapes; nullopt when they do not.
std::optional<std::vector<int64_t>> broadcast_batch(const std::vector<int64_t>& x, const std::vector<int64_t>& y) {
  const size_t n = std::max(x.size(), y.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t xi = i < n - x.size() ? 1 : x[i - (n - x.size())];
    const int64_t yi = i < n - y.size() ? 1 : y[i - (n - y.size())];
    if (xi != yi && xi != 1 && yi != 1) return std::nullopt;
    out[i] = xi == 1 ? yi : xi;
  }
  return out;
}

Tensor view_1d_as(const Tensor& t, std::vector<int64_t> sizes, std::vector<int64_t> strides) {
  return cpu::make_view(t, std::move(sizes), std::move(strides), t.storage_offset());
}

// torch.matmul for every rank combination, as kernels/cpu/linear.cpp's matmul.
Tensor matmul_impl(const Tensor& a_arg, const Tensor& b_arg) {
  const char* op = "aten::matmul";
  const int64_t d1 = a_arg.dim(), d2 = b_arg.dim();
  if (d1 == 0 || d2 == 0) invalid(op);
  if (d1 == 1 && d2 == 1) return dot_impl(a_arg, b_arg, op);
  if (d1 == 2 && d2 == 1) return mv_impl(a_arg, b_arg, Tensor(), 0.0, 1.0, op);
  if (d1 == 2 && d2 == 2) return mm_impl(a_arg, b_arg, Tensor(), 0.0, 1.0, op);
  check_dtypes(op, {&a_arg, &b_arg});
  if (d1 == 1 && d2 == 2) {
    const int64_t k = a_arg.sizes()[0], n = b_arg.sizes()[1];
    if (b_arg.sizes()[0] != k) invalid(op);
    if (k == 0 && n > 0) to_cpu(op, "an empty inner dimension");
    const Tensor a = vector_operand(on_device(a_arg)), b = gemm_operand(on_device(b_arg));
    Mat row;
    row.p = address(a);
    row.rows = 1;
    row.cols = k;
    row.rs = std::max<int64_t>(k, 1);
    row.cs = a.strides()[0];
    Tensor out = empty(a.dtype(), {n});
    if (n > 0) gemm(out.dtype(), row, mat_of(b), address(out), 1, 1.0, 0.0, op);
    return out;
  }
  const Tensor a = on_device(a_arg), b = on_device(b_arg);
  if (d1 >= 3 && d2 <= 2) {
    // Fold a's batch dims into its rows: one GEMM.
    const int64_t k = a.sizes()[d1 - 1];
    if (b.sizes()[0] != k) invalid(op);
    if (auto ma = folded_rows(a)) {
      std::vector<int64_t> sizes(a.sizes().begin(), a.sizes().end() - 1);
      if (d2 == 2) sizes.push_back(b.sizes()[1]);
      Tensor out = empty(a.dtype(), sizes);
      if (out.numel() == 0) return out;
      if (k == 0) to_cpu(op, "an empty inner dimension");
      if (d2 == 2) {
        const Tensor b2 = gemm_operand(b);
        gemm(out.dtype(), *ma, mat_of(b2), address(out), 1, 1.0, 0.0, op);
      } else {
        const Tensor b1 = vector_operand(b);
        gemm(out.dtype(), *ma, column_of(b1), address(out), 1, 1.0, 0.0, op);
      }
      return out;
    }
  }
  // General case: 1-D operands become a row (left) or a column (right), batch dims broadcast.
  const Tensor a2 = d1 == 1 ? view_1d_as(a, {1, a.sizes()[0]}, {0, a.strides()[0]}) : a;
  const Tensor b2 = d2 == 1 ? view_1d_as(b, {b.sizes()[0], 1}, {b.strides()[0], 0}) : b;
  const int64_t n = a2.sizes()[a2.dim() - 2], k = a2.sizes()[a2.dim() - 1];
  const int64_t k2 = b2.sizes()[b2.dim() - 2], p = b2.sizes()[b2.dim() - 1];
  const std::vector<int64_t> ba(a2.sizes().begin(), a2.sizes().end() - 2), bb(b2.sizes().begin(), b2.sizes().end() - 2);
  const auto batch = broadcast_batch(ba, bb);
  if (!batch || k != k2) invalid(op);
  std::vector<int64_t> sizes = *batch;
  if (d1 > 1) sizes.push_back(n);
  if (d2 > 1) sizes.push_back(p);
  Tensor out = empty(a.dtype(), sizes);
  batched_product(a2, b2, *batch, Tensor(), 0.0, 1.0, out, op);
  return out;
}

// input [..., k] · weight[n, k]ᵀ + bias.
Tensor linear_impl(const Tensor& input_arg, const Tensor& weight_arg, const Tensor& bias_arg) {
  const char* op = "aten::linear";
  if (weight_arg.dim() != 2 || input_arg.dim() == 0) invalid(op);
  const int64_t k = weight_arg.sizes()[1], n = weight_arg.sizes()[0];
  if (input_arg.sizes()[input_arg.dim() - 1] != k) invalid(op);
  if (bias_arg.defined()) {
    check_dtypes(op, {&input_arg, &weight_arg, &bias_arg});
    if (bias_arg.dim() > 1 && input_arg.dim() != 2) invalid(op);  // the CPU kernel's Unsupported
  } else {
    check_dtypes(op, {&input_arg, &weight_arg});
  }
  std::vector<int64_t> out_sizes(input_arg.sizes().begin(), input_arg.sizes().end() - 1);
  out_sizes.push_back(n);
  const int64_t rows = k == 0 ? 0 : input_arg.numel() / k;
  std::optional<std::vector<int64_t>> bias_strides;
  if (bias_arg.defined()) {
    // The bias broadcasts to the output as a [rows, n] matrix.
    if (bias_arg.dim() > 2 || !broadcast_strides(bias_arg, {rows, n})) invalid(op);
  }
  if (k == 0) {
    int64_t count = 1;
    for (int64_t s : out_sizes) count *= s;
    if (count > 0) to_cpu(op, "an empty inner dimension");
  }
  Tensor x = on_device(input_arg);
  std::optional<Mat> a = folded_rows(x);
  if (!a) {
    x = contiguous(x);
    a = folded_rows(x);
  }
  const Tensor w = gemm_operand(on_device(weight_arg));
  Tensor out = empty(x.dtype(), out_sizes);
  if (out.numel() == 0) return out;
  // wᵀ: [k, n] with the weight's strides swapped.
  Mat wt;
  wt.p = address(w);
  wt.rows = k;
  wt.cols = n;
  wt.rs = w.strides()[1];
  wt.cs = w.strides()[0];
  double beta = 0.0;
  if (bias_arg.defined()) {
    const Tensor bias = on_device(bias_arg);
    Tensor out2 = cpu::make_view(out, {rows, n}, {n, 1}, out.storage_offset());
    fill_broadcast(bias, *broadcast_strides(bias, {rows, n}), out2, op);
    beta = 1.0;
  }
  gemm(out.dtype(), *a, wt, address(out), 1, 1.0, beta, op);
  return out;
}

void k_mm(Stack& s) {
  Tensor r = mm_impl(s[0].to_tensor(), s[1].to_tensor(), Tensor(), 0.0, 1.0, "aten::mm");
  cpu::set_output(s, IValue(std::move(r)));
}
void k_addmm(Stack& s) {
  Tensor r = mm_impl(s[1].to_tensor(), s[2].to_tensor(), s[0].to_tensor(), cpu::scalar_double(s[3]), cpu::scalar_double(s[4]), "aten::addmm");
  cpu::set_output(s, IValue(std::move(r)));
}
void k_bmm(Stack& s) {
  Tensor r = bmm_impl(s[0].to_tensor(), s[1].to_tensor(), Tensor(), 0.0, 1.0, "aten::bmm");
  cpu::set_output(s, IValue(std::move(r)));
}
void k_baddbmm(Stack& s) {
  Tensor r = bmm_impl(s[1].to_tensor(), s[2].to_tensor(), s[0].to_tensor(), cpu::scalar_double(s[3]), cpu::scalar_double(s[4]), "aten::baddbmm");
  cpu::set_output(s, IValue(std::move(r)));
}
void k_mv(Stack& s) {
  Tensor r = mv_impl(s[0].to_tensor(), s[1].to_tensor(), Tensor(), 0.0, 1.0, "aten::mv");
  cpu::set_output(s, IValue(std::move(r)));
}
void k_addmv(Stack& s) {
  Tensor r = mv_impl(s[1].to_tensor(), s[2].to_tensor(), s[0].to_tensor(), cpu::scalar_double(s[3]), cpu::scalar_double(s[4]), "aten::addmv");
  cpu::set_output(s, IValue(std::move(r)));
}
void k_dot(Stack& s) {
  Tensor r = dot_impl(s[0].to_tensor(), s[1].to_tensor(), "aten::dot");
  cpu::set_output(s, IValue(std::move(r)));
}
void k_matmul(Stack& s) {
  Tensor r = matmul_impl(s[0].to_tensor(), s[1].to_tensor());
  cpu::set_output(s, IValue(std::move(r)));
}
void k_linear(Stack& s) {
  Tensor r = linear_impl(s[0].to_tensor(), s[1].to_tensor(), cpu::optional_tensor(s[2]));
  cpu::set_output(s, IValue(std::move(r)));
}

}  // namespace

void register_linear_kernels() {
  register_kernel("aten::mm", k_mm, Backend::CUDA);
  register_kernel("aten::addmm", k_addmm, Backend::CUDA);
  register_kernel("aten::bmm", k_bmm, Backend::CUDA);
  register_kernel("aten::baddbmm", k_baddbmm, Backend::CUDA);
  register_kernel("aten::mv", k_mv, Backend::CUDA);
  register_kernel("aten::addmv", k_addmv, Backend::CUDA);
  register_kernel("aten::dot", k_dot, Backend::CUDA);
  register_kernel("aten::matmul", k_matmul, Backend::CUDA);
  register_kernel("aten::linear", k_linear, Backend::CUDA);
}

}  // namespace jitctl::cuda
