#pragma once
// What running a model may take (--max-memory, --timeout on run, check-trace and bench-threads):
//   - tensor memory: every storage is charged here before it is allocated (lib/core/storage.cpp),
//     so a model asking for a 4 TiB tensor is refused at once, naming the op, not killed by the OS;
//   - time: a deadline;
//   - everything else (a list grown without end): a watchdog samples the process's anonymous
//     memory (RSS minus file-backed pages) against the same limit.
// The watchdog is a SIGALRM handler every 50 ms while limits are armed (not a thread), on the
// arming thread's alternate signal stack (run_limits.cpp says why). The interpreter stops
// cooperatively: it reads stop_requested() at every loop back edge and before every kernel, and
// throws LimitReached, which names the function and the node it was running. A
// model stuck inside one long kernel never reaches such a point: the watchdog then removes the
// temporary files of outputs being written (output_file.h), prints one line and ends the process
// with exit status 2 (_exit, so no OpenMP thread is waited for).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace jitctl {

// A limit was reached: exit 2. Deliberately not an Error, so that code which records a model's
// errors as a finding (check-trace) or falls back to another kernel on an InvalidInput lets it
// through to the command. `located` is set once the interpreter has added where it happened.
class LimitReached : public std::runtime_error {
 public:
  explicit LimitReached(const std::string& what, bool located = false) : std::runtime_error(what), located_(located) {}
  bool located() const { return located_; }

 private:
  bool located_;
};

struct RunLimits {
  uint64_t max_memory = 0;  // bytes; 0: none
  double timeout_s = 0;     // seconds; 0: none
  std::string subject;      // what messages start with: the model's path
  // Whether the watchdog also holds the process's anonymous memory to the limit (plus a quarter).
  // Off only where the process's memory is not the model's (a fuzzer under ASan: its shadow
  // memory, quarantine and corpus); tensors are held to the limit either way.
  bool sample_rss = true;
  // How often the watchdog looks (0: every 50 ms). Tests look far more often, to meet the races
  // between the handler and the code it interrupts that a real run meets once in thousands.
  int64_t sample_interval_ns = 0;
};

// Arms the limits for the rest of the command (a second call replaces the first's).
void start_run_limits(const RunLimits& limits);
// The process's anonymous resident memory at the watchdog's latest look (bytes; 0 before one).
uint64_t last_sampled_rss();
// How many times the watchdog looked since the process started, and how many of those ran
// anywhere but on the armed thread's alternate signal stack, or on another thread (both stay 0:
// see run_limits.cpp for why a signal on the interrupted stack is not safe).
struct WatchdogLooks {
  uint64_t looks = 0, off_own_stack = 0, off_armed_thread = 0;
};
WatchdogLooks watchdog_looks();
// The command is over: the watchdog will not act any more. If it is already ending the process
// (from another thread), waits for that instead of returning (so exactly one message is printed).
void stop_run_limits();

// Limits for the lifetime of a command's callback: stopped however it ends.
class RunLimitsScope {
 public:
  explicit RunLimitsScope(const RunLimits& limits) { start_run_limits(limits); }
  ~RunLimitsScope() { stop_run_limits(); }
  RunLimitsScope(const RunLimitsScope&) = delete;
  RunLimitsScope& operator=(const RunLimitsScope&) = delete;
};

namespace run_limits_detail {
extern std::atomic<bool> stop_flag;
}

// One relaxed load: cheap enough for every loop iteration of the interpreter.
inline bool stop_requested() { return run_limits_detail::stop_flag.load(std::memory_order_relaxed); }
// Throws LimitReached with why the run must stop ("m.pt: timed out after 5 s (--timeout 5)").
[[noreturn]] void throw_stop_reason();
inline void check_stop() {
  if (stop_requested()) throw_stop_reason();
}

// "m.pt: <what>": `what` after the subject of the limits in force (as it is, without any).
std::string with_limits_subject(std::string_view what);

// Tensor memory. charge_memory throws LimitReached when `bytes` more would go past the limit
// (after giving back the buffers kept for reuse); release_memory gives bytes back.
void charge_memory(size_t bytes);
void release_memory(size_t bytes);
// Bytes charged and not released.
uint64_t memory_in_use();
// storage.cpp's pool of free buffers: frees them all and returns how many bytes that released.
void set_memory_reclaimer(uint64_t (*reclaim)());

// Physical memory, or the cgroup's memory limit when that is lower.
uint64_t available_memory_bytes();
// The default --max-memory: half of available_memory_bytes().
uint64_t default_max_memory();
// "512M", "2G", "1.5GiB", "64KB", "1000000" -> bytes (K, M, G, T are powers of 1024, with or
// without "B" or "iB"); nullopt when the text is not such a size or is 0.
std::optional<uint64_t> parse_memory_size(std::string_view text);

}  // namespace jitctl
