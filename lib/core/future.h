#pragma once
// The value of a prim::fork: set once by the task that runs the forked graph on the inter-op
// pool, read by aten::wait (which runs the task itself if no pool thread has started it, blocks
// until the value is set, and rethrows the task's exception).
#include <condition_variable>
#include <exception>
#include <mutex>

#include "lib/core/ivalue.h"
#include "lib/runtime/interop_pool.h"

namespace jitctl {

struct FutureData {
  InteropFuture task;  // the task that sets the value

  void set_value(IValue v) {
    {
      std::lock_guard lock(m_);
      value_ = std::move(v);
      done_ = true;
    }
    cv_.notify_all();
  }
  void set_error(std::exception_ptr e) {
    {
      std::lock_guard lock(m_);
      error_ = std::move(e);
      done_ = true;
    }
    cv_.notify_all();
  }
  IValue wait() {
    if (task.valid()) task.wait();
    std::unique_lock lock(m_);
    cv_.wait(lock, [&] { return done_; });
    if (error_) std::rethrow_exception(error_);
    return value_;
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool done_ = false;
  IValue value_;
  std::exception_ptr error_;
};

}  // namespace jitctl
