#pragma once
// Literal values as printed TorchScript code writes them (IValue::repr with the printer's
// formatter): `2.`, `1.0000000000000001e-05`, `"a\"b"`, `[1, 2]`, `(1,)`, `torch.device("cpu")`,
// `annotate(List[int], [])`, NamedTuple constructors, and whatever `special` prints instead
// (tensors as CONSTANTS.cN).
#include <functional>
#include <optional>
#include <string>

#include "lib/core/ivalue.h"
#include "lib/core/tensor.h"
#include "lib/core/types.h"

namespace jitctl {

// Consulted first for every value, containers' elements included; nullopt: print it normally.
using ReprOverride = std::function<std::optional<std::string>(const IValue&)>;

std::string code_repr(const IValue& v, const ReprOverride& special, const TypePrinter& type_printer);

// Does the value hold (anywhere inside) a string with a byte outside 7-bit ASCII?
bool contains_non_ascii_string(const IValue& v);

// Same dtype, device and shape, and equal elements: when two tensor constants share one entry.
bool tensors_equal_for_constants(const Tensor& a, const Tensor& b);


}  // namespace jitctl
