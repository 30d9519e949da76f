#include "kernels/cpu/depthwise_conv.h"

#include <algorithm>
#include <cstring>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/dnnl_util.h"
#include "kernels/cpu/gemv.h"
#include "kernels/cpu/isa_dispatch.h"
#include "kernels/cpu/scratch.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/cpu/vector_activation.h"
#include "kernels/parallel.h"

namespace jitctl::cpu {

namespace {

// Input rows per band of output rows: a band's input (L2-resident) is read from L2 into L1 about
// once per channel block.
constexpr int64_t kBandBytes = 128 << 10;

// Narrowest image DepthwiseConv takes on AVX2 (see takes()).
constexpr int64_t kMinAvx2Width = 56;

// Everything one call's row loops read, resolved once.
struct Job {
  const float* x;     // input, dense channels-last
  float* y;           // output, dense channels-last
  const float* w;     // [3][3][C]
  const float* bias;  // [C]
  const float* zeros;  // an input row of zeros, for kernel rows in the padding
  int64_t c, h, w_in, oh, ow, ph, pw;
  const Epilogue* epilogue;  // applied per row in Mode::Row
  int mode;           // Mode, below
  float lo, hi;       // Mode::Clamp's bounds
};

#ifdef JITCTL_TARGET_AVX512

// The helpers below take and return vector types in a file compiled for the baseline ISA; all are
// always inlined into rows_avx2, so no call with the vector ABI GCC warns about exists.
#pragma GCC diagnostic ignored "-Wpsabi"

template <int V>
struct VecOf;
template <>
struct VecOf<8> {
  typedef float type __attribute__((vector_size(32)));
};

template <class vf>
JITCTL_ALWAYS_INLINE vf load(const float* p) {
  vf v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// The epilogue applied in registers before the store, chosen once per call: the common single
// activations. Anything else is applied to the finished row (Mode::Row).
using Mode = VecActivation;

Mode mode_of(const Epilogue& e) {
  if (e.empty()) return Mode::None;
  return e.size() > 1 ? Mode::Row : vec_activation_of(e[0]);
}

// P pixels from ow of one output row, channels c0..c0+lanes, the filter wv in registers.
// rows[kh]: the input row kernel row kh reads (the zero row when it lies in the padding).
// Checked: a column may lie in the padding (it reads zeros) and pixels past the row's end are not
// stored.
template <class vf, int K, int S, int P, Mode M, bool Checked>
JITCTL_ALWAYS_INLINE void pixel_block(const Job& j, const float* const (&rows)[K], int64_t c0, vf bv, vf lo, vf hi,
                                      int64_t ow, float* yrow) {
  const int64_t C = j.c;
  vf acc[P];
#pragma GCC unroll 8
  for (int p = 0; p < P; ++p) acc[p] = bv;
  // The window's input columns, each loaded once per kernel row and shared by the pixels and
  // filter taps that read it; the pointer steps one pixel (C floats) at a time, so no column
  // costs a multiply.
  constexpr int kCols = (P - 1) * S + K;
  const int64_t iw0 = ow * S - j.pw;
#pragma GCC unroll 5
  for (int kh = 0; kh < K; ++kh) {
    const float* src = rows[kh] + iw0 * C + c0;
    vf xin[kCols];
#pragma GCC unroll 16
    for (int q = 0; q < kCols; ++q, src += C) {
      if constexpr (Checked)
        xin[q] = load<vf>(static_cast<uint64_t>(iw0 + q) < static_cast<uint64_t>(j.w_in) ? src : j.zeros + c0);  // one compare: no branch
      else
        xin[q] = load<vf>(src);
    }
    vf wv[K];  // this kernel row's taps (L1-resident: K loads per P pixels)
#pragma GCC unroll 5
    for (int kw = 0; kw < K; ++kw) wv[kw] = load<vf>(j.w + (kh * K + kw) * C + c0);
#pragma GCC unroll 5
    for (int kw = 0; kw < K; ++kw)
#pragma GCC unroll 8
      for (int p = 0; p < P; ++p) acc[p] += wv[kw] * xin[p * S + kw];
  }
#pragma GCC unroll 8
  for (int p = 0; p < P; ++p)
    if (!Checked || ow + p < j.ow) {
      const vf v = activate<M>(acc[p], lo, hi);
      std::memcpy(yrow + (ow + p) * C + c0, &v, sizeof v);
    }
}

template <class vf, int K, int S, int P, Mode M>
JITCTL_ALWAYS_INLINE void channel_block(const Job& j, const float* const (&rows)[K], int64_t c0, float* yrow) {
  const vf bv = load<vf>(j.bias + c0);
  const vf zero = {};
  const vf lo = zero + j.lo, hi = zero + j.hi;
  // Columns whose whole window lies inside the image: first..last.
  const int64_t first = std::min(j.ow, (j.pw + S - 1) / S);
  const int64_t last = std::max(first, std::min(j.ow, j.w_in + j.pw - K >= 0 ? (j.w_in + j.pw - K) / S + 1 : 0));
  int64_t ow = 0;
  for (; ow < first; ow += P) pixel_block<vf, K, S, P, M, true>(j, rows, c0, bv, lo, hi, ow, yrow);
  for (; ow + P <= last; ow += P) pixel_block<vf, K, S, P, M, false>(j, rows, c0, bv, lo, hi, ow, yrow);
  for (; ow < j.ow; ow += P) pixel_block<vf, K, S, P, M, true>(j, rows, c0, bv, lo, hi, ow, yrow);
}

// Output row r (over batch and height), channels c0..c0+lanes. (A function, not a lambda: a
// lambda GCC does not inline would be compiled without the caller's AVX2 target.)
template <class vf, int K, int S, int P, Mode M>
JITCTL_ALWAYS_INLINE void row_block(const Job& j, int64_t r, int64_t c0) {
  const int64_t n = r / j.oh, oh = r % j.oh;
  const float* image = j.x + n * j.h * j.w_in * j.c;
  const float* rows[K];
  for (int kh = 0; kh < K; ++kh) {
    const int64_t ih = oh * S - j.ph + kh;
    rows[kh] = ih >= 0 && ih < j.h ? image + ih * j.w_in * j.c : j.zeros;
  }
  channel_block<vf, K, S, P, M>(j, rows, c0, j.y + r * j.ow * j.c);
}

// Output rows r0..r1 (over batch and height), every channel: blocks of V, then one block ending
// at the last channel (overlapping the one before: those channels are computed twice, equally).
template <int V, int K, int S, Mode M>
JITCTL_ALWAYS_INLINE void rows(const Job& j, int64_t r0, int64_t r1) {
  using vf = typename VecOf<V>::type;
  // Pixels per block: P accumulators beside the window's columns and a kernel row's taps (16
  // vector registers on AVX2).
  constexpr int P = 4;
  // Bands of output rows, channel block by channel block within a band: a block's kernel rows
  // (a few KB) stay in L1 while it walks down the band, where a whole row of every channel
  // (K rows of W x C floats) would not.
  const int64_t band = std::max<int64_t>(1, kBandBytes / std::max<int64_t>(1, j.w_in * j.c * static_cast<int64_t>(sizeof(float))));
  for (int64_t b0 = r0; b0 < r1; b0 += band) {
    const int64_t b1 = std::min(r1, b0 + band);
    int64_t c0 = 0;  // suits() asks for at least V channels
    for (; c0 + V <= j.c; c0 += V)
      for (int64_t r = b0; r < b1; ++r) row_block<vf, K, S, P, M>(j, r, c0);
    if (c0 < j.c)
      for (int64_t r = b0; r < b1; ++r) row_block<vf, K, S, P, M>(j, r, j.c - V);
    if (M == Mode::Row)
      for (int64_t r = b0; r < b1; ++r) {
        float* y = j.y + r * j.ow * j.c;
        finish_row_f32(y, nullptr, *j.epilogue, j.ow * j.c, y);  // in place: it reads the row before writing
      }
  }
}

// In place (run_in_place): output rows r0..r1 written over the input's rows, each one row late.
// Output row r reads input rows r-1..r+1, so it goes to a two-row ring first and reaches row r's
// bytes once row r+1 is done; input rows r0-1 and r1, which the neighbouring chunks overwrite,
// come from copies made before any chunk started (before, after).
template <int V, int K, int S, Mode M>
JITCTL_ALWAYS_INLINE void rows_in_place(const Job& j, int64_t r0, int64_t r1, const float* before, const float* after, float* ring) {
  using vf = typename VecOf<V>::type;
  constexpr int P = 4;
  const int64_t row = j.ow * j.c;  // floats in an output row, as in an input row (same shape)
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t n = r / j.oh, oh = r % j.oh;
    const float* rows[K];
    for (int kh = 0; kh < K; ++kh) {
      const int64_t ih = oh - j.ph + kh;
      const int64_t flat = n * j.h + ih;
      rows[kh] = ih < 0 || ih >= j.h ? j.zeros : flat == r0 - 1 ? before : flat == r1 ? after : j.x + flat * row;
    }
    float* dst = ring + (r & 1) * row;
    int64_t c0 = 0;
    for (; c0 + V <= j.c; c0 += V) channel_block<vf, K, S, P, M>(j, rows, c0, dst);
    if (c0 < j.c) channel_block<vf, K, S, P, M>(j, rows, j.c - V, dst);
    if (M == Mode::Row) finish_row_f32(dst, nullptr, *j.epilogue, row, dst);
    if (r > r0) std::memcpy(j.y + (r - 1) * row, ring + ((r - 1) & 1) * row, static_cast<size_t>(row) * sizeof(float));
  }
  std::memcpy(j.y + (r1 - 1) * row, ring + ((r1 - 1) & 1) * row, static_cast<size_t>(row) * sizeof(float));
}

// ring: null for the out-of-place sweep, else rows_in_place's arguments.
template <int V, int K, int S, Mode M>
JITCTL_ALWAYS_INLINE void rows_either(const Job& j, int64_t r0, int64_t r1, const float* before, const float* after, float* ring) {
  if (ring)
    rows_in_place<V, K, S, M>(j, r0, r1, before, after, ring);
  else
    rows<V, K, S, M>(j, r0, r1);
}

// The kernel size and stride are template parameters so the column indexing is constant-folded.
template <int V, int K, int S>
JITCTL_ALWAYS_INLINE void rows_ks(const Job& j, int64_t r0, int64_t r1, const float* before, const float* after, float* ring) {
  switch (static_cast<Mode>(j.mode)) {
    case Mode::None: rows_either<V, K, S, Mode::None>(j, r0, r1, before, after, ring); break;
    case Mode::Relu: rows_either<V, K, S, Mode::Relu>(j, r0, r1, before, after, ring); break;
    case Mode::Clamp: rows_either<V, K, S, Mode::Clamp>(j, r0, r1, before, after, ring); break;
    case Mode::Hardswish: rows_either<V, K, S, Mode::Hardswish>(j, r0, r1, before, after, ring); break;
    case Mode::Row: rows_either<V, K, S, Mode::Row>(j, r0, r1, before, after, ring); break;
  }
}

// Only 3x3 stride 1 is instantiated (suits()). With K = 5 or S = 2 the same code ran slower than
// oneDNN's kernels here: GCC, short of registers for the wider windows, computes each pixel's
// taps as one dependent chain (MNASNet's 480 channels on 14x14, 5x5: 61 us against 39).
template <int V>
JITCTL_ALWAYS_INLINE void rows_for(const Job& j, int64_t r0, int64_t r1, const float* before, const float* after, float* ring) {
  rows_ks<V, 3, 1>(j, r0, r1, before, after, ring);
}

JITCTL_TARGET_AVX2 void rows_avx2(const Job& j, int64_t r0, int64_t r1, const float* before = nullptr, const float* after = nullptr,
                                  float* ring = nullptr) {
  rows_for<8>(j, r0, r1, before, after, ring);
}

// The call's Job. w: [3][3][C]; zeros: an input row of zeros, for kernel rows in the padding
// (columns are always inside).
Job make_job(const float* w, const float* bias, int64_t c, const Epilogue& e, const Tensor& input, const ConvParams& p, float* y,
             const std::vector<float>& zeros) {
  Job j{};
  j.x = static_cast<const float*>(input.data());
  j.y = y;
  j.w = w;
  j.bias = bias;
  j.zeros = zeros.data();
  j.c = c, j.h = p.h, j.w_in = p.w, j.oh = p.oh, j.ow = p.ow, j.ph = p.ph, j.pw = p.pw;
  j.epilogue = &e;
  j.mode = static_cast<int>(mode_of(e));
  j.lo = e.empty() ? 0.0f : e[0].a;
  j.hi = e.empty() ? 0.0f : e[0].b;
  return j;
}

#endif  // JITCTL_TARGET_AVX512

// Rows of output a thread takes at least: about 64 KB of input rows read.
int64_t grain(const ConvParams& p, int64_t c) {
  const double row_bytes = static_cast<double>(p.ow * c) * sizeof(float) * 3.0;
  return static_cast<int64_t>(std::max(1.0, 64e3 / std::max(row_bytes, 1.0)));
}

}  // namespace

bool DepthwiseConv::suits(const Tensor& weight, const ConvArgs& args, const Epilogue& epilogue) {
#ifdef JITCTL_TARGET_AVX512
  if (cpu_features().isa != Isa::Avx2 || args.transposed || weight.dtype() != DType::Float32 || weight.dim() != 4) return false;
  const auto& ws = weight.sizes();
  if (ws[1] != 1 || args.groups != ws[0] || ws[0] < 8 || ws[2] != 3 || ws[3] != 3) return false;
  for (auto d : args.dilation)
    if (d != 1) return false;
  for (auto st : args.stride)
    if (st != 1) return false;
  return !has_residual(epilogue);
#else
  (void)weight, (void)args, (void)epilogue;
  return false;
#endif
}

DepthwiseConv::DepthwiseConv(const Tensor& weight, const Tensor& bias, Epilogue epilogue)
    : c_(weight.sizes()[0]),
      epilogue_(std::move(epilogue)) {
  const Tensor wc = contiguous(weight);
  const float* w = static_cast<const float*>(wc.data());
  w_.assign(static_cast<size_t>((kTaps + 1) * c_), 0.0f);
  for (int64_t ch = 0; ch < c_; ++ch)
    for (int64_t t = 0; t < kTaps; ++t) w_[t * c_ + ch] = w[ch * kTaps + t];
  if (bias.defined()) {
    const Tensor bc = contiguous(bias);
    std::memcpy(w_.data() + kTaps * c_, bc.data(), static_cast<size_t>(c_) * sizeof(float));
  }
}

bool DepthwiseConv::takes(const Tensor& input) const {
  // On AVX2 (four-pixel blocks) only images at least 56 wide: narrower ones are mostly edge
  // blocks, and oneDNN's kernel was faster there (JITCTL_ISA=avx2, in the models: 384 channels on
  // 14x14 103 -> 129 us, 960 on 7x7 63 -> 68; 32 on 112x112 160 -> 147, 144 on 56x56 134 -> 130).
  return input.dim() == 4 && input.dtype() == DType::Float32 && input.sizes()[1] == c_ && input.storage_offset() >= 0 &&
         input.strides() == channels_last_strides(input.sizes()) && input.sizes()[3] >= kMinAvx2Width;
}

void DepthwiseConv::run(const Tensor& input, const ConvParams& p, Tensor& out) const {
#ifdef JITCTL_TARGET_AVX512
  const std::vector<float> zeros(static_cast<size_t>(p.w * c_), 0.0f);
  const Job j = make_job(w_.data(), w_.data() + kTaps * c_, c_, epilogue_, input, p, static_cast<float*>(out.mutable_data()), zeros);
  parallel_for(0, p.n * p.oh, grain(p, c_), [&](int64_t r0, int64_t r1) { rows_avx2(j, r0, r1); });
#else
  (void)input, (void)p, (void)out;
#endif
}

bool DepthwiseConv::takes_in_place(const Tensor& input, const ConvParams& p) const {
  // Padding 1 on every side: output row r reads input rows r-1..r+1 (rows_in_place's delay).
  return takes(input) && input.storage_offset() == 0 && p.ph == 1 && p.ph_after == 1 && p.pw == 1 && p.pw_after == 1 &&
         p.oh == p.h && p.ow == p.w;
}

void DepthwiseConv::run_in_place(Tensor& inout, const ConvParams& p) const {
#ifdef JITCTL_TARGET_AVX512
  const std::vector<float> zeros(static_cast<size_t>(p.w * c_), 0.0f);
  const Job j = make_job(w_.data(), w_.data() + kTaps * c_, c_, epilogue_, inout, p, static_cast<float*>(inout.mutable_data()), zeros);
  const int64_t rows = p.n * p.oh, row = p.ow * c_;
  // Chunks fixed here, not by parallel_for, so the rows at their edges can be copied first.
  const int64_t threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  const int64_t chunks = std::max<int64_t>(1, std::min(threads, rows / grain(p, c_)));
  const int64_t step = (rows + chunks - 1) / chunks;
  // Per chunk: the input row before it and the row after it, then its two-row ring. The calling
  // thread's scratch (reused from call to call: not cleared, not faulted in again), shared by the
  // chunks.
  auto* scratch = static_cast<float*>(scratch_buffer(ScratchSlot::ConvAcc, static_cast<size_t>(chunks * 4 * row) * sizeof(float)));
  auto slot = [&](int64_t c, int k) { return scratch + (c * 4 + k) * row; };
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t r0 = c * step, r1 = std::min(rows, r0 + step);
    if (r0 > 0 && r0 < rows) std::memcpy(slot(c, 0), j.x + (r0 - 1) * row, static_cast<size_t>(row) * sizeof(float));
    if (r1 < rows) std::memcpy(slot(c, 1), j.x + r1 * row, static_cast<size_t>(row) * sizeof(float));
  }
  parallel_for(0, chunks, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      const int64_t r0 = c * step, r1 = std::min(rows, r0 + step);
      if (r0 < r1) rows_avx2(j, r0, r1, slot(c, 0), slot(c, 1), slot(c, 2));
    }
  });
#else
  (void)inout, (void)p;
#endif
}

}  // namespace jitctl::cpu
