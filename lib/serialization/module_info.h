#pragma once
// What `jitctl info` reports about an archive, gathered without compiling code or reading weights.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lib/archive/archive.h"
#include "lib/serialization/class_outline.h"

namespace jitctl {

struct NamedTensor {
  std::string name;
  Tensor tensor;
};

struct ModuleNode {
  std::string name;       // attribute name ("" for the root)
  std::string type_name;  // qualified class name
  std::vector<NamedTensor> parameters, buffers;  // its own, in slot order
  std::vector<ModuleNode> children;
  std::string same_as;  // a module reached twice is described once; later sightings name the first
};

struct ModuleInfo {
  std::string path, root;
  int64_t format_version = -1;
  std::string class_name;
  std::vector<std::string> methods;  // of the root class, as defined
  // As named_parameters()/named_buffers() list them: preorder over modules, dotted names, each
  // tensor once.
  std::vector<NamedTensor> parameters, buffers;
  std::vector<std::pair<std::string, uint64_t>> extra_files;  // name, bytes
  std::vector<NamedTensor> constants;                           // c0, c1, ... from constants.pkl
  ModuleNode tree;
  CodeOutline code;
};

ModuleInfo inspect_archive(const Archive& archive);

}  // namespace jitctl
