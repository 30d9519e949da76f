#include "lib/bench/measure.h"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <exception>
#include <thread>
#include <utility>

#include "lib/bench/peak_memory.h"
#include "lib/runtime/interop_pool.h"
#include "lib/runtime/threads.h"

namespace jitctl {
namespace {

double ms_between(BenchClock::time_point a, BenchClock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace

RoundResult measure_round(const CallFn& call, const BenchSetting& setting, int warmup, int iters,
                          BenchClock::time_point deadline) {
  const auto round_start = BenchClock::now();
  set_num_interop_threads(setting.inter_op_threads);
  set_num_threads(setting.intra_op_threads);
  reset_peak_memory();

  const size_t n = static_cast<size_t>(std::max(1, setting.concurrency));
  std::vector<std::vector<double>> lat(n);
  std::vector<double> first(n, 0);
  std::vector<std::exception_ptr> errors(n);
  std::vector<BenchClock::time_point> began(n), ended(n);
  std::atomic<bool> cut{false};
  // Callers warm up, then all start their timed calls together. The timed phase's wall time, from
  // the first caller's start to the last one's end, gives the throughput; the callers stamp it
  // themselves (a separate timing thread could wake late on a busy machine and miss the work).
  std::barrier warmed(static_cast<std::ptrdiff_t>(n));
  // A call (after the first) does not start when, taking as long as the caller's previous one,
  // it would end after the deadline.
  std::vector<BenchClock::duration> last(n);
  auto fits = [&](size_t c, int calls = 1) { return BenchClock::now() + calls * last[c] <= deadline; };
  auto warm = [&](size_t c) {
    try {
      auto t0 = BenchClock::now();
      call(c);
      last[c] = BenchClock::now() - t0;
      first[c] = std::chrono::duration<double, std::milli>(last[c]).count();
      // Warm-up leaves room for one timed call: a share that holds two calls measures one.
      for (int i = 1; i < warmup && fits(c, iters > 0 ? 2 : 1); ++i) {
        t0 = BenchClock::now();
        call(c);
        last[c] = BenchClock::now() - t0;
      }
    } catch (...) {
      errors[c] = std::current_exception();
    }
  };
  auto timed = [&](size_t c) {
    began[c] = BenchClock::now();
    if (!errors[c]) {
      try {
        lat[c].reserve(static_cast<size_t>(std::min(iters, 1 << 16)));  // a huge --iters under --max-seconds never runs in full
        for (int i = 0; i < iters; ++i) {
          if (!fits(c)) {
            cut.store(true);
            break;
          }
          const auto t0 = BenchClock::now();
          call(c);
          last[c] = BenchClock::now() - t0;
          lat[c].push_back(std::chrono::duration<double, std::milli>(last[c]).count());
        }
      } catch (...) {
        errors[c] = std::current_exception();
      }
    }
    ended[c] = BenchClock::now();
  };
  if (n == 1) {
    warm(0);
    timed(0);
  } else {
    std::vector<std::thread> callers;
    callers.reserve(n);
    for (size_t c = 0; c < n; ++c)
      callers.emplace_back([&, c] {
        apply_num_threads_here();  // a new thread starts with OpenMP's default, not the setting
        warm(c);
        warmed.arrive_and_wait();
        timed(c);
      });
    for (auto& t : callers) t.join();
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);

  RoundResult r;
  r.wall_ms = ms_between(*std::min_element(began.begin(), began.end()), *std::max_element(ended.begin(), ended.end()));
  for (const auto& l : lat) r.latencies_ms.insert(r.latencies_ms.end(), l.begin(), l.end());
  r.first_call_ms = *std::max_element(first.begin(), first.end());
  r.throughput_per_s = r.wall_ms > 0 ? static_cast<double>(r.latencies_ms.size()) / (r.wall_ms / 1000.0) : 0;
  r.cut_short = cut.load();
  r.peak_memory_bytes = peak_memory_bytes();
  r.seconds = ms_between(round_start, BenchClock::now()) / 1000.0;
  return r;
}

}  // namespace jitctl
