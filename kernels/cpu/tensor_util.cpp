#include "kernels/cpu/tensor_util.h"

#include <cstring>

#include <fmt/format.h>

namespace jitctl::cpu {

Tensor empty_like(const Tensor& t) { return Tensor::empty(t.dtype(), t.sizes()); }

void copy_strided(const Tensor& src, Tensor& dst) {
  const size_t es = element_size(src.dtype());
  const int64_t n = src.numel();
  if (n == 0) return;
  const auto* s = static_cast<const uint8_t*>(src.data());
  auto* d = static_cast<uint8_t*>(dst.mutable_data());
  if (src.is_contiguous() && dst.is_contiguous()) {
    std::memcpy(d, s, static_cast<size_t>(n) * es);
    return;
  }
  const int64_t nd = src.dim();
  std::vector<int64_t> idx(static_cast<size_t>(nd), 0);
  const auto& sz = src.sizes();
  const auto& ss = src.strides();
  const auto& ds = dst.strides();
  for (int64_t i = 0; i < n; ++i) {
    int64_t so = 0, doff = 0;
    for (int64_t k = 0; k < nd; ++k) {
      so += idx[k] * ss[k];
      doff += idx[k] * ds[k];
    }
    std::memcpy(d + doff * es, s + so * es, es);
    for (int64_t k = nd - 1; k >= 0; --k) {
      if (++idx[k] < sz[k]) break;
      idx[k] = 0;
    }
  }
}

Tensor contiguous(const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor out = empty_like(t);
  copy_strided(t, out);
  return out;
}

std::vector<int64_t> int_list(const IValue& v) {
  if (v.is(IValue::Kind::Int)) return {v.to_int()};
  std::vector<int64_t> out;
  for (auto& x : v.to_list()->items) out.push_back(x.to_int());
  return out;
}

DType scalar_type_arg(const IValue& v) {
  const int64_t code = v.to_int();
  if (code < 0 || code > static_cast<int64_t>(DType::QUInt2x4)) throw InvalidInput(fmt::format("unknown ScalarType {}", code));
  return static_cast<DType>(code);
}

double scalar_double(const IValue& v) {
  if (v.is(IValue::Kind::Bool)) return v.to_bool() ? 1.0 : 0.0;
  return v.to_double();
}

int64_t wrap_dim(int64_t dim, int64_t ndim) {
  const int64_t n = ndim <= 0 ? 1 : ndim;
  if (dim < -n || dim >= n)
    throw InvalidInput(fmt::format("Dimension out of range (expected to be in range of [{}, {}], but got {})", -n, n - 1, dim));
  return dim < 0 ? dim + n : dim;
}

}  // namespace jitctl::cpu
