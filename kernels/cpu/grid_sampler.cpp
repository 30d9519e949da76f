// grid_sampler / grid_sampler_2d on 4-D inputs: out[n, c, y, x] samples input[n, c] at the point
// grid[n, y, x] = (x, y) in [-1, 1], bilinear or nearest, with zeros, border or reflection padding.
// Coordinate arithmetic follows ATen's CPU grid sampler (unnormalize as (g + 1) * size/2 - 0.5,
// or (g + 1) * (size-1)/2 with align_corners; nearest rounds half to even).
#include <cmath>
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

enum Interp : int64_t { kBilinear = 0, kNearest = 1 };
enum Padding : int64_t { kZeros = 0, kBorder = 1, kReflection = 2 };

template <class T>
T clip(T v, int64_t size) {
  return std::min(static_cast<T>(size - 1), std::max(v, T(0)));
}

// Reflects v into [twice_low / 2, twice_high / 2] (bounds doubled so they stay integers).
template <class T>
T reflect(T v, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return T(0);
  const T lo = static_cast<T>(twice_low) / 2, span = static_cast<T>(twice_high - twice_low) / 2;
  v = std::fabs(v - lo);
  const T extra = std::fmod(v, span);
  const int64_t flips = static_cast<int64_t>(std::floor(v / span));
  return flips % 2 == 0 ? extra + lo : span - extra + lo;
}

// The source coordinate of grid value g along an axis of `size` pixels.
template <class T>
T source_coordinate(T g, int64_t size, int64_t padding, bool align_corners) {
  T v = align_corners ? (g + T(1)) * (static_cast<T>(size - 1) / T(2)) : (g + T(1)) * (static_cast<T>(size) / T(2)) - T(0.5);
  if (padding == kBorder) {
    v = clip(v, size);
  } else if (padding == kReflection) {
    v = align_corners ? reflect(v, 0, 2 * (size - 1)) : reflect(v, -1, 2 * size - 1);
    v = clip(v, size);
  }
  return v;
}

Tensor grid_sampler_2d(const Tensor& input_arg, const Tensor& grid_arg, int64_t interp, int64_t padding, bool align_corners) {
  if (input_arg.dim() > 0 && grid_arg.dim() > 0 && input_arg.sizes()[0] != grid_arg.sizes()[0])
    throw InvalidInput(fmt::format("grid_sampler(): expected grid and input to have same batch size, but got input with sizes {} and grid with sizes {}",
                                   shape_string(input_arg.sizes()), shape_string(grid_arg.sizes())));
  if (grid_arg.dim() == 0 || grid_arg.sizes().back() != 2)
    throw InvalidInput(fmt::format("grid_sampler(): expected grid to have size 2 in last dimension, but got grid with sizes {}",
                                   shape_string(grid_arg.sizes())));
  if (input_arg.dim() != 4 || grid_arg.dim() != 4)
    throw Unsupported(fmt::format("grid_sampler: only 4-D inputs (2-D sampling) are supported yet, got input {} and grid {}",
                                  shape_string(input_arg.sizes()), shape_string(grid_arg.sizes())));
  check_same_dtype(input_arg, grid_arg);
  if (interp != kBilinear && interp != kNearest)
    throw Unsupported(fmt::format("grid_sampler: interpolation mode {} is not supported yet (bilinear and nearest only)", interp));
  if (padding < kZeros || padding > kReflection) throw Unsupported(fmt::format("grid_sampler: padding mode {} is not supported", padding));
  const Tensor input = contiguous(input_arg), grid = contiguous(grid_arg);
  const int64_t n = input.sizes()[0], c = input.sizes()[1], h = input.sizes()[2], w = input.sizes()[3];
  const int64_t oh = grid.sizes()[1], ow = grid.sizes()[2];
  Tensor out = Tensor::empty(input.dtype(), {n, c, oh, ow});
  dispatch_floating(input.dtype(), "grid_sampler", [&](auto tag) {
    using T = decltype(tag);
    const T* in = data_of<T>(input);
    const T* g = data_of<T>(grid);
    T* o = mutable_data_of<T>(out);
    auto inside = [&](int64_t y, int64_t x) { return y >= 0 && y < h && x >= 0 && x < w; };
    // One task per output row of one image; every channel reads the same points.
    parallel_for(0, n * oh, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(ow * c * 4, 1)), [&](int64_t b, int64_t e) {
      for (int64_t row = b; row < e; ++row) {
        const int64_t bi = row / oh, y = row % oh;
        const T* plane0 = in + bi * c * h * w;
        T* orow = o + bi * c * oh * ow + y * ow;
        for (int64_t x = 0; x < ow; ++x) {
          const T* gp = g + ((bi * oh + y) * ow + x) * 2;
          const T ix = source_coordinate(gp[0], w, padding, align_corners);
          const T iy = source_coordinate(gp[1], h, padding, align_corners);
          if (interp == kNearest) {
            const int64_t xn = static_cast<int64_t>(std::nearbyint(ix)), yn = static_cast<int64_t>(std::nearbyint(iy));
            const bool ok = inside(yn, xn);
            for (int64_t ch = 0; ch < c; ++ch) orow[ch * oh * ow + x] = ok ? plane0[ch * h * w + yn * w + xn] : T(0);
            continue;
          }
          const T fx = std::floor(ix), fy = std::floor(iy);
          const int64_t x0 = static_cast<int64_t>(fx), y0 = static_cast<int64_t>(fy);
          const T dx = ix - fx, dy = iy - fy;
          const T wnw = (T(1) - dx) * (T(1) - dy), wne = dx * (T(1) - dy), wsw = (T(1) - dx) * dy, wse = dx * dy;
          const bool nw = inside(y0, x0), ne = inside(y0, x0 + 1), sw = inside(y0 + 1, x0), se = inside(y0 + 1, x0 + 1);
          for (int64_t ch = 0; ch < c; ++ch) {
            const T* p = plane0 + ch * h * w;
            T v = 0;
            if (nw) v += p[y0 * w + x0] * wnw;
            if (ne) v += p[y0 * w + x0 + 1] * wne;
            if (sw) v += p[(y0 + 1) * w + x0] * wsw;
            if (se) v += p[(y0 + 1) * w + x0 + 1] * wse;
            orow[ch * oh * ow + x] = v;
          }
        }
      }
    });
  });
  return out;
}

void k_grid_sampler(Stack& s) {
  Tensor r = grid_sampler_2d(s[0].to_tensor(), s[1].to_tensor(), s[2].to_int(), s[3].to_int(), s[4].to_bool());
  set_output(s, IValue(std::move(r)));
}

}  // namespace

void register_grid_sampler_kernels() {
  register_kernel("aten::grid_sampler", k_grid_sampler);
  register_kernel("aten::grid_sampler_2d", k_grid_sampler);
}

}  // namespace jitctl
