#pragma once
// Conversions that return their input itself, proven from what is known of it
// (passes/analysis/tensor_facts.h), replaced by that input:
//  - aten::to with a dtype (to.dtype, to.prim_dtype, or to.dtype_layout asking for nothing but a
//    dtype) equal to the input's known dtype, copy=False and no memory format (or preserve):
//    PyTorch returns `self` then;
//  - aten::contiguous(x) (contiguous_format) of an x known to be contiguous: PyTorch returns `self`;
//  - aten::flatten(x, s, e) whose dims, on x's known rank, name one dim: PyTorch returns `self`.
// Each of these already returns its input, so aliasing is as it was. Conversions that change
// device are left alone (devices are not tracked), as is aten::detach (PyTorch's EliminateNoOps,
// which freezing runs, removes it). Not a PyTorch pass; `jitctl optimize` runs it. Returns whether
// anything changed.
#include "lib/ir/ir.h"

namespace jitctl {

bool remove_no_op_conversions(Graph& g);

}  // namespace jitctl
