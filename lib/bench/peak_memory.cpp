#include "lib/bench/peak_memory.h"

#include <atomic>
#include <fstream>
#include <string>

namespace jitctl {
namespace {

std::atomic<bool> g_reset_works{false};

}  // namespace

void reset_peak_memory() {
  std::ofstream f("/proc/self/clear_refs");
  f << "5";
  f.flush();
  g_reset_works.store(static_cast<bool>(f));
}

int64_t peak_memory_bytes() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6)) * 1024;  // "VmHWM:   1234 kB"
  return -1;
}

bool peak_memory_is_per_setting() { return g_reset_works.load(); }

}  // namespace jitctl
