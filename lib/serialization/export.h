#pragma once
// Writing a loaded module back as a TorchScript archive that torch.jit.load (PyTorch 1.13) reads
// and that computes the same thing: the records torch.jit.save writes -- extra/*, data/N +
// data.pkl, code/**.py + .debug_pkl, constants/N + constants.pkl, version -- with code and debug
// records deflated, as torch.jit.save deflates them (the zip places them last: zip_writer.h).
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "lib/serialization/load_module.h"
#include "lib/ir/ir.h"

namespace jitctl {

// Graphs that replace what the archive's code compiles to, keyed by (qualified class name,
// method), or (qualified function name, "") for a free function.
using GraphOverrides = std::map<std::pair<std::string, std::string>, std::shared_ptr<Graph>>;

// Writes `m` to `path` atomically (nothing is left behind on failure). The root folder is the
// file's stem, as torch.jit.save names it; every storage is written once, 64-byte aligned.
// Without overrides the code and debug records are the archive's own, byte for byte: they are
// what PyTorch printed, so the graphs and `# file:line:col` comments load back unchanged. With
// overrides every class and function is printed again (lib/serialization/code_files.h), the
// overridden graphs in place of the originals, and each printed record identical to the
// archive's keeps the archive's debug record.
void export_module(LoadedModule& m, const std::string& path, const GraphOverrides& overrides = {});

}  // namespace jitctl
