#include "lib/core/run_limits.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <mutex>

#include "lib/core/describe.h"
#include "lib/core/output_file.h"
#include "lib/core/string_literal.h"

namespace jitctl {

namespace run_limits_detail {
std::atomic<bool> stop_flag{false};
}

namespace {

// The watchdog is a SIGALRM handler every kSampleNs, not a thread: a process that starts a thread
// loses glibc's and libstdc++'s single-threaded fast paths (malloc without its lock, shared_ptr
// counts without atomics), which made a dispatch-bound model 10% slower at one thread. Everything
// the handler touches is therefore async-signal-safe: atomics, clock_gettime, raw open/read/close,
// write, unlink, _exit, and strings formatted before it was armed.
//
// The signal goes to the thread that armed the limits only (a POSIX timer aimed at its thread id,
// not setitimer's process-wide SIGALRM, which the kernel hands to any thread) and is handled on an
// alternate signal stack. oneDNN 2.x's JIT f32 GEMM kernels point rsp into a heap workspace while
// they run (oneDNN issue 4845, fixed in 3.11; Debian ships 2.6): a signal delivered on the
// interrupted stack writes its frame below that rsp, over whatever the heap holds there. A
// check-trace run at 100 us samples took ~150 signals with rsp in mimalloc's heap; under ASan the
// handler's read() into its buffer was reported as a heap overflow. On the alternate stack the
// frame lands in memory that is ours to overwrite, wherever rsp points.
constexpr int64_t kSampleNs = 50'000'000;
// How long after asking the interpreter to stop the handler ends the process itself (it is inside
// a kernel), and how long once the interpreter has taken the request (freeing what it built, a
// trace of millions of nodes, may take a while).
constexpr int64_t kGraceNs = 1'000'000'000;
constexpr int64_t kUnwindingNs = 10'000'000'000;

enum State : int { kIdle, kArmed, kExiting };
enum Reason : int { kNone, kTimeout, kMemory };

std::atomic<int> g_state{kIdle};
std::atomic<int> g_reason{kNone};
std::atomic<int64_t> g_deadline_ns{0}, g_tripped_ns{0}, g_taken_ns{0};
std::atomic<uint64_t> g_limit{0}, g_in_use{0};
// Set outside the handler (start_run_limits): sysconf and a function-local static's guard are not
// async-signal-safe.
std::atomic<uint64_t> g_page_bytes{4096};
std::atomic<bool> g_sample_rss{true};
std::atomic<uint64_t> g_last_rss{0};
// The armed thread and its alternate signal stack, for the handler's own-stack count.
std::atomic<long> g_armed_tid{0};
std::atomic<uintptr_t> g_alt_lo{0}, g_alt_hi{0};
std::atomic<uint64_t> g_looks{0}, g_looks_off_stack{0}, g_looks_off_thread{0};
std::atomic<uint64_t (*)()> g_reclaim{nullptr};

// Set while idle, read by the handler and by throw_stop_reason: messages formatted in advance.
struct Texts {
  std::string subject, timeout, memory;            // "m.pt: timed out after 5 s (--timeout 5)"
  std::string timeout_line, memory_line;           // the same as the handler prints them
  std::mutex mu;                                   // for with_limits_subject and throw_stop_reason
};
Texts& texts() {
  static Texts* t = new Texts();  // never destroyed: the handler may run during exit
  return *t;
}
// What the handler prints (pointers into texts(), published before arming).
std::atomic<const std::string*> g_line[3] = {nullptr, nullptr, nullptr};

int64_t now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// Resident anonymous memory: what the process allocated, not the model file it maps. Parsed by
// hand: sscanf is not async-signal-safe. Neither instrumented by AddressSanitizer nor through its
// read() interceptor, which checks `buf` against shadow memory: before the handler had its own
// stack, `buf` sat wherever the interrupted code's rsp pointed (oneDNN's heap workspace, above),
// and CI saw read()'s 44-45 bytes reported as a heap overflow, the report then failing inside
// itself. Raw system calls keep the sanitizers' interceptors out of the handler altogether.
#if defined(__GNUC__)
__attribute__((no_sanitize_address))
#endif
uint64_t anonymous_rss() {
  const long fd = ::syscall(SYS_openat, AT_FDCWD, "/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[128];
  const long n = ::syscall(SYS_read, fd, buf, sizeof buf - 1);
  ::syscall(SYS_close, fd);
  if (n <= 0) return 0;
  uint64_t field[3] = {0, 0, 0};
  int k = 0;
  for (long i = 0; i < n && k < 3; ++i) {
    if (buf[i] >= '0' && buf[i] <= '9') field[k] = field[k] * 10 + static_cast<uint64_t>(buf[i] - '0');
    else if (buf[i] == ' ') ++k;
  }
  return field[2] > field[1] ? 0 : (field[1] - field[2]) * g_page_bytes.load(std::memory_order_relaxed);
}

void trip(Reason r, int64_t now) {
  int none = kNone;
  if (!g_reason.compare_exchange_strong(none, r)) return;
  g_tripped_ns.store(now);
  run_limits_detail::stop_flag.store(true, std::memory_order_relaxed);
}

[[noreturn]] void end_process(Reason r) {
  remove_pending_temporaries();
  if (const std::string* line = g_line[r].load()) (void)!::write(STDERR_FILENO, line->data(), line->size());
  ::_exit(2);
}

void count_look() {
  const char here = 0;
  const auto at = reinterpret_cast<uintptr_t>(&here);
  g_looks.fetch_add(1, std::memory_order_relaxed);
  if (at < g_alt_lo.load(std::memory_order_relaxed) || at >= g_alt_hi.load(std::memory_order_relaxed))
    g_looks_off_stack.fetch_add(1, std::memory_order_relaxed);
  if (::syscall(SYS_gettid) != g_armed_tid.load(std::memory_order_relaxed))
    g_looks_off_thread.fetch_add(1, std::memory_order_relaxed);
}

void on_alarm(int) {
  const int saved_errno = errno;
  count_look();
  if (g_state.load() == kArmed) {
    const int64_t now = now_ns();
    const uint64_t limit = g_limit.load(std::memory_order_relaxed);
    const uint64_t rss = limit && g_sample_rss.load(std::memory_order_relaxed) ? anonymous_rss() : 0;
    if (rss) g_last_rss.store(rss, std::memory_order_relaxed);
    // Tensors are held to the limit exactly (charge_memory); the rest of the process gets a
    // quarter more before this backstop acts.
    const int64_t deadline = g_deadline_ns.load();
    if (g_reason.load() == kNone) {
      if (deadline && now >= deadline) trip(kTimeout, now);
      else if (limit && rss > limit + limit / 4) trip(kMemory, now);
    } else {
      const int64_t taken = g_taken_ns.load();
      const bool late = taken ? now - taken >= kUnwindingNs : now - g_tripped_ns.load() >= kGraceNs;
      int armed = kArmed;
      if ((late || (limit && rss > limit * 2)) && g_state.compare_exchange_strong(armed, kExiting))
        end_process(static_cast<Reason>(g_reason.load()));
    }
  }
  errno = saved_errno;
}

// The calling thread's alternate signal stack: one that is already there (ASan and libFuzzer
// install their own), else ours, mapped once per thread and kept for the thread's life.
void ensure_alternate_stack() {
  stack_t cur{};
  if (::sigaltstack(nullptr, &cur) == 0 && !(cur.ss_flags & SS_DISABLE) && cur.ss_sp) {
    g_alt_lo.store(reinterpret_cast<uintptr_t>(cur.ss_sp), std::memory_order_relaxed);
    g_alt_hi.store(reinterpret_cast<uintptr_t>(cur.ss_sp) + cur.ss_size, std::memory_order_relaxed);
    return;
  }
  constexpr size_t kAltStackBytes = 256 << 10;  // the sanitizers' own handlers may run on it too
  void* p = ::mmap(nullptr, kAltStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  g_alt_lo.store(0, std::memory_order_relaxed);  // none until ours is installed
  g_alt_hi.store(0, std::memory_order_relaxed);
  if (p == MAP_FAILED) return;
  stack_t ss{};
  ss.ss_sp = p;
  ss.ss_size = kAltStackBytes;
  if (::sigaltstack(&ss, nullptr) != 0) {
    ::munmap(p, kAltStackBytes);
    return;
  }
  g_alt_lo.store(reinterpret_cast<uintptr_t>(p), std::memory_order_relaxed);
  g_alt_hi.store(reinterpret_cast<uintptr_t>(p) + kAltStackBytes, std::memory_order_relaxed);
}

// A POSIX timer whose SIGALRM goes to one thread (Linux's SIGEV_THREAD_ID), made for the thread
// that arms the limits and made again if another thread arms them later.
timer_t g_timer{};
long g_timer_tid = 0;
bool g_use_itimer = false;  // timer_create refused: setitimer's process-wide signal, as before

void aim_timer_at_this_thread() {
  const long tid = ::syscall(SYS_gettid);
  g_armed_tid.store(tid, std::memory_order_relaxed);
  if (g_timer_tid == tid || g_use_itimer) return;
  if (g_timer_tid != 0) ::timer_delete(g_timer);
  g_timer_tid = 0;
  sigevent ev{};
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = SIGALRM;
#ifdef sigev_notify_thread_id
  ev.sigev_notify_thread_id = static_cast<pid_t>(tid);
#else
  ev._sigev_un._tid = static_cast<pid_t>(tid);
#endif
  if (::timer_create(CLOCK_MONOTONIC, &ev, &g_timer) == 0) g_timer_tid = tid;
  else g_use_itimer = true;
}

void set_timer(int64_t interval_ns) {
  if (g_use_itimer) {
    itimerval t{};
    t.it_interval.tv_sec = interval_ns / 1'000'000'000;
    t.it_interval.tv_usec = (interval_ns % 1'000'000'000) / 1000;
    t.it_value = t.it_interval;
    ::setitimer(ITIMER_REAL, &t, nullptr);
    return;
  }
  if (g_timer_tid == 0) return;  // never armed
  itimerspec t{};
  t.it_interval.tv_sec = interval_ns / 1'000'000'000;
  t.it_interval.tv_nsec = interval_ns % 1'000'000'000;
  t.it_value = t.it_interval;
  ::timer_settime(g_timer, 0, &t, nullptr);
}

std::string seconds_text(double s) { return fmt::format("{:g}", s); }

}  // namespace

void start_run_limits(const RunLimits& limits) {
  stop_run_limits();
  Texts& t = texts();
  {
    std::lock_guard lock(t.mu);
    t.subject = limits.subject;
    const std::string prefix = limits.subject.empty() ? "" : limits.subject + ": ";
    t.timeout = prefix + fmt::format("timed out after {} s (--timeout {})", seconds_text(limits.timeout_s),
                                     seconds_text(limits.timeout_s));
    t.memory = prefix + fmt::format("memory in use went past --max-memory {} by more than a quarter",
                                    human_bytes(limits.max_memory));
    t.timeout_line = "jitctl: " + printable_text(t.timeout) + "\n";
    t.memory_line = "jitctl: " + printable_text(t.memory) + "\n";
  }
  g_line[kTimeout].store(&t.timeout_line);
  g_line[kMemory].store(&t.memory_line);
  g_reason.store(kNone);
  g_tripped_ns.store(0);
  g_taken_ns.store(0);
  g_deadline_ns.store(limits.timeout_s > 0 ? now_ns() + static_cast<int64_t>(limits.timeout_s * 1e9) : 0);
  g_limit.store(limits.max_memory, std::memory_order_relaxed);
  g_sample_rss.store(limits.sample_rss, std::memory_order_relaxed);
  g_last_rss.store(0, std::memory_order_relaxed);
  if (const long page = ::sysconf(_SC_PAGESIZE); page > 0) g_page_bytes.store(static_cast<uint64_t>(page), std::memory_order_relaxed);
  run_limits_detail::stop_flag.store(false, std::memory_order_relaxed);
  if (limits.timeout_s <= 0 && limits.max_memory == 0) return;
  ensure_alternate_stack();
  aim_timer_at_this_thread();
  struct sigaction sa {};
  sa.sa_handler = on_alarm;
  sa.sa_flags = SA_RESTART | SA_ONSTACK;  // interrupted reads and writes carry on
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGALRM, &sa, nullptr);
  g_state.store(kArmed);
  set_timer(limits.sample_interval_ns > 0 ? limits.sample_interval_ns : kSampleNs);
}

uint64_t last_sampled_rss() { return g_last_rss.load(std::memory_order_relaxed); }

WatchdogLooks watchdog_looks() {
  return {g_looks.load(std::memory_order_relaxed), g_looks_off_stack.load(std::memory_order_relaxed),
          g_looks_off_thread.load(std::memory_order_relaxed)};
}

void stop_run_limits() {
  int armed = kArmed;
  if (!g_state.compare_exchange_strong(armed, kIdle)) {
    if (armed == kExiting)
      for (;;) ::pause();  // the handler (on another thread) prints its line and ends the process
  }
  set_timer(0);
  g_limit.store(0, std::memory_order_relaxed);
}

void throw_stop_reason() {
  const int r = g_reason.load();
  int64_t zero = 0;
  g_taken_ns.compare_exchange_strong(zero, now_ns());
  std::lock_guard lock(texts().mu);
  throw LimitReached(r == kTimeout ? texts().timeout : r == kMemory ? texts().memory : std::string("stopped"));
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
  std::lock_guard lock(texts().mu);
  if (g_state.load() == kIdle || texts().subject.empty()) return std::string(what);
  return texts().subject + ": " + std::string(what);
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
