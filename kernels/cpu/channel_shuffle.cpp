#include "kernels/cpu/channel_shuffle.h"

#include <algorithm>

#include "kernels/cpu/dnnl_util.h"
#include "kernels/cpu/isa_dispatch.h"
#include "kernels/cpu/output.h"
#include "kernels/parallel.h"

namespace jitctl::cpu {
namespace {

// Pixels [p0, p1): out[p][k * g + j] = x[p * ld + j * cg + k]. Two groups (ShuffleNet's) are an
// interleave of two runs, which the compiler turns into vector permutes.
JITCTL_ALWAYS_INLINE void shuffle_rows_body(const float* __restrict x, int64_t ld, float* __restrict out, int64_t g, int64_t cg, int64_t p0,
                                            int64_t p1) {
  const int64_t c = g * cg;
  for (int64_t p = p0; p < p1; ++p) {
    const float* s = x + p * ld;
    float* d = out + p * c;
    if (g == 2) {
      const float* a = s;
      const float* b = s + cg;
      for (int64_t k = 0; k < cg; ++k) {
        d[2 * k] = a[k];
        d[2 * k + 1] = b[k];
      }
      continue;
    }
    for (int64_t j = 0; j < g; ++j)
      for (int64_t k = 0; k < cg; ++k) d[k * g + j] = s[j * cg + k];
  }
}
JITCTL_ISA_CLONES(void, shuffle_rows, (const float* x, int64_t ld, float* out, int64_t g, int64_t cg, int64_t p0, int64_t p1),
                  (x, ld, out, g, cg, p0, p1))

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
  const auto& s = x.sizes();
  Tensor out = new_output_strided(DType::Float32, s, channels_last_strides(s));
  const int64_t c = s[1], pixels = s[0] * s[2] * s[3], ld = channels_last_pixel_stride(x);
  const float* xs = static_cast<const float*>(x.data());
  float* o = static_cast<float*>(out.mutable_data());
  parallel_for(0, pixels, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(c, 1)),
               [&](int64_t p0, int64_t p1) { shuffle_rows(xs, ld, o, groups, c / groups, p0, p1); });
  return out;
}

}  // namespace jitctl::cpu
