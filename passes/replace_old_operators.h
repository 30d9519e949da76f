#pragma once
// ReplaceOldOperatorsWithUpgraders: an archive records the operator version its code was written
// against (its file-format version). Calls of operators whose meaning changed after that version
// are replaced by the body of PyTorch's upgrader for them (integer `div` truncating before
// version 4, `full` with an integer fill making a float tensor before 5, `linspace`/`logspace`
// without `steps` before 8/9, `gelu` without `approximate` before 10), as PyTorch 1.13 does right
// after emitting a method and before SSA conversion.
//
// The table (lib/ops/operator_versions.h) and the upgrader graphs are PyTorch 1.13's
// (testdata/upgraders/, dumped by testdata/gen/make_upgrader_corpus.py and compiled in).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/ir/ir.h"
#include "lib/ops/operator_versions.h"
#include "passes/pass_context.h"

namespace jitctl {

// Replaces every node (in nested blocks too) whose matched schema has an upgrader for `version`
// by a copy of the upgrader's graph, inserted where the node was, its outputs taking over the
// node's uses. Nodes the copies bring in are not upgraded again. Inserted nodes carry no schema.
void replace_old_operators(Graph& g, int64_t version);
// The registry's entry: the version from ctx.operator_version.
void replace_old_operators_pass(Graph& g, const PassContext& ctx);

}  // namespace jitctl
