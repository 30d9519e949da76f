#include "cli/version.h"

#include <fmt/format.h>

#include "kernels/cuda_backend.h"
#include "lib/core/describe.h"

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "lib/bench/machine.h"
#include "lib/runtime/parallel_info.h"

#ifndef JITCTL_CUDA
#define JITCTL_CUDA 0
#endif
#ifndef JITCTL_NATIVE
#define JITCTL_NATIVE 0
#endif
#ifndef JITCTL_MIMALLOC
#define JITCTL_MIMALLOC 0
#endif
#if JITCTL_MIMALLOC
#include <mimalloc.h>
#endif
#ifndef JITCTL_BUILDTYPE
#define JITCTL_BUILDTYPE "unknown"
#endif

namespace jitctl::cli {
namespace {

std::string compiler() {
#if defined(__clang__)
  return fmt::format("clang {}.{}.{}", __clang_major__, __clang_minor__, __clang_patchlevel__);
#elif defined(__GNUC__)
  return fmt::format("gcc {}.{}.{}", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#else
  return "unknown compiler";
#endif
}

// The widest vector extensions this file was compiled for (the whole tree shares the flags).
std::string built_for() {
  std::vector<std::string> isa;
#if defined(__x86_64__)
  isa.push_back("x86-64");
#if defined(__AVX512F__)
  isa.push_back("avx512f");
#endif
#if defined(__AVX512BW__)
  isa.push_back("avx512bw");
#endif
#if defined(__AVX512VL__)
  isa.push_back("avx512vl");
#endif
#if defined(__AVX2__)
  isa.push_back("avx2");
#endif
#if defined(__FMA__)
  isa.push_back("fma");
#endif
#if defined(__AVX__)
  isa.push_back("avx");
#endif
#if defined(__SSE4_2__)
  isa.push_back("sse4.2");
#endif
#elif defined(__aarch64__)
  isa.push_back("aarch64");
#if defined(__ARM_FEATURE_SVE)
  isa.push_back("sve");
#endif
#else
  isa.push_back("unknown architecture");
#endif
  std::string s;
  for (const auto& i : isa) s += (s.empty() ? "" : " ") + i;
  return s + (JITCTL_NATIVE ? " (-march=native)" : " (portable)");
}

// What the CPU running this has, of the same list.
std::string cpu_has() {
  std::vector<std::string> isa;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) isa.push_back("avx512f");
  if (__builtin_cpu_supports("avx512bw")) isa.push_back("avx512bw");
  if (__builtin_cpu_supports("avx512vl")) isa.push_back("avx512vl");
  if (__builtin_cpu_supports("avx2")) isa.push_back("avx2");
  if (__builtin_cpu_supports("fma")) isa.push_back("fma");
  if (__builtin_cpu_supports("avx")) isa.push_back("avx");
  if (__builtin_cpu_supports("sse4.2")) isa.push_back("sse4.2");
#endif
  std::string s;
  for (const auto& i : isa) s += (s.empty() ? "" : " ") + i;
  return s.empty() ? "(not detected)" : s;
}

// Which malloc serves the process: mimalloc when linked (meson -Dallocator), else the C library's.
std::string allocator() {
#if JITCTL_MIMALLOC
  // Linking is not proof: a library loaded ahead of it could still win malloc's symbol.
  void* probe = std::malloc(64);
  const bool serving = mi_is_in_heap_region(probe);
  std::free(probe);
  const int v = mi_version();
  return fmt::format("mimalloc {}.{}.{} ({})", v / 100, v / 10 % 10, v % 10, serving ? "serving malloc" : "linked, but not serving malloc");
#else
  return "the C library's malloc";
#endif
}

}  // namespace

// Whether the CUDA backend is built in, whether its libraries load, and which GPUs are visible.
std::string cuda_summary() {
  if (!cuda_built_in()) return "not built in (CPU only)";
  std::string why;
  CudaBackend* b = cuda_backend(&why);
  if (!b) return "built in; not loaded: " + why;
  std::string s = "built in (" + b->versions() + ")";
  const auto devices = b->devices();
  if (devices.empty()) return s + "; " + b->no_device_reason();
  for (const CudaDeviceInfo& d : devices)
    s += fmt::format("\n             cuda:{} {} (sm_{}{}, {} SMs, {})", d.index, d.name, d.major, d.minor, d.multiprocessors, human_bytes(d.memory_bytes));
  return s;
}

nlohmann::ordered_json cuda_json() {
  nlohmann::ordered_json j;
  j["built_in"] = cuda_built_in();
  std::string why;
  CudaBackend* b = cuda_built_in() ? cuda_backend(&why) : nullptr;
  j["loaded"] = b != nullptr;
  j["versions"] = b ? nlohmann::ordered_json(b->versions()) : nlohmann::ordered_json(nullptr);
  j["devices"] = nlohmann::ordered_json::array();
  if (b)
    for (const CudaDeviceInfo& d : b->devices())
      j["devices"].push_back({{"index", d.index}, {"name", d.name}, {"compute_capability", fmt::format("{}.{}", d.major, d.minor)},
                              {"multiprocessors", d.multiprocessors}, {"memory_bytes", d.memory_bytes}});
  j["note"] = !cuda_built_in() ? "not built in" : !b ? why : b->devices().empty() ? b->no_device_reason() : "";
  return j;
}

std::string version_text() {
  std::string s = fmt::format("jitctl {}\n", JITCTL_VERSION);
  s += fmt::format("built with   {}, C++{}, {} build\n", compiler(), __cplusplus / 100 % 100, JITCTL_BUILDTYPE);
  s += fmt::format("built for    {}\n", built_for());
  s += fmt::format("running on   {} ({} hardware threads): {}\n", cpu_model(), std::thread::hardware_concurrency(),
                   cpu_has());
  s += fmt::format("threads      {}\n", openmp_version());
  s += fmt::format("matrices     {}\n", blas_library());
  s += fmt::format("allocator    {}\n", allocator());
  s += fmt::format("CUDA         {}\n", cuda_summary());
  s += "file formats TorchScript archives (torch.jit.save, PyTorch 1.x and 2.x), torch.save files, .npy, .npz";
  return s;
}

}  // namespace jitctl::cli
