#pragma once
// PyTorch's operator version table: for each operator whose meaning changed, the archive
// version at which it changed, the upgrader that keeps the old meaning, and the old schema calls
// may have been written against (PyTorch 1.13's table: testdata/upgraders/version_map.txt, dumped
// by testdata/gen/make_upgrader_corpus.py and compiled in). The upgraders' graphs and the pass
// that applies them are in passes/replace_old_operators.h.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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

}  // namespace jitctl
