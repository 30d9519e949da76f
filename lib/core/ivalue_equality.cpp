#include "lib/core/ivalue_equality.h"

#include <cstring>
#include <vector>

#include "lib/core/enum_value.h"
#include "lib/core/half.h"

namespace jitctl {
namespace {

using K = IValue::Kind;

template <class Equal>
bool items_equal(const std::vector<IValue>& a, const std::vector<IValue>& b, Equal equal) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!equal(a[i], b[i])) return false;
  return true;
}

bool elements_equal(DType dt, const char* a, const char* b) {
  auto as = [](const char* p, auto zero) {
    decltype(zero) v;
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  switch (dt) {
    case DType::Float32: return as(a, 0.0f) == as(b, 0.0f);
    case DType::Float64: return as(a, 0.0) == as(b, 0.0);
    case DType::Complex64: return as(a, 0.0f) == as(b, 0.0f) && as(a + 4, 0.0f) == as(b + 4, 0.0f);
    case DType::Complex128: return as(a, 0.0) == as(b, 0.0) && as(a + 8, 0.0) == as(b + 8, 0.0);
    case DType::Float16: return half_to_float(as(a, uint16_t{})) == half_to_float(as(b, uint16_t{}));
    case DType::BFloat16: return bfloat16_to_float(as(a, uint16_t{})) == bfloat16_to_float(as(b, uint16_t{}));
    default: return std::memcmp(a, b, element_size(dt)) == 0;
  }
}

}  // namespace

bool ivalues_equal(const IValue& a, const IValue& b) {
  const ValueDepthGuard level("comparing");
  auto numeric = [](K k) { return k == K::Int || k == K::Double || k == K::Bool; };
  if (numeric(a.kind()) && numeric(b.kind())) {
    auto val = [](const IValue& v) { return v.is(K::Bool) ? (v.to_bool() ? 1.0 : 0.0) : v.to_double(); };
    if (a.is(K::Int) && b.is(K::Int)) return a.to_int() == b.to_int();
    return val(a) == val(b);
  }
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case K::None: return true;
    case K::String: return a.to_string() == b.to_string();
    case K::Complex: return a.to_complex() == b.to_complex();
    case K::Tensor: return a.to_tensor().same(b.to_tensor());
    case K::Device: return a.to_device() == b.to_device();
    case K::List: return items_equal(a.to_list()->items, b.to_list()->items, ivalues_equal);
    case K::Tuple: return items_equal(a.to_tuple()->items, b.to_tuple()->items, ivalues_equal);
    case K::Storage: return a.to_storage() == b.to_storage();
    case K::Dict: return a.to_dict() == b.to_dict();
    case K::Object:
      if (is_enum_value(a) && is_enum_value(b)) return enum_values_equal(a, b);
      return a.to_object() == b.to_object();
    case K::Global: return a.to_global().qualified_name == b.to_global().qualified_name;
    default: return false;
  }
}

bool ivalues_equal_strict(const IValue& a, const IValue& b) {
  const ValueDepthGuard level("comparing");
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case K::Int: return a.to_int() == b.to_int();
    case K::Bool: return a.to_bool() == b.to_bool();
    case K::Double: return a.to_double() == b.to_double();
    case K::Tensor: return tensors_equal(a.to_tensor(), b.to_tensor());
    case K::None: return true;
    case K::String: return a.to_string() == b.to_string();
    case K::List: return items_equal(a.to_list()->items, b.to_list()->items, ivalues_equal_strict);
    case K::Tuple: return items_equal(a.to_tuple()->items, b.to_tuple()->items, ivalues_equal_strict);
    case K::Dict: {
      const auto& da = a.to_dict()->items;
      const auto& db = b.to_dict()->items;
      if (da.size() != db.size()) return false;
      for (size_t i = 0; i < da.size(); ++i)
        if (!ivalues_equal_strict(da[i].first, db[i].first) && !ivalues_equal_strict(da[i].second, db[i].second))
          return false;
      return true;
    }
    default: return false;
  }
}

bool tensors_equal(const Tensor& a, const Tensor& b) {
  if (!a.defined() || !b.defined() || !a.storage() || !b.storage()) return false;
  if (a.dtype() != b.dtype() || !(a.device() == b.device()) || a.sizes() != b.sizes()) return false;
  const int64_t n = a.numel();
  if (n == 0) return true;
  const size_t es = element_size(a.dtype());
  const auto* pa = static_cast<const char*>(a.data());
  const auto* pb = static_cast<const char*>(b.data());
  std::vector<int64_t> index(a.sizes().size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t oa = 0, ob = 0;
    for (size_t d = 0; d < index.size(); ++d) {
      oa += index[d] * a.strides()[d];
      ob += index[d] * b.strides()[d];
    }
    if (!elements_equal(a.dtype(), pa + oa * static_cast<int64_t>(es), pb + ob * static_cast<int64_t>(es)))
      return false;
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < a.sizes()[d]) break;
      index[d] = 0;
    }
  }
  return true;
}

}  // namespace jitctl
