#pragma once
// Constants in the IR: Graph::insert_constant (declared in ir.h, defined here) and reading a
// constant's value back.
//
// insert_constant makes a prim::Constant exactly as PyTorch 1.13's insertConstant does:
//   None                 -> `NoneType = prim::Constant()`
//   bool                 -> `bool = prim::Constant[value=1]()`      (an `i` attribute)
//   int, float, complex  -> `int`/`float`/`complex` with an `i`/`f`/`c` attribute
//   str                  -> `str = prim::Constant[value="a"]()`     (`s`)
//   Device               -> `Device = prim::Constant[value="cpu"]()` (`s`, the device string)
//   Tensor               -> its complete type, e.g. `Float(2, strides=[1], requires_grad=0,
//                           device=cpu)`, with a `t` attribute; must not require grad
//   list, tuple, dict    -> the value's type (`int[]`, `(int, str)`, `Dict(str, int)`) with an
//                           `ival` attribute, when every element is itself insertable
// Anything else (objects, undefined tensors, storages) is refused. A refused value has still used
// up one value id, because PyTorch creates the node before it decides.
#include <optional>

#include "lib/ir/ir.h"

namespace jitctl {

// Can a constant hold this value (recursively, for containers)?
bool insertable_ivalue(const IValue& v);

// The value of a prim::Constant output (PyTorch's toIValue); nullopt for other values and for
// function constants.
std::optional<IValue> to_ivalue(const Value* v);

}  // namespace jitctl
