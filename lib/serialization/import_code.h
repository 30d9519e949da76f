#pragma once
// An archive's code as a CompilationUnit (lib/frontend/importer.h): every code/**.py record parsed,
// with the source map of its .debug_pkl, and constants.pkl.
#include <memory>

#include "lib/archive/archive.h"
#include "lib/frontend/importer.h"

namespace jitctl {

// Throws InvalidInput naming the record for code that does not parse, a malformed .debug_pkl or
// constants.pkl, or a class or function defined twice.
std::shared_ptr<CompilationUnit> import_code(const Archive& archive);

}  // namespace jitctl
