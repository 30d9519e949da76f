#pragma once
// Reading the .debug_pkl record beside each code/**.py record of an archive into a SourceMap
// (lib/frontend/source_map.h); lib/serialization/export_debug.h writes them.
#include <string>
#include <string_view>

#include "lib/frontend/source_map.h"

namespace jitctl {

// PyTorch 1.10+'s "FORMAT_WITH_STRING_TABLE" form, and the older one without a string table.
// `where` names the record in messages (InvalidInput for a malformed one).
SourceMap read_source_map(std::string_view debug_pkl, const std::string& where);

}  // namespace jitctl
