#pragma once
// Outputs of jitctl against PyTorch's (tests that run models): the same structure, and tensors of
// the same dtype and shape with values close as torch.allclose(rtol=1e-4, atol=1e-5) says.
#include <cmath>
#include <cstring>
#include <string>

#include "lib/core/ivalue.h"
#include "lib/core/ivalue_equality.h"
#include "lib/core/tensor.h"

namespace jitctl::test {

namespace output_compare_detail {

inline float half_to_float(uint16_t h) {
  const uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  float v;
  if (exp == 0)
    v = std::ldexp(static_cast<float>(man), -24);
  else if (exp == 31)
    v = man ? NAN : INFINITY;
  else
    v = std::ldexp(static_cast<float>(man | 0x400), static_cast<int>(exp) - 25);
  return sign ? -v : v;
}

inline float bfloat16_to_float(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// Element i (in logical row-major order) of a tensor of any layout, as a double.
inline double element(const Tensor& t, int64_t i) {
  int64_t offset = 0;  // from the first element
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    const int64_t size = t.sizes()[static_cast<size_t>(d)];
    offset += (i % size) * t.strides()[static_cast<size_t>(d)];
    i /= size;
  }
  const char* base = static_cast<const char*>(t.data());
  const char* p = base + offset * static_cast<int64_t>(element_size(t.dtype()));
  auto read = [p](auto v) {
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  switch (t.dtype()) {
    case DType::Float32: return read(float{});
    case DType::Float64: return read(double{});
    case DType::Float16: return half_to_float(read(uint16_t{}));
    case DType::BFloat16: return bfloat16_to_float(read(uint16_t{}));
    case DType::Int64: return static_cast<double>(read(int64_t{}));
    case DType::Int32: return read(int32_t{});
    case DType::Int16: return read(int16_t{});
    case DType::Int8: return read(int8_t{});
    case DType::UInt8: return read(uint8_t{});
    case DType::Bool: return read(uint8_t{}) ? 1.0 : 0.0;
    default: return NAN;
  }
}

inline bool close(double got, double want, double rtol = 1e-4, double atol = 1e-5) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= atol + rtol * std::fabs(want);
}

// "" when `got` matches `want`, else the first difference. The GPU tests compare with PyTorch's
// CPU outputs at rtol 1e-3, atol 1e-4 (cuDNN and cuBLAS sum in other orders).
inline std::string differs(const IValue& got, const IValue& want, const std::string& path, double rtol = 1e-4, double atol = 1e-5) {
  using K = IValue::Kind;
  if (got.kind() != want.kind())
    return path + ": got a " + kind_name(got.kind()) + ", PyTorch a " + kind_name(want.kind());
  switch (want.kind()) {
    case K::Tensor: {
      const Tensor &g = got.to_tensor(), &w = want.to_tensor();
      if (g.dtype() != w.dtype())
        return path + ": dtype " + std::string(dtype_name(g.dtype())) + ", PyTorch " + std::string(dtype_name(w.dtype()));
      if (g.sizes() != w.sizes()) return path + ": shape " + shape_string(g.sizes()) + ", PyTorch " + shape_string(w.sizes());
      for (int64_t i = 0; i < w.numel(); ++i)
        if (!close(element(g, i), element(w, i), rtol, atol))
          return path + ": element " + std::to_string(i) + " is " + std::to_string(element(g, i)) + ", PyTorch " +
                 std::to_string(element(w, i));
      return "";
    }
    case K::Double: return close(got.to_double(), want.to_double(), rtol, atol) ? "" : path + ": float differs";
    case K::Tuple:
    case K::List: {
      const auto& g = got.is(K::Tuple) ? got.to_tuple()->items : got.to_list()->items;
      const auto& w = want.is(K::Tuple) ? want.to_tuple()->items : want.to_list()->items;
      if (g.size() != w.size()) return path + ": " + std::to_string(g.size()) + " items, PyTorch " + std::to_string(w.size());
      for (size_t i = 0; i < g.size(); ++i)
        if (auto d = differs(g[i], w[i], path + "[" + std::to_string(i) + "]", rtol, atol); !d.empty()) return d;
      return "";
    }
    case K::Dict: {
      const auto& g = got.to_dict()->items;
      const auto& w = want.to_dict()->items;
      if (g.size() != w.size()) return path + ": " + std::to_string(g.size()) + " keys, PyTorch " + std::to_string(w.size());
      for (size_t i = 0; i < g.size(); ++i) {
        if (!ivalues_equal(g[i].first, w[i].first)) return path + ": keys differ (or are in another order)";
        if (auto d = differs(g[i].second, w[i].second, path + "[key " + std::to_string(i) + "]", rtol, atol); !d.empty()) return d;
      }
      return "";
    }
    default: return ivalues_equal(got, want) ? "" : path + ": " + kind_name(want.kind()) + " value differs";
  }
}

}  // namespace output_compare_detail

using output_compare_detail::differs;

}  // namespace jitctl::test
