#pragma once
// The inter-op thread pool: one per process, shared by every caller, where `fork` runs its
// subgraphs (shared/reference/cpu_threading.txt). A small fixed set of threads takes tasks in
// submission order. Each task runs with the current intra-op setting: OpenMP's thread count is
// per thread, so a pool thread applies get_num_threads() before it runs a task.
//
// Waiting never deadlocks the pool: wait() on a task that has not started yet runs it inline on
// the waiting thread (a task only waits on tasks submitted before it, so a pool thread blocked
// in wait() always waits on work that is running elsewhere or that it runs itself).
#include <functional>
#include <memory>

namespace jitctl {

struct InteropTaskState;  // interop_pool.cpp

// A waitable handle to a submitted task; copies share the task.
class InteropFuture {
 public:
  InteropFuture() = default;
  // Blocks until the task has run (running it here if no pool thread has taken it yet), then
  // rethrows the exception the task threw, if any. May be called any number of times, from any
  // thread.
  void wait() const;
  // The task has finished (normally or with an exception).
  bool ready() const;
  bool valid() const { return state_ != nullptr; }

 private:
  friend class InteropPool;
  explicit InteropFuture(std::shared_ptr<InteropTaskState> s) : state_(std::move(s)) {}
  std::shared_ptr<InteropTaskState> state_;
};

class InteropPool {
 public:
  // The process-wide pool; its threads start on the first submit, sized by
  // get_num_interop_threads() at that moment.
  static InteropPool& global();

  InteropFuture submit(std::function<void()> task);
  // Threads in the pool (0 until the first submit).
  int size() const;
  // Finishes the queued tasks and stops the threads; the next submit starts the pool again with
  // get_num_interop_threads() threads.
  void stop();

  ~InteropPool();

 private:
  InteropPool();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Inter-op threads, as torch.set_num_interop_threads, with the same default (see
// interop_pool.cpp). Unlike PyTorch, which allows one call before the pool starts, it may be
// changed later (bench-threads sweeps it): the running pool finishes its queued tasks and stops,
// and the next submit starts one of the new size. Values below 1 are ignored.
void set_num_interop_threads(int n);
int get_num_interop_threads();

}  // namespace jitctl
