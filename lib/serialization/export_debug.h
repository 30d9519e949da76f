#pragma once
// The .debug_pkl record written beside a printed code record: for byte offsets of the code, the
// original source position that generated it, in the format PyTorch 1.10+ reads
// ("FORMAT_WITH_STRING_TABLE"). torch.jit.load turns these back into the `# file:line:col`
// comments of its graphs, and jitctl's SourceMap reads them the same way.
#include <string>
#include <vector>

#include "lib/serialization/code_files.h"

namespace jitctl {

// A pickle of one record per range start (and one back to "no source" where a range ends before
// the next begins). Each position is stored as a small synthetic source: a file name, a first line
// and `col` bytes of text, which is all a reader needs to print `file:line:col`; PyTorch's own
// records also carry the original source text, which code printed by jitctl no longer has.
std::string debug_pkl_for(const std::vector<CodeRange>& ranges);

}  // namespace jitctl
