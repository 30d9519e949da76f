#include "kernels/cpu/output.h"

namespace jitctl::cpu {

Tensor new_output_strided(DType dtype, const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  int64_t span = 1;  // elements from the first to one past the last
  bool empty = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) empty = true;
    span += (sizes[i] - 1) * strides[i];
  }
  const size_t n = empty ? 0 : static_cast<size_t>(span);
  return Tensor::view_of(Storage::allocate_uninitialized(n * element_size(dtype)), dtype, 0, sizes, strides, "kernel output");
}

Tensor new_output(DType dtype, const std::vector<int64_t>& sizes) { return new_output_strided(dtype, sizes, contiguous_strides(sizes)); }

}  // namespace jitctl::cpu
