// Factories that make their tensor on the GPU: zeros/ones/full/empty with device=cuda (as
// torch.zeros(..., device=x.device) in an RNN's initial state), and the *_like / new_* forms of a
// device tensor. Made on the device, so a method that creates such tensors per call can still be
// captured as a CUDA graph. The fill is aten::fill_'s device kernel.
#include <fmt/format.h>

#include "kernels/cpu/tensor_util.h"
#include "kernels/cuda/context.h"
#include "kernels/cuda/register_cuda.h"
#include "kernels/cuda_backend.h"
#include "kernels/registry.h"

namespace jitctl::cuda {
namespace {

// torch.full's dtype when none is given: a bool or int fill gives int64, as the CPU kernel says.
DType default_dtype_for(const IValue& v) { return v.is(IValue::Kind::Bool) || v.is(IValue::Kind::Int) ? DType::Int64 : DType::Float32; }

// [dtype, layout, device, pin_memory] start at `i`; a device other than the GPU is the CPU kernel's.
DType factory_dtype(const Stack& s, size_t i, DType dflt, const char* op) {
  if (i + 2 < s.size() && !s[i + 2].is_none()) {
    if (!s[i + 2].is(IValue::Kind::Device) || s[i + 2].to_device().type != Device::Type::CUDA)
      throw NotOnDevice(fmt::format("{}: a device other than cuda", op));
  }
  return cpu::optional_scalar_type_arg(s[i]).value_or(dflt);
}

Tensor filled(DType dt, const std::vector<int64_t>& sizes, const IValue& value) {
  Tensor out = empty(dt, sizes);
  if (value.is_none() || out.numel() == 0) {
    if (out.nbytes()) check(cudaMemsetAsync(address(out), 0, out.nbytes(), stream()), "cudaMemsetAsync");
    return out;
  }
  static const KernelFn fill = find_kernel("aten::fill_.Scalar", Backend::CUDA);
  if (!fill) throw NotOnDevice("fill_: no device kernel");
  Stack f{IValue(out), value};
  fill(f);
  return out;
}

const Tensor& targ(const Stack& s, size_t i) { return s[i].to_tensor(); }

}  // namespace

void register_factory_kernels() {
  const Backend cu = Backend::CUDA;
  register_kernel("aten::zeros", [](Stack& s) { cpu::set_output(s, filled(factory_dtype(s, 1, DType::Float32, "zeros"), cpu::int_list(s[0]), IValue())); }, cu);
  register_kernel("aten::ones", [](Stack& s) {
    cpu::set_output(s, filled(factory_dtype(s, 1, DType::Float32, "ones"), cpu::int_list(s[0]), IValue(int64_t{1})));
  }, cu);
  register_kernel("aten::full", [](Stack& s) {
    cpu::set_output(s, filled(factory_dtype(s, 2, default_dtype_for(s[1]), "full"), cpu::int_list(s[0]), s[1]));
  }, cu);
  // Empty tensors are zero-filled, as the CPU kernel's are: the same outputs on both devices.
  register_kernel("aten::empty.memory_format", [](Stack& s) {
    cpu::set_output(s, filled(factory_dtype(s, 1, DType::Float32, "empty"), cpu::int_list(s[0]), IValue()));
  }, cu);
  register_kernel("aten::zeros_like", [](Stack& s) {
    cpu::set_output(s, filled(factory_dtype(s, 1, targ(s, 0).dtype(), "zeros_like"), targ(s, 0).sizes(), IValue()));
  }, cu);
  register_kernel("aten::empty_like", [](Stack& s) {
    cpu::set_output(s, filled(factory_dtype(s, 1, targ(s, 0).dtype(), "empty_like"), targ(s, 0).sizes(), IValue()));
  }, cu);
  register_kernel("aten::ones_like", [](Stack& s) {
    cpu::set_output(s, filled(factory_dtype(s, 1, targ(s, 0).dtype(), "ones_like"), targ(s, 0).sizes(), IValue(int64_t{1})));
  }, cu);
  register_kernel("aten::full_like", [](Stack& s) {
    cpu::set_output(s, filled(factory_dtype(s, 2, targ(s, 0).dtype(), "full_like"), targ(s, 0).sizes(), s[1]));
  }, cu);
  register_kernel("aten::new_zeros", [](Stack& s) {
    cpu::set_output(s, filled(factory_dtype(s, 2, targ(s, 0).dtype(), "new_zeros"), cpu::int_list(s[1]), IValue()));
  }, cu);
  register_kernel("aten::new_empty", [](Stack& s) {
    cpu::set_output(s, filled(factory_dtype(s, 2, targ(s, 0).dtype(), "new_empty"), cpu::int_list(s[1]), IValue()));
  }, cu);
  register_kernel("aten::new_ones", [](Stack& s) {
    cpu::set_output(s, filled(factory_dtype(s, 2, targ(s, 0).dtype(), "new_ones"), cpu::int_list(s[1]), IValue(int64_t{1})));
  }, cu);
  register_kernel("aten::new_full", [](Stack& s) {
    cpu::set_output(s, filled(factory_dtype(s, 3, targ(s, 0).dtype(), "new_full"), cpu::int_list(s[1]), s[2]));
  }, cu);
}

}  // namespace jitctl::cuda
