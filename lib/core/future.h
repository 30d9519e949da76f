#pragma once
// The value of a prim::fork (IValue::Kind::Future): set once by the task that runs the forked
// graph, read by aten::wait, which first lets the producer finish its work (the runtime runs a
// fork's task on the waiting thread when no inter-op thread has started it), then blocks until
// the value is set and rethrows the task's exception.
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>

#include "lib/core/ivalue.h"

namespace jitctl {

struct FutureData {
  // Set by whoever makes the future: called by wait() before it blocks (for a fork, waiting for
  // its inter-op task, which runs it here if it has not started). May be empty.
  std::function<void()> wait_for_producer;

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
    if (wait_for_producer) wait_for_producer();
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
