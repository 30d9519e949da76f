#pragma once
// PyTorch 1.13's AnnotateWarns, the last of the clean-up passes the compiler runs on every new
// graph: each aten::warn gets a `warn_id` attribute from a process-wide counter, so that the
// interpreter can warn once per call site as Python does. The ids depend on how many warns were
// compiled before in the same process, which is why the oracle's canonical form ignores them.
#include "lib/ir/ir.h"

namespace jitctl {

void annotate_warns(Graph& g);

}  // namespace jitctl
