#pragma once
// Intra-op parallelism on the one OpenMP team, as ATen's parallel_for does it: a range is split
// into at most omp_get_max_threads() chunks, and not at all when it is smaller than `grain` or
// when already inside a parallel region (nested regions would oversubscribe the cores).
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace jitctl {

// ATen's default grain for elementwise loops.
constexpr int64_t kGrainSize = 32768;

// Below this much work (floating-point operations) per thread, waking the team and joining it
// costs more than the second thread saves: a grain of items for parallel_for. 3e5 by default;
// JITCTL_SMALL_WORK_FLOPS=N moves it (for jitctl's kernels and oneDNN's calls alike), 0 turns it off.
constexpr double kMinFlopsPerThread = 3e5;
inline double min_flops_per_thread() {
  static const double v = [] {
    const char* e = std::getenv("JITCTL_SMALL_WORK_FLOPS");
    return e && *e ? std::max(0.0, std::atof(e)) : kMinFlopsPerThread;
  }();
  return v;
}
inline int64_t grain_for_flops(double item_flops) {
  const double min = min_flops_per_thread();
  return item_flops >= min ? 1 : static_cast<int64_t>(min / std::max(item_flops, 1.0));
}

// Pieces of b items needed for a items (a >= 0, b > 0).
constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

template <class F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  if (begin >= end) return;
  const int64_t n = end - begin;
  const int64_t max_threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  const int64_t chunks = std::min<int64_t>(max_threads, (n + std::max<int64_t>(grain, 1) - 1) / std::max<int64_t>(grain, 1));
  if (chunks <= 1) {
    f(begin, end);
    return;
  }
#pragma omp parallel num_threads(static_cast<int>(chunks))
  {
    const int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int64_t step = (n + nt - 1) / nt;
    const int64_t b = begin + t * step, e = std::min(end, b + step);
    if (b < e) f(b, e);
  }
}

}  // namespace jitctl
