#pragma once
// cat's and stack's argument rules, one definition for the CPU and CUDA kernels (which copy the
// parts where their tensors live).
#include <cstdint>
#include <vector>

#include "lib/core/tensor.h"

namespace jitctl::cpu {

struct CatPlan {
  std::vector<const Tensor*> parts;  // the inputs to copy: legacy 1-D empty ones are skipped
  DType dtype = DType::Float32;      // all inputs' promoted dtype
  int64_t dim = 0;                   // wrapped
  std::vector<int64_t> shape;        // the result's (no parts: an empty result of ts[0]'s sizes)
};
CatPlan plan_cat(const std::vector<Tensor>& ts, int64_t dim);

// stack is cat along `dim` of the inputs, each viewed with a new size-1 dim there.
struct StackPlan {
  std::vector<Tensor> parts;
  int64_t dim = 0;  // wrapped
};
StackPlan plan_stack(const std::vector<Tensor>& ts, int64_t dim);

}  // namespace jitctl::cpu
