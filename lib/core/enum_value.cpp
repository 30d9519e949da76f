#include "lib/core/enum_value.h"

#include "lib/core/ivalue_equality.h"

namespace jitctl {

IValue make_enum_value(std::string qualified_class, std::string name, IValue value) {
  auto o = std::make_shared<ObjectData>();
  o->type_name = std::move(qualified_class);
  o->is_enum = true;
  o->attrs.emplace_back("name", name.empty() ? IValue() : IValue(std::move(name)));
  o->attrs.emplace_back("value", std::move(value));
  return IValue(std::move(o));
}

bool is_enum_value(const IValue& v) { return v.is_object() && v.to_object()->is_enum; }

const std::string& enum_class_name(const IValue& v) { return v.to_object()->type_name; }

const IValue& enum_member_value(const IValue& v) { return v.to_object()->attrs.at(1).second; }

std::string enum_member_name(const IValue& v) {
  const IValue& n = v.to_object()->attrs.at(0).second;
  return n.is(IValue::Kind::String) ? n.to_string() : std::string();
}

bool resolve_enum_name(const IValue& v, const EnumType& type) {
  auto& name = v.to_object()->attrs.at(0).second;
  for (const auto& [member, value] : type.names_values()) {
    if (ivalues_equal(value, enum_member_value(v))) {
      name = IValue(member);
      return true;
    }
  }
  return false;
}

bool enum_values_equal(const IValue& a, const IValue& b) {
  return enum_class_name(a) == enum_class_name(b) && ivalues_equal(enum_member_value(a), enum_member_value(b));
}

}  // namespace jitctl
