#include "kernels/cpu/channel_shuffle.h"

#include <algorithm>

#include "kernels/cpu/dnnl_util.h"
#include "kernels/cpu/isa_dispatch.h"
#include "kernels/cpu/output.h"
#include "kernels/parallel.h"

namespace jitctl::cpu {
namespace {

// Pixels [p0, p1): out[p][k * g + j] = src[j][p * ld[j] + k], group j's cg channels read from
// src[j] (a channel slice of one input). Two groups (ShuffleNet's) are an interleave of two runs,
// which the compiler turns into vector permutes.
JITCTL_ALWAYS_INLINE void shuffle_rows_body(const float* const* src, const int64_t* ld, float* __restrict out, int64_t g, int64_t cg, int64_t p0,
                                            int64_t p1) {
  const int64_t c = g * cg;
  for (int64_t p = p0; p < p1; ++p) {
    float* __restrict d = out + p * c;
    if (g == 2) {
      const float* __restrict a = src[0] + p * ld[0];
      const float* __restrict b = src[1] + p * ld[1];
      for (int64_t k = 0; k < cg; ++k) {
        d[2 * k] = a[k];
        d[2 * k + 1] = b[k];
      }
      continue;
    }
    for (int64_t j = 0; j < g; ++j) {
      const float* __restrict s = src[j] + p * ld[j];
      for (int64_t k = 0; k < cg; ++k) d[k * g + j] = s[k];
    }
  }
}
JITCTL_ISA_CLONES(void, shuffle_rows, (const float* const* src, const int64_t* ld, float* out, int64_t g, int64_t cg, int64_t p0, int64_t p1),
                  (src, ld, out, g, cg, p0, p1))

// The shuffle of the channels of `parts` laid side by side, group j read from srcs[j] / lds[j].
Tensor shuffle_into_channels_last(const std::vector<int64_t>& sizes, const std::vector<const float*>& srcs, const std::vector<int64_t>& lds) {
  Tensor out = new_output_strided(DType::Float32, sizes, channels_last_strides(sizes));
  const int64_t c = sizes[1], pixels = sizes[0] * sizes[2] * sizes[3], g = static_cast<int64_t>(srcs.size());
  float* o = static_cast<float*>(out.mutable_data());
  parallel_for(0, pixels, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(c, 1)),
               [&](int64_t p0, int64_t p1) { shuffle_rows(srcs.data(), lds.data(), o, g, c / g, p0, p1); });
  return out;
}

}  // namespace

int64_t channel_shuffle_groups(const std::vector<int64_t>& x, const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  if (x.size() != 4 || a.size() != 5 || b.size() != 4) return 0;
  if (a[0] != x[0] || a[3] != x[2] || a[4] != x[3] || a[1] < 1 || a[2] < 1 || a[1] * a[2] != x[1]) return 0;
  if (b[0] != x[0] || (b[1] != x[1] && b[1] != -1) || b[2] != x[2] || b[3] != x[3]) return 0;
  return a[1];
}

bool channel_shuffle_channels_last_ok(const Tensor& x, int64_t groups) {
  if (x.dtype() != DType::Float32 || x.dim() != 4 || groups < 1) return false;
  const int64_t c = x.sizes()[1];
  return c > 0 && c % groups == 0 && channels_last_pixel_stride(x) > 0;
}

Tensor channel_shuffle_channels_last(const Tensor& x, int64_t groups) {
  const int64_t cg = x.sizes()[1] / groups, ld = channels_last_pixel_stride(x);
  const float* xs = static_cast<const float*>(x.data());
  std::vector<const float*> srcs;
  for (int64_t j = 0; j < groups; ++j) srcs.push_back(xs + j * cg);
  return shuffle_into_channels_last(x.sizes(), srcs, std::vector<int64_t>(static_cast<size_t>(groups), ld));
}

bool channel_shuffle_parts_channels_last_ok(const std::vector<Tensor>& parts, int64_t groups) {
  if (parts.empty() || groups < 1) return false;
  int64_t c = 0;
  for (const Tensor& t : parts) {
    if (t.dtype() != DType::Float32 || t.dim() != 4 || channels_last_pixel_stride(t) == 0) return false;
    const auto& s = t.sizes();
    const auto& r = parts[0].sizes();
    if (s[0] != r[0] || s[2] != r[2] || s[3] != r[3]) return false;
    c += s[1];
  }
  if (c == 0 || c % groups != 0) return false;
  // Each group lies within one part: every part's channels are whole groups.
  const int64_t cg = c / groups;
  return std::all_of(parts.begin(), parts.end(), [&](const Tensor& t) { return t.sizes()[1] % cg == 0; });
}

Tensor channel_shuffle_parts_channels_last(const std::vector<Tensor>& parts, int64_t groups) {
  int64_t c = 0;
  for (const Tensor& t : parts) c += t.sizes()[1];
  const int64_t cg = c / groups;
  std::vector<const float*> srcs;
  std::vector<int64_t> lds;
  for (const Tensor& t : parts) {
    const float* base = static_cast<const float*>(t.data());
    const int64_t ld = channels_last_pixel_stride(t);
    for (int64_t at = 0; at < t.sizes()[1]; at += cg) {
      srcs.push_back(base + at);
      lds.push_back(ld);
    }
  }
  const auto& r = parts[0].sizes();
  return shuffle_into_channels_last({r[0], c, r[2], r[3]}, srcs, lds);
}

}  // namespace jitctl::cpu
