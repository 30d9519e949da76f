#include "kernels/cpu/concat_nhwc.h"

#include "kernels/cpu/dnnl_util.h"
#include "kernels/cpu/isa_dispatch.h"
#include "kernels/cpu/output.h"
#include "kernels/parallel.h"

namespace jitctl::cpu {
namespace {

// Pixels [p0, p1) of one part (ct channels) into its channels of the output (c per pixel): a
// vector loop per pixel, as a memcpy call per pixel costs more than the copy for small ct.
// A part of CT channels (a compile-time count: a few fixed-size moves a pixel, where the loop of
// run-time length costs its setup for every pixel of a small part).
template <int64_t CT>
JITCTL_ALWAYS_INLINE void copy_fixed(const float* __restrict src, int64_t ld, float* __restrict o, int64_t c, int64_t p0, int64_t p1) {
  for (int64_t p = p0; p < p1; ++p) {
    const float* s = src + p * ld;
    float* d = o + p * c;
    for (int64_t j = 0; j < CT; ++j) d[j] = s[j];
  }
}

// `ld`: the part's own pixel stride (ct when dense, more for a channel slice of a wider tensor).
JITCTL_ALWAYS_INLINE void copy_part_body(const float* __restrict src, int64_t ld, float* __restrict o, int64_t ct, int64_t c, int64_t p0,
                                         int64_t p1) {
  switch (ct) {
    case 1: return copy_fixed<1>(src, ld, o, c, p0, p1);
    case 2: return copy_fixed<2>(src, ld, o, c, p0, p1);
    case 4: return copy_fixed<4>(src, ld, o, c, p0, p1);
    case 8: return copy_fixed<8>(src, ld, o, c, p0, p1);
    case 16: return copy_fixed<16>(src, ld, o, c, p0, p1);
    default: break;
  }
  for (int64_t p = p0; p < p1; ++p) {
    const float* s = src + p * ld;
    float* d = o + p * c;
    for (int64_t j = 0; j < ct; ++j) d[j] = s[j];
  }
}
JITCTL_ISA_CLONES(void, copy_part, (const float* src, int64_t ld, float* o, int64_t ct, int64_t c, int64_t p0, int64_t p1),
                  (src, ld, o, ct, c, p0, p1))

}  // namespace

bool concat_channels_last_ok(const std::vector<Tensor>& parts) {
  if (parts.empty()) return false;
  for (const Tensor& t : parts) {
    if (t.dtype() != DType::Float32 || t.dim() != 4 || channels_last_pixel_stride(t) == 0) return false;
    const auto& s = t.sizes();
    const auto& r = parts[0].sizes();
    if (s[0] != r[0] || s[2] != r[2] || s[3] != r[3] || s[1] == 0) return false;
  }
  return true;
}

Tensor concat_channels_last(const std::vector<Tensor>& parts) {
  const auto& r = parts[0].sizes();
  int64_t c = 0;
  std::vector<int64_t> lds;  // each part's pixel stride, found once rather than per thread
  for (const Tensor& t : parts) {
    c += t.sizes()[1];
    lds.push_back(channels_last_pixel_stride(t));
  }
  const std::vector<int64_t> sizes{r[0], c, r[2], r[3]};
  Tensor out = new_output_strided(DType::Float32, sizes, channels_last_strides(sizes));
  float* o = static_cast<float*>(out.mutable_data());
  const int64_t pixels = r[0] * r[2] * r[3];
  parallel_for(0, pixels, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(c, 1)), [&](int64_t p0, int64_t p1) {
    int64_t at = 0;
    for (size_t i = 0; i < parts.size(); ++i) {
      const int64_t ct = parts[i].sizes()[1];
      copy_part(static_cast<const float*>(parts[i].data()), lds[i], o + at, ct, c, p0, p1);
      at += ct;
    }
  });
  return out;
}

void copy_channel_rows(const float* src, int64_t ld_src, float* dst, int64_t ld_dst, int64_t channels, int64_t pixels) {
  parallel_for(0, pixels, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(channels, 1)),
               [&](int64_t p0, int64_t p1) { copy_part(src, ld_src, dst, channels, ld_dst, p0, p1); });
}

}  // namespace jitctl::cpu
