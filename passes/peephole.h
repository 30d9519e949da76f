#pragma once
// PyTorch 1.13's PeepholeOptimize(graph, disable_shape_peepholes=true): the variant
// GraphFunction::optimized_graph() runs on every function before a caller inlines it, so its
// rewrites show in `.inlined_graph`. Shape peepholes are off there; what remains, in PyTorch's
// order (each sub-pass walks the whole graph, blocks first):
//  1. x.t().t() -> x; Int/Float/...Implicit of NumToTensor(n) -> n; _grad_sum_to_size(x, None) -> x;
//  2. list idioms on lists nothing mutates: len, constant-index __getitem__, ListUnpack and
//     constant slices of a ListConstruct, and `+` of two ListConstructs;
//  3. dict idioms: len and constant-key __getitem__ of a DictConstruct with distinct constant keys;
//  4. alias-sensitive ones: dim(conv1d/2d/3d(x)) -> 3/4/5, x + 0, x - 0 and x * 1 with int scalars;
//  5. non-tensor ones: None-typed outputs -> None constant, `is`/`is not` None with a value that
//     cannot be None, If outputs that equal the condition, Optional If outputs refined, redundant
//     unwraps and unchecked_casts, int(int), x == x and x != x on immutable types, integer
//     arithmetic with 0 and 1 and chains of constant additions;
//  6. cat(cat(a, b), c) on the same constant dim -> cat(a, b, c).
// When anything changed, dead code elimination without alias analysis runs (PyTorch calls the
// block variant, which keeps every node whose schema writes to an input). Returns whether
// anything changed: "changed" is PyTorch's flag, which also counts rewrites that change nothing
// visible (refining an If output to the type it already has), and decides whether dead code goes.
#include "lib/ir/ir.h"

namespace jitctl {

bool peephole_optimize(Graph& g);

}  // namespace jitctl
