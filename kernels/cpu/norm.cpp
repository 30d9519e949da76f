// batch_norm, layer_norm, group_norm, instance_norm. Every one reduces to: statistics per group
// of elements (or the running ones), then out = x * scale + shift per channel, one pass.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <type_traits>
#include <vector>

#include "kernels/cpu/dnnl_util.h"
#include "kernels/cpu/isa_dispatch.h"
#include "kernels/cpu/nn_util.h"
#include "kernels/cpu/output.h"
#include "kernels/cpu/norm.h"
#include "kernels/cpu/register_cpu.h"
#include "kernels/parallel.h"
#include "kernels/registry.h"

namespace jitctl::cpu {
namespace {

template <class T>
std::vector<double> as_doubles(const Tensor& t, int64_t n, double dflt) {
  std::vector<double> v(static_cast<size_t>(n), dflt);
  if (!t.defined()) return v;
  const T* p = data_of<T>(t);
  const int64_t s = t.dim() == 0 ? 0 : t.strides()[0];
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<double>(p[i * s]);
  return v;
}

// Mean and biased variance of n contiguous values: two vectorized passes in T (the deviations
// are small, so float keeps layer_norm within ATen's rounding).
template <class T>
std::pair<double, double> moments(const T* x, int64_t n) {
  if (n == 0) return {0.0, 0.0};
  T sum = 0;
#pragma omp simd reduction(+ : sum)
  for (int64_t i = 0; i < n; ++i) sum += x[i];
  const T mean = sum / static_cast<T>(n);
  T sq = 0;
#pragma omp simd reduction(+ : sq)
  for (int64_t i = 0; i < n; ++i) sq += (x[i] - mean) * (x[i] - mean);
  return {static_cast<double>(mean), static_cast<double>(sq / static_cast<T>(n))};
}

template <class T>
void affine(const T* x, T* y, int64_t n, T scale, T shift) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * scale + shift;
}

// A run of a channels-last tensor's elements from a pixel's first channel: element i its channel's
// scale and shift (tiled: scale[i % period]), then ReLU when asked (NaN stays NaN, as torch.relu).
// The period is a whole number of pixels and of vectors where it can be, so a few channels (a
// stem's 8) fill whole vectors instead of a short loop per pixel.
JITCTL_ALWAYS_INLINE void affine_tiled_body(const float* __restrict x, float* __restrict y, int64_t n, int64_t period, const float* scale,
                                            const float* shift, bool relu) {
  for (int64_t at = 0; at < n; at += period) {
    const int64_t len = std::min(period, n - at);
    const float* xs = x + at;
    float* ys = y + at;
    if (relu) {
      for (int64_t i = 0; i < len; ++i) {
        const float v = xs[i] * scale[i] + shift[i];
        ys[i] = v < 0.0f ? 0.0f : v;
      }
    } else {
      for (int64_t i = 0; i < len; ++i) ys[i] = xs[i] * scale[i] + shift[i];
    }
  }
}
JITCTL_ISA_CLONES(void, affine_tiled, (const float* x, float* y, int64_t n, int64_t period, const float* scale, const float* shift, bool relu),
                  (x, y, n, period, scale, shift, relu))

void check_param(const Tensor& t, int64_t n, const char* what, const char* op) {
  if (t.defined() && t.numel() != n)
    throw InvalidInput(fmt::format("{}: expected {} to have {} elements, but got {}", op, what, n, shape_string(t.sizes())));
}

}  // namespace

NormGeometry check_batch_norm_args(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                                   const Tensor& running_var) {
  const char* op = "batch_norm";
  if (input.dim() < 2) throw InvalidInput(fmt::format("{}: expected 2D or more input (got {})", op, shape_string(input.sizes())));
  const int64_t n = input.sizes()[0], c = input.sizes()[1];
  const int64_t plane = c == 0 || n == 0 ? 0 : input.numel() / (n * c);
  for (const Tensor* t : {&weight, &bias, &running_mean, &running_var}) check_param(*t, c, "running_mean, running_var, weight and bias", op);
  return {n, c, plane};
}

NormGeometry check_group_norm_args(const Tensor& input, int64_t groups, const Tensor& weight, const Tensor& bias, const char* op) {
  if (input.dim() < 2) throw InvalidInput(fmt::format("{}: expected at least 2 dims, got {}", op, shape_string(input.sizes())));
  const int64_t n = input.sizes()[0], c = input.sizes()[1];
  if (groups <= 0 || c % groups != 0)
    throw InvalidInput(fmt::format("Expected number of channels in input to be divisible by num_groups, but got input of shape {} and num_groups={}",
                                   shape_string(input.sizes()), groups));
  check_param(weight, c, "weight", op);
  check_param(bias, c, "bias", op);
  return {n, c, n * c == 0 ? 0 : input.numel() / (n * c)};
}

int64_t check_layer_norm_args(const Tensor& input, const std::vector<int64_t>& normalized_shape, const Tensor& weight, const Tensor& bias) {
  const int64_t nd = static_cast<int64_t>(normalized_shape.size()), d = input.dim();
  bool ok = nd >= 1 && d >= nd;
  for (int64_t i = 0; ok && i < nd; ++i) ok = input.sizes()[d - nd + i] == normalized_shape[i];
  if (!ok)
    throw InvalidInput(fmt::format("Given normalized_shape={}, expected input with shape [*, {}], but got input of size{}", shape_string(normalized_shape),
                                   shape_string(normalized_shape).substr(1, shape_string(normalized_shape).size() - 2), shape_string(input.sizes())));
  int64_t inner = 1;
  for (auto s : normalized_shape) inner *= s;
  check_param(weight, inner, "weight", "layer_norm");
  check_param(bias, inner, "bias", "layer_norm");
  return inner;
}

void batch_norm_scale_shift(const Tensor& weight, const Tensor& bias, const Tensor& running_mean, const Tensor& running_var, double eps,
                            int64_t c, std::vector<float>& scale, std::vector<float>& shift) {
  const std::vector<double> mean = as_doubles<float>(running_mean, c, 0.0), var = as_doubles<float>(running_var, c, 1.0);
  const std::vector<double> w = as_doubles<float>(weight, c, 1.0), b = as_doubles<float>(bias, c, 0.0);
  scale.resize(static_cast<size_t>(c));
  shift.resize(static_cast<size_t>(c));
  for (int64_t ch = 0; ch < c; ++ch) {
    const double sc = w[ch] / std::sqrt(var[ch] + eps);
    scale[ch] = static_cast<float>(sc);
    shift[ch] = static_cast<float>(b[ch] - mean[ch] * sc);
  }
}

bool batch_norm_channels_last_ok(const Tensor& x, int64_t c) {
  return x.dtype() == DType::Float32 && x.dim() == 4 && x.sizes()[1] == c && !x.is_contiguous() && is_channels_last(x);
}

// Inference on a channels-last float32 input (a DenseNet's concatenated features): PyTorch keeps
// the layout, and so does this, one pass over pixels with the channels' scale and shift in
// vectors, instead of a copy to NCHW and back (the next convolution reads channels-last).
// The same scale and shift, and the same x * scale + shift, as the NCHW path.
Tensor batch_norm_channels_last(const Tensor& x, const std::vector<float>& scale, const std::vector<float>& shift, bool relu) {
  const int64_t c = x.sizes()[1], pixels = x.numel() / std::max<int64_t>(c, 1);
  Tensor out = new_output_strided(DType::Float32, x.sizes(), channels_last_strides(x.sizes()));
  const float* src = data_of<float>(x);
  float* dst = mutable_data_of<float>(out);
  // The period: a multiple of lcm(C, 16) channels (whole pixels, whole vectors) of about 256
  // when that is short, else one pixel.
  const int64_t lcm = std::lcm(std::max<int64_t>(c, 1), int64_t{16});
  const int64_t period = lcm <= 2048 ? lcm * std::max<int64_t>(1, 256 / lcm) : std::max<int64_t>(c, 1);
  std::vector<float> sc(static_cast<size_t>(period)), sh(static_cast<size_t>(period));
  for (int64_t i = 0; i < period; ++i) sc[i] = scale[i % c], sh[i] = shift[i % c];
  const int64_t total = pixels * c, runs = (total + period - 1) / period;
  parallel_for(0, runs, std::max<int64_t>(1, kGrainSize / period), [&](int64_t r0, int64_t r1) {
    const int64_t b = r0 * period, e = std::min(total, r1 * period);
    affine_tiled(src + b, dst + b, e - b, period, sc.data(), sh.data(), relu);
  });
  return out;
}

Tensor batch_norm(const Tensor& input_arg, const Tensor& weight, const Tensor& bias, const Tensor& running_mean, const Tensor& running_var,
                  bool training, double momentum, double eps) {
  const char* op = "batch_norm";
  const NormGeometry g = check_batch_norm_args(input_arg, weight, bias, running_mean, running_var);
  const int64_t n = g.n, c = g.c, plane = g.plane;
  const bool use_batch_stats = training || !running_mean.defined() || !running_var.defined();
  if (!use_batch_stats && batch_norm_channels_last_ok(input_arg, c)) {
    std::vector<float> scale, shift;
    batch_norm_scale_shift(weight, bias, running_mean, running_var, eps, c, scale, shift);
    return batch_norm_channels_last(input_arg, scale, shift, false);
  }
  const Tensor input = contiguous(input_arg);
  if (use_batch_stats && n * plane <= 1)
    throw InvalidInput(fmt::format("Expected more than 1 value per channel when training, got input size {}", shape_string(input.sizes())));
  Tensor out = Tensor::empty(input.dtype(), input.sizes());
  dispatch_floating(input.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* x = data_of<T>(input);
    T* y = mutable_data_of<T>(out);
    std::vector<double> mean = as_doubles<T>(running_mean, c, 0.0), var = as_doubles<T>(running_var, c, 1.0);
    if (use_batch_stats) {
      // The running statistics' storages are made writable here, once: Storage::mutable_data()
      // copies a storage still mapped from the archive, which threads must not race to do.
      T* rm = training && running_mean.defined() ? static_cast<T*>(const_cast<Tensor&>(running_mean).mutable_data()) : nullptr;
      T* rv = training && running_var.defined() ? static_cast<T*>(const_cast<Tensor&>(running_var).mutable_data()) : nullptr;
      parallel_for(0, c, 1, [&](int64_t c0, int64_t c1) {
        for (int64_t ch = c0; ch < c1; ++ch) {
          double sum = 0, sq = 0;
          for (int64_t i = 0; i < n; ++i) {
            const T* p = x + (i * c + ch) * plane;
            for (int64_t j = 0; j < plane; ++j) sum += static_cast<double>(p[j]);
          }
          const double m = sum / static_cast<double>(n * plane);
          for (int64_t i = 0; i < n; ++i) {
            const T* p = x + (i * c + ch) * plane;
            for (int64_t j = 0; j < plane; ++j) sq += (p[j] - m) * (p[j] - m);
          }
          const double v = sq / static_cast<double>(n * plane);
          if (rm) rm[ch * running_mean.strides()[0]] = static_cast<T>((1 - momentum) * mean[ch] + momentum * m);
          if (rv) {
            const double unbiased = v * static_cast<double>(n * plane) / static_cast<double>(n * plane - 1);
            rv[ch * running_var.strides()[0]] = static_cast<T>((1 - momentum) * var[ch] + momentum * unbiased);
          }
          mean[ch] = m;
          var[ch] = v;
        }
      });
    }
    const std::vector<double> w = as_doubles<T>(weight, c, 1.0), b = as_doubles<T>(bias, c, 0.0);
    parallel_for(0, n * c, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(plane, 1)), [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        const int64_t ch = p % c;
        const double scale = w[ch] / std::sqrt(var[ch] + eps);
        affine(x + p * plane, y + p * plane, plane, static_cast<T>(scale), static_cast<T>(b[ch] - mean[ch] * scale));
      }
    });
  });
  return out;
}

Tensor layer_norm(const Tensor& input_arg, const std::vector<int64_t>& normalized_shape, const Tensor& weight, const Tensor& bias, double eps) {
  const int64_t inner = check_layer_norm_args(input_arg, normalized_shape, weight, bias);
  const Tensor input = contiguous(input_arg);
  const int64_t rows = inner == 0 ? 0 : input.numel() / inner;
  Tensor out = Tensor::empty(input.dtype(), input.sizes());
  dispatch_floating(input.dtype(), "layer_norm", [&](auto tag) {
    using T = decltype(tag);
    const Tensor w = weight.defined() ? contiguous(weight) : Tensor(), b = bias.defined() ? contiguous(bias) : Tensor();
    layer_norm_rows<T>(data_of<T>(input), mutable_data_of<T>(out), rows, inner, w.defined() ? data_of<T>(w) : nullptr,
                       b.defined() ? data_of<T>(b) : nullptr, eps);
  });
  return out;
}

namespace {

// Float rows for the ISA in use, each reduction in four 8-float accumulators: one vector
// accumulator chained every add on the last, and a row of 96 or 768 values was bound by that
// latency. kernel_bench, one thread, three alternating runs: layer_norm_197x768 (ViT-B/16's)
// 0.067-0.087 -> 0.044-0.061 ms, layer_norm_3136x96 (ConvNeXt-T's first stage) 0.168-0.262 ->
// 0.136-0.201.
typedef float v8f __attribute__((vector_size(32)));

JITCTL_ALWAYS_INLINE v8f load8(const float* p) {
  v8f v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

JITCTL_ALWAYS_INLINE float lanes_sum(v8f v) {
  float s = 0;
  for (int j = 0; j < 8; ++j) s += v[j];
  return s;
}

// The sum of (x[i] - center)^Power over n values (Power 1 or 2).
template <int Power>
JITCTL_ALWAYS_INLINE float row_reduce(const float* x, int64_t n, float center) {
  v8f a0 = {}, a1 = {}, a2 = {}, a3 = {};
  const v8f c = v8f{} + center;
  const auto term = [&](v8f v) {
    v -= c;
    return Power == 2 ? v * v : v;
  };
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    a0 += term(load8(x + i));
    a1 += term(load8(x + i + 8));
    a2 += term(load8(x + i + 16));
    a3 += term(load8(x + i + 24));
  }
  for (; i + 8 <= n; i += 8) a0 += term(load8(x + i));
  float s = lanes_sum((a0 + a1) + (a2 + a3));
  for (; i < n; ++i) s += Power == 2 ? (x[i] - center) * (x[i] - center) : x[i] - center;
  return s;
}

JITCTL_ALWAYS_INLINE void layer_norm_rows_f32_body(const float* x, float* y, int64_t r0, int64_t r1, int64_t inner, const float* w, const float* b,
                                                   double eps) {
  for (int64_t r = r0; r < r1; ++r) {
    const float* __restrict xr = x + r * inner;
    float* __restrict yr = y + r * inner;
    const float m = row_reduce<1>(xr, inner, 0.0f) / static_cast<float>(inner);
    const float var = row_reduce<2>(xr, inner, m) / static_cast<float>(inner);
    const float rstd = static_cast<float>(1.0 / std::sqrt(static_cast<double>(var) + eps));
    if (w && b) {
#pragma omp simd
      for (int64_t i = 0; i < inner; ++i) yr[i] = (xr[i] - m) * rstd * w[i] + b[i];
    } else {
      for (int64_t i = 0; i < inner; ++i) yr[i] = (xr[i] - m) * rstd * (w ? w[i] : 1.0f) + (b ? b[i] : 0.0f);
    }
  }
}
JITCTL_ISA_CLONES(void, layer_norm_rows_f32,
                  (const float* x, float* y, int64_t r0, int64_t r1, int64_t inner, const float* w, const float* b, double eps),
                  (x, y, r0, r1, inner, w, b, eps))

}  // namespace

template <class T>
void layer_norm_rows(const T* x, T* y, int64_t rows, int64_t inner, const T* w, const T* b, double eps) {
  if constexpr (std::is_same_v<T, float>) {
    parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(inner, 1)),
                 [&](int64_t r0, int64_t r1) { layer_norm_rows_f32(x, y, r0, r1, inner, w, b, eps); });
    return;
  }
  parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(inner, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* xr = x + r * inner;
      T* yr = y + r * inner;
      const auto [mean, var] = moments(xr, inner);
      const T rstd = static_cast<T>(1.0 / std::sqrt(var + eps));
      const T m = static_cast<T>(mean);
      if (w && b) {
#pragma omp simd
        for (int64_t i = 0; i < inner; ++i) yr[i] = (xr[i] - m) * rstd * w[i] + b[i];
      } else {
        for (int64_t i = 0; i < inner; ++i) yr[i] = (xr[i] - m) * rstd * (w ? w[i] : T(1)) + (b ? b[i] : T(0));
      }
    }
  });
}

template void layer_norm_rows<float>(const float*, float*, int64_t, int64_t, const float*, const float*, double);
template void layer_norm_rows<double>(const double*, double*, int64_t, int64_t, const double*, const double*, double);

namespace {

// Statistics per (image, group) of `groups` consecutive channels; affine per channel.
Tensor group_norm(const Tensor& input_arg, int64_t groups, const Tensor& weight, const Tensor& bias, double eps, const char* op) {
  const NormGeometry g = check_group_norm_args(input_arg, groups, weight, bias, op);
  const int64_t n = g.n, c = g.c, plane = g.plane;
  const Tensor input = contiguous(input_arg);
  const int64_t cg = c / groups;
  Tensor out = Tensor::empty(input.dtype(), input.sizes());
  dispatch_floating(input.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const std::vector<double> w = as_doubles<T>(weight, c, 1.0), b = as_doubles<T>(bias, c, 0.0);
    const T* x = data_of<T>(input);
    T* y = mutable_data_of<T>(out);
    parallel_for(0, n * groups, 1, [&](int64_t g0, int64_t g1) {
      for (int64_t g = g0; g < g1; ++g) {
        const int64_t base = g * cg * plane;
        const auto [mean, var] = moments(x + base, cg * plane);
        const double rstd = 1.0 / std::sqrt(var + eps);
        for (int64_t k = 0; k < cg; ++k) {
          const int64_t ch = (g % groups) * cg + k;
          const double scale = rstd * w[ch];
          affine(x + base + k * plane, y + base + k * plane, plane, static_cast<T>(scale), static_cast<T>(b[ch] - mean * scale));
        }
      }
    });
  });
  return out;
}

void k_batch_norm(Stack& s) {
  Tensor r = batch_norm(s[0].to_tensor(), optional_tensor(s[1]), optional_tensor(s[2]), optional_tensor(s[3]), optional_tensor(s[4]),
                        s[5].to_bool(), s[6].to_double(), s[7].to_double());
  s.assign(1, IValue(std::move(r)));
}

void k_layer_norm(Stack& s) {
  Tensor r = layer_norm(s[0].to_tensor(), int_list(s[1]), optional_tensor(s[2]), optional_tensor(s[3]), s[4].to_double());
  s.assign(1, IValue(std::move(r)));
}

void k_group_norm(Stack& s) {
  Tensor r = group_norm(s[0].to_tensor(), s[1].to_int(), optional_tensor(s[2]), optional_tensor(s[3]), s[4].to_double(), "group_norm");
  s.assign(1, IValue(std::move(r)));
}

// instance_norm with input statistics is group_norm with one channel per group; without, it is
// batch_norm in evaluation mode.
void k_instance_norm(Stack& s) {
  const Tensor& x = s[0].to_tensor();
  const bool use_input_stats = s[5].to_bool();
  Tensor r;
  if (use_input_stats) {
    if (!s[3].is_none() || !s[4].is_none())
      throw Unsupported("instance_norm: updating running statistics (track_running_stats=True in training mode)");
    r = group_norm(x, x.dim() >= 2 ? x.sizes()[1] : 1, optional_tensor(s[1]), optional_tensor(s[2]), s[7].to_double(), "instance_norm");
  } else {
    r = batch_norm(x, optional_tensor(s[1]), optional_tensor(s[2]), optional_tensor(s[3]), optional_tensor(s[4]), false, 0.0, s[7].to_double());
  }
  s.assign(1, IValue(std::move(r)));
}

}  // namespace
}  // namespace jitctl::cpu

namespace jitctl {

void register_norm_kernels() {
  register_kernel("aten::batch_norm", cpu::k_batch_norm);
  register_kernel("aten::layer_norm", cpu::k_layer_norm);
  register_kernel("aten::group_norm", cpu::k_group_norm);
  register_kernel("aten::instance_norm", cpu::k_instance_norm);
}

}  // namespace jitctl
