#pragma once
// `jitctl diff A.pt B.pt`: did the export change? Parameters and buffers (name, dtype, shape, and
// values by checksum) added, removed or changed, and the root class's methods, their graphs
// compared canonically and shown as the same dtl diff as check-trace's (graph_diff.h).
#include <string>
#include <vector>

namespace jitctl {

struct ArchiveDiffOptions {
  std::string method;   // only this method ("" for every method of the root class)
  bool inline_calls = false;  // compare `.inlined_graph`s (submodules' code included)
};

struct TensorChange {
  std::string kind;  // "parameter" or "buffer"
  std::string name;
  std::string what;  // "added", "removed", "dtype", "shape", "values"
  std::string a, b;  // the two sides (dtype, shape or checksum; "" for a side that has none)
};

struct MethodChange {
  std::string name;
  std::string what;  // "added", "removed", "graph"
  std::string diff;  // the unified diff of the canonical graphs, for "graph"
};

struct ArchiveDiff {
  std::string a, b;
  std::vector<TensorChange> tensors;
  std::vector<MethodChange> methods;
  bool equal() const { return tensors.empty() && methods.empty(); }
};

ArchiveDiff diff_archives(const std::string& a, const std::string& b, const ArchiveDiffOptions& options);

std::string archive_diff_text(const ArchiveDiff& d);
std::string archive_diff_json(const ArchiveDiff& d);

}  // namespace jitctl
