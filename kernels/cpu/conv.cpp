// Convolutions (1-D as 2-D with height 1). float32 goes to oneDNN (packed_conv.h); float64 and
// transposed convolutions, NCHW, here:
// - depthwise (one input channel per group): direct loops, one output channel per task;
// - 1x1, stride 1, no padding: the input already is the GEMM operand [C, H*W];
// - otherwise im2col of a band of output rows into [C/g * kh * kw, rows * Wo] (about 1 MB, so
//   it is still in L2 when the GEMM reads it) and one GEMM per image, group and band.
// Transposed convolutions: GEMM into columns, then col2im scatter-adds into the output.
// The bias is written into the output first and the GEMM accumulates onto it.
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <vector>

#include "kernels/cpu/conv.h"
#include "kernels/cpu/dnnl_util.h"
#include "kernels/cpu/packed_conv.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/nn_util.h"
#include "kernels/cpu/register_cpu.h"
#include "kernels/parallel.h"
#include "kernels/registry.h"

namespace jitctl::cpu {
namespace {


// Per-thread scratch reused across calls: a fresh multi-megabyte vector per call would be
// mapped and page-faulted in every time. One user per thread at a time.
template <class T>
T* scratch(size_t n) {
  static thread_local std::vector<T> buf;
  if (buf.size() < n) buf.resize(n);
  return buf.data();
}

template <class T>
void fill_bias(T* out, const ConvParams& p, const Tensor& bias) {
  const int64_t plane = p.oh * p.ow;
  const T* b = bias.defined() ? data_of<T>(bias) : nullptr;
  const int64_t bs = bias.defined() ? bias.strides()[0] : 0;
  parallel_for(0, p.n * p.oc, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(plane, 1)), [&](int64_t b0, int64_t b1) {
    for (int64_t i = b0; i < b1; ++i) std::fill(out + i * plane, out + (i + 1) * plane, b ? b[(i % p.oc) * bs] : T(0));
  });
}

// Columns [c * kh * kw, (y1 - y0) * ow] of one image's `c` channels: the patches of output
// rows [y0, y1).
template <class T>
void im2col(const T* in, const ConvParams& p, int64_t channels, int64_t y0, int64_t y1, T* col) {
  const int64_t k = p.kh * p.kw, width = (y1 - y0) * p.ow;
  for (int64_t r = 0; r < channels * k; ++r) {
    const int64_t ch = r / k, ki = (r % k) / p.kw, kj = r % p.kw;
    const T* src = in + ch * p.h * p.w;
    T* dst = col + r * width;
    // Output columns whose input column lies inside [0, w): ow in [lo, hi).
    const int64_t off = kj * p.dw - p.pw;
    int64_t lo = off >= 0 ? 0 : (-off + p.sw - 1) / p.sw;
    int64_t hi = p.w - off <= 0 ? 0 : (p.w - off + p.sw - 1) / p.sw;
    lo = std::min(lo, p.ow);
    hi = std::min(std::max(hi, lo), p.ow);
    for (int64_t y = y0; y < y1; ++y) {
      T* drow = dst + (y - y0) * p.ow;
      const int64_t iy = y * p.sh - p.ph + ki * p.dh;
      if (iy < 0 || iy >= p.h) {
        std::fill(drow, drow + p.ow, T(0));
        continue;
      }
      const T* srow = src + iy * p.w + off;
      std::fill(drow, drow + lo, T(0));
      if (p.sw == 1) {
        std::memcpy(drow + lo, srow + lo, static_cast<size_t>(hi - lo) * sizeof(T));
      } else {
        for (int64_t x = lo; x < hi; ++x) drow[x] = srow[x * p.sw];
      }
      std::fill(drow + hi, drow + p.ow, T(0));
    }
  }
}

// Scatter-adds columns [c * kh * kw, h * w] (the transposed convolution's GEMM result) into
// `out` [c, oh, ow]; p.h/p.w are the input's spatial size.
template <class T>
void col2im(const T* col, const ConvParams& p, int64_t channels, T* out) {
  const int64_t k = p.kh * p.kw;
  for (int64_t ch = 0; ch < channels; ++ch) {
    T* dst = out + ch * p.oh * p.ow;
    for (int64_t kk = 0; kk < k; ++kk) {
      const int64_t ki = kk / p.kw, kj = kk % p.kw;
      const T* src = col + (ch * k + kk) * p.h * p.w;
      for (int64_t y = 0; y < p.h; ++y) {
        const int64_t oy = y * p.sh - p.ph + ki * p.dh;
        if (oy < 0 || oy >= p.oh) continue;
        for (int64_t x = 0; x < p.w; ++x) {
          const int64_t ox = x * p.sw - p.pw + kj * p.dw;
          if (ox >= 0 && ox < p.ow) dst[oy * p.ow + ox] += src[y * p.w + x];
        }
      }
    }
  }
}

// out[y][x] = bias + sum over the 3x3 taps of w * pad[y * S + ki][x * S + kj], all nine taps in
// one pass over the output row (pad: the zero-padded input plane, `pw` floats per row).
template <class T, int S>
void depthwise3x3_plane(const T* pad, int64_t pw, const T* w, T* dst, int64_t oh, int64_t ow) {
  for (int64_t y = 0; y < oh; ++y) {
    const T* r0 = pad + (y * S) * pw;
    const T* r1 = r0 + pw;
    const T* r2 = r1 + pw;
    T* d = dst + y * ow;
#pragma omp simd
    for (int64_t x = 0; x < ow; ++x) {
      const int64_t c = x * S;
      d[x] += w[0] * r0[c] + w[1] * r0[c + 1] + w[2] * r0[c + 2] + w[3] * r1[c] + w[4] * r1[c + 1] + w[5] * r1[c + 2] + w[6] * r2[c] +
              w[7] * r2[c + 1] + w[8] * r2[c + 2];
    }
  }
}

// One input channel per group: out[oc] = sum over taps of w * shifted in[oc / mult]. 3x3
// kernels with stride 1 or 2 and no dilation (MobileNet/ShuffleNet blocks) read a zero-padded
// copy of the plane, all taps at once; other shapes accumulate tap by tap.
template <class T>
void depthwise(const T* in, const T* wt, T* out, const ConvParams& p) {
  const int64_t mult = p.oc / p.c;
  const bool fast3x3 = p.kh == 3 && p.kw == 3 && p.dh == 1 && p.dw == 1 && p.sh == p.sw && (p.sh == 1 || p.sh == 2);
  // The padded plane covers every input the output reads (and the padding beyond).
  const int64_t ph = (p.oh - 1) * p.sh + 3, pwid = (p.ow - 1) * p.sw + 3;
  parallel_for(0, p.n * p.oc, 1, [&](int64_t b0, int64_t b1) {
    T* pad = fast3x3 ? scratch<T>(static_cast<size_t>(ph * pwid)) : nullptr;
    for (int64_t i = b0; i < b1; ++i) {
      const int64_t img = i / p.oc, o = i % p.oc;
      const T* src = in + (img * p.c + o / mult) * p.h * p.w;
      const T* kw = wt + o * p.kh * p.kw;
      T* dst = out + i * p.oh * p.ow;
      if (fast3x3) {
        for (int64_t y = 0; y < ph; ++y) {
          T* prow = pad + y * pwid;
          const int64_t iy = y - p.ph;
          if (iy < 0 || iy >= p.h) {
            std::fill(prow, prow + pwid, T(0));
            continue;
          }
          const int64_t x0 = std::min(p.pw, pwid), x1 = std::min(pwid, p.pw + p.w);
          std::fill(prow, prow + x0, T(0));
          std::memcpy(prow + x0, src + iy * p.w, static_cast<size_t>(std::max<int64_t>(x1 - x0, 0)) * sizeof(T));
          std::fill(prow + std::max(x1, x0), prow + pwid, T(0));
        }
        if (p.sh == 1)
          depthwise3x3_plane<T, 1>(pad, pwid, kw, dst, p.oh, p.ow);
        else
          depthwise3x3_plane<T, 2>(pad, pwid, kw, dst, p.oh, p.ow);
        continue;
      }
      for (int64_t ki = 0; ki < p.kh; ++ki) {
        for (int64_t kj = 0; kj < p.kw; ++kj) {
          const T wv = kw[ki * p.kw + kj];
          const int64_t off = kj * p.dw - p.pw;
          int64_t lo = off >= 0 ? 0 : (-off + p.sw - 1) / p.sw;
          int64_t hi = p.w - off <= 0 ? 0 : (p.w - off + p.sw - 1) / p.sw;
          lo = std::min(lo, p.ow);
          hi = std::min(std::max(hi, lo), p.ow);
          for (int64_t y = 0; y < p.oh; ++y) {
            const int64_t iy = y * p.sh - p.ph + ki * p.dh;
            if (iy < 0 || iy >= p.h) continue;
            const T* srow = src + iy * p.w + off;
            T* drow = dst + y * p.ow;
            if (p.sw == 1) {
#pragma omp simd
              for (int64_t x = lo; x < hi; ++x) drow[x] += wv * srow[x];
            } else {
              for (int64_t x = lo; x < hi; ++x) drow[x] += wv * srow[x * p.sw];
            }
          }
        }
      }
    }
  });
}

template <class T>
void conv_forward(const Tensor& input, const Tensor& weight, T* out, const ConvParams& p) {
  const T* in = data_of<T>(input);
  const T* wt = data_of<T>(weight);
  const int64_t cg = p.c / p.groups, og = p.oc / p.groups;
  const int64_t krows = cg * p.kh * p.kw, plane = p.oh * p.ow;
  if (cg == 1 && p.groups > 1) return depthwise(in, wt, out, p);
  const bool direct = p.kh == 1 && p.kw == 1 && p.sh == 1 && p.sw == 1 && p.ph == 0 && p.pw == 0 && p.oh == p.h && p.ow == p.w;
  // Work items: (image, group, band of output rows). A band's columns ([krows, rows * ow], about
  // 1 MB) stay in L2 between im2col and the GEMM that reads them.
  const int64_t band = std::max<int64_t>(1, std::min(p.oh, (int64_t{1} << 18) / std::max<int64_t>(krows * p.ow, 1)));
  const int64_t bands = (p.oh + band - 1) / band;
  const int64_t units = p.n * p.groups, items = units * bands;
  auto run_item = [&](int64_t item, T* col) {
    const int64_t u = item / bands, y0 = (item % bands) * band, y1 = std::min(p.oh, y0 + band);
    const int64_t img = u / p.groups, g = u % p.groups, width = (y1 - y0) * p.ow;
    const T* src = in + (img * p.c + g * cg) * p.h * p.w;
    MatRef<T> b = row_major(src + y0 * p.ow, krows, width, plane);  // 1x1: the input itself
    if (!direct) {
      im2col(src, p, cg, y0, y1, col);
      b = row_major(static_cast<const T*>(col), krows, width, width);
    }
    gemm<T>(row_major(wt + g * og * krows, og, krows, krows), b, out + (img * p.oc + g * og) * plane + y0 * p.ow, plane, T(1), T(1));
  };
  const size_t col_size = direct ? 0 : static_cast<size_t>(krows * band * p.ow);
  if (items >= omp_get_max_threads() && items > 1) {
    // One item per thread at a time, each GEMM single-threaded.
    parallel_for(0, items, 1, [&](int64_t i0, int64_t i1) {
      T* col = scratch<T>(col_size);
      for (int64_t i = i0; i < i1; ++i) run_item(i, col);
    });
  } else {
    // Few items: the GEMM splits each over the team.
    T* col = scratch<T>(col_size);
    for (int64_t i = 0; i < items; ++i) run_item(i, col);
  }
}

template <class T>
void conv_transposed(const Tensor& input, const Tensor& weight, T* out, const ConvParams& p) {
  const T* in = data_of<T>(input);
  const T* wt = data_of<T>(weight);
  const int64_t cg = p.c / p.groups, og = p.oc / p.groups;
  const int64_t krows = og * p.kh * p.kw, plane = p.h * p.w;
  const int64_t units = p.n * p.groups;
  auto run_unit = [&](int64_t u, T* col) {
    const int64_t img = u / p.groups, g = u % p.groups;
    const T* src = in + (img * p.c + g * cg) * plane;
    // weight group g: [cg, og * kh * kw]; its transpose times the input [cg, h * w].
    gemm<T>(transposed(row_major(wt + g * cg * krows, cg, krows, krows)), row_major(src, cg, plane, plane), col, plane, T(1), T(0));
    col2im(col, p, og, out + (img * p.oc + g * og) * p.oh * p.ow);
  };
  const size_t col_size = static_cast<size_t>(krows * plane);
  if (units >= omp_get_max_threads() && units > 1) {
    parallel_for(0, units, 1, [&](int64_t u0, int64_t u1) {
      T* col = scratch<T>(col_size);
      for (int64_t u = u0; u < u1; ++u) run_unit(u, col);
    });
  } else {
    T* col = scratch<T>(col_size);
    for (int64_t u = 0; u < units; ++u) run_unit(u, col);
  }
}


std::string dims_string(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? " x " : "") + std::to_string(v[i]);
  return s;
}

}  // namespace

ConvParams conv_params(const Tensor& input_arg, const Tensor& weight_arg, const Tensor& bias, ConvArgs a, const char* op) {
  const int64_t wd = weight_arg.dim();
  if (wd != 3 && wd != 4 && wd != 5) throw Unsupported(fmt::format("{}: {}-D weight (conv1d, conv2d and conv3d only)", op, wd));
  if (wd == 5 && a.transposed) throw Unsupported(fmt::format("{}: transposed 3-D convolution", op));
  const size_t nsp = static_cast<size_t>(wd - 2);
  if (input_arg.dim() != wd)
    throw InvalidInput(fmt::format("Expected {}D (unbatched) or {}D (batched) input to {}, but got input of size: {}", wd - 1, wd, op,
                                   shape_string(input_arg.sizes())));
  check_same_dtype(input_arg, weight_arg);
  if (bias.defined()) check_same_dtype(bias, input_arg);
  a.stride = expand_param(a.stride, nsp, op, "stride");
  a.dilation = expand_param(a.dilation, nsp, op, "dilation");
  if (a.transposed) a.output_padding = expand_param(a.output_padding, nsp, op, "output_padding");
  if (a.groups <= 0) throw InvalidInput("non-positive groups is not supported");
  for (auto s : a.stride)
    if (s <= 0) throw InvalidInput("non-positive stride is not supported");
  for (auto d : a.dilation)
    if (d <= 0) throw InvalidInput("dilation should be greater than zero");

  const auto& is = input_arg.sizes();
  const auto& ws = weight_arg.sizes();
  // Per spatial dim, outermost first: padding before and in all.
  std::vector<int64_t> before(nsp, 0), total(nsp, 0);
  if (a.padding_mode == "same") {
    for (auto s : a.stride)
      if (s != 1) throw InvalidInput("padding='same' is not supported for strided convolutions");
    for (size_t i = 0; i < nsp; ++i) {
      total[i] = a.dilation[i] * (ws[2 + i] - 1);
      before[i] = total[i] / 2;
    }
  } else if (a.padding_mode == "valid" || a.padding_mode.empty()) {
    if (a.padding_mode.empty()) {
      a.padding = expand_param(a.padding, nsp, op, "padding");
      for (auto v : a.padding)
        if (v < 0) throw InvalidInput("negative padding is not supported");
      for (size_t i = 0; i < nsp; ++i) {
        before[i] = a.padding[i];
        total[i] = 2 * before[i];
      }
    }
  } else {
    throw InvalidInput(fmt::format("Invalid padding string: '{}'", a.padding_mode));
  }

  // The geometry's fields: width is the last spatial dim, height the one before (1-D: height 1),
  // depth the first of three.
  ConvParams p{};
  const size_t iw = nsp - 1;
  p.n = is[0];
  p.c = is[1];
  p.w = is[2 + iw];
  p.kw = ws[2 + iw];
  p.sw = a.stride[iw];
  p.dw = a.dilation[iw];
  p.pw = before[iw];
  p.pw_after = total[iw] - before[iw];
  p.h = p.kh = p.sh = p.dh = 1;
  if (nsp >= 2) {
    const size_t ih = nsp - 2;
    p.h = is[2 + ih];
    p.kh = ws[2 + ih];
    p.sh = a.stride[ih];
    p.dh = a.dilation[ih];
    p.ph = before[ih];
    p.ph_after = total[ih] - before[ih];
  }
  if (nsp == 3) {
    p.d = is[2];
    p.kd = ws[2];
    p.sd = a.stride[0];
    p.dd = a.dilation[0];
    p.pd = before[0];
    p.pd_after = total[0] - before[0];
  }
  p.groups = a.groups;
  p.transposed = a.transposed;
  p.spatial_dims = nsp;
  std::vector<int64_t> out_sizes{p.n};
  if (!a.transposed) {
    if (ws[0] % a.groups != 0)
      throw InvalidInput(fmt::format("Given groups={}, expected weight to be divisible by {} at dimension 0, but got weight of size [{}] instead",
                                     a.groups, a.groups, shape_string(ws)));
    if (p.c != ws[1] * a.groups)
      throw InvalidInput(fmt::format("Given groups={}, weight of size {}, expected input{} to have {} channels, but got {} channels instead", a.groups,
                                     shape_string(ws), shape_string(is), ws[1] * a.groups, p.c));
    p.oc = ws[0];
    std::vector<int64_t> padded(nsp), kernel(nsp), out(nsp);
    bool fits = true;
    for (size_t i = 0; i < nsp; ++i) {
      padded[i] = is[2 + i] + total[i];
      kernel[i] = a.dilation[i] * (ws[2 + i] - 1) + 1;
      fits = fits && padded[i] - kernel[i] + 1 >= 1;
      out[i] = (padded[i] - kernel[i]) / a.stride[i] + 1;
    }
    if (!fits)
      throw InvalidInput(fmt::format("Calculated padded input size per channel: ({}). Kernel size: ({}). Kernel size can't be greater than actual input size",
                                     dims_string(padded), dims_string(kernel)));
    p.ow = out[iw];
    p.oh = nsp >= 2 ? out[nsp - 2] : 1;
    if (nsp == 3) p.od = out[0];
  } else {
    if (p.c != ws[0])
      throw InvalidInput(fmt::format("Given transposed=1, weight of size {}, expected input{} to have {} channels, but got {} channels instead",
                                     shape_string(ws), shape_string(is), ws[0], p.c));
    if (p.c % a.groups != 0) throw InvalidInput(fmt::format("Given groups={}, input channels {} are not divisible by groups", a.groups, p.c));
    p.oc = ws[1] * a.groups;
    const int64_t oph = nsp == 2 ? a.output_padding[0] : 0, opw = a.output_padding[nsp - 1];
    p.oh = (p.h - 1) * p.sh - (p.ph + p.ph_after) + p.dh * (p.kh - 1) + oph + 1;
    p.ow = (p.w - 1) * p.sw - (p.pw + p.pw_after) + p.dw * (p.kw - 1) + opw + 1;
    if (p.oh < 1 || p.ow < 1) throw InvalidInput(fmt::format("{}: output size is too small", op));
  }
  if (bias.defined() && (bias.dim() != 1 || bias.sizes()[0] != p.oc))
    throw InvalidInput(fmt::format("Given weight of size {}, expected bias to be 1-dimensional with {} elements, but got bias of size {} instead",
                                   shape_string(ws), p.oc, shape_string(bias.sizes())));
  out_sizes.push_back(p.oc);
  if (nsp == 3) out_sizes.push_back(p.od);
  if (nsp >= 2) out_sizes.push_back(p.oh);
  out_sizes.push_back(p.ow);
  p.out_sizes = std::move(out_sizes);
  return p;
}

namespace {

Tensor convolution(const Tensor& input_arg, const Tensor& weight_arg, const Tensor& bias, const ConvArgs& a, const char* op) {
  const ConvParams p = conv_params(input_arg, weight_arg, bias, a, op);
  if (input_arg.dtype() == DType::Float32 && input_arg.numel() > 0 && PackedConv::supports(weight_arg, bias, a)) {
    // Packed for this call only (the runtime packs constant weights once per method). The output
    // keeps a channels-last input's layout, as PyTorch's does.
    const bool cl = input_arg.dim() == 4 && is_channels_last(input_arg) && !input_arg.is_contiguous();
    return PackedConv(weight_arg, bias, a, {}).run(input_arg, Tensor(), cl);
  }
  if (p.spatial_dims == 3) {
    Tensor none = Tensor::empty(input_arg.dtype(), p.out_sizes);
    if (none.numel() == 0) return none;
    throw Unsupported(input_arg.dtype() == DType::Float32 ? fmt::format("{}: 3-D convolution of an empty input or weight", op)
                                                          : fmt::format("{}: 3-D convolution of {} (float32 only)", op, dtype_name(input_arg.dtype())));
  }
  const Tensor input = contiguous(input_arg), weight = contiguous(weight_arg);
  Tensor out = Tensor::empty(input.dtype(), p.out_sizes);
  if (out.numel() == 0) return out;
  dispatch_floating(input.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    T* o = mutable_data_of<T>(out);
    fill_bias<T>(o, p, bias);
    if (input.numel() == 0) return;
    if (a.transposed)
      conv_transposed<T>(input, weight, o, p);
    else
      conv_forward<T>(input, weight, o, p);
  });
  return out;
}

// conv1d/conv2d/conv_transpose accept an unbatched input (one dim less than the weight).
Tensor with_batch(const Tensor& input, const Tensor& weight, const std::function<Tensor(const Tensor&)>& f) {
  if (input.dim() != weight.dim() - 1) return f(input);
  std::vector<int64_t> sizes{1}, strides{input.numel()};
  sizes.insert(sizes.end(), input.sizes().begin(), input.sizes().end());
  strides.insert(strides.end(), input.strides().begin(), input.strides().end());
  const Tensor batched = Tensor::view_of(input.storage(), input.dtype(), input.storage_offset(), sizes, strides, "convolution");
  const Tensor r = f(batched);
  std::vector<int64_t> rs(r.sizes().begin() + 1, r.sizes().end());
  return Tensor::view_of(r.storage(), r.dtype(), r.storage_offset(), rs, contiguous_strides(rs), "convolution");
}

}  // namespace

ConvArgs conv_args_from_stack(const std::vector<IValue>& s) {
  ConvArgs a;
  a.stride = int_list(s[3]);
  if (s[4].is(IValue::Kind::String))
    a.padding_mode = s[4].to_string();
  else
    a.padding = int_list(s[4]);
  a.dilation = int_list(s[5]);
  a.groups = s[6].to_int();
  return a;
}

namespace {

void k_conv(Stack& s, size_t nsp, const char* op) {
  const Tensor &input = s[0].to_tensor(), &weight = s[1].to_tensor();
  const Tensor bias = optional_tensor(s[2]);
  const ConvArgs a = conv_args_from_stack(s);
  if (weight.dim() != static_cast<int64_t>(nsp) + 2)
    throw InvalidInput(fmt::format("{}: expected a {}-D weight, got {}", op, nsp + 2, shape_string(weight.sizes())));
  Tensor r = with_batch(input, weight, [&](const Tensor& x) { return convolution(x, weight, bias, a, op); });
  s.assign(1, IValue(std::move(r)));
}

void k_conv_transpose(Stack& s, size_t nsp, const char* op) {
  const Tensor &input = s[0].to_tensor(), &weight = s[1].to_tensor();
  const Tensor bias = optional_tensor(s[2]);
  ConvArgs a;
  a.transposed = true;
  a.stride = int_list(s[3]);
  a.padding = int_list(s[4]);
  a.output_padding = int_list(s[5]);
  a.groups = s[6].to_int();
  a.dilation = int_list(s[7]);
  if (weight.dim() != static_cast<int64_t>(nsp) + 2)
    throw InvalidInput(fmt::format("{}: expected a {}-D weight, got {}", op, nsp + 2, shape_string(weight.sizes())));
  Tensor r = with_batch(input, weight, [&](const Tensor& x) { return convolution(x, weight, bias, a, op); });
  s.assign(1, IValue(std::move(r)));
}

// _convolution and convolution: (input, weight, bias, stride, padding, dilation, transposed,
// output_padding, groups, ...flags).
void k_convolution(Stack& s) {
  ConvArgs a;
  a.stride = int_list(s[3]);
  a.padding = int_list(s[4]);
  a.dilation = int_list(s[5]);
  a.transposed = s[6].to_bool();
  a.output_padding = int_list(s[7]);
  a.groups = s[8].to_int();
  Tensor r = convolution(s[0].to_tensor(), s[1].to_tensor(), optional_tensor(s[2]), a, "aten::_convolution");
  s.assign(1, IValue(std::move(r)));
}

}  // namespace
}  // namespace jitctl::cpu

namespace jitctl {

void register_conv_kernels() {
  using cpu::k_conv;
  using cpu::k_conv_transpose;
  register_kernel("aten::conv1d", [](Stack& s) { k_conv(s, 1, "conv1d"); });
  register_kernel("aten::conv1d.padding", [](Stack& s) { k_conv(s, 1, "conv1d"); });
  register_kernel("aten::conv2d", [](Stack& s) { k_conv(s, 2, "conv2d"); });
  register_kernel("aten::conv2d.padding", [](Stack& s) { k_conv(s, 2, "conv2d"); });
  register_kernel("aten::conv3d", [](Stack& s) { k_conv(s, 3, "conv3d"); });
  register_kernel("aten::conv3d.padding", [](Stack& s) { k_conv(s, 3, "conv3d"); });
  register_kernel("aten::conv_transpose1d", [](Stack& s) { k_conv_transpose(s, 1, "conv_transpose1d"); });
  register_kernel("aten::conv_transpose2d.input", [](Stack& s) { k_conv_transpose(s, 2, "conv_transpose2d"); });
  register_kernel("aten::_convolution", cpu::k_convolution);
  register_kernel("aten::_convolution.deprecated", cpu::k_convolution);
  register_kernel("aten::convolution", cpu::k_convolution);
}

}  // namespace jitctl
