// rms_norm (PyTorch 2.4+) and 2.x's _fused_rms_norm: y = x * rsqrt(mean(x^2 over the normalized
// dims) + eps) * weight, eps defaulting to the input dtype's machine epsilon, as ATen's composite.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kernels/cpu/nn_util.h"
#include "kernels/cpu/register_cpu.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/parallel.h"
#include "kernels/registry.h"

namespace jitctl {
namespace {

using namespace cpu;

std::string dims_string(const std::vector<int64_t>& v) {
  std::string s = shape_string(v);
  return s.substr(1, s.size() - 2);
}

struct RmsNorm {
  Tensor out, rstd;  // rstd: one per row, shaped as x with the normalized dims kept as 1
};

RmsNorm rms_norm(const Tensor& x_arg, const std::vector<int64_t>& shape, const Tensor& weight, const IValue& eps_arg) {
  const int64_t nd = static_cast<int64_t>(shape.size()), d = x_arg.dim();
  if (nd == 0)
    throw InvalidInput(fmt::format("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got "
                                   "normalized_shape = {}", shape_string(shape)));
  if (weight.defined() && weight.sizes() != shape)
    throw InvalidInput(fmt::format("Expected weight to be of same shape as normalized_shape, but got weight of shape {} and normalized_shape = {}",
                                   shape_string(weight.sizes()), shape_string(shape)));
  bool ok = d >= nd;
  for (int64_t i = 0; ok && i < nd; ++i) ok = x_arg.sizes()[d - nd + i] == shape[i];
  if (!ok)
    throw InvalidInput(fmt::format("Given normalized_shape={}, expected input with shape [*{}], but got input of size{}", shape_string(shape),
                                   dims_string(shape), shape_string(x_arg.sizes())));
  if (x_arg.dtype() != DType::Float32 && x_arg.dtype() != DType::Float64)
    throw InvalidInput(fmt::format("\"rms_norm\" not implemented for '{}'", scalar_type_name(x_arg.dtype())));
  const Tensor x = contiguous(x_arg);
  // The weight in the input's dtype: ATen multiplies in the promoted dtype and casts back, which
  // differs from this only in the last bit.
  const Tensor w = weight.defined() ? to_dtype(weight, x.dtype()) : Tensor();
  int64_t inner = 1;
  for (auto s : shape) inner *= s;
  const int64_t rows = inner == 0 ? 0 : x.numel() / inner;
  std::vector<int64_t> rshape = x.sizes();
  for (int64_t i = d - nd; i < d; ++i) rshape[i] = 1;
  RmsNorm r{Tensor::empty(x.dtype(), x.sizes()), Tensor::empty(x.dtype(), rshape)};
  dispatch_floating(x.dtype(), "rms_norm", [&](auto tag) {
    using T = decltype(tag);
    const double eps = eps_arg.is_none() ? static_cast<double>(std::numeric_limits<T>::epsilon()) : eps_arg.to_double();
    const T* in = data_of<T>(x);
    const T* wp = w.defined() ? data_of<T>(w) : nullptr;
    T* out = mutable_data_of<T>(r.out);
    T* rs = mutable_data_of<T>(r.rstd);
    parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(inner, 1)), [&](int64_t b, int64_t e) {
      for (int64_t row = b; row < e; ++row) {
        const T* xr = in + row * inner;
        T* yr = out + row * inner;
        double sq = 0;
        for (int64_t i = 0; i < inner; ++i) sq += static_cast<double>(xr[i]) * static_cast<double>(xr[i]);
        const T rstd = static_cast<T>(1.0 / std::sqrt(sq / static_cast<double>(inner) + eps));
        rs[row] = rstd;
        if (wp)
          for (int64_t i = 0; i < inner; ++i) yr[i] = xr[i] * rstd * wp[i];
        else
          for (int64_t i = 0; i < inner; ++i) yr[i] = xr[i] * rstd;
      }
    });
  });
  return r;
}

void k_rms_norm(Stack& s) {
  RmsNorm r = rms_norm(s[0].to_tensor(), int_list(s[1]), optional_tensor(s[2]), s[3]);
  set_output(s, IValue(std::move(r.out)));
}

void k_fused_rms_norm(Stack& s) {
  RmsNorm r = rms_norm(s[0].to_tensor(), int_list(s[1]), optional_tensor(s[2]), s[3]);
  s.assign({IValue(std::move(r.out)), IValue(std::move(r.rstd))});
}

}  // namespace

void register_rms_norm_kernels() {
  register_kernel("aten::rms_norm", k_rms_norm);
  register_kernel("aten::_fused_rms_norm", k_fused_rms_norm);
}

}  // namespace jitctl
