#pragma once
// Answers a tensor's metadata queries from what is known of it (passes/analysis/tensor_facts.h):
// aten::dim(x) and aten::len(aten::size(x)) become its rank, prim::dtype(x) its dtype's number,
// aten::is_floating_point(x) and aten::is_complex(x) a bool -- where the analysis is certain of
// the answer -- and a comparison (eq, ne, lt, le, gt, ge) of such a rank with a constant becomes a
// bool where the known range of ranks decides it (`len(x.size()) > 2` for a conv2d's output,
// rank 3 or 4). Constant propagation then decides the branches on them (scripted code's checks:
// `if input.dim() != 4: raise ...`). Not a PyTorch pass; `jitctl optimize`
// runs it. Counts each node it replaces in PassContext::stats. Returns whether anything changed.
#include "lib/ir/ir.h"
#include "passes/pass_context.h"

namespace jitctl {

bool fold_tensor_queries(Graph& g, const PassContext& ctx);

}  // namespace jitctl
