#pragma once
// Turns the emitter's output into SSA form, as PyTorch 1.13's ConvertToSSA does, step for step, so
// that every value id and name comes out as PyTorch's do.
//
// What the emitter must hand over (PyTorch's conventions, which these passes rely on):
//  - Variables are read and written through `prim::Load[name="x"]` (no inputs, one output of the
//    variable's type) and `prim::Store[name="x"](%v)` (no outputs), `name` an `s` attribute. Every
//    parameter is stored right after the parameters are made. A Load's name must resolve: stored in
//    its block or an enclosing one, before it (in node order).
//  - `prim::If` has no outputs and two blocks without outputs. `prim::Loop` has one input (the max
//    trip count) and no outputs, a body block whose only input is the trip counter and which has
//    no outputs, and a second block computing the loop condition (no inputs, the condition as its
//    only output). Whatever a branch or body assigns stays in Stores.
//  - `prim::ReturnStmt(%v...)` marks a return, `prim::BreakStmt()`/`prim::ContinueStmt()` a break
//    or continue (inside a loop body), `prim::RaiseException` a raise.
//  - The graph's output is a placeholder (the emitter's `prim::Uninitialized` of the return type)
//    that follows the final ReturnStmt; it is deleted here and the returned value takes its place.
//  - `prim::Closure` and `prim::ComprehensionScope` (one block each) are scopes of their own. A
//    `with` is `prim::Enter(%obj)` ... `prim::Exit(%obj)` in one block.
//  - Type objects are shared where PyTorch shares its TypePtrs: the exit transform makes one
//    Uninitialized per type *object*, as PyTorch caches them by pointer (a Load's type is the stored
//    value's type object; the placeholder's is the declared return type's; every TupleConstruct
//    makes its own tuple type). Equal but distinct objects cost an id each.
//
// The steps, each with the value ids it takes (in this order):
//  1. control-flow loads and stores: each If gets one output per variable stored in one branch and
//     visible in the other (3 ids: a Load at the end of each branch, the output, which is named;
//     its type unifies the branches' types, a Union when nothing narrower does),
//     each Loop one carried value per variable stored in its body and defined outside (4 ids: a
//     Load in front of the loop, a body input named after the variable, a Load at the end of the
//     body, the named output). Nested control flow first, variables in sorted order.
//  2. loop continuations: one `false` constant at the top of the graph (and one per closure);
//     break/continue become prim::LoopContinuation carrying the loop's values.
//  3. inline_loop_condition (passes/inline_loop_condition.h).
//  4. erase loads and stores: every Load's uses take the stored value; no new values.
//  5. transform_exits (passes/exit_transforms.h).
#include "lib/ir/ir.h"

namespace jitctl {

// Throws std::logic_error if a Load names a variable nothing stored before it, or a loop-carried
// variable's type in the body does not unify with its type before the loop.
void convert_to_ssa(Graph& g);

}  // namespace jitctl
