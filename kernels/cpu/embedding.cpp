// aten::embedding: row gather from a 2-D weight. padding_idx, scale_grad_by_freq and sparse only
// affect gradients, so the forward pass ignores them.
#include <cstring>
#include <string>

#include "kernels/cpu/register_cpu.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/registry.h"

namespace jitctl {
namespace {

template <class Index>
void gather_rows(const Tensor& weight, const Tensor& indices, Tensor& out) {
  const int64_t rows = weight.sizes()[0];
  const size_t row_bytes = static_cast<size_t>(weight.sizes()[1]) * element_size(weight.dtype());
  const auto* src = static_cast<const char*>(weight.data());
  auto* dst = static_cast<char*>(out.mutable_data());
  const Index* idx = cpu::data_of<Index>(indices);
  const int64_t n = indices.numel();
  for (int64_t i = 0; i < n; ++i) {
    const auto r = static_cast<int64_t>(idx[i]);
    if (r < 0 || r >= rows) throw InvalidInput("index out of range in self");
    std::memcpy(dst + static_cast<size_t>(i) * row_bytes, src + static_cast<size_t>(r) * row_bytes, row_bytes);
  }
}

void embedding(Stack& s) {
  const Tensor weight = cpu::contiguous(s[0].to_tensor());
  const Tensor indices = cpu::contiguous(s[1].to_tensor());
  if (weight.dim() != 2) throw InvalidInput("'weight' must be 2-D");
  if (indices.dtype() != DType::Int64 && indices.dtype() != DType::Int32)
    throw InvalidInput(std::string("Expected tensor for argument #1 'indices' to have one of the following scalar "
                                   "types: Long, Int; but got ") +
                       std::string(scalar_type_name(indices.dtype())) + " instead (while checking arguments for embedding)");
  std::vector<int64_t> shape = indices.sizes();
  shape.push_back(weight.sizes()[1]);
  Tensor out = Tensor::empty(weight.dtype(), std::move(shape));
  if (indices.dtype() == DType::Int64)
    gather_rows<int64_t>(weight, indices, out);
  else
    gather_rows<int32_t>(weight, indices, out);
  s.clear();
  s.emplace_back(std::move(out));
}

}  // namespace

void register_embedding_kernels() { register_kernel("aten::embedding", &embedding); }

}  // namespace jitctl
