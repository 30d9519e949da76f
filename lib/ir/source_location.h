#pragma once
// Where a node came from, as str(graph) shows it after the node: ` # file:line:col`. PyTorch keeps
// a source range and prints the original position of the code that generated it; the importer
// resolves that once (from the archive's debug records), so a node carries only the answer.
#include <cstdint>
#include <string>

namespace jitctl {

struct SourceLocation {
  std::string file;  // may be empty: PyTorch prints ` # :0:0` for compiler-made nodes
  uint32_t line = 0;
  uint32_t col = 0;

  bool operator==(const SourceLocation&) const = default;
  std::string str() const { return file + ":" + std::to_string(line) + ":" + std::to_string(col); }
};

}  // namespace jitctl
