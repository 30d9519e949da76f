// Activations beyond elementwise.cpp's: selu and celu (which ATen computes as elu with fixed
// parameters, so they run the elu kernel), threshold, glu, prelu and 2.x's _prelu_kernel.
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kernels/cpu/nn_util.h"
#include "kernels/cpu/register_cpu.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/registry.h"

namespace jitctl {
namespace {

using namespace cpu;

// ATen's SELU constants (Klambauer et al.), which it passes to elu.
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

// Runs elu (or elu_ when `in_place`) on self with the given alpha, scale and input_scale.
void run_elu(Stack& s, bool in_place, double alpha, double scale, double input_scale) {
  static const KernelFn elu = find_kernel("aten::elu");
  static const KernelFn elu_ = find_kernel("aten::elu_");
  Stack e{s[0], IValue(alpha), IValue(scale), IValue(input_scale)};
  (in_place ? elu_ : elu)(e);
  s = std::move(e);
}

void celu(Stack& s, bool in_place) {
  const double alpha = scalar_double(s[1]);
  if (alpha == 0) throw InvalidInput("ZeroDivisionError: alpha cannot be 0 for CELU");
  run_elu(s, in_place, alpha, 1.0, 1.0 / alpha);
}

// PyTorch's "not implemented for 'Long'" refusal for floating-only ops.
void require_floating(const Tensor& t, const char* kernel) {
  if (t.dtype() != DType::Float32 && t.dtype() != DType::Float64)
    throw InvalidInput(fmt::format("\"{}\" not implemented for '{}'", kernel, scalar_type_name(t.dtype())));
}

// A Scalar argument as T: integers exactly, floats truncated as ATen's Scalar::to<int>() does.
template <class T>
T scalar_as(const IValue& v) {
  if (v.is(IValue::Kind::Int)) return static_cast<T>(v.to_int());
  return static_cast<T>(scalar_double(v));
}

// y = x <= threshold ? value : x, written into `into` (self for threshold_) or a new tensor.
Tensor threshold(const Tensor& x, const IValue& th, const IValue& value, Tensor* into) {
  if (x.dtype() == DType::Bool) throw InvalidInput("\"threshold_cpu\" not implemented for 'Bool'");
  Tensor out = into ? *into : Tensor::empty(x.dtype(), x.sizes());
  StridedLoop it(out, {&x});
  dispatch_dtype(x.dtype(), "threshold", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      const T t = scalar_as<T>(th), v = scalar_as<T>(value);
      unary_loop<T, T>(it, [t, v](T a) { return a <= t ? v : a; });
    }
  });
  return out;
}

// glu(x, dim) = a * sigmoid(b), a and b the two halves of x along dim (views, any strides).
Tensor glu(const Tensor& x, int64_t dim_arg) {
  if (x.dim() == 0) throw InvalidInput("glu does not support 0-dimensional tensors");
  require_floating(x, "glu_cpu");
  const int64_t dim = wrap_dim(dim_arg, x.dim());
  const int64_t n = x.sizes()[dim];
  if (n % 2 != 0) throw InvalidInput(fmt::format("Halving dimension must be even, but dimension {} is size {}", dim, n));
  std::vector<int64_t> half = x.sizes();
  half[dim] = n / 2;
  const Tensor a = make_view(x, half, x.strides(), x.storage_offset());
  const Tensor b = make_view(x, half, x.strides(), x.storage_offset() + (n / 2) * x.strides()[dim]);
  Tensor out = Tensor::empty(x.dtype(), half);
  StridedLoop it(out, {&a, &b});
  dispatch_floating(x.dtype(), "glu", [&](auto tag) {
    using T = decltype(tag);
    binary_loop<T, T, T>(it, [](T p, T q) { return p * (T(1) / (T(1) + std::exp(-q))); });
  });
  return out;
}

// out = x > 0 ? x : w * x, with w already broadcast to x's shape.
Tensor prelu_apply(const Tensor& x, const Tensor& w, const std::vector<int64_t>& shape) {
  Tensor out = Tensor::empty(x.dtype(), shape);
  StridedLoop it(out, {&x, &w});
  dispatch_floating(x.dtype(), "prelu", [&](auto tag) {
    using T = decltype(tag);
    binary_loop<T, T, T>(it, [](T v, T s) { return v > T(0) ? v : s * v; });
  });
  return out;
}

void check_prelu_dtypes(const Tensor& x, const Tensor& w) {
  require_floating(x, "prelu_cpu");
  if (w.dtype() != x.dtype())
    throw InvalidInput(fmt::format("prelu: Type promoting not supported. Got {} and {}", scalar_type_name(x.dtype()), scalar_type_name(w.dtype())));
}

// prelu(x, weight): one slope for all of x, or one per channel (dim 1; a 0-d or 1-d x has one).
Tensor prelu(const Tensor& x, const Tensor& w) {
  check_prelu_dtypes(x, w);
  if (w.dim() > 1) throw InvalidInput(fmt::format("prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {}", w.dim()));
  const int64_t channels = x.dim() >= 2 ? x.sizes()[1] : 1;
  if (w.numel() != 1 && w.numel() != channels)
    throw InvalidInput(fmt::format("Mismatch of parameter numbers and input channel size. Found parameter numbers = {} and channel size = {}.",
                                   w.numel(), channels));
  // The slopes as a view of x's shape: stride 0 everywhere but along the channels.
  std::vector<int64_t> strides(static_cast<size_t>(x.dim()), 0);
  if (w.numel() > 1) strides[1] = w.strides()[0];
  const Tensor wv = make_view(w, x.sizes(), strides, w.storage_offset());
  return prelu_apply(x, wv, x.sizes());
}

// 2.x's _prelu_kernel: prelu's arithmetic with the weight already shaped to broadcast.
Tensor prelu_kernel(const Tensor& x, const Tensor& w) {
  check_prelu_dtypes(x, w);
  const auto shape = broadcast_shapes(x.sizes(), w.sizes());
  return prelu_apply(expand_to(x, shape), expand_to(w, shape), shape);
}

}  // namespace

void register_activation_variant_kernels() {
  register_kernel("aten::selu", [](Stack& s) { run_elu(s, false, kSeluAlpha, kSeluScale, 1.0); });
  register_kernel("aten::selu_", [](Stack& s) { run_elu(s, true, kSeluAlpha, kSeluScale, 1.0); });
  register_kernel("aten::celu", [](Stack& s) { celu(s, false); });
  register_kernel("aten::celu_", [](Stack& s) { celu(s, true); });
  register_kernel("aten::threshold", [](Stack& s) { set_output(s, threshold(s[0].to_tensor(), s[1], s[2], nullptr)); });
  register_kernel("aten::threshold_", [](Stack& s) {
    Tensor self = s[0].to_tensor();
    set_output(s, threshold(self, s[1], s[2], &self));
  });
  register_kernel("aten::glu", [](Stack& s) { set_output(s, glu(s[0].to_tensor(), s[1].to_int())); });
  register_kernel("aten::prelu", [](Stack& s) { set_output(s, prelu(s[0].to_tensor(), s[1].to_tensor())); });
  register_kernel("aten::_prelu_kernel", [](Stack& s) { set_output(s, prelu_kernel(s[0].to_tensor(), s[1].to_tensor())); });
}

}  // namespace jitctl
