#include "kernels/cpu/gemv.h"

#include <algorithm>

#include "kernels/cpu/activations.h"
#include "kernels/cpu/isa_dispatch.h"
#include "kernels/parallel.h"

namespace jitctl::cpu {
namespace {

// Four rows at a time: four independent sums keep the FMA pipes busy while x is read once.
JITCTL_ALWAYS_INLINE void gemv_rows_body(const float* __restrict w, const float* __restrict x, int64_t k, int64_t j0, int64_t j1,
                                         float* __restrict y) {
  int64_t j = j0;
  for (; j + 4 <= j1; j += 4) {
    const float* w0 = w + j * k;
    const float* w1 = w0 + k;
    const float* w2 = w1 + k;
    const float* w3 = w2 + k;
    float a0 = 0, a1 = 0, a2 = 0, a3 = 0;
#pragma omp simd reduction(+ : a0, a1, a2, a3)
    for (int64_t i = 0; i < k; ++i) {
      a0 += w0[i] * x[i];
      a1 += w1[i] * x[i];
      a2 += w2[i] * x[i];
      a3 += w3[i] * x[i];
    }
    y[j] = a0;
    y[j + 1] = a1;
    y[j + 2] = a2;
    y[j + 3] = a3;
  }
  for (; j < j1; ++j) {
    const float* wr = w + j * k;
    float a = 0;
#pragma omp simd reduction(+ : a)
    for (int64_t i = 0; i < k; ++i) a += wr[i] * x[i];
    y[j] = a;
  }
}
JITCTL_ISA_CLONES(void, gemv_rows, (const float* w, const float* x, int64_t k, int64_t j0, int64_t j1, float* y), (w, x, k, j0, j1, y))

// One row at a time, 32 partial sums (whole vectors on every ISA), summed as a tree: the weights
// read as one sequential stream. Four rows side by side are four streams 4K floats apart, which
// the prefetchers follow poorly from memory: for a weight that comes from DRAM (a classifier's
// 5 MB at the end of a network whose weights outgrow the caches) this read 1280 -> 1000 in 145-
// 215 us where four rows took 220-330; from L3 it is 1.2x slower (80 against 67 us).
JITCTL_ALWAYS_INLINE void gemv_stream_body(const float* __restrict w, const float* __restrict x, int64_t k, int64_t j0, int64_t j1,
                                           float* __restrict y) {
  constexpr int64_t kL = 32;
  for (int64_t j = j0; j < j1; ++j) {
    const float* wr = w + j * k;
    float acc[kL] = {};
    int64_t i = 0;
    for (; i + kL <= k; i += kL) {
#pragma GCC unroll 32
      for (int64_t l = 0; l < kL; ++l) acc[l] += wr[i + l] * x[i + l];
    }
    for (; i < k; ++i) acc[i % kL] += wr[i] * x[i];
#pragma GCC unroll 16
    for (int64_t h = kL / 2; h >= 1; h /= 2)
      for (int64_t l = 0; l < h; ++l) acc[l] += acc[l + h];
    y[j] = acc[0];
  }
}
JITCTL_ISA_CLONES(void, gemv_stream, (const float* w, const float* x, int64_t k, int64_t j0, int64_t j1, float* y), (w, x, k, j0, j1, y))

// Weights above this many bytes are read as one stream (gemv_stream): more than half an L2, they
// will not be in it from the last call; smaller ones (an SE block's) may well be.
constexpr int64_t kStreamBytes = int64_t{1} << 20;

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
  const bool stream = n * k * static_cast<int64_t>(sizeof(float)) > kStreamBytes;
  parallel_for(0, n, std::max<int64_t>(4, kGrainSize / std::max<int64_t>(k, 1)), [&](int64_t j0, int64_t j1) {
    if (stream)
      gemv_stream(w, x, k, j0, j1, y);
    else
      gemv_rows(w, x, k, j0, j1, y);
  });
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
