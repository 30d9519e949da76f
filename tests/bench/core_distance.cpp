// How far apart the first two CPUs this process may run on are: the mean round trip of a cache
// line bounced between two threads pinned to them, in nanoseconds, printed as one number.
//
// Why: on the 2-vCPU VMs these benchmarks run on, the host places the two vCPUs sometimes on
// cores that share a cache (a round trip of 50-90 ns) and sometimes on cores that do not (320-370
// ns), and moves them within seconds. In the far placement every engine's 2-thread calls slow
// down (an op reading what the other thread wrote pays the distance), so a 2-thread comparison is
// only fair between runs made in the same placement. speed_side_by_side.py --probe uses this to
// label its rounds.
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

namespace {

constexpr int kWarmup = 2000, kTrips = 20000;  // the warm-up covers the other thread's start
alignas(64) std::atomic<int> ball{0};

bool pin(int cpu) {
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(cpu, &s);
  return pthread_setaffinity_np(pthread_self(), sizeof s, &s) == 0;
}

}  // namespace

int main() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return 2;
  int cpus[2], found = 0;
  for (int c = 0; c < CPU_SETSIZE && found < 2; ++c)
    if (CPU_ISSET(c, &allowed)) cpus[found++] = c;
  if (found < 2) {
    std::puts("0");  // one CPU: nothing to be far from
    return 0;
  }
  if (!pin(cpus[0])) return 2;
  std::thread other([&] {
    pin(cpus[1]);
    for (int i = 0; i < kWarmup + kTrips; ++i) {
      while (ball.load(std::memory_order_acquire) != 1) {
      }
      ball.store(0, std::memory_order_release);
    }
  });
  const auto trip = [] {
    ball.store(1, std::memory_order_release);
    while (ball.load(std::memory_order_acquire) != 0) {
    }
  };
  for (int i = 0; i < kWarmup; ++i) trip();
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kTrips; ++i) trip();
  const auto t1 = std::chrono::steady_clock::now();
  other.join();
  std::printf("%.0f\n", std::chrono::duration<double, std::nano>(t1 - t0).count() / kTrips);
  return 0;
}
