#pragma once
// The peak resident memory of the process over one stretch of work (one bench setting), from
// Linux's high-water mark VmHWM, which writing "5" to /proc/self/clear_refs resets (Linux 4.0+).
// Where the reset is not allowed the mark is the peak since the process started, and
// peak_memory_is_per_setting() says so.
#include <cstdint>

namespace jitctl {

// Starts a new stretch: resets the high-water mark to the current resident size.
void reset_peak_memory();
// Peak resident bytes since the last reset (or since start); -1 where /proc is not readable.
int64_t peak_memory_bytes();
// Did the last reset work?
bool peak_memory_is_per_setting();

}  // namespace jitctl
