#pragma once
// ReplaceOldOperatorsWithUpgraders: an archive records the operator version its code was written
// against (its file-format version). Calls of operators whose meaning changed after that version
// are replaced by the body of PyTorch's upgrader for them (integer `div` truncating before
// version 4, `full` with an integer fill making a float tensor before 5, `linspace`/`logspace`
// without `steps` before 8/9, `gelu` without `approximate` before 10), as PyTorch 1.13 does right
// after emitting a method and before SSA conversion.
//
// The table and the upgrader graphs are PyTorch 1.13's (testdata/upgraders/, dumped by
// testdata/gen/make_upgrader_corpus.py and compiled in).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/ir/ir.h"

namespace jitctl {

struct UpgraderEntry {
  std::string op;          // "aten::div.Tensor": the schema's full name
  int64_t bumped_at = 0;   // archives below this version get the upgrader
  std::string upgrader;    // "div_Tensor_0_3"
  std::string old_schema;  // the operator's schema before the change (calls may match it)
};

// Every entry, in the table's order.
const std::vector<UpgraderEntry>& operator_version_map();
// The upgrader an archive at `version` needs for `op` (the entry of lowest bumped_at above
// `version`), or nullptr when its calls already mean what they say.
const UpgraderEntry* find_upgrader(std::string_view op, int64_t version);

// Replaces every node (in nested blocks too) whose matched schema has an upgrader for `version`
// by a copy of the upgrader's graph, inserted where the node was, its outputs taking over the
// node's uses. Nodes the copies bring in are not upgraded again. Inserted nodes carry no schema.
void replace_old_operators(Graph& g, int64_t version);

}  // namespace jitctl
