#pragma once
// The table of graph passes, one entry a pass, by the name `jitctl optimize --passes a,b,c` uses
// (LLVM's PassRegistry.def in spirit). Each entry points at the pass's one entry function.
#include <span>
#include <string_view>

#include "lib/ir/ir.h"

namespace jitctl {

struct PassInfo {
  std::string_view name;         // "dce"
  std::string_view description;  // one line, for --list-passes
  void (*run)(Graph&);
};

// Every pass, in the order the table lists them.
std::span<const PassInfo> all_passes();
// nullptr when no pass has that name.
const PassInfo* find_pass(std::string_view name);

}  // namespace jitctl
