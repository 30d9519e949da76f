#pragma once
// PyTorch 1.13's removeDropout, the first of the frozen-graph optimizations: aten::dropout,
// dropout_, feature_dropout and feature_dropout_ whose `train` input is the constant False become
// their input (in every block). The nodes go; their now unused inputs stay for DCE. Returns whether
// anything changed.
#include "lib/ir/ir.h"

namespace jitctl {

bool remove_dropout(Graph& g);

}  // namespace jitctl
