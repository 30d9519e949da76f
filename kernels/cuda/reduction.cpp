// Reductions on the device: sum, mean, amax/amin, max/min (all and .dim), argmax/argmin,
// softmax and log_softmax. The host side follows kernels/cpu/reduction.cpp: the same output
// dtypes and errors, and its [outer, R, inner] geometry (kernels/cpu/reduction.h) with the input
// made contiguous on the device, then one kernel (reduction.cu).
#include <cstdint>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "kernels/cpu/reduction.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/cuda/context.h"
#include "kernels/cuda/device_dtype.h"
#include "kernels/cuda/reduction_launch.h"
#include "kernels/cuda/register_cuda.h"
#include "kernels/cuda_backend.h"
#include "kernels/registry.h"

namespace jitctl::cuda {
namespace {

const Tensor& targ(const Stack& s, size_t i) { return s[i].to_tensor(); }
const void* addr_or_null(const Tensor& t) { return t.numel() ? address(t) : nullptr; }

using Reduce = cpu::ReducePlan;

Reduce plan_reduce(const Tensor& input, const std::vector<int64_t>& dims, bool keepdim) {
  return cpu::plan_reduce(on_device(input), dims, keepdim, contiguous);
}

Tensor reduce(ReduceOp op, const Reduce& p, int kt, DType out_dt, const char* name) {
  require_dtype(out_dt, name);
  Tensor out = empty(out_dt, p.out_sizes);
  if (!launch_reduce(op, kt, addr_or_null(p.x), code(p.x.dtype()), out.numel() ? address(out) : nullptr, code(out_dt), p.outer, p.R,
                     p.inner, stream()))
    throw NotOnDevice(fmt::format("{}: no device kernel for dtype {}", name, dtype_name(out_dt)));
  check_launch(name);
  return out;
}

Tensor sum_impl(const Tensor& self, const IValue& dim, bool keepdim, const IValue& dtype, bool mean) {
  const char* name = mean ? "mean" : "sum";
  DType out_dt = self.dtype();
  if (auto d = cpu::optional_scalar_type_arg(dtype)) out_dt = *d;
  else if (!is_floating(out_dt) && !mean) out_dt = DType::Int64;
  if (mean && !is_floating(out_dt))
    throw InvalidInput(fmt::format("mean(): could not infer output dtype. Input dtype must be either a floating point or "
                                   "complex dtype. Got: {}", scalar_type_name(out_dt)));
  require_dtype(self.dtype(), name);
  const int kt = kernel_type(out_dt, name);
  const Reduce p = plan_reduce(self, cpu::reduction_dims(dim, self.dim(), name), keepdim);
  return reduce(mean ? ReduceOp::Mean : ReduceOp::Sum, p, kt, out_dt, name);
}

// max/min/amax/amin: NaN wins, as in PyTorch.
Tensor extreme_impl(const Tensor& self, const std::vector<int64_t>& dims, bool keepdim, bool is_max, const char* op) {
  require_dtype(self.dtype(), op);
  const int kt = kernel_type(self.dtype(), op);
  const Reduce p = plan_reduce(self, dims, keepdim);
  if (p.R == 0 || self.numel() == 0)
    throw InvalidInput(fmt::format("{}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction "
                                   "dim with the 'dim' argument.", op));
  return reduce(is_max ? ReduceOp::Max : ReduceOp::Min, p, kt, self.dtype(), op);
}

// Values and indices along one dim: the first extreme wins; a NaN wins over numbers.
std::pair<Tensor, Tensor> arg_extreme(const Tensor& self, int64_t dim, bool keepdim, bool is_max, bool want_values, const char* op) {
  require_dtype(self.dtype(), op);
  const int kt = kernel_type(self.dtype(), op);
  // A 0-dim input reduces as one element and stays 0-dim.
  Tensor x = on_device(self);
  if (x.dim() == 0) {
    x = cpu::make_view(x, {1}, {1}, x.storage_offset());
    keepdim = false;
  }
  const Reduce p = plan_reduce(x, {dim}, keepdim);
  if (p.R == 0) throw InvalidInput(fmt::format("{}(): Expected reduction dim {} to have non-zero size.", op, dim));
  Tensor values = want_values ? empty(self.dtype(), p.out_sizes) : Tensor();
  Tensor indices = empty(DType::Int64, p.out_sizes);
  const bool any = indices.numel() != 0;
  if (!launch_arg_reduce(is_max, kt, addr_or_null(p.x), code(p.x.dtype()), want_values && any ? address(values) : nullptr,
                         code(self.dtype()), any ? ptr<int64_t>(indices) : nullptr, p.outer, p.R, p.inner, stream()))
    throw NotOnDevice(fmt::format("{}: no device kernel for dtype {}", op, dtype_name(self.dtype())));
  check_launch(op);
  return {values, indices};
}

Tensor argmax_impl(const Tensor& self, const IValue& dim, bool keepdim, bool is_max) {
  const char* op = is_max ? "argmax" : "argmin";
  if (dim.is_none()) {
    if (self.numel() == 0) throw InvalidInput(fmt::format("{}(): Expected reduction dim to be specified for input.numel() == 0.", op));
    require_dtype(self.dtype(), op);
    const Tensor c = contiguous(self);
    const Tensor f = cpu::make_view(c, {self.numel()}, {1}, c.storage_offset());
    Tensor idx = arg_extreme(f, 0, false, is_max, false, op).second;
    if (keepdim) {
      std::vector<int64_t> ones(static_cast<size_t>(self.dim()), 1);
      return cpu::make_view(idx, ones, std::vector<int64_t>(ones.size(), 1), 0);
    }
    return idx;
  }
  return arg_extreme(self, cpu::wrap_dim(dim.to_int(), self.dim()), keepdim, is_max, false, op).second;
}

Tensor softmax_impl(const Tensor& self, int64_t dim, const IValue& dtype, bool log) {
  DType dt = self.dtype();
  if (auto d = cpu::optional_scalar_type_arg(dtype)) dt = *d;
  if (!is_floating(dt))
    throw InvalidInput(fmt::format("\"{}\" not implemented for '{}'", log ? "log_softmax_lastdim_kernel_impl" : "softmax_lastdim_kernel_impl",
                                   scalar_type_name(dt)));
  if (dt != DType::Float32 || self.dtype() != DType::Float32)
    throw NotOnDevice(fmt::format("{}: only float32 runs on the device", log ? "log_softmax" : "softmax"));
  Tensor x = on_device(self);
  if (x.dim() == 0) {
    x = contiguous(x);
    x = cpu::make_view(x, {1}, {1}, x.storage_offset());
  }
  const int64_t d = cpu::wrap_dim(dim, x.dim());
  const Reduce p = plan_reduce(x, {d}, true);
  Tensor out = empty(DType::Float32, self.sizes());
  if (out.numel() == 0) return out;
  launch_softmax(ptr<float>(p.x), ptr<float>(out), p.outer, p.R, p.inner, log, stream());
  check_launch(log ? "log_softmax" : "softmax");
  return out;
}

void set_two(Stack& s, std::pair<Tensor, Tensor> r) {
  s.clear();
  s.emplace_back(std::move(r.first));
  s.emplace_back(std::move(r.second));
}

}  // namespace

void register_reduction_kernels() {
  const Backend cu = Backend::CUDA;
  register_kernel("aten::sum", [](Stack& s) { cpu::set_output(s, sum_impl(targ(s, 0), IValue(), false, s[1], false)); }, cu);
  register_kernel("aten::sum.dim_IntList",
                  [](Stack& s) { cpu::set_output(s, sum_impl(targ(s, 0), s[1], s[2].to_bool(), s[3], false)); }, cu);
  register_kernel("aten::mean", [](Stack& s) { cpu::set_output(s, sum_impl(targ(s, 0), IValue(), false, s[1], true)); }, cu);
  register_kernel("aten::mean.dim", [](Stack& s) { cpu::set_output(s, sum_impl(targ(s, 0), s[1], s[2].to_bool(), s[3], true)); }, cu);

  register_kernel("aten::max", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    cpu::set_output(s, extreme_impl(x, cpu::reduction_dims(IValue(), x.dim(), "max"), false, true, "max"));
  }, cu);
  register_kernel("aten::min", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    cpu::set_output(s, extreme_impl(x, cpu::reduction_dims(IValue(), x.dim(), "min"), false, false, "min"));
  }, cu);
  register_kernel("aten::amax", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    cpu::set_output(s, extreme_impl(x, cpu::reduction_dims(s[1], x.dim(), "amax"), s[2].to_bool(), true, "amax"));
  }, cu);
  register_kernel("aten::amin", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    cpu::set_output(s, extreme_impl(x, cpu::reduction_dims(s[1], x.dim(), "amin"), s[2].to_bool(), false, "amin"));
  }, cu);
  register_kernel("aten::max.dim", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    set_two(s, arg_extreme(x, cpu::wrap_dim(s[1].to_int(), x.dim()), s[2].to_bool(), true, true, "max"));
  }, cu);
  register_kernel("aten::min.dim", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    set_two(s, arg_extreme(x, cpu::wrap_dim(s[1].to_int(), x.dim()), s[2].to_bool(), false, true, "min"));
  }, cu);
  register_kernel("aten::argmax", [](Stack& s) { cpu::set_output(s, argmax_impl(targ(s, 0), s[1], s[2].to_bool(), true)); }, cu);
  register_kernel("aten::argmin", [](Stack& s) { cpu::set_output(s, argmax_impl(targ(s, 0), s[1], s[2].to_bool(), false)); }, cu);

  register_kernel("aten::softmax.int", [](Stack& s) { cpu::set_output(s, softmax_impl(targ(s, 0), s[1].to_int(), s[2], false)); }, cu);
  register_kernel("aten::log_softmax.int", [](Stack& s) { cpu::set_output(s, softmax_impl(targ(s, 0), s[1].to_int(), s[2], true)); }, cu);
}

}  // namespace jitctl::cuda
