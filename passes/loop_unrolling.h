#pragma once
// PyTorch 1.13's UnrollConstantLoops, which freezing runs: every `for` loop (a prim::Loop whose
// start and continue conditions are the constant True) with a constant trip count is unrolled,
// inner loops first. Fewer than 64 trips: the body is repeated that many times in place of the
// loop. 64 or more: the loop runs 8 copies of its body per trip for trips // 8 trips, and a copy
// of the original loop (the epilogue) runs the remaining ones. A body that reads its trip counter
// gets a counter of its own, carried from 0 and incremented by aten::add at the end of each copy
// (folded later by constant propagation). Dead code elimination runs when anything changed.
// Returns whether anything changed.
#include "lib/ir/ir.h"

namespace jitctl {

bool unroll_constant_loops(Graph& g);

}  // namespace jitctl
