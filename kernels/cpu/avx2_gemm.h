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
#include <functional>
#include <memory>
#include <new>

namespace jitctl::cpu {

class Avx2PackedWeight {
 public:
  // w [n, k] row-major (nn.Linear's weight).
  Avx2PackedWeight(const float* w, int64_t n, int64_t k);

  int64_t n() const { return n_; }
  int64_t k() const { return k_; }

  // Finishes output columns [c0, c1) of row r: `acc` holds the product for them (acc[j - c0]).
  using Finish = std::function<void(int64_t r, int64_t c0, int64_t c1, const float* acc)>;

  // For r < rows: the product x[r, 0:k] · Wᵀ, handed to `finish` a column group at a time (rows
  // `ld` floats apart). Splits the columns (and, with few columns, the rows) over the OpenMP team;
  // finish is called from its threads, each (r, column) exactly once.
  void multiply(const float* x, int64_t rows, int64_t ld, const Finish& finish) const;

  // Whether this kernel is the one to use on this machine: its ISA is AVX2, not AVX-512 (where
  // oneDNN's brgemm takes packed weights), and JITCTL_AVX2_GEMM is not 0.
  static bool preferred();

 private:
  int64_t n_, k_;
  struct AlignedFree {
    void operator()(float* p) const { ::operator delete[](p, std::align_val_t{64}); }
  };
  // [n/16 rounded up][k][16], the last panel's missing columns zero; 64-byte aligned, so no load
  // of a 16-float row crosses a cache line.
  std::unique_ptr<float[], AlignedFree> panels_;
};

}  // namespace jitctl::cpu
