#include "lib/bench/measure.h"

#include <algorithm>
#include <barrier>
#include <chrono>
#include <exception>
#include <thread>
#include <utility>

#include "lib/runtime/interop_pool.h"
#include "lib/runtime/threads.h"

namespace jitctl {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

}  // namespace

BenchRow measure(const Method& m, const std::vector<IValue>& args, const BenchSetting& setting, int warmup, int iters) {
  const int concurrency = setting.concurrency;
  set_num_interop_threads(setting.inter_op_threads);
  set_num_threads(setting.intra_op_threads);
  BenchRow row;
  row.setting = setting;
  const size_t n = static_cast<size_t>(concurrency);
  std::vector<std::vector<double>> lat(n);
  std::vector<double> first(n);
  std::vector<std::exception_ptr> errors(n);
  std::vector<Clock::time_point> began(n), ended(n);
  // Callers warm up, then all start their timed calls together. The timed phase's wall time, from
  // the first caller's start to the last one's end, gives the throughput; the callers stamp it
  // themselves (a separate timing thread could wake late on a busy machine and miss the work).
  std::barrier warmed(concurrency);
  auto warm = [&](size_t c) {
    try {
      const auto t0 = Clock::now();
      m(args);
      first[c] = ms_since(t0);
      for (int i = 1; i < warmup; ++i) m(args);
    } catch (...) {
      errors[c] = std::current_exception();
    }
  };
  auto timed = [&](size_t c) {
    began[c] = Clock::now();
    if (!errors[c]) {
      try {
        lat[c].reserve(static_cast<size_t>(iters));
        for (int i = 0; i < iters; ++i) {
          const auto t0 = Clock::now();
          m(args);
          lat[c].push_back(ms_since(t0));
        }
      } catch (...) {
        errors[c] = std::current_exception();
      }
    }
    ended[c] = Clock::now();
  };
  if (concurrency == 1) {  // on this thread, as `m(*inputs)` in a Python loop
    warm(0);
    timed(0);
  } else {
    std::vector<std::thread> callers;
    for (size_t c = 0; c < n; ++c)
      callers.emplace_back([&, c] {
        apply_num_threads_here();  // OpenMP's thread count is per thread
        warm(c);
        warmed.arrive_and_wait();
        timed(c);
      });
    for (auto& t : callers) t.join();
  }
  const double wall_ms =
      std::chrono::duration<double, std::milli>(*std::max_element(ended.begin(), ended.end()) -
                                                *std::min_element(began.begin(), began.end()))
          .count();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);

  std::vector<double> all;
  for (const auto& l : lat) all.insert(all.end(), l.begin(), l.end());
  row.first_call_ms = *std::max_element(first.begin(), first.end());
  row.throughput_per_s = wall_ms > 0 ? static_cast<double>(all.size()) / (wall_ms / 1000.0) : 0;
  row.latency_ms = summarize_latencies(std::move(all));
  return row;
}

}  // namespace jitctl
