#pragma once
// PyTorch 1.13's Node::isNondeterministic: random operators give a different result on every run,
// so constant propagation must not fold them and CSE must not merge two of them. `dropout` with a
// constant `train=False` is deterministic.
#include "lib/ir/ir.h"

namespace jitctl {

bool is_nondeterministic(const Node* n);

}  // namespace jitctl
