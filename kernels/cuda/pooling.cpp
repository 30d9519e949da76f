// Pooling and upsampling on the device: max/avg/adaptive pooling (1-D as height-1 planes) and
// nearest/bilinear upsampling, float32 and float64, through our own kernels (pooling.cu) rather
// than cuDNN's pooling, whose output size cannot express PyTorch's ceil_mode rule and which has no
// dilation, divisor_override or adaptive windows; one code path per op keeps the semantics those
// of kernels/cpu/pooling.cpp.
//
// The argument parsing below follows the CPU kernel's (whose helpers are private to
// kernels/cpu/pooling.cpp); arguments PyTorch rejects are left to the CPU kernel (NotOnDevice
// before anything runs), which reports them with PyTorch's messages.
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "kernels/cpu/nn_util.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/cuda/context.h"
#include "kernels/cuda/pooling_launch.h"
#include "kernels/cuda/register_cuda.h"
#include "kernels/cuda_backend.h"
#include "kernels/registry.h"

namespace jitctl::cuda {
namespace {

[[noreturn]] void invalid(const char* op) { throw NotOnDevice(fmt::format("{}: invalid arguments (the CPU kernel reports PyTorch's error)", op)); }

// float32 and float64 run here; the CPU kernel rejects the others.
void check_dtype(const Tensor& t, const char* op) {
  if (t.dtype() != DType::Float32 && t.dtype() != DType::Float64)
    throw NotOnDevice(fmt::format("{}: dtype {}", op, dtype_name(t.dtype())));
}

// The input as [planes, h, w], with the output's leading sizes (the CPU kernel's as_planes).
struct Planes {
  int64_t planes = 1, h = 1, w = 1;
  std::vector<int64_t> lead;
};

Planes planes_of(const Tensor& input, int64_t spatial, const char* op) {
  const int64_t d = input.dim();
  if (d != spatial + 1 && d != spatial + 2) invalid(op);
  for (int64_t i = 1; i < d; ++i)
    if (input.sizes()[i] == 0) invalid(op);
  Planes p;
  p.lead.assign(input.sizes().begin(), input.sizes().end() - spatial);
  p.h = spatial == 2 ? input.sizes()[d - 2] : 1;
  p.w = input.sizes()[d - 1];
  for (int64_t x : p.lead) p.planes *= x;
  return p;
}

std::vector<int64_t> out_shape(const Planes& p, int64_t spatial, int64_t oh, int64_t ow) {
  std::vector<int64_t> s = p.lead;
  if (spatial == 2) s.push_back(oh);
  s.push_back(ow);
  return s;
}

// ATen's pooling_output_shape.
int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation, bool ceil_mode) {
  const int64_t num = in + 2 * pad - dilation * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = (num >= 0 ? num / stride : -((-num + stride - 1) / stride)) + 1;
  // The last window must start inside the input or its left padding.
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

// kernel_size, stride (empty = kernel_size), padding, dilation for `spatial` dims as 2-D
// (height 1 first for 1-D).
struct Window {
  std::vector<int64_t> k, s, p, d;
};

Window window_args(const Stack& st, int64_t spatial, bool has_dilation, const char* op) {
  const size_t n = static_cast<size_t>(spatial);
  auto fix = [&](std::vector<int64_t> v, std::vector<int64_t> dflt) {
    if (v.empty()) return dflt;
    if (v.size() == 1) v.assign(n, v[0]);
    if (v.size() != n) invalid(op);
    return v;
  };
  Window a;
  a.k = fix(cpu::int_list(st[1]), {});
  if (a.k.empty()) invalid(op);
  a.s = fix(cpu::int_list(st[2]), a.k);
  a.p = fix(cpu::int_list(st[3]), std::vector<int64_t>(n, 0));
  a.d = has_dilation ? fix(cpu::int_list(st[4]), std::vector<int64_t>(n, 1)) : std::vector<int64_t>(n, 1);
  for (size_t i = 0; i < n; ++i)
    if (a.k[i] <= 0 || a.s[i] <= 0 || a.d[i] <= 0 || a.p[i] < 0 || a.p[i] > a.k[i] / 2) invalid(op);
  if (spatial == 1) {
    a.k.insert(a.k.begin(), 1);
    a.s.insert(a.s.begin(), 1);
    a.p.insert(a.p.begin(), 0);
    a.d.insert(a.d.begin(), 1);
  }
  return a;
}

PoolGeometry geometry(const Planes& pl, int64_t oh, int64_t ow, const Window* a) {
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
  const Window a = window_args(st, spatial, true, op);
  const bool ceil_mode = st[5].to_bool();
  const Tensor& input = st[0].to_tensor();
  const Planes pl = planes_of(input, spatial, op);
  const int64_t oh = pooled_size(pl.h, a.k[0], a.p[0], a.s[0], a.d[0], ceil_mode);
  const int64_t ow = pooled_size(pl.w, a.k[1], a.p[1], a.s[1], a.d[1], ceil_mode);
  if (oh < 1 || ow < 1) invalid(op);
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
  const Window a = window_args(st, spatial, false, op);
  const bool ceil_mode = st[4].to_bool(), count_include_pad = st[5].to_bool();
  const bool has_divisor = st.size() > 6 && !st[6].is_none();
  const int64_t divisor = has_divisor ? st[6].to_int() : 0;
  if (has_divisor && divisor == 0) invalid(op);
  const Tensor& input = st[0].to_tensor();
  const Planes pl = planes_of(input, spatial, op);
  const int64_t oh = pooled_size(pl.h, a.k[0], a.p[0], a.s[0], 1, ceil_mode);
  const int64_t ow = pooled_size(pl.w, a.k[1], a.p[1], a.s[1], 1, ceil_mode);
  if (oh < 1 || ow < 1) invalid(op);
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

// output_size as [oh, ow] (1-D: height 1).
std::vector<int64_t> adaptive_size(const IValue& v, int64_t spatial, const char* op) {
  std::vector<int64_t> s = cpu::int_list(v);
  if (s.size() == 1 && spatial == 2) s.assign(2, s[0]);
  if (static_cast<int64_t>(s.size()) != spatial) invalid(op);
  for (int64_t x : s)
    if (x < 0) invalid(op);
  if (spatial == 1) s.insert(s.begin(), 1);
  return s;
}

std::pair<Tensor, Tensor> adaptive_pool(const Stack& st, int64_t spatial, bool is_max, const char* op) {
  const Tensor& input = st[0].to_tensor();
  const Planes pl = planes_of(input, spatial, op);
  const auto os = adaptive_size(st[1], spatial, op);
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

// Upsampling's output size and the scales its index arithmetic uses (0: from the sizes).
struct Upsample {
  int64_t oh = 0, ow = 0;
  double scale_h = 0, scale_w = 0;
};

// .vec: (input, output_size?, [align_corners,] scale_factors?); exactly one of the two is given.
Upsample upsample_vec(const Planes& pl, const IValue& size, const IValue& scales, const char* op) {
  Upsample u;
  const auto os = cpu::optional_int_list(size);
  const auto sf = cpu::optional_double_list(scales);
  if (os.has_value() == sf.has_value()) invalid(op);
  if (os) {
    if (os->size() != 2) invalid(op);
    u.oh = (*os)[0];
    u.ow = (*os)[1];
  } else {
    if (sf->size() != 2) invalid(op);
    u.oh = static_cast<int64_t>(std::floor(static_cast<double>(pl.h) * (*sf)[0]));
    u.ow = static_cast<int64_t>(std::floor(static_cast<double>(pl.w) * (*sf)[1]));
    u.scale_h = (*sf)[0];
    u.scale_w = (*sf)[1];
  }
  if (u.oh <= 0 || u.ow <= 0) invalid(op);
  return u;
}

// The plain overloads: (self, output_size, [align_corners,] scales_h?, scales_w?).
Upsample upsample_plain(const IValue& size, const IValue& scale_h, const IValue& scale_w, const char* op) {
  const auto os = cpu::int_list(size);
  if (os.size() != 2) invalid(op);
  Upsample u;
  u.oh = os[0];
  u.ow = os[1];
  u.scale_h = scale_h.is_none() ? 0 : scale_h.to_double();
  u.scale_w = scale_w.is_none() ? 0 : scale_w.to_double();
  if (u.oh <= 0 || u.ow <= 0) invalid(op);
  return u;
}

Planes upsample_planes(const Tensor& input, const char* op) {
  if (input.dim() != 4) invalid(op);
  return planes_of(input, 2, op);
}

// ATen's area_pixel_compute_scale: the source step per output pixel, in T.
template <class T>
T pixel_scale(int64_t in, int64_t out, bool align_corners, double scale) {
  if (align_corners) return out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  return scale > 0 ? static_cast<T>(1.0 / scale) : static_cast<T>(in) / static_cast<T>(out);
}

Tensor upsample_nearest2d(const Stack& st, bool plain) {
  const char* op = "upsample_nearest2d";
  const Tensor& input = st[0].to_tensor();
  const Planes pl = upsample_planes(input, op);
  const Upsample u = plain ? upsample_plain(st[1], st[2], st[3], op) : upsample_vec(pl, st[1], st[2], op);
  check_dtype(input, op);
  const Tensor x = contiguous(input);
  Tensor out = empty(x.dtype(), out_shape(pl, 2, u.oh, u.ow));
  const PoolGeometry g = geometry(pl, u.oh, u.ow, nullptr);
  const float sh = pixel_scale<float>(pl.h, u.oh, false, u.scale_h), sw = pixel_scale<float>(pl.w, u.ow, false, u.scale_w);
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
  const Planes pl = upsample_planes(input, op);
  const Upsample u = plain ? upsample_plain(st[1], st[3], st[4], op) : upsample_vec(pl, st[1], st[3], op);
  check_dtype(input, op);
  const Tensor x = contiguous(input);
  Tensor out = empty(x.dtype(), out_shape(pl, 2, u.oh, u.ow));
  const PoolGeometry g = geometry(pl, u.oh, u.ow, nullptr);
  if (x.dtype() == DType::Float32)
    launch_upsample_bilinear2d(ptr<float>(x), ptr<float>(out), g, align_corners, pixel_scale<float>(pl.h, u.oh, align_corners, u.scale_h),
                               pixel_scale<float>(pl.w, u.ow, align_corners, u.scale_w), stream());
  else
    launch_upsample_bilinear2d(ptr<double>(x), ptr<double>(out), g, align_corners, pixel_scale<double>(pl.h, u.oh, align_corners, u.scale_h),
                               pixel_scale<double>(pl.w, u.ow, align_corners, u.scale_w), stream());
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
  const char* op = "avg_pool1d";
  // The CPU kernel's own checks before avg_pool's.
  const Tensor& x = s[0].to_tensor();
  if (x.dim() != 2 && x.dim() != 3) invalid(op);
  for (int i = 0; i < 3; ++i) {
    const size_t n = cpu::int_list(s[1 + i]).size();
    if (n > 1 || (n == 0 && i == 0)) invalid(op);
  }
  cpu::set_output(s, IValue(avg_pool(s, 1, op)));
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
