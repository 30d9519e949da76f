#pragma once
// Ops the GPU runs as a sequence of other ops (the attention paths, the RNNs) call those ops'
// CUDA kernels through the registry, so each step keeps the one definition it already has (the
// same promotion, broadcasting and rounding as when a model calls it directly).
#include <fmt/format.h>

#include <utility>
#include <vector>

#include "kernels/cpu/tensor_util.h"
#include "kernels/cuda_backend.h"
#include "kernels/registry.h"

namespace jitctl::cuda {

// The first output of the CUDA kernel `name` on `args`; NotOnDevice when there is none.
inline IValue call_op(const char* name, Stack args) {
  const KernelFn fn = find_kernel(name, Backend::CUDA);
  if (!fn) throw NotOnDevice(fmt::format("{}: no CUDA kernel", name));
  fn(args);
  return std::move(args[0]);
}

inline Tensor call_tensor_op(const char* name, Stack args) { return call_op(name, std::move(args)).to_tensor(); }

inline IValue int_list(std::vector<int64_t> v) {
  auto l = std::make_shared<ListData>();
  for (int64_t x : v) l->items.push_back(IValue(x));
  return IValue(std::move(l));
}

// The last two dims swapped (a view).
inline Tensor transposed_view(const Tensor& t) {
  std::vector<int64_t> sizes = t.sizes(), strides = t.strides();
  std::swap(sizes[sizes.size() - 1], sizes[sizes.size() - 2]);
  std::swap(strides[strides.size() - 1], strides[strides.size() - 2]);
  return cpu::make_view(t, sizes, strides, t.storage_offset());
}

}  // namespace jitctl::cuda
