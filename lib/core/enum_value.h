#pragma once
// Members of TorchScript Enum classes as values. An archive pickles one as its class and its
// value only (GLOBAL <class>, <value>, REDUCE); the member's name is known once the class's code
// is read, so it may be filled in later (resolve_enum_name).
#include <string>

#include "lib/core/ivalue.h"
#include "lib/core/types.h"

namespace jitctl {

// `name` empty: not known yet.
IValue make_enum_value(std::string qualified_class, std::string name, IValue value);
bool is_enum_value(const IValue& v);
const std::string& enum_class_name(const IValue& v);
const IValue& enum_member_value(const IValue& v);
// The member's name; empty while unknown.
std::string enum_member_name(const IValue& v);
// Fills in the name from the class's members (matched by value). False when no member has it.
bool resolve_enum_name(const IValue& v, const EnumType& type);
// Two members are equal when they belong to the same class and hold equal values.
bool enum_values_equal(const IValue& a, const IValue& b);

}  // namespace jitctl
