#pragma once
// Step 4 of PyTorch 1.13's ConvertToSSA (pipeline convert-to-ssa in passes/registry.def): every
// prim::Load's uses take the value last stored under its name, and the Loads and Stores go; no new
// values. prim::ComprehensionScope blocks are scopes of their own whose nodes then join the
// enclosing block.
#include "lib/ir/ir.h"

namespace jitctl {

// Throws std::logic_error if a Load names a variable nothing stored before it.
void erase_load_stores(Graph& g);

}  // namespace jitctl
