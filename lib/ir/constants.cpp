#include "lib/ir/constants.h"

#include <fmt/format.h>

#include "lib/core/enum_value.h"
#include "lib/ir/ivalue_type.h"

namespace jitctl {

bool insertable_ivalue(const IValue& v) {
  const ValueDepthGuard level("inserting as a constant");
  using K = IValue::Kind;
  switch (v.kind()) {
    case K::Int:
    case K::None:
    case K::Bool:
    case K::Double:
    case K::Complex:
    case K::String:
    case K::Device: return true;
    case K::Tensor: return v.to_tensor().defined() && !v.to_tensor().requires_grad();
    case K::Tuple:
      for (const auto& item : v.to_tuple()->items)
        if (!insertable_ivalue(item)) return false;
      return true;
    case K::List:
      for (const auto& item : v.to_list()->items)
        if (!insertable_ivalue(item)) return false;
      return true;
    case K::Dict:
      for (const auto& [key, value] : v.to_dict()->items)
        if (!insertable_ivalue(key) || !insertable_ivalue(value)) return false;
      return true;
    default: return false;
  }
}

Value* Graph::try_insert_constant(const IValue& val, std::optional<SourceLocation> loc) {
  using K = IValue::Kind;
  // Created first, as PyTorch does: a refused value has consumed an id all the same.
  Node* n = create(prim::Constant);
  auto refuse = [&]() -> Value* {
    n->destroy();
    return nullptr;
  };
  switch (val.kind()) {
    case K::Tensor: {
      const Tensor& t = val.to_tensor();
      if (!t.defined() || !t.storage()) return refuse();
      if (t.requires_grad()) {
        n->destroy();
        throw InvalidInput("a constant tensor cannot require grad");
      }
      n->output()->infer_type_from(t);
      n->t_(attr::value, t);
      break;
    }
    case K::Int:
      n->i_(attr::value, val.to_int());
      n->output()->set_type(IntType::get());
      break;
    case K::Double:
      n->f_(attr::value, val.to_double());
      n->output()->set_type(FloatType::get());
      break;
    case K::Complex:
      n->c_(attr::value, val.to_complex());
      n->output()->set_type(ComplexType::get());
      break;
    case K::Bool:
      n->i_(attr::value, val.to_bool() ? 1 : 0);
      n->output()->set_type(BoolType::get());
      break;
    case K::String:
      n->s_(attr::value, val.to_string());
      n->output()->set_type(StringType::get());
      break;
    case K::Device:
      n->s_(attr::value, val.to_device().str());
      n->output()->set_type(DeviceObjType::get());
      break;
    case K::None: n->output()->set_type(NoneType::get()); break;
    case K::List:
    case K::Tuple:
    case K::Dict: {
      if (!insertable_ivalue(val)) return refuse();
      TypePtr type = ivalue_type(val);
      if (!type) return refuse();
      n->ival_(attr::value, val);
      n->output()->set_type(std::move(type));
      break;
    }
    case K::Object:
      // Of the objects only Enum members are constants; their class's type is the caller's to set.
      if (!is_enum_value(val)) return refuse();
      n->ival_(attr::value, val);
      n->output()->set_type(AnyEnumType::get());
      break;
    default: return refuse();
  }
  if (loc) n->set_source_location(std::move(loc));
  return insert_node(n)->output();
}

Value* Graph::insert_constant(const IValue& val, std::optional<SourceLocation> loc) {
  if (Value* v = try_insert_constant(val, std::move(loc))) return v;
  throw Unsupported(fmt::format("Unsupported value kind: {}", kind_name(val.kind())));
}

std::optional<IValue> to_ivalue(const Value* v) {
  const Node* n = v->node();
  const TypePtr& type = v->type();
  if (n->kind() != prim::Constant || type->kind() == TypeKind::Function) return std::nullopt;
  switch (type->kind()) {
    case TypeKind::Tensor: return IValue(n->t(attr::value));
    case TypeKind::Bool: return IValue(n->i(attr::value) != 0);
    case TypeKind::Int:
    case TypeKind::Float:
    case TypeKind::Complex:
    case TypeKind::Number:
      switch (n->kind_of(attr::value)) {
        case AttributeKind::i: return IValue(n->i(attr::value));
        case AttributeKind::f: return IValue(n->f(attr::value));
        case AttributeKind::c: return IValue(n->c(attr::value));
        default: break;
      }
      break;
    case TypeKind::List:
    case TypeKind::Tuple:
    case TypeKind::Dict:
      if (n->kind_of(attr::value) == AttributeKind::ival) return n->ival(attr::value);
      break;
    case TypeKind::Enum:
    case TypeKind::AnyEnum:
      if (n->kind_of(attr::value) == AttributeKind::ival) return n->ival(attr::value);
      break;
    case TypeKind::String: return IValue(n->s(attr::value));
    case TypeKind::Device:
      if (auto d = Device::parse(n->s(attr::value))) return IValue(*d);
      throw InvalidInput(fmt::format("bad device constant '{}'", n->s(attr::value)));
    default: break;
  }
  if (n->must_be_none()) return IValue();
  throw Unsupported(fmt::format("constant literal not supported for: {}", type->str()));
}

}  // namespace jitctl
