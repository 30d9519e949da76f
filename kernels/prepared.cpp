#include "kernels/prepared.h"

#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

namespace jitctl {
namespace {

std::map<std::string, PrepareFn, std::less<>>& table() {
  static std::map<std::string, PrepareFn, std::less<>> t;
  return t;
}

}  // namespace

void register_preparer(std::string_view name, PrepareFn fn) {
  if (!table().emplace(std::string(name), fn).second) throw std::logic_error("preparer registered twice: " + std::string(name));
}

PrepareFn find_preparer(std::string_view name) {
  find_kernel(name);  // the first lookup registers every built-in kernel, preparers included
  auto it = table().find(name);
  return it == table().end() ? nullptr : it->second;
}

}  // namespace jitctl
