#pragma once
// Opening a TorchScript archive as a module: its code imported, its object tree unpickled.
#include <memory>
#include <string>

#include "lib/archive/archive.h"
#include "lib/frontend/importer.h"

namespace jitctl {

// Checks that the records a TorchScript archive needs are there (data.pkl, version, a byte order
// jitctl reads), with a precise error naming what is wrong; returns the file-format version.
int64_t check_torchscript_layout(const Archive& archive);

struct LoadedModule {
  std::shared_ptr<Archive> archive;
  int64_t format_version = -1;
  std::shared_ptr<CompilationUnit> cu;
  IValue root;             // the module object of data.pkl (tensors mapped lazily)
  std::string class_name;  // its class, "__torch__.Net"
};

LoadedModule load_module(const std::string& path);

}  // namespace jitctl
