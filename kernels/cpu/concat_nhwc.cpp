#include "kernels/cpu/concat_nhwc.h"

#include <cstring>

#include "kernels/cpu/dnnl_util.h"
#include "kernels/cpu/output.h"
#include "kernels/parallel.h"

namespace jitctl::cpu {

bool concat_channels_last_ok(const std::vector<Tensor>& parts) {
  if (parts.empty()) return false;
  for (const Tensor& t : parts) {
    if (t.dtype() != DType::Float32 || t.dim() != 4 || !is_channels_last(t)) return false;
    const auto& s = t.sizes();
    const auto& r = parts[0].sizes();
    if (s[0] != r[0] || s[2] != r[2] || s[3] != r[3] || s[1] == 0) return false;
  }
  return true;
}

Tensor concat_channels_last(const std::vector<Tensor>& parts) {
  const auto& r = parts[0].sizes();
  int64_t c = 0;
  for (const Tensor& t : parts) c += t.sizes()[1];
  const std::vector<int64_t> sizes{r[0], c, r[2], r[3]};
  Tensor out = new_output_strided(DType::Float32, sizes, channels_last_strides(sizes));
  float* o = static_cast<float*>(out.mutable_data());
  const int64_t pixels = r[0] * r[2] * r[3];
  parallel_for(0, pixels, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(c, 1)), [&](int64_t p0, int64_t p1) {
    int64_t at = 0;
    for (const Tensor& t : parts) {
      const int64_t ct = t.sizes()[1];
      const float* src = static_cast<const float*>(t.data());
      for (int64_t p = p0; p < p1; ++p) std::memcpy(o + p * c + at, src + p * ct, static_cast<size_t>(ct) * sizeof(float));
      at += ct;
    }
  });
  return out;
}

}  // namespace jitctl::cpu
