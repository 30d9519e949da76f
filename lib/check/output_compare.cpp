#include "lib/check/output_compare.h"

#include <fmt/format.h>

#include <cmath>

#include "kernels/cpu/tensor_util.h"

namespace jitctl {
namespace {

double atol_of(DType t) {
  switch (t) {
    case DType::Float16:
    case DType::BFloat16:
    case DType::Float32:
    case DType::Complex32:
    case DType::Complex64: return 1e-5;
    case DType::Float64:
    case DType::Complex128: return 1e-7;
    default: return 0;
  }
}

double rtol_of(DType t) {
  switch (t) {
    case DType::Float16:
    case DType::Complex32: return 1e-3;
    case DType::BFloat16: return 1.6e-2;
    case DType::Float32:
    case DType::Complex64: return 1.3e-6;
    case DType::Float64:
    case DType::Complex128: return 1e-7;
    default: return 0;
  }
}

std::string index_text(int64_t flat, const std::vector<int64_t>& sizes) {
  if (sizes.empty()) return "()";
  std::vector<int64_t> idx(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    idx[d] = sizes[d] ? flat % sizes[d] : 0;
    flat = sizes[d] ? flat / sizes[d] : 0;
  }
  std::string out = "(";
  for (size_t d = 0; d < idx.size(); ++d) out += fmt::format("{}{}", d ? ", " : "", idx[d]);
  return out + (idx.size() == 1 ? ",)" : ")");
}

}  // namespace

double default_atol(DType a, DType b) { return std::max(atol_of(a), atol_of(b)); }
double default_rtol(DType a, DType b) { return std::max(rtol_of(a), rtol_of(b)); }

std::vector<Tensor> compared_tensors(const IValue& result) {
  std::vector<Tensor> out;
  if (result.is(IValue::Kind::Tuple)) {
    for (const auto& x : result.to_tuple()->items)
      if (x.is_tensor()) out.push_back(x.to_tensor());
  } else if (result.is_tensor()) {
    out.push_back(result.to_tensor());
  }
  return out;
}

std::optional<std::string> tensors_mismatch(const Tensor& actual, const Tensor& expected, double rtol, double atol) {
  if (!actual.defined() || !expected.defined()) {
    if (actual.defined() == expected.defined()) return std::nullopt;
    return std::string("one of the tensors is undefined");
  }
  if (actual.sizes() != expected.sizes())
    return fmt::format("the shapes differ: {} and {}", shape_string(actual.sizes()), shape_string(expected.sizes()));
  const int64_t n = actual.numel();
  int64_t bad = 0, abs_at = 0, rel_at = 0;
  double max_abs = 0, max_rel = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double a = cpu::element_as_double(actual, i), e = cpu::element_as_double(expected, i);
    if (std::isnan(a) && std::isnan(e)) continue;
    const double diff = std::fabs(a - e);
    const bool close = (a == e) || diff <= atol + rtol * std::fabs(e);
    if (close) continue;
    ++bad;
    const double rel = e == 0 ? INFINITY : diff / std::fabs(e);
    if (!(diff <= max_abs) || bad == 1) max_abs = diff, abs_at = i;
    if (!(rel <= max_rel) || bad == 1) max_rel = rel, rel_at = i;
  }
  if (bad == 0) return std::nullopt;
  return fmt::format(
      "tensors are not close: {} of {} elements differ ({:.1f}%); greatest absolute difference {:.6g} at index {} "
      "(up to {:g} allowed), greatest relative difference {:.6g} at index {} (up to {:g} allowed)",
      bad, n, 100.0 * static_cast<double>(bad) / static_cast<double>(n), max_abs, index_text(abs_at, actual.sizes()),
      atol, max_rel, index_text(rel_at, actual.sizes()), rtol);
}

}  // namespace jitctl
