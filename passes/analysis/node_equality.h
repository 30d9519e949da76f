#pragma once
// Node equality as PyTorch 1.13's EqualNode (node_hashing.cpp) decides it for constant pooling and
// for If outputs that are the same constant in both branches: same kind, same output types, the
// same input values, and attributes equal the way CSE compares them (floats with ==, so 0.0 and
// -0.0 are equal and NaN equals nothing; tensors by dtype, device and values; graph attributes
// never).
#include <cstddef>

#include "lib/ir/ir.h"

namespace jitctl {

bool nodes_equal(const Node* a, const Node* b);

// Equal nodes hash alike (constant values go into the hash; use it to bucket constants).
size_t constant_hash(const Node* n);

}  // namespace jitctl
