#include "passes/analysis/node_equality.h"

#include <algorithm>
#include <functional>

#include "lib/core/ivalue_equality.h"

namespace jitctl {
namespace {

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
    case AttributeKind::ival: return ivalues_equal_strict(std::get<IValue>(a), std::get<IValue>(b));
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
