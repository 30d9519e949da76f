// mm, bmm, addmm, baddbmm, mv, dot, matmul, linear: every product is one GEMM (gemm.h) per matrix
// over the operands' own buffers (a transposed view is read as column-major, not copied); a bias
// or `self` term is written into the output first and the GEMM accumulates onto it.
#include "kernels/cpu/linear.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "kernels/cpu/gemm.h"
#include "kernels/cpu/nn_util.h"
#include "kernels/cpu/output.h"
#include "kernels/cpu/register_cpu.h"
#include "kernels/parallel.h"
#include "kernels/registry.h"

namespace jitctl::cpu {
namespace {

std::string mat_string(int64_t r, int64_t c) { return fmt::format("{}x{}", r, c); }

// `t` when gemm() can read its last two dims in place, else a contiguous copy.
template <class T>
Tensor readable(const Tensor& t) {
  const int64_t d = t.dim();
  if (d < 2) return contiguous(t);
  const MatRef<T> m{nullptr, t.sizes()[d - 2], t.sizes()[d - 1], t.strides()[d - 2], t.strides()[d - 1]};
  return gemm_readable(m) ? t : contiguous(t);
}

// Writes beta * `term` broadcast to [M, N] into c (row-major, ldc); PyTorch's expand rules.
template <class T>
void fill_broadcast(T* c, int64_t m, int64_t n, int64_t ldc, const Tensor& term, T beta) {
  const auto& s = term.sizes();
  const auto& st = term.strides();
  const int64_t d = term.dim();
  auto fail = [&] {
    throw InvalidInput(fmt::format(
        "The expanded size of the tensor ({}) must match the existing size ({}) at non-singleton dimension {}.  Target sizes: [{}, {}].  Tensor sizes: {}",
        d >= 1 && s[d - 1] != n && s[d - 1] != 1 ? n : m, d >= 1 && s[d - 1] != n && s[d - 1] != 1 ? s[d - 1] : s[0],
        d >= 1 && s[d - 1] != n && s[d - 1] != 1 ? 1 : 0, m, n, shape_string(s)));
  };
  if (d > 2) fail();
  int64_t sr = 0, sc = 0;
  if (d >= 1) {
    if (s[d - 1] != n && s[d - 1] != 1) fail();
    sc = s[d - 1] == 1 ? 0 : st[d - 1];
  }
  if (d == 2) {
    if (s[0] != m && s[0] != 1) fail();
    sr = s[0] == 1 ? 0 : st[0];
  }
  const T* src = data_of<T>(term);
  for (int64_t i = 0; i < m; ++i) {
    T* row = c + i * ldc;
    const T* srow = src + i * sr;
    if (sc == 1 && beta == T(1)) {
      std::memcpy(row, srow, static_cast<size_t>(n) * sizeof(T));
    } else {
      for (int64_t j = 0; j < n; ++j) row[j] = beta * srow[j * sc];
    }
  }
}

// out[M, N] = beta * term + alpha * a · b, where term (may be undefined) broadcasts to [M, N].
template <class T>
void addmm_into(T* out, const MatRef<T>& a, const MatRef<T>& b, const Tensor& term, T beta, T alpha) {
  const int64_t m = a.rows, n = b.cols;
  T gemm_beta = T(0);
  if (term.defined() && beta != T(0)) {
    fill_broadcast<T>(out, m, n, n, term, beta);
    gemm_beta = T(1);
  }
  gemm<T>(a, b, out, n, alpha, gemm_beta);
}

void check_float_pair(const Tensor& a, const Tensor& b, const char* op) {
  check_same_dtype(a, b);
  dispatch_floating(a.dtype(), op, [](auto) {});
}

Tensor mm_impl(const Tensor& self, const Tensor& mat2, const Tensor& term, double beta, double alpha, const char* op) {
  if (self.dim() != 2) throw InvalidInput("self must be a matrix");
  if (mat2.dim() != 2) throw InvalidInput("mat2 must be a matrix");
  if (self.sizes()[1] != mat2.sizes()[0])
    throw InvalidInput(fmt::format("mat1 and mat2 shapes cannot be multiplied ({} and {})", mat_string(self.sizes()[0], self.sizes()[1]),
                                   mat_string(mat2.sizes()[0], mat2.sizes()[1])));
  check_float_pair(self, mat2, op);
  if (term.defined()) check_same_dtype(term, self);
  Tensor out = new_output(self.dtype(), {self.sizes()[0], mat2.sizes()[1]});
  dispatch_floating(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const Tensor a = readable<T>(self), b = readable<T>(mat2);
    addmm_into<T>(mutable_data_of<T>(out), mat_of<T>(a), mat_of<T>(b), term, T(beta), T(alpha));
  });
  return out;
}

// Batched product over broadcast batch dims: out[batch..., n, p] (contiguous) = a[..., n, k] ·
// b[..., k, p], with `term` (may be undefined) broadcast into each output matrix.
template <class T>
void batched(const Tensor& a, const Tensor& b, const std::vector<int64_t>& batch, const std::vector<int64_t>& sa,
             const std::vector<int64_t>& sb, Tensor& out, const Tensor& term, const std::vector<int64_t>& st, T beta, T alpha) {
  const int64_t da = a.dim(), db = b.dim();
  const int64_t n = a.sizes()[da - 2], k = a.sizes()[da - 1], p = b.sizes()[db - 1];
  int64_t count = 1;
  for (auto x : batch) count *= x;
  const T* pa = data_of<T>(a);
  const T* pb = data_of<T>(b);
  const T* pt = term.defined() ? data_of<T>(term) : nullptr;
  T* po = mutable_data_of<T>(out);
  const int64_t nb = static_cast<int64_t>(batch.size());
  auto one = [&](int64_t i) {
    int64_t oa = 0, ob = 0, ot = 0, rem = i;
    for (int64_t d = nb - 1; d >= 0; --d) {
      const int64_t idx = rem % batch[d];
      rem /= batch[d];
      oa += idx * sa[d];
      ob += idx * sb[d];
      if (pt) ot += idx * st[d];
    }
    const MatRef<T> ma{pa + oa, n, k, a.strides()[da - 2], a.strides()[da - 1]};
    const MatRef<T> mb{pb + ob, k, p, b.strides()[db - 2], b.strides()[db - 1]};
    T* c = po + i * n * p;
    T gbeta = T(0);
    if (pt && beta != T(0)) {
      const int64_t dt = term.dim();
      const int64_t tr = dt >= 2 ? term.sizes()[dt - 2] : 1, tc = dt >= 1 ? term.sizes()[dt - 1] : 1;
      const int64_t rs = dt >= 2 && tr != 1 ? term.strides()[dt - 2] : 0, cs = dt >= 1 && tc != 1 ? term.strides()[dt - 1] : 0;
      for (int64_t r = 0; r < n; ++r)
        for (int64_t j = 0; j < p; ++j) c[r * p + j] = beta * pt[ot + r * rs + j * cs];
      gbeta = T(1);
    }
    gemm<T>(ma, mb, c, p, alpha, gbeta);
  };
  // Many small products: one per thread, tiny ones (attention's 6x8 by 8x6) several. Few large
  // ones: the GEMM splits each over the team.
  if (count >= omp_get_max_threads() && count > 1) {
    parallel_for(0, count, grain_for_flops(2.0 * static_cast<double>(n * k * p)), [&](int64_t b0, int64_t b1) {
      for (int64_t i = b0; i < b1; ++i) one(i);
    });
  } else {
    for (int64_t i = 0; i < count; ++i) one(i);
  }
}

// Broadcasts two batch shapes as PyTorch does ("The size of tensor a (3) must match ...").
std::vector<int64_t> broadcast_batch(const std::vector<int64_t>& x, const std::vector<int64_t>& y) {
  const size_t n = std::max(x.size(), y.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t xi = i < n - x.size() ? 1 : x[i - (n - x.size())];
    const int64_t yi = i < n - y.size() ? 1 : y[i - (n - y.size())];
    if (xi != yi && xi != 1 && yi != 1)
      throw InvalidInput(fmt::format("The size of tensor a ({}) must match the size of tensor b ({}) at non-singleton dimension {}", xi, yi, i));
    out[i] = xi == 1 ? yi : xi;
  }
  return out;
}

// Strides of `t`'s leading (batch) dims when expanded to `batch` (0 where broadcast).
std::vector<int64_t> batch_strides(const Tensor& t, int64_t mat_dims, const std::vector<int64_t>& batch) {
  const int64_t tb = t.dim() - mat_dims;
  const int64_t nb = static_cast<int64_t>(batch.size());
  std::vector<int64_t> s(static_cast<size_t>(nb), 0);
  for (int64_t i = 0; i < tb; ++i) {
    const int64_t d = nb - tb + i;
    s[d] = t.sizes()[i] == 1 ? 0 : t.strides()[i];
  }
  return s;
}

Tensor bmm_impl(const Tensor& self, const Tensor& mat2, const Tensor& term, double beta, double alpha, const char* op) {
  if (self.dim() != 3) throw InvalidInput("batch1 must be a 3D tensor");
  if (mat2.dim() != 3) throw InvalidInput("batch2 must be a 3D tensor");
  const int64_t bs = self.sizes()[0], n = self.sizes()[1], k = self.sizes()[2], p = mat2.sizes()[2];
  if (mat2.sizes()[0] != bs || mat2.sizes()[1] != k)
    throw InvalidInput(fmt::format("Expected size for first two dimensions of batch2 tensor to be: [{}, {}] but got: [{}, {}].", bs, k,
                                   mat2.sizes()[0], mat2.sizes()[1]));
  check_float_pair(self, mat2, op);
  Tensor out = new_output(self.dtype(), {bs, n, p});
  dispatch_floating(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const Tensor a = readable<T>(self), b = readable<T>(mat2);
    const std::vector<int64_t> batch{bs};
    std::vector<int64_t> st;
    if (term.defined()) {
      if (term.dim() > 3) throw InvalidInput(fmt::format("baddbmm: self has {} dims, expected at most 3", term.dim()));
      check_same_dtype(term, self);
      const std::vector<int64_t> tb = term.dim() == 3 ? std::vector<int64_t>{term.sizes()[0]} : std::vector<int64_t>{};
      if (broadcast_batch(tb, batch) != batch || (term.dim() >= 2 && term.sizes()[term.dim() - 2] != n && term.sizes()[term.dim() - 2] != 1) ||
          (term.dim() >= 1 && term.sizes()[term.dim() - 1] != p && term.sizes()[term.dim() - 1] != 1))
        throw InvalidInput(fmt::format("The expanded size of the tensor must match the existing size.  Target sizes: [{}, {}, {}].  Tensor sizes: {}",
                                       bs, n, p, shape_string(term.sizes())));
      st = term.dim() == 3 ? batch_strides(term, 2, batch) : std::vector<int64_t>{0};
    }
    batched<T>(a, b, batch, batch_strides(a, 2, batch), batch_strides(b, 2, batch), out, term, st, T(beta), T(alpha));
  });
  return out;
}

}  // namespace

std::optional<int64_t> folded_row_stride(const Tensor& t) {
  const int64_t d = t.dim();
  if (d == 0) return std::nullopt;
  std::optional<int64_t> ld;
  int64_t expected = 0;
  // Leading dims from the innermost out; size-1 dims say nothing about the layout.
  for (int64_t i = d - 2; i >= 0; --i) {
    const int64_t size = t.sizes()[i], stride = t.strides()[i];
    if (size == 1) continue;
    if (!ld) {
      ld = stride;
    } else if (stride != expected) {
      return std::nullopt;
    }
    expected = stride * size;
  }
  return ld ? *ld : t.sizes()[d - 1];
}

namespace {

Tensor dot_impl(const Tensor& a, const Tensor& b) {
  if (a.sizes()[0] != b.sizes()[0])
    throw InvalidInput(fmt::format("inconsistent tensor size, expected tensor [{}] and src [{}] to have the same number of elements, but got {} and {} elements respectively",
                                   a.sizes()[0], b.sizes()[0], a.sizes()[0], b.sizes()[0]));
  check_float_pair(a, b, "aten::dot");
  Tensor out = new_output(a.dtype(), {});
  dispatch_floating(a.dtype(), "aten::dot", [&](auto tag) {
    using T = decltype(tag);
    const T* x = data_of<T>(a);
    const T* y = data_of<T>(b);
    T acc = 0;
    for (int64_t i = 0; i < a.sizes()[0]; ++i) acc += x[i * a.strides()[0]] * y[i * b.strides()[0]];
    *mutable_data_of<T>(out) = acc;
  });
  return out;
}

// [rows, k] matrix times vector [k] -> [rows]; a is a 2-D view.
Tensor mv_impl(const Tensor& mat, const Tensor& vec, const Tensor& term, double beta, double alpha) {
  if (mat.dim() != 2 || vec.dim() != 1 || mat.sizes()[1] != vec.sizes()[0])
    throw InvalidInput(fmt::format("size mismatch, got {}, {}x{},{}", mat.sizes()[0], mat.sizes()[0], mat.dim() == 2 ? mat.sizes()[1] : 0,
                                   vec.numel()));
  check_float_pair(mat, vec, "aten::mv");
  Tensor out = new_output(mat.dtype(), {mat.sizes()[0]});
  dispatch_floating(mat.dtype(), "aten::mv", [&](auto tag) {
    using T = decltype(tag);
    const Tensor a = readable<T>(mat);
    const MatRef<T> mb{data_of<T>(vec), vec.sizes()[0], 1, vec.strides()[0], 1};
    addmm_into<T>(mutable_data_of<T>(out), mat_of<T>(a), mb, term, T(beta), T(alpha));
  });
  return out;
}

Tensor view_as(const Tensor& t, std::vector<int64_t> sizes, std::vector<int64_t> strides) {
  return Tensor::view_of(t.storage(), t.dtype(), t.storage_offset(), std::move(sizes), std::move(strides), "matmul");
}

}  // namespace

Tensor bmm(const Tensor& a, const Tensor& b) { return bmm_impl(a, b, Tensor(), 0.0, 1.0, "aten::bmm"); }

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  if (weight.dim() != 2) throw Unsupported(fmt::format("aten::linear: a {}-D weight (2-D only)", weight.dim()));
  const int64_t k = weight.sizes()[1], n = weight.sizes()[0];
  if (input.dim() == 0) throw InvalidInput("both arguments to linear need to be at least 1D, but they are 0D and 2D");
  const int64_t ik = input.sizes()[input.dim() - 1];
  const int64_t rows = ik == 0 ? 0 : input.numel() / ik;
  if (ik != k)
    throw InvalidInput(fmt::format("mat1 and mat2 shapes cannot be multiplied ({} and {})", mat_string(input.dim() == 1 ? 1 : rows, ik),
                                   mat_string(k, n)));
  check_float_pair(input, weight, "aten::linear");
  if (bias.defined()) {
    check_same_dtype(bias, input);
    if (bias.dim() > 1 && input.dim() != 2) throw Unsupported("aten::linear: a bias of more than one dimension with a non-2-D input");
  }
  std::vector<int64_t> out_sizes(input.sizes().begin(), input.sizes().end() - 1);
  out_sizes.push_back(n);
  Tensor out = new_output(input.dtype(), out_sizes);
  dispatch_floating(input.dtype(), "aten::linear", [&](auto tag) {
    using T = decltype(tag);
    Tensor x = input;
    auto ld = folded_row_stride(x);
    if (!ld || !gemm_readable(MatRef<T>{nullptr, rows, k, *ld, x.strides()[x.dim() - 1]})) {
      x = contiguous(x);
      ld = k;
    }
    const int64_t xrs = *ld;
    const MatRef<T> a{data_of<T>(x), rows, k, xrs, x.strides()[x.dim() - 1]};
    const MatRef<T> wt{data_of<T>(weight), k, n, weight.strides()[1], weight.strides()[0]};
    const Tensor w = gemm_readable(wt) ? weight : contiguous(weight);
    addmm_into<T>(mutable_data_of<T>(out), a, MatRef<T>{data_of<T>(w), k, n, w.strides()[1], w.strides()[0]}, bias, T(1), T(1));
  });
  return out;
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  const int64_t d1 = a.dim(), d2 = b.dim();
  if (d1 == 0 || d2 == 0)
    throw InvalidInput(fmt::format("both arguments to matmul need to be at least 1D, but they are {}D and {}D", d1, d2));
  if (d1 == 1 && d2 == 1) return dot_impl(a, b);
  if (d1 == 2 && d2 == 1) return mv_impl(a, b, Tensor(), 0.0, 1.0);
  if (d1 == 1 && d2 == 2) {
    Tensor r = mm_impl(view_as(a, {1, a.sizes()[0]}, {a.sizes()[0] * a.strides()[0], a.strides()[0]}), b, Tensor(), 0.0, 1.0, "aten::matmul");
    return view_as(r, {r.sizes()[1]}, {1});
  }
  if (d1 == 2 && d2 == 2) return mm_impl(a, b, Tensor(), 0.0, 1.0, "aten::matmul");
  if (d1 >= 3 && d2 <= 2 && folded_row_stride(a)) {
    // Fold a's batch dims into its rows: one GEMM.
    const int64_t k = a.sizes()[d1 - 1];
    const int64_t rows = k == 0 ? 0 : a.numel() / k;
    const Tensor a2 = view_as(a, {rows, k}, {rows <= 1 ? std::max<int64_t>(k, 1) : *folded_row_stride(a), a.strides()[d1 - 1]});
    std::vector<int64_t> sizes(a.sizes().begin(), a.sizes().end() - 1);
    Tensor r;
    if (d2 == 1) {
      r = mv_impl(a2, b, Tensor(), 0.0, 1.0);
    } else {
      r = mm_impl(a2, b, Tensor(), 0.0, 1.0, "aten::matmul");
      sizes.push_back(b.sizes()[1]);
    }
    return view_as(r, sizes, contiguous_strides(sizes));
  }
  // General case: 1-D operands become a row (left) or a column (right), batch dims broadcast.
  const Tensor a2 = d1 == 1 ? view_as(a, {1, a.sizes()[0]}, {0, a.strides()[0]}) : a;
  const Tensor b2 = d2 == 1 ? view_as(b, {b.sizes()[0], 1}, {b.strides()[0], 0}) : b;
  const int64_t n = a2.sizes()[a2.dim() - 2], k = a2.sizes()[a2.dim() - 1];
  const int64_t k2 = b2.sizes()[b2.dim() - 2], p = b2.sizes()[b2.dim() - 1];
  const std::vector<int64_t> ba(a2.sizes().begin(), a2.sizes().end() - 2), bb(b2.sizes().begin(), b2.sizes().end() - 2);
  const std::vector<int64_t> batch = broadcast_batch(ba, bb);
  if (k != k2) {
    int64_t rows = n;
    for (auto x : ba) rows *= x;
    throw InvalidInput(fmt::format("Expected size for first two dimensions of batch2 tensor to be: [{}, {}] but got: [{}, {}].", rows, k, rows, k2));
  }
  check_float_pair(a, b, "aten::matmul");
  std::vector<int64_t> full = batch;
  full.push_back(n);
  full.push_back(p);
  Tensor out = new_output(a.dtype(), full);
  dispatch_floating(a.dtype(), "aten::matmul", [&](auto tag) {
    using T = decltype(tag);
    const Tensor ra = readable<T>(a2), rb = readable<T>(b2);
    batched<T>(ra, rb, batch, batch_strides(ra, 2, batch), batch_strides(rb, 2, batch), out, Tensor(), {}, T(0), T(1));
  });
  std::vector<int64_t> sizes = batch;
  if (d1 > 1) sizes.push_back(n);
  if (d2 > 1) sizes.push_back(p);
  return view_as(out, sizes, contiguous_strides(sizes));
}

}  // namespace jitctl::cpu

namespace jitctl {
namespace {

using namespace cpu;

void k_mm(Stack& s) {
  Tensor r = mm_impl(s[0].to_tensor(), s[1].to_tensor(), Tensor(), 0.0, 1.0, "aten::mm");
  s.assign(1, IValue(std::move(r)));
}
void k_addmm(Stack& s) {
  Tensor r = mm_impl(s[1].to_tensor(), s[2].to_tensor(), s[0].to_tensor(), scalar_double(s[3]), scalar_double(s[4]), "aten::addmm");
  s.assign(1, IValue(std::move(r)));
}
void k_bmm(Stack& s) {
  Tensor r = bmm_impl(s[0].to_tensor(), s[1].to_tensor(), Tensor(), 0.0, 1.0, "aten::bmm");
  s.assign(1, IValue(std::move(r)));
}
void k_baddbmm(Stack& s) {
  Tensor r = bmm_impl(s[1].to_tensor(), s[2].to_tensor(), s[0].to_tensor(), scalar_double(s[3]), scalar_double(s[4]), "aten::baddbmm");
  s.assign(1, IValue(std::move(r)));
}
void k_mv(Stack& s) {
  const Tensor& m = s[0].to_tensor();
  if (m.dim() != 2) throw InvalidInput(fmt::format("vector + matrix @ vector expected, got 1, {}, {}", m.dim(), s[1].to_tensor().dim()));
  Tensor r = mv_impl(m, s[1].to_tensor(), Tensor(), 0.0, 1.0);
  s.assign(1, IValue(std::move(r)));
}
void k_addmv(Stack& s) {
  Tensor r = mv_impl(s[1].to_tensor(), s[2].to_tensor(), s[0].to_tensor(), scalar_double(s[3]), scalar_double(s[4]));
  s.assign(1, IValue(std::move(r)));
}
void k_dot(Stack& s) {
  const Tensor &a = s[0].to_tensor(), &b = s[1].to_tensor();
  if (a.dim() != 1 || b.dim() != 1)
    throw InvalidInput(fmt::format("1D tensors expected, but got {}D and {}D tensors", a.dim(), b.dim()));
  Tensor r = dot_impl(a, b);
  s.assign(1, IValue(std::move(r)));
}
void k_matmul(Stack& s) {
  Tensor r = matmul(s[0].to_tensor(), s[1].to_tensor());
  s.assign(1, IValue(std::move(r)));
}
void k_linear(Stack& s) {
  Tensor r = linear(s[0].to_tensor(), s[1].to_tensor(), optional_tensor(s[2]));
  s.assign(1, IValue(std::move(r)));
}

}  // namespace

void register_linear_kernels() {
  register_kernel("aten::mm", k_mm);
  register_kernel("aten::addmm", k_addmm);
  register_kernel("aten::bmm", k_bmm);
  register_kernel("aten::baddbmm", k_baddbmm);
  register_kernel("aten::mv", k_mv);
  register_kernel("aten::addmv", k_addmv);
  register_kernel("aten::dot", k_dot);
  register_kernel("aten::matmul", k_matmul);
  register_kernel("aten::linear", k_linear);
}

}  // namespace jitctl
