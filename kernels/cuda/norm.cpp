// batch_norm (running statistics), layer_norm, group_norm and instance_norm on the device, float32.
// Argument checks are kernels/cpu/norm.h's; batch statistics in training mode
// (which also update the running buffers in place) stay on the CPU.
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "kernels/cpu/nn_util.h"
#include "kernels/cpu/norm.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/cuda/context.h"
#include "kernels/cuda/norm_launch.h"
#include "kernels/cuda/register_cuda.h"
#include "kernels/cuda_backend.h"
#include "kernels/registry.h"

namespace jitctl::cuda {
namespace {

void require_f32(const Tensor& t, const char* op) {
  if (t.defined() && t.dtype() != DType::Float32)
    throw NotOnDevice(fmt::format("{}: dtype {} is not supported on the device (float32 only)", op, dtype_name(t.dtype())));
}

// A 1-D parameter on the device and its element stride (a 0-dim one repeats its element).
struct Param {
  Tensor t;
  const float* p = nullptr;
  int64_t stride = 0;
};
Param param(const Tensor& t) {
  Param r;
  if (!t.defined() || t.numel() == 0) return r;
  r.t = on_device(t);
  r.p = ptr<float>(r.t);
  r.stride = r.t.dim() == 0 ? 0 : r.t.strides()[0];
  if (r.t.dim() > 1) {  // check_param only counts elements: make any shape one contiguous run
    r.t = contiguous(r.t);
    r.p = ptr<float>(r.t);
    r.stride = 1;
  }
  return r;
}

const float* contiguous_param(const Tensor& t, Tensor& keep) {
  if (!t.defined() || t.numel() == 0) return nullptr;
  keep = contiguous(t);
  return ptr<float>(keep);
}

Tensor batch_norm_eval(const Tensor& input_arg, const Tensor& weight, const Tensor& bias, const Tensor& running_mean, const Tensor& running_var,
                       bool training, double eps) {
  const char* op = "batch_norm";
  const cpu::NormGeometry g = cpu::check_batch_norm_args(input_arg, weight, bias, running_mean, running_var);
  const int64_t n = g.n, c = g.c, plane = g.plane;
  const bool use_batch_stats = training || !running_mean.defined() || !running_var.defined();
  if (use_batch_stats) throw NotOnDevice("batch_norm: batch statistics (training mode) are computed on the CPU");
  for (const Tensor* t : {&input_arg, &weight, &bias, &running_mean, &running_var}) require_f32(*t, op);
  const Tensor input = contiguous(input_arg);
  Tensor out = empty(DType::Float32, input.sizes());
  const Param w = param(weight), b = param(bias), m = param(running_mean), v = param(running_var);
  Tensor table = empty(DType::Float32, {2 * c});
  launch_batch_norm_inference(out.numel() ? ptr<float>(input) : nullptr, out.numel() ? ptr<float>(out) : nullptr, n, c, plane, w.p, w.stride,
                              b.p, b.stride, m.p, m.stride, v.p, v.stride, eps, c ? ptr<float>(table) : nullptr, stream());
  check_launch("batch_norm");
  return out;
}

Tensor layer_norm(const Tensor& input_arg, const std::vector<int64_t>& normalized_shape, const Tensor& weight, const Tensor& bias, double eps) {
  const int64_t inner = cpu::check_layer_norm_args(input_arg, normalized_shape, weight, bias);
  for (const Tensor* t : {&input_arg, &weight, &bias}) require_f32(*t, "layer_norm");
  const Tensor input = contiguous(input_arg);
  const int64_t rows = inner == 0 ? 0 : input.numel() / inner;
  Tensor out = empty(DType::Float32, input.sizes());
  if (out.numel() == 0) return out;
  Tensor wk, bk;
  const float* w = contiguous_param(weight, wk);
  const float* b = contiguous_param(bias, bk);
  launch_layer_norm(ptr<float>(input), ptr<float>(out), rows, inner, w, b, eps, stream());
  check_launch("layer_norm");
  return out;
}

Tensor group_norm(const Tensor& input_arg, int64_t groups, const Tensor& weight, const Tensor& bias, double eps, const char* op) {
  const cpu::NormGeometry g = cpu::check_group_norm_args(input_arg, groups, weight, bias, op);
  const int64_t n = g.n, c = g.c, plane = g.plane;
  for (const Tensor* t : {&input_arg, &weight, &bias}) require_f32(*t, op);
  const Tensor input = contiguous(input_arg);
  Tensor out = empty(DType::Float32, input.sizes());
  if (out.numel() == 0) return out;
  Tensor wk, bk;
  const float* w = contiguous_param(weight, wk);
  const float* b = contiguous_param(bias, bk);
  launch_group_norm(ptr<float>(input), ptr<float>(out), n, c, plane, groups, w, b, eps, stream());
  check_launch(op);
  return out;
}

void k_batch_norm(Stack& s) {
  Tensor r = batch_norm_eval(s[0].to_tensor(), cpu::optional_tensor(s[1]), cpu::optional_tensor(s[2]), cpu::optional_tensor(s[3]),
                             cpu::optional_tensor(s[4]), s[5].to_bool(), s[7].to_double());
  s.assign(1, IValue(std::move(r)));
}

void k_layer_norm(Stack& s) {
  Tensor r = layer_norm(s[0].to_tensor(), cpu::int_list(s[1]), cpu::optional_tensor(s[2]), cpu::optional_tensor(s[3]), s[4].to_double());
  s.assign(1, IValue(std::move(r)));
}

void k_group_norm(Stack& s) {
  Tensor r = group_norm(s[0].to_tensor(), s[1].to_int(), cpu::optional_tensor(s[2]), cpu::optional_tensor(s[3]), s[4].to_double(), "group_norm");
  s.assign(1, IValue(std::move(r)));
}

// instance_norm with input statistics is group_norm with one channel per group; without, it is
// batch_norm in evaluation mode (kernels/cpu/norm.cpp).
void k_instance_norm(Stack& s) {
  const Tensor& x = s[0].to_tensor();
  const bool use_input_stats = s[5].to_bool();
  Tensor r;
  if (use_input_stats) {
    if (!s[3].is_none() || !s[4].is_none()) throw NotOnDevice("instance_norm: updating running statistics");
    r = group_norm(x, x.dim() >= 2 ? x.sizes()[1] : 1, cpu::optional_tensor(s[1]), cpu::optional_tensor(s[2]), s[7].to_double(),
                   "instance_norm");
  } else {
    r = batch_norm_eval(x, cpu::optional_tensor(s[1]), cpu::optional_tensor(s[2]), cpu::optional_tensor(s[3]), cpu::optional_tensor(s[4]),
                        false, s[7].to_double());
  }
  s.assign(1, IValue(std::move(r)));
}

}  // namespace

void register_norm_kernels() {
  register_kernel("aten::batch_norm", k_batch_norm, Backend::CUDA);
  register_kernel("aten::layer_norm", k_layer_norm, Backend::CUDA);
  register_kernel("aten::group_norm", k_group_norm, Backend::CUDA);
  register_kernel("aten::instance_norm", k_instance_norm, Backend::CUDA);
}

}  // namespace jitctl::cuda
