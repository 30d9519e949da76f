#pragma once
// Running an operator on constant arguments of immutable types (int, float, bool, str, None,
// Device, and tuples of those), as constant propagation does with PyTorch 1.13's operator
// implementations: the same results, and no result where PyTorch's operator would throw.
//
// Covered: arithmetic, comparisons and logic on int/float/bool (add sub mul div floordiv remainder
// pow neg, eq ne lt le gt ge, __and__ __or__ __xor__ __not__, prim::min max abs, floor ceil,
// __round_to_zero_floordiv), the Bool/Int/Float casts of numbers, str concatenation, comparison,
// len and indexing, `is`/`is not`, aten::device(str), and tuple construction, indexing, unpacking
// and slicing. Anything else returns nullopt, i.e. is not folded -- a difference from PyTorch,
// which runs every registered operator.
#include <optional>
#include <vector>

#include "lib/ir/ir.h"

namespace jitctl {

std::optional<std::vector<IValue>> run_immutable_op(const Node* n, const std::vector<IValue>& args);

}  // namespace jitctl
