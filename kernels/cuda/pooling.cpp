// Pooling and upsampling on the device: max/avg/adaptive pooling (1-D as height-1 planes) and
// nearest/bilinear upsampling, float32 and float64, through our own kernels (pooling.cu) rather
// than cuDNN's pooling, whose output size cannot express PyTorch's ceil_mode rule and which has no
// dilation, divisor_override or adaptive windows; one code path per op keeps the semantics those
// of kernels/cpu/pooling.cpp, whose argument rules and output sizes (kernels/cpu/pooling.h) these
// kernels use.
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "kernels/cpu/nn_util.h"
#include "kernels/cpu/pooling.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/cuda/context.h"
#include "kernels/cuda/pooling_launch.h"
#include "kernels/cuda/register_cuda.h"
#include "kernels/cuda_backend.h"
#include "kernels/registry.h"

namespace jitctl::cuda {
namespace {

// float32 and float64 run here; the CPU kernel rejects the others.
void check_dtype(const Tensor& t, const char* op) {
  if (t.dtype() != DType::Float32 && t.dtype() != DType::Float64)
    throw NotOnDevice(fmt::format("{}: dtype {}", op, dtype_name(t.dtype())));
}

using cpu::PlaneShape;
using cpu::PoolArgs;
using cpu::UpsampleArgs;
using cpu::out_shape;
using cpu::pooled_size;

PoolGeometry geometry(const PlaneShape& pl, int64_t oh, int64_t ow, const PoolArgs* a) {
  PoolGeometry g{};
  g.planes = pl.planes;
  g.h = pl.h;
  g.w = pl.w;
  g.oh = oh;
  g.ow = ow;
  if (a) {
    g.kh = a->k[0];
    g.kw = a->k[1];
    g.sh = a->s[0];
    g.sw = a->s[1];
    g.ph = a->p[0];
    g.pw = a->p[1];
    g.dh = a->d[0];
    g.dw = a->d[1];
  }
  return g;
}

// max_pool1d/2d(_with_indices): (self, kernel_size, stride, padding, dilation, ceil_mode).
std::pair<Tensor, Tensor> max_pool(const Stack& st, int64_t spatial, bool want_indices, const char* op) {
  const PoolArgs a = cpu::pool_args(st, spatial, true, op);
  const bool ceil_mode = st[5].to_bool();
  const Tensor& input = st[0].to_tensor();
  const PlaneShape pl = cpu::plane_shape(input, spatial, op);
  const int64_t oh = pooled_size(pl.h, a.k[0], a.p[0], a.s[0], a.d[0], ceil_mode);
  const int64_t ow = pooled_size(pl.w, a.k[1], a.p[1], a.s[1], a.d[1], ceil_mode);
  cpu::check_output_size(pl, oh, ow);
  check_dtype(input, op);
  const Tensor x = contiguous(input);
  const auto shape = out_shape(pl, spatial, oh, ow);
  Tensor out = empty(x.dtype(), shape);
  Tensor idx = want_indices ? empty(DType::Int64, shape) : Tensor();
  const PoolGeometry g = geometry(pl, oh, ow, &a);
  int64_t* ip = want_indices ? ptr<int64_t>(idx) : nullptr;
  if (x.dtype() == DType::Float32)
    launch_max_pool2d(ptr<float>(x), ptr<float>(out), ip, g, stream());
  else
    launch_max_pool2d(ptr<double>(x), ptr<double>(out), ip, g, stream());
  check_launch(op);
  return {out, idx};
}

// avg_pool2d (self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override),
// avg_pool1d without the divisor.
Tensor avg_pool(const Stack& st, int64_t spatial, const char* op) {
  const PoolArgs a = cpu::pool_args(st, spatial, false, op);
  const bool ceil_mode = st[4].to_bool(), count_include_pad = st[5].to_bool();
  const int64_t divisor = cpu::divisor_arg(st);
  const Tensor& input = st[0].to_tensor();
  const PlaneShape pl = cpu::plane_shape(input, spatial, op);
  const int64_t oh = pooled_size(pl.h, a.k[0], a.p[0], a.s[0], 1, ceil_mode);
  const int64_t ow = pooled_size(pl.w, a.k[1], a.p[1], a.s[1], 1, ceil_mode);
  cpu::check_output_size(pl, oh, ow);
  check_dtype(input, op);
  const Tensor x = contiguous(input);
  Tensor out = empty(x.dtype(), out_shape(pl, spatial, oh, ow));
  const PoolGeometry g = geometry(pl, oh, ow, &a);
  if (x.dtype() == DType::Float32)
    launch_avg_pool2d(ptr<float>(x), ptr<float>(out), g, count_include_pad, divisor, stream());
  else
    launch_avg_pool2d(ptr<double>(x), ptr<double>(out), g, count_include_pad, divisor, stream());
  check_launch(op);
  return out;
}

std::pair<Tensor, Tensor> adaptive_pool(const Stack& st, int64_t spatial, bool is_max, const char* op) {
  const Tensor& input = st[0].to_tensor();
  const PlaneShape pl = cpu::plane_shape(input, spatial, op);
  const auto os = cpu::adaptive_size(st[1], spatial, op);
  check_dtype(input, op);
  const Tensor x = contiguous(input);
  const auto shape = out_shape(pl, spatial, os[0], os[1]);
  Tensor out = empty(x.dtype(), shape);
  Tensor idx = is_max ? empty(DType::Int64, shape) : Tensor();
  const PoolGeometry g = geometry(pl, os[0], os[1], nullptr);
  if (is_max) {
    if (x.dtype() == DType::Float32)
      launch_adaptive_max_pool2d(ptr<float>(x), ptr<float>(out), ptr<int64_t>(idx), g, stream());
    else
      launch_adaptive_max_pool2d(ptr<double>(x), ptr<double>(out), ptr<int64_t>(idx), g, stream());
  } else {
    if (x.dtype() == DType::Float32)
      launch_adaptive_avg_pool2d(ptr<float>(x), ptr<float>(out), g, stream());
    else
      launch_adaptive_avg_pool2d(ptr<double>(x), ptr<double>(out), g, stream());
  }
  check_launch(op);
  return {out, idx};
}

Tensor upsample_nearest2d(const Stack& st, bool plain) {
  const char* op = "upsample_nearest2d";
  const Tensor& input = st[0].to_tensor();
  const PlaneShape pl = cpu::upsample_shape(input, plain, op);
  const UpsampleArgs u = plain ? cpu::upsample_args_plain(pl, st[1], st[2], st[3]) : cpu::upsample_args(pl, st[1], st[2], op);
  check_dtype(input, op);
  const Tensor x = contiguous(input);
  Tensor out = empty(x.dtype(), out_shape(pl, 2, u.oh, u.ow));
  const PoolGeometry g = geometry(pl, u.oh, u.ow, nullptr);
  const float sh = cpu::pixel_scale<float>(pl.h, u.oh, false, u.scale_h), sw = cpu::pixel_scale<float>(pl.w, u.ow, false, u.scale_w);
  if (x.dtype() == DType::Float32)
    launch_upsample_nearest2d(ptr<float>(x), ptr<float>(out), g, sh, sw, stream());
  else
    launch_upsample_nearest2d(ptr<double>(x), ptr<double>(out), g, sh, sw, stream());
  check_launch(op);
  return out;
}

Tensor upsample_bilinear2d(const Stack& st, bool plain) {
  const char* op = "upsample_bilinear2d";
  const Tensor& input = st[0].to_tensor();
  const bool align_corners = st[2].to_bool();
  const PlaneShape pl = cpu::upsample_shape(input, plain, op);
  const UpsampleArgs u = plain ? cpu::upsample_args_plain(pl, st[1], st[3], st[4]) : cpu::upsample_args(pl, st[1], st[3], op);
  check_dtype(input, op);
  const Tensor x = contiguous(input);
  Tensor out = empty(x.dtype(), out_shape(pl, 2, u.oh, u.ow));
  const PoolGeometry g = geometry(pl, u.oh, u.ow, nullptr);
  if (x.dtype() == DType::Float32)
    launch_upsample_bilinear2d(ptr<float>(x), ptr<float>(out), g, align_corners, cpu::pixel_scale<float>(pl.h, u.oh, align_corners, u.scale_h),
                               cpu::pixel_scale<float>(pl.w, u.ow, align_corners, u.scale_w), stream());
  else
    launch_upsample_bilinear2d(ptr<double>(x), ptr<double>(out), g, align_corners, cpu::pixel_scale<double>(pl.h, u.oh, align_corners, u.scale_h),
                               cpu::pixel_scale<double>(pl.w, u.ow, align_corners, u.scale_w), stream());
  check_launch(op);
  return out;
}

void k_max_pool2d(Stack& s) { cpu::set_output(s, IValue(max_pool(s, 2, false, "max_pool2d").first)); }
void k_max_pool1d(Stack& s) { cpu::set_output(s, IValue(max_pool(s, 1, false, "max_pool1d").first)); }
void k_max_pool2d_with_indices(Stack& s) {
  auto [v, i] = max_pool(s, 2, true, "max_pool2d_with_indices");
  s.assign({IValue(std::move(v)), IValue(std::move(i))});
}
void k_avg_pool2d(Stack& s) { cpu::set_output(s, IValue(avg_pool(s, 2, "avg_pool2d"))); }
void k_avg_pool1d(Stack& s) {
  cpu::check_avg_pool1d_args(s);
  cpu::set_output(s, IValue(avg_pool(s, 1, "avg_pool1d")));
}
void k_adaptive_avg_pool2d(Stack& s) { cpu::set_output(s, IValue(adaptive_pool(s, 2, false, "adaptive_avg_pool2d").first)); }
void k_adaptive_avg_pool1d(Stack& s) { cpu::set_output(s, IValue(adaptive_pool(s, 1, false, "adaptive_avg_pool1d").first)); }
void k_adaptive_max_pool2d(Stack& s) {
  auto [v, i] = adaptive_pool(s, 2, true, "adaptive_max_pool2d");
  s.assign({IValue(std::move(v)), IValue(std::move(i))});
}
void k_adaptive_max_pool1d(Stack& s) {
  auto [v, i] = adaptive_pool(s, 1, true, "adaptive_max_pool1d");
  s.assign({IValue(std::move(v)), IValue(std::move(i))});
}
template <bool Plain>
void k_upsample_nearest2d(Stack& s) {
  cpu::set_output(s, IValue(upsample_nearest2d(s, Plain)));
}
template <bool Plain>
void k_upsample_bilinear2d(Stack& s) {
  cpu::set_output(s, IValue(upsample_bilinear2d(s, Plain)));
}

}  // namespace

void register_pooling_kernels() {
  register_kernel("aten::max_pool1d", k_max_pool1d, Backend::CUDA);
  register_kernel("aten::max_pool2d", k_max_pool2d, Backend::CUDA);
  register_kernel("aten::max_pool2d_with_indices", k_max_pool2d_with_indices, Backend::CUDA);
  register_kernel("aten::avg_pool2d", k_avg_pool2d, Backend::CUDA);
  register_kernel("aten::avg_pool1d", k_avg_pool1d, Backend::CUDA);
  register_kernel("aten::adaptive_avg_pool1d", k_adaptive_avg_pool1d, Backend::CUDA);
  register_kernel("aten::adaptive_avg_pool2d", k_adaptive_avg_pool2d, Backend::CUDA);
  register_kernel("aten::adaptive_max_pool1d", k_adaptive_max_pool1d, Backend::CUDA);
  register_kernel("aten::adaptive_max_pool2d", k_adaptive_max_pool2d, Backend::CUDA);
  register_kernel("aten::upsample_nearest2d.vec", k_upsample_nearest2d<false>, Backend::CUDA);
  register_kernel("aten::upsample_nearest2d", k_upsample_nearest2d<true>, Backend::CUDA);
  register_kernel("aten::upsample_bilinear2d.vec", k_upsample_bilinear2d<false>, Backend::CUDA);
  register_kernel("aten::upsample_bilinear2d", k_upsample_bilinear2d<true>, Backend::CUDA);
}

}  // namespace jitctl::cuda
