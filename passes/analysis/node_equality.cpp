#include "passes/analysis/node_equality.h"

#include <algorithm>
#include <cstring>
#include <functional>

#include "lib/core/half.h"

namespace jitctl {
namespace {

// Floating elements compare as numbers (at::equal), everything else bit for bit.
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

// at::Tensor::equal after a dtype and device check. Placeholder tensors (a graph read from text
// that printed `<Tensor>`) have no values and equal nothing.
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

bool ivalues_equal(const IValue& a, const IValue& b);

bool ivalue_lists_equal(const std::vector<IValue>& a, const std::vector<IValue>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!ivalues_equal(a[i], b[i])) return false;
  return true;
}

// PyTorch's ivaluesEqual for constant attributes. Its dict comparison only fails on an entry
// whose key and value both differ; that is what it does, so that is what this does.
bool ivalues_equal(const IValue& a, const IValue& b) {
  using K = IValue::Kind;
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case K::Int: return a.to_int() == b.to_int();
    case K::Bool: return a.to_bool() == b.to_bool();
    case K::Double: return a.to_double() == b.to_double();
    case K::Tensor: return tensors_equal(a.to_tensor(), b.to_tensor());
    case K::None: return true;
    case K::String: return a.to_string() == b.to_string();
    case K::List: return ivalue_lists_equal(a.to_list()->items, b.to_list()->items);
    case K::Tuple: return ivalue_lists_equal(a.to_tuple()->items, b.to_tuple()->items);
    case K::Dict: {
      const auto& da = a.to_dict()->items;
      const auto& db = b.to_dict()->items;
      if (da.size() != db.size()) return false;
      for (size_t i = 0; i < da.size(); ++i)
        if (!ivalues_equal(da[i].first, db[i].first) && !ivalues_equal(da[i].second, db[i].second)) return false;
      return true;
    }
    default: return false;
  }
}

bool types_equal(const std::vector<TypePtr>& a, const std::vector<TypePtr>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](const TypePtr& x, const TypePtr& y) {
           return *x == *y;
         });
}

bool attribute_values_equal(const AttributeValue& a, const AttributeValue& b) {
  if (a.index() != b.index()) return false;
  switch (kind_of(a)) {
    case AttributeKind::f: return std::get<double>(a) == std::get<double>(b);
    case AttributeKind::fs: return std::get<std::vector<double>>(a) == std::get<std::vector<double>>(b);
    case AttributeKind::c: return std::get<std::complex<double>>(a) == std::get<std::complex<double>>(b);
    case AttributeKind::cs:
      return std::get<std::vector<std::complex<double>>>(a) == std::get<std::vector<std::complex<double>>>(b);
    case AttributeKind::i: return std::get<int64_t>(a) == std::get<int64_t>(b);
    case AttributeKind::is: return std::get<std::vector<int64_t>>(a) == std::get<std::vector<int64_t>>(b);
    case AttributeKind::s: return std::get<std::string>(a) == std::get<std::string>(b);
    case AttributeKind::ss: return std::get<std::vector<std::string>>(a) == std::get<std::vector<std::string>>(b);
    case AttributeKind::t: return tensors_equal(std::get<Tensor>(a), std::get<Tensor>(b));
    case AttributeKind::ts: {
      const auto& ta = std::get<std::vector<Tensor>>(a);
      const auto& tb = std::get<std::vector<Tensor>>(b);
      return ta.size() == tb.size() && std::equal(ta.begin(), ta.end(), tb.begin(), tensors_equal);
    }
    case AttributeKind::ival: return ivalues_equal(std::get<IValue>(a), std::get<IValue>(b));
    case AttributeKind::ty: return *std::get<TypePtr>(a) == *std::get<TypePtr>(b);
    case AttributeKind::tys: return types_equal(std::get<std::vector<TypePtr>>(a), std::get<std::vector<TypePtr>>(b));
    case AttributeKind::g:
    case AttributeKind::gs: return false;
  }
  return false;
}

bool attributes_equal(const Node* a, const Node* b) {
  if (a->num_attributes() != b->num_attributes()) return false;
  for (const Attribute& attr : a->attributes()) {
    if (!b->has_attribute(attr.name)) return false;
    if (!attribute_values_equal(attr.value, b->attr(attr.name))) return false;
  }
  return true;
}

}  // namespace

bool nodes_equal(const Node* a, const Node* b) {
  if (a->kind() != b->kind()) return false;
  if (a->outputs().size() != b->outputs().size()) return false;
  for (size_t i = 0; i < a->outputs().size(); ++i)
    if (!(*a->output(i)->type() == *b->output(i)->type())) return false;
  if (a->inputs() != b->inputs()) return false;
  return attributes_equal(a, b);
}

size_t constant_hash(const Node* n) {
  size_t h = std::hash<uint32_t>()(n->kind().id());
  for (const Value* v : n->outputs()) h = h * 31 + static_cast<size_t>(v->type()->kind());
  for (const Value* v : n->inputs()) h = h * 31 + v->unique();
  if (n->kind() == prim::Constant && n->has_attribute(attr::value)) {
    const AttributeValue& value = n->attr(attr::value);
    if (const auto* i = std::get_if<int64_t>(&value)) h = h * 31 + std::hash<int64_t>()(*i);
    // 0.0 and -0.0 are equal, so they must hash alike; NaN equals nothing, any hash will do.
    if (const auto* f = std::get_if<double>(&value)) h = h * 31 + (*f == 0.0 ? 0 : std::hash<double>()(*f));
    if (const auto* s = std::get_if<std::string>(&value)) h = h * 31 + std::hash<std::string>()(*s);
  }
  return h;
}

}  // namespace jitctl
