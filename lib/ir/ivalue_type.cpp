#include "lib/ir/ivalue_type.h"

#include "lib/ir/type_text.h"

namespace jitctl {
namespace {

// Element types recorded as text are parsed on each use; they are short and only printing and
// constant insertion ask.
TypePtr recorded(const std::string& text) { return text.empty() ? nullptr : parse_type_text(text); }

TypePtr inferred(const std::vector<IValue>& items) {
  if (items.empty()) return nullptr;
  std::vector<TypePtr> types;
  types.reserve(items.size());
  for (const auto& item : items) {
    TypePtr t = ivalue_type(item);
    if (!t) return nullptr;
    types.push_back(unshaped_type(t));
  }
  auto unified = unify_type_list(types);
  return unified ? *unified : nullptr;
}

}  // namespace

TypePtr list_element_type(const ListData& list) {
  if (TypePtr t = recorded(list.elem_type)) return t;
  return inferred(list.items);
}

std::pair<TypePtr, TypePtr> dict_types(const DictData& dict) {
  TypePtr k = recorded(dict.key_type);
  TypePtr v = recorded(dict.value_type);
  if (!k || !v) {
    std::vector<IValue> keys, values;
    for (const auto& [key, value] : dict.items) {
      keys.push_back(key);
      values.push_back(value);
    }
    if (!k) k = inferred(keys);
    if (!v) v = inferred(values);
  }
  return {k, v};
}

TypePtr ivalue_type(const IValue& v) {
  const ValueDepthGuard level("typing");
  using K = IValue::Kind;
  switch (v.kind()) {
    case K::None: return NoneType::get();
    case K::Bool: return BoolType::get();
    case K::Int: return IntType::get();
    case K::Double: return FloatType::get();
    case K::Complex: return ComplexType::get();
    case K::String: return StringType::get();
    case K::Device: return DeviceObjType::get();
    case K::Tensor: return TensorType::from_tensor(v.to_tensor());
    case K::Tuple: {
      std::vector<TypePtr> types;
      for (const auto& item : v.to_tuple()->items) {
        TypePtr t = ivalue_type(item);
        if (!t) return nullptr;
        types.push_back(std::move(t));
      }
      return TupleType::create(std::move(types));
    }
    case K::List: {
      TypePtr elem = list_element_type(*v.to_list());
      return elem ? ListType::create(std::move(elem)) : nullptr;
    }
    case K::Dict: {
      auto [k, val] = dict_types(*v.to_dict());
      return k && val ? DictType::create(std::move(k), std::move(val)) : nullptr;
    }
    default: return nullptr;
  }
}

}  // namespace jitctl
