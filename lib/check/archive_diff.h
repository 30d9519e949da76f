#pragma once
// `jitctl diff A.pt B.pt`: did the export change? Parameters and buffers (name, dtype, shape, and
// values by checksum) added, removed or changed; the module tree: submodules added or removed,
// their classes (mangling aside) and plain attributes (numbers, strings, bools: the training flag,
// hyperparameters); and the methods of every module, their graphs compared canonically and shown
// as the same dtl diff as check-trace's (graph_diff.h).
#include <string>
#include <vector>

namespace jitctl {

struct ArchiveDiffOptions {
  std::string method;   // only this method of the root module ("" for every method of every module)
  bool inline_calls = false;  // compare the root's `.inlined_graph`s (submodules' code included)
};

struct TensorChange {
  std::string kind;  // "parameter" or "buffer"
  std::string name;
  std::string what;  // "added", "removed", "dtype", "shape", "values"
  std::string a, b;  // the two sides (dtype, shape or checksum; "" for a side that has none)
};

struct ModuleChange {
  std::string path;  // "net.1" ("" for the root module)
  std::string what;  // "added", "removed", "class", "attribute"
  std::string name;  // the attribute, for "attribute"
  std::string a, b;  // the two sides (class names, attribute values; "" for a side that has none)
};

struct MethodChange {
  std::string name;  // "forward" of the root module, "net.1.forward" of a submodule
  std::string what;  // "added", "removed", "graph"
  std::string diff;  // the unified diff of the canonical graphs, for "graph"
};

struct ArchiveDiff {
  std::string a, b;
  std::vector<TensorChange> tensors;
  std::vector<ModuleChange> modules;
  std::vector<MethodChange> methods;
  bool equal() const { return tensors.empty() && modules.empty() && methods.empty(); }
};

ArchiveDiff diff_archives(const std::string& a, const std::string& b, const ArchiveDiffOptions& options);

std::string archive_diff_text(const ArchiveDiff& d);
std::string archive_diff_json(const ArchiveDiff& d);

}  // namespace jitctl
