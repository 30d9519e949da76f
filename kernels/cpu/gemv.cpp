#include "kernels/cpu/gemv.h"

#include <algorithm>

#include "kernels/cpu/activations.h"
#include "kernels/cpu/isa_dispatch.h"
#include "kernels/parallel.h"

namespace jitctl::cpu {
namespace {

// Four rows at a time, one from each quarter of the rows [j0, j1): four independent sums keep the
// FMA pipes busy while x is read once, and the weights are read as four long sequential streams,
// which the prefetchers keep going from memory. Four neighbouring rows are four streams of one
// row each (5 KB for a 1280-wide classifier), too short for them to ramp up; one row at a time is
// one stream, too few to keep enough reads in flight. Measured (1 thread, weights from memory):
// 1280 -> 1000 78 us against 116 (neighbouring rows) and 98 (one row at a time); AlexNet's 9216 ->
// 4096 5.4 against 5.9 and 8.3 ms; 768 -> 2304 140 against 276 and 159 us; from cache no slower.
JITCTL_ALWAYS_INLINE void gemv_rows_body(const float* __restrict w, const float* __restrict x, int64_t k, int64_t j0, int64_t j1,
                                         float* __restrict y) {
  const int64_t q = (j1 - j0) / 4;
  for (int64_t t = 0; t < q; ++t) {
    const int64_t j = j0 + t;
    const float* w0 = w + j * k;
    const float* w1 = w0 + q * k;
    const float* w2 = w1 + q * k;
    const float* w3 = w2 + q * k;
    float a0 = 0, a1 = 0, a2 = 0, a3 = 0;
#pragma omp simd reduction(+ : a0, a1, a2, a3)
    for (int64_t i = 0; i < k; ++i) {
      a0 += w0[i] * x[i];
      a1 += w1[i] * x[i];
      a2 += w2[i] * x[i];
      a3 += w3[i] * x[i];
    }
    y[j] = a0;
    y[j + q] = a1;
    y[j + 2 * q] = a2;
    y[j + 3 * q] = a3;
  }
  for (int64_t j = j0 + 4 * q; j < j1; ++j) {
    const float* wr = w + j * k;
    float a = 0;
#pragma omp simd reduction(+ : a)
    for (int64_t i = 0; i < k; ++i) a += wr[i] * x[i];
    y[j] = a;
  }
}
JITCTL_ISA_CLONES(void, gemv_rows, (const float* w, const float* x, int64_t k, int64_t j0, int64_t j1, float* y), (w, x, k, j0, j1, y))

// y[0:n] = epilogue(acc + bias), through v (n floats), so acc may be y itself. Vectorized for the
// ISA in use: the GEMMs call it for every row of every column group.
JITCTL_ALWAYS_INLINE void finish_slice_body(const float* acc, const float* bias, const Epilogue& e, int64_t n, float* y, float* v) {
  using K = PostOp::Kind;
  if (bias)
    for (int64_t j = 0; j < n; ++j) v[j] = acc[j] + bias[j];
  else
    std::copy(acc, acc + n, v);
  for (const PostOp& p : e) {
    switch (p.kind) {
      case K::Add:
        for (int64_t j = 0; j < n; ++j) v[j] += y[j];
        break;
      case K::Relu:  // NaN stays NaN, as torch.relu
        for (int64_t j = 0; j < n; ++j) v[j] = v[j] < 0 ? 0.0f : v[j];
        break;
      case K::LeakyRelu:
        for (int64_t j = 0; j < n; ++j) v[j] = v[j] > 0 ? v[j] : p.a * v[j];
        break;
      case K::Clamp:
        for (int64_t j = 0; j < n; ++j) v[j] = v[j] < p.a ? p.a : v[j] > p.b ? p.b : v[j];
        break;
      case K::Hardswish:
        for (int64_t j = 0; j < n; ++j) v[j] = v[j] * std::min(std::max(v[j] + 3.0f, 0.0f), 6.0f) / 6.0f;
        break;
      case K::Hardsigmoid:
        for (int64_t j = 0; j < n; ++j) v[j] = std::min(std::max(v[j] + 3.0f, 0.0f), 6.0f) / 6.0f;
        break;
      case K::Silu: activation_f32(Activation::Silu, v, v, n); break;
      case K::Sigmoid: activation_f32(Activation::Sigmoid, v, v, n); break;
      case K::Tanh: activation_f32(Activation::Tanh, v, v, n); break;
      case K::GeluErf: activation_f32(Activation::GeluErf, v, v, n); break;
      case K::GeluTanh: activation_f32(Activation::GeluTanh, v, v, n); break;
    }
  }
  std::copy(v, v + n, y);
}
JITCTL_ISA_CLONES(void, finish_slice, (const float* acc, const float* bias, const Epilogue& e, int64_t n, float* y, float* v), (acc, bias, e, n, y, v))

}  // namespace

void gemv_f32(const float* w, const float* x, int64_t n, int64_t k, float* y) {
  parallel_for(0, n, std::max<int64_t>(4, kGrainSize / std::max<int64_t>(k, 1)), [&](int64_t j0, int64_t j1) { gemv_rows(w, x, k, j0, j1, y); });
}

void finish_row_f32(const float* acc, const float* bias, const Epilogue& e, int64_t n, float* y) {
  // A slice at a time on the stack: the GEMMs call this once per row and column group.
  constexpr int64_t kSlice = 256;
  float v[kSlice];
  for (int64_t j0 = 0; j0 < n; j0 += kSlice) {
    const int64_t m = std::min(kSlice, n - j0);
    finish_slice(acc + j0, bias ? bias + j0 : nullptr, e, m, y + j0, v);
  }
}

void finish_all_f32(const float* acc, const Epilogue& e, int64_t n, float* y) {
  parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t end) { finish_row_f32(acc + b, nullptr, e, end - b, y + b); });
}

}  // namespace jitctl::cpu
