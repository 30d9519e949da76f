#include "kernels/registry.h"

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "kernels/cpu/register_cpu.h"

namespace jitctl {
namespace {

std::unordered_map<std::string, KernelFn>& table() {
  static std::unordered_map<std::string, KernelFn> t;
  return t;
}

// Built-in kernels are registered by explicit calls, not static initializers: the linker drops
// unreferenced objects of a static library, and with them their initializers.
void register_builtins() {
  static std::once_flag once;
  std::call_once(once, [] { register_cpu_kernels(); });
}

}  // namespace

void register_kernel(std::string_view name, KernelFn fn) {
  auto [it, inserted] = table().emplace(std::string(name), fn);
  if (!inserted) throw std::logic_error("kernel registered twice: " + std::string(name));
}

KernelFn find_kernel(std::string_view name) {
  register_builtins();
  auto it = table().find(std::string(name));
  return it == table().end() ? nullptr : it->second;
}

std::vector<std::string> registered_kernels() {
  register_builtins();
  std::vector<std::string> names;
  names.reserve(table().size());
  for (auto& [k, v] : table()) names.push_back(k);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace jitctl
