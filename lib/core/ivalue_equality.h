#pragma once
// When two values are equal. PyTorch compares values in two ways, and so does jitctl, here and
// nowhere else (Python's `is` is IValue::identical):
//  - ivalues_equal: Python's and TorchScript's `==` (what `in`, `index`, `count` and list `==`
//    ask, and how dict keys match);
//  - ivalues_equal_strict: PyTorch's ivaluesEqual, which its compiler uses on constants (equal
//    nodes, arguments equal to their defaults).
#include "lib/core/ivalue.h"
#include "lib/core/tensor.h"

namespace jitctl {

// Ints, floats and bools compare as numbers (1 == 1.0 == True); strings, complex numbers and
// devices by value; lists and tuples element by element; tensors, storages, dicts and objects by
// identity; globals by name. Consistent with key_hash: equal values hash alike.
bool ivalues_equal(const IValue& a, const IValue& b);

// Kinds must match (1 is not 1.0, nor True); ints, floats, bools, strings and None by value,
// tensors by contents (tensors_equal), lists and tuples element by element; two dicts differ only
// where an entry's key and value both differ (PyTorch's rule, kept as it is); anything else
// (complex numbers, devices, objects, ...) never compares equal.
bool ivalues_equal_strict(const IValue& a, const IValue& b);

// at::equal after a dtype and device check: same sizes, and elements equal -- floating elements
// as numbers (0.0 == -0.0, NaN != NaN), others bit for bit. Placeholder tensors without storage
// (a graph read from text that printed `<Tensor>`) have no values and equal nothing.
bool tensors_equal(const Tensor& a, const Tensor& b);

}  // namespace jitctl
