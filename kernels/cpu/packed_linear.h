#pragma once
// A float32 linear (input · weightᵀ + bias) with its weight packed once into the layout oneDNN's
// matrix-multiply kernel for this CPU reads (on AVX2 machines: jitctl's own, avx2_gemm.h), and a
// fused epilogue (GELU, ReLU, ..., residual add) applied while the output is written.
//
// Built by the runtime's lowering for an aten::linear (or matmul/addmm with a constant right
// operand) whose weight is a constant; the attention kernels can hold one per projection. Safe to
// run from several threads at once.
#include <memory>
#include <mutex>
#include <vector>

#include "kernels/cpu/avx2_gemm.h"
#include "kernels/cpu/epilogue.h"
#include "lib/core/tensor.h"

namespace jitctl::cpu {

class PackedLinear {
 public:
  // weight [N, K] float32 (as nn.Linear stores it); bias [N] or undefined.
  PackedLinear(Tensor weight, Tensor bias, Epilogue epilogue);
  ~PackedLinear();

  // Whether PackedLinear implements this linear (float32, 2-D weight, 1-D bias).
  static bool supports(const Tensor& weight, const Tensor& bias);

  // input [*, K] (any strides; 1-D allowed) -> [*, N], contiguous. residual: shaped as the
  // output, required when the epilogue has an Add; when this handle is its only one
  // (Tensor::sole_owner) and it is contiguous, its bytes become the output. Checks shapes as
  // PyTorch does.
  Tensor run(const Tensor& input, const Tensor& residual = Tensor()) const;

  // The same on raw float32 rows, for kernels that work on buffers (attention): out[r, 0:N] =
  // epilogue(x[r, 0:K] · weightᵀ + bias) for r < rows, x rows `ld` floats apart, out rows `ldo`
  // apart; with an Add in the epilogue, out holds the residual on entry.
  void run_rows(const float* x, int64_t rows, int64_t ld, float* out, int64_t ldo) const;

  int64_t in_features() const { return k_; }
  int64_t out_features() const { return n_; }

 private:
  struct Primitive;
  std::shared_ptr<const Primitive> primitive_for(int64_t rows, int64_t ld, int64_t ldo) const;

  Tensor weight_, bias_;
  int64_t n_ = 0, k_ = 0;
  Epilogue epilogue_;
  std::unique_ptr<const Avx2PackedWeight> avx2_;  // set where that kernel is preferred
  mutable std::mutex mu_;
  mutable std::vector<std::shared_ptr<const Primitive>> primitives_;  // most recent last, a few at most
};

}  // namespace jitctl::cpu
