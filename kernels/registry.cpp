#include "kernels/registry.h"

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "kernels/cpu/register_cpu.h"

namespace jitctl {
namespace {

std::unordered_map<std::string, KernelFn>& table(Backend b = Backend::CPU) {
  static std::unordered_map<std::string, KernelFn> t[2];
  return t[static_cast<int>(b)];
}

// Built-in kernels are registered by explicit calls, not static initializers: the linker drops
// unreferenced objects of a static library, and with them their initializers.
void register_builtins() {
  static std::once_flag once;
  std::call_once(once, [] { register_cpu_kernels(); });
}

}  // namespace

void register_kernel(std::string_view name, KernelFn fn, Backend backend) {
  auto [it, inserted] = table(backend).emplace(std::string(name), fn);
  if (!inserted) throw std::logic_error("kernel registered twice: " + std::string(name));
}

KernelFn find_kernel(std::string_view name, Backend backend) {
  register_builtins();
  auto& t = table(backend);
  auto it = t.find(std::string(name));
  return it == t.end() ? nullptr : it->second;
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
