#pragma once
// What a benchmark report says about the machine it ran on.
#include <string>

namespace jitctl {

// The "model name" of /proc/cpuinfo; "unknown" where there is none.
std::string cpu_model();

}  // namespace jitctl
