#pragma once
// jitctl's own float32 GEMM for AVX2 machines, on a weight matrix packed once: out = x · Wᵀ for a
// linear's W [N, K].
//
// Why: oneDNN 2.6 has no AVX2 kernel that takes pre-packed weights (its brgemm matmul needs
// AVX-512); on AVX2 it runs its gemm:jit, which re-packs the weight on every call. For the MLP's
// 64x1024 -> 4096 layer that ran at 72 GFLOP/s of the core's 137, and at 70 for the encoder's
// 128x256 -> 1024. This kernel packs W once into 16-column panels and runs a 6x16 register tile
// (12 accumulators) over K in L1-sized slices.
#include <cstdint>
#include <memory>
#include <new>

#include "kernels/cpu/epilogue.h"

namespace jitctl::cpu {

class Avx2PackedWeight {
 public:
  // w [n, k] row-major (nn.Linear's weight).
  Avx2PackedWeight(const float* w, int64_t n, int64_t k);

  // out[r, 0:n] = epilogue(x[r, 0:k] · Wᵀ + bias) for r < rows, x rows `ld` floats apart, out rows
  // `ldo` apart, bias null or n floats; with an Add in the epilogue, out holds the residual on
  // entry (PackedLinear's contract). Splits the columns (and, with few columns, the rows) over the
  // OpenMP team; each column group is finished (finish_row_f32) while it is still in cache.
  void multiply(const float* x, int64_t rows, int64_t ld, const float* bias, const Epilogue& epilogue, float* out, int64_t ldo) const;

  // Whether this kernel is the one to use on this machine: its ISA is AVX2, not AVX-512 (where
  // oneDNN's brgemm takes packed weights), and JITCTL_AVX2_GEMM is not 0.
  static bool preferred();

 private:
  int64_t n_, k_;
  int64_t group_panels_;  // panels per column group (at most 8, equal across the groups)
  struct AlignedFree {
    void operator()(float* p) const { ::operator delete[](p, std::align_val_t{64}); }
  };
  // The 16-column panels, the last one's missing columns zero, stored in the order multiply reads
  // them: by group of panels (the columns finished together), then by K slice, then panel, each
  // slice [kc][16]. A group's weights are then one sequential stream that the hardware prefetchers
  // follow; stored panel by panel ([k][16] each), every slice began a new stream k * 64 bytes from the
  // last (48 KB at K = 768; ViT-B/16's 768 -> 2304 layer: 7.35 -> 6.79 ms, 768 -> 3072: 9.7 -> 9.1, capped at AVX2,
  // one thread). 64-byte aligned, so no load of a 16-float row crosses a cache line.
  float* slice(int64_t panel, int64_t k0) const;  // panel's [kc][16] slice from row k0
  std::unique_ptr<float[], AlignedFree> panels_;
};

}  // namespace jitctl::cpu
