#pragma once
// A method's arguments checked against its schema before anything runs, as PyTorch checks the
// arguments of a scripted method called from Python: the count, and each value's type, with the
// conversions Python makes (an int where a float is expected, a tuple where a list is, [] or {}
// taking the element types of the argument). Errors name the argument, its position and type,
// and what was given instead, e.g.
//   forward() argument 'n' (position 2) must be int, not float (2.5)
#include <optional>
#include <string>
#include <vector>

#include "lib/core/ivalue.h"
#include "lib/core/types.h"
#include "lib/ops/schema.h"

namespace jitctl {

// Whether the schema starts with a method's receiver: an argument of class type, whatever its
// name (`def forward(s, x)` is as valid as `self`).
bool has_self(const FunctionSchema& schema);

// The arguments after `self` (a method's schema starts with it), defaults not filled in.
// Throws InvalidInput naming the argument; Unsupported for a class-typed argument.
std::vector<IValue> check_arguments(const FunctionSchema& schema, std::vector<IValue> args);

// The value as `type` wants it, or nullopt when it is not one. `why` says what is wrong deeper
// down ("element [1] is str").
std::optional<IValue> convert_to_type(const IValue& v, const TypePtr& type, std::string& why);

// What a value is, as Python names it: "int", "float", "str", "Tensor (float32 [2, 3])", "list".
std::string value_kind_text(const IValue& v);

// An --input-spec text for a value of `type`: float32[2,3], 3, 0.5, true, none, "text", [1, 2],
// (..), {"key": ..}; nullopt for types a spec cannot write (classes, futures, ...).
std::optional<std::string> example_spec(const TypePtr& type);

}  // namespace jitctl
