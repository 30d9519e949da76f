#include "lib/core/run_limits.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <thread>

#include "lib/core/describe.h"
#include "lib/core/output_file.h"
#include "lib/core/string_literal.h"

namespace jitctl {

namespace run_limits_detail {
std::atomic<bool> stop_flag{false};
}

namespace {

using Clock = std::chrono::steady_clock;

// How often the watchdog looks; how long after asking the interpreter to stop it ends the process
// itself; how far past the limit anonymous memory may go before it does so at once.
constexpr auto kSample = std::chrono::milliseconds(50);
constexpr auto kGrace = std::chrono::seconds(1);
// Once the interpreter has taken the request (thrown LimitReached), freeing what it built (a trace
// of millions of nodes) may take a while: the process is left that long to end with its message.
constexpr auto kUnwinding = std::chrono::seconds(10);

std::atomic<uint64_t> g_limit{0}, g_in_use{0};
std::atomic<uint64_t (*)()> g_reclaim{nullptr};

struct Watch {
  std::mutex mu;
  std::condition_variable cv;
  RunLimits limits;
  Clock::time_point deadline{};
  bool armed = false, started = false, exiting = false, tripped = false, taken = false;
  Clock::time_point tripped_at{}, taken_at{};
  std::string reason;
};

// Never destroyed: the watchdog thread may still look at it while static objects are torn down.
Watch& watch() {
  static Watch* w = new Watch();
  return *w;
}

// Resident anonymous memory: what the process allocated, not the model file it maps.
uint64_t anonymous_rss() {
  const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[128];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  unsigned long long size = 0, resident = 0, shared = 0;
  if (std::sscanf(buf, "%llu %llu %llu", &size, &resident, &shared) != 3 || shared > resident) return 0;
  return (resident - shared) * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

std::string seconds_text(double s) { return fmt::format("{:g}", s); }

[[noreturn]] void end_process(const std::string& reason) {
  remove_pending_temporaries();
  const std::string line = "jitctl: " + printable_text(reason) + "\n";
  (void)!::write(STDERR_FILENO, line.data(), line.size());
  ::_exit(2);
}

void trip(Watch& w, std::string what) {
  w.tripped = true;
  w.tripped_at = Clock::now();
  w.reason = w.limits.subject.empty() ? std::move(what) : w.limits.subject + ": " + what;
  run_limits_detail::stop_flag.store(true, std::memory_order_relaxed);
}

void watchdog() {
  Watch& w = watch();
  std::unique_lock lock(w.mu);
  for (;;) {
    w.cv.wait_for(lock, kSample);
    if (!w.armed) continue;
    const auto now = Clock::now();
    const uint64_t limit = w.limits.max_memory;
    const uint64_t rss = limit ? anonymous_rss() : 0;
    // Tensors are held to the limit exactly (charge_memory); the rest of the process gets a
    // quarter more before the backstop acts.
    const uint64_t backstop = limit + limit / 4;
    if (!w.tripped) {
      if (w.limits.timeout_s > 0 && now >= w.deadline)
        trip(w, fmt::format("timed out after {} s (--timeout {})", seconds_text(w.limits.timeout_s),
                            seconds_text(w.limits.timeout_s)));
      else if (limit && rss > backstop)
        trip(w, fmt::format("memory in use ({}) went past --max-memory {} by more than a quarter", human_bytes(rss),
                            human_bytes(limit)));
      continue;
    }
    // The interpreter was asked to stop and has not: it is inside a kernel (or memory still
    // grows). End the process here, once.
    const bool late = w.taken ? now - w.taken_at >= kUnwinding : now - w.tripped_at >= kGrace;
    if (late || (limit && rss > limit * 2)) {
      w.exiting = true;
      const std::string reason = w.reason;
      lock.unlock();
      end_process(reason);
    }
  }
}

}  // namespace

void start_run_limits(const RunLimits& limits) {
  Watch& w = watch();
  {
    std::lock_guard lock(w.mu);
    w.limits = limits;
    w.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limits.timeout_s));
    w.armed = limits.timeout_s > 0 || limits.max_memory > 0;
    w.tripped = w.taken = false;
    w.reason.clear();
    run_limits_detail::stop_flag.store(false, std::memory_order_relaxed);
    g_limit.store(limits.max_memory, std::memory_order_relaxed);
    if (w.armed && !w.started) {
      w.started = true;
      std::thread(watchdog).detach();
    }
  }
  w.cv.notify_all();
}

void stop_run_limits() {
  Watch& w = watch();
  std::unique_lock lock(w.mu);
  if (w.exiting) {
    lock.unlock();
    for (;;) ::pause();  // the watchdog prints its line and ends the process
  }
  w.armed = false;
  g_limit.store(0, std::memory_order_relaxed);
}

void throw_stop_reason() {
  Watch& w = watch();
  std::string reason;
  {
    std::lock_guard lock(w.mu);
    reason = w.reason;
    if (w.tripped && !w.taken) w.taken = true, w.taken_at = Clock::now();
  }
  throw LimitReached(reason.empty() ? "stopped" : reason);
}

void charge_memory(size_t bytes) {
  const uint64_t limit = g_limit.load(std::memory_order_relaxed);
  if (limit == 0) {
    g_in_use.fetch_add(bytes, std::memory_order_relaxed);
    return;
  }
  bool reclaimed = false;
  uint64_t held = g_in_use.load(std::memory_order_relaxed);
  for (;;) {
    if (held + bytes <= limit && held + bytes >= held) {
      if (g_in_use.compare_exchange_weak(held, held + bytes, std::memory_order_relaxed)) return;
      continue;
    }
    auto reclaim = g_reclaim.load();
    if (reclaimed || !reclaim) break;
    reclaim();  // the buffers kept for reuse are given back first
    reclaimed = true;
    held = g_in_use.load(std::memory_order_relaxed);
  }
  throw LimitReached(with_limits_subject(fmt::format("a tensor of {} (with {} of tensors held) would go past --max-memory {}",
                                                    human_bytes(bytes), human_bytes(held), human_bytes(limit))));
}

std::string with_limits_subject(std::string_view what) {
  std::lock_guard lock(watch().mu);
  const std::string& subject = watch().limits.subject;
  return subject.empty() ? std::string(what) : subject + ": " + std::string(what);
}

void release_memory(size_t bytes) { g_in_use.fetch_sub(bytes, std::memory_order_relaxed); }

uint64_t memory_in_use() { return g_in_use.load(std::memory_order_relaxed); }

void set_memory_reclaimer(uint64_t (*reclaim)()) { g_reclaim.store(reclaim); }

uint64_t available_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  uint64_t bytes = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : (uint64_t{8} << 30);
  // A container's memory limit (cgroup v2, then v1) when it is lower.
  for (const char* file : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream f(file);
    unsigned long long v = 0;
    if (f >> v && v > 0 && v < bytes) bytes = v;
  }
  return bytes;
}

uint64_t default_max_memory() { return available_memory_bytes() / 2; }

std::optional<uint64_t> parse_memory_size(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  const std::string number(text.substr(0, i));
  if (number.empty() || number == "." || number.find('.') != number.rfind('.')) return std::nullopt;
  std::string unit;
  for (char c : text.substr(i)) unit += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  double scale = 1;
  if (!unit.empty() && unit != "B") {
    const std::string units = "KMGT";
    const size_t u = units.find(unit[0]);
    const std::string rest = unit.substr(1);
    if (u == std::string::npos || !(rest.empty() || rest == "B" || rest == "IB")) return std::nullopt;
    scale = std::pow(1024.0, static_cast<double>(u + 1));
  }
  const double bytes = std::strtod(number.c_str(), nullptr) * scale;
  if (!(bytes >= 1) || bytes >= 9.2e18) return std::nullopt;
  return static_cast<uint64_t>(bytes);
}

}  // namespace jitctl
