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

// Opens a TorchScript archive; a file that is something else (a state_dict, a pickled nn.Module,
// inputs, ONNX, torch.export, ...) is refused naming what it is and what to do
// (lib/archive/file_kind.h). "-" reads standard input.
LoadedModule load_module(const std::string& path);
// The same over bytes already mapped or in memory (MappedFile::from_bytes: the fuzz targets).
LoadedModule load_module(std::shared_ptr<MappedFile> file);

// "model.pt: class __torch__.Net has no method 'forwrd' (did you mean 'forward'?); its methods
// are forward, encode" -- for every command that takes --method.
std::string unknown_method_message(const LoadedModule& m, const std::string& method);
// Throws InvalidInput with that message unless the top-level class has `method`.
void check_method(const LoadedModule& m, const std::string& method);

}  // namespace jitctl
