#pragma once
// The TorchScript type of a value, as c10's IValue::type() answers it: what insert_constant gives
// a constant's output, and what decides how a list or dict attribute prints.
#include "lib/core/ivalue.h"
#include "lib/core/types.h"

namespace jitctl {

// nullptr when the value does not say: an empty list or dict without an element type, objects
// (whose class only the runtime knows), storages. Tensors get their complete type; tensors in
// lists and dicts whose element type must be inferred count as plain Tensor.
TypePtr ivalue_type(const IValue& v);
// A list's element type: its recorded one (ListData::elem_type, annotation syntax) or the
// unification of its items' types.
TypePtr list_element_type(const ListData& list);
// Key and value types, likewise; either may be nullptr.
std::pair<TypePtr, TypePtr> dict_types(const DictData& dict);

}  // namespace jitctl
