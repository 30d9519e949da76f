#include "kernels/cuda_backend.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef JITCTL_CUDA_PLUGIN_DIR
#define JITCTL_CUDA_PLUGIN_DIR ""
#endif

namespace jitctl {
namespace {

constexpr const char* kPlugin = "libjitctl_cuda.so";

std::string executable_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

// Where the plugin may be: JITCTL_CUDA_PLUGIN names it; else beside the executable (an unpacked
// release), the build tree's kernels/cuda (build/cli/jitctl, build/tests/*), and the installed
// library directory.
std::vector<std::string> plugin_candidates() {
  std::vector<std::string> out;
  if (const char* e = std::getenv("JITCTL_CUDA_PLUGIN"); e && *e) return {e};
  const std::string dir = executable_dir();
  if (!dir.empty()) {
    out.push_back(dir + "/" + kPlugin);
    out.push_back(dir + "/../kernels/cuda/" + kPlugin);
  }
  if (*JITCTL_CUDA_PLUGIN_DIR) out.push_back(std::string(JITCTL_CUDA_PLUGIN_DIR) + "/" + kPlugin);
  return out;
}

struct Loaded {
  CudaBackend* backend = nullptr;
  std::string why;
};

Loaded load() {
  Loaded r;
  if (!cuda_built_in()) {
    r.why = "this jitctl was built without CUDA (nvcc was not found at build time)";
    return r;
  }
  std::string errors;
  const char* named = std::getenv("JITCTL_CUDA_PLUGIN");
  for (const std::string& path : plugin_candidates()) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      if (named && *named) errors = fmt::format("JITCTL_CUDA_PLUGIN={}: no such file", path);
      continue;
    }
    // RTLD_NOW: a missing CUDA library or symbol shows here, as one message, not at the first kernel.
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* e = dlerror();
      errors = e ? e : path + ": cannot be loaded";
      continue;
    }
    using Entry = CudaBackend* (*)();
    auto entry = reinterpret_cast<Entry>(dlsym(h, "jitctl_cuda_backend"));
    if (!entry) {
      errors = path + ": not a jitctl CUDA plugin (no jitctl_cuda_backend)";
      continue;
    }
    r.backend = entry();
    return r;
  }
  r.why = errors.empty() ? fmt::format("{} not found beside jitctl or in {}", kPlugin, *JITCTL_CUDA_PLUGIN_DIR ? JITCTL_CUDA_PLUGIN_DIR : "the build tree")
                         : "the CUDA backend could not be loaded: " + errors;
  return r;
}

std::map<std::string, PrepareFn, std::less<>>& preparers() {
  static std::map<std::string, PrepareFn, std::less<>> t;
  return t;
}

}  // namespace

bool cuda_built_in() {
#if JITCTL_CUDA
  return true;
#else
  return false;
#endif
}

CudaBackend* cuda_backend(std::string* why) {
  static const Loaded loaded = load();
  if (!loaded.backend && why) *why = loaded.why;
  return loaded.backend;
}

void register_cuda_preparer(std::string_view name, PrepareFn fn) {
  if (!preparers().emplace(std::string(name), fn).second) throw std::logic_error("CUDA preparer registered twice: " + std::string(name));
}

PrepareFn find_cuda_preparer(std::string_view name) {
  auto it = preparers().find(name);
  return it == preparers().end() ? nullptr : it->second;
}

}  // namespace jitctl
