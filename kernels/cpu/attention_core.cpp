#include "kernels/cpu/attention_core.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/cpu/activations.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/scratch.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/parallel.h"
#include "lib/core/error.h"

namespace jitctl::cpu {

AttentionMaskStrides attention_mask_strides(const std::vector<int64_t>& sz, const std::vector<int64_t>& str, int64_t b, int64_t h, int64_t t,
                                            int64_t s, const IValue& mask_type) {
  AttentionMaskStrides mk;
  const auto d = static_cast<int64_t>(sz.size());
  auto dim_stride = [&](int64_t i, int64_t want) {
    if (sz[i] == want) return want == 1 ? int64_t{0} : str[i];
    if (sz[i] == 1) return int64_t{0};
    throw InvalidInput(fmt::format("_native_multi_head_attention: mask of size {} does not match attention scores [{}, {}, {}, {}]",
                                   shape_string(sz), b, h, t, s));
  };
  const int64_t type = mask_type.is_none() ? -1 : mask_type.to_int();
  if (d == 2 && (type == 1 || (type != 0 && !(sz[0] == t && sz[1] == s) && sz[0] == b && sz[1] == s))) {
    mk.sb = dim_stride(0, b);
    mk.ss = dim_stride(1, s);
    return mk;
  }
  if (d > 4) throw InvalidInput(fmt::format("_native_multi_head_attention: mask of size {} has too many dims", shape_string(sz)));
  const int64_t want[4] = {b, h, t, s};
  int64_t* strides[4] = {&mk.sb, &mk.sh, &mk.st, &mk.ss};
  for (int64_t i = 0; i < d; ++i) *strides[4 - d + i] = dim_stride(i, want[4 - d + i]);
  return mk;
}

AttentionMask make_attention_mask(const Tensor& m_arg, int64_t b, int64_t h, int64_t t, int64_t s, const IValue& mask_type) {
  AttentionMask mk;
  if (!m_arg.defined()) return mk;
  // PyTorch 2.x passes nn.MultiheadAttention's masks as float (0 / -inf); ATen's masked softmax
  // reads any nonzero entry as masked out.
  if (m_arg.dtype() != DType::Bool) mk.owned = to_dtype(m_arg, DType::Bool);
  const Tensor& m = m_arg.dtype() == DType::Bool ? m_arg : mk.owned;
  mk.data = static_cast<const bool*>(m.data());
  const AttentionMaskStrides st = attention_mask_strides(m.sizes(), m.strides(), b, h, t, s, mask_type);
  mk.sb = st.sb;
  mk.sh = st.sh;
  mk.st = st.st;
  mk.ss = st.ss;
  return mk;
}

namespace {

// Softmax over a row, masked entries excluded; a fully masked row becomes zeros.
void softmax_row(float* row, int64_t n, const AttentionMask& mask, int64_t b, int64_t h, int64_t t) {
  // softmax_f32 gives -inf entries zero weight and an all -inf row zeros: a masked entry is -inf.
  if (mask.data)
    for (int64_t j = 0; j < n; ++j)
      if (mask.masked(b, h, t, j)) row[j] = -std::numeric_limits<float>::infinity();
  softmax_f32(row, n);
}

void softmax_row(double* row, int64_t n, const AttentionMask& mask, int64_t b, int64_t h, int64_t t) {
  double mx = -std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < n; ++j)
    if (!mask.masked(b, h, t, j)) mx = std::max(mx, row[j]);
  if (mx == -std::numeric_limits<double>::infinity()) {
    std::fill(row, row + n, 0.0);
    return;
  }
  double sum = 0;
  for (int64_t j = 0; j < n; ++j) {
    row[j] = mask.masked(b, h, t, j) ? 0.0 : std::exp(row[j] - mx);
    sum += row[j];
  }
  const double inv = 1.0 / sum;
  for (int64_t j = 0; j < n; ++j) row[j] *= inv;
}

}  // namespace

template <class T>
void attention_heads(const T* q, const T* k, const T* v, int64_t ld, int64_t batch, int64_t seq, int64_t e, int64_t heads, T scale,
                     const AttentionMask& mask, T* ctx, int64_t ldc, T* weights) {
  const int64_t dh = e / heads;
  // A head's two products; small heads (a 6-token sequence) share a thread: waking the team for
  // them made a 2-thread call slower than a 1-thread one.
  const double head_flops = 4.0 * static_cast<double>(seq * seq * dh);
  parallel_for(0, batch * heads, grain_for_flops(head_flops), [&](int64_t u0, int64_t u1) {
    T* scores = weights ? nullptr : static_cast<T*>(scratch_buffer(ScratchSlot::AttentionScores, static_cast<size_t>(seq * seq) * sizeof(T)));
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t b = u / heads, h = u % heads;
      const int64_t at = b * seq * ld + h * dh;
      T* sc = weights ? weights + u * seq * seq : scores;
      gemm<T>(row_major(q + at, seq, dh, ld), transposed(row_major(k + at, seq, dh, ld)), sc, seq, scale, T(0));
      for (int64_t t = 0; t < seq; ++t) softmax_row(sc + t * seq, seq, mask, b, h, t);
      gemm<T>(row_major(static_cast<const T*>(sc), seq, seq, seq), row_major(v + at, seq, dh, ld), ctx + b * seq * ldc + h * dh, ldc, T(1), T(0));
    }
  });
}

template void attention_heads<float>(const float*, const float*, const float*, int64_t, int64_t, int64_t, int64_t, int64_t, float,
                                     const AttentionMask&, float*, int64_t, float*);
template void attention_heads<double>(const double*, const double*, const double*, int64_t, int64_t, int64_t, int64_t, int64_t, double,
                                      const AttentionMask&, double*, int64_t, double*);

}  // namespace jitctl::cpu
