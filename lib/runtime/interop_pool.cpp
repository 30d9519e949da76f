#include "lib/runtime/interop_pool.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "lib/runtime/threads.h"

namespace jitctl {

struct InteropTaskState {
  enum : int { kPending, kRunning, kDone };
  std::function<void()> fn;
  std::atomic<int> status{kPending};
  std::exception_ptr error;
  std::mutex mu;
  std::condition_variable done_cv;

  // Runs the task once, on whichever thread claims it first.
  bool try_run() {
    int expected = kPending;
    if (!status.compare_exchange_strong(expected, kRunning)) return false;
    try {
      fn();
    } catch (...) {
      error = std::current_exception();
    }
    fn = nullptr;  // release what the task captured as soon as it is done
    {
      std::lock_guard<std::mutex> lock(mu);
      status.store(kDone);
    }
    done_cv.notify_all();
    return true;
  }
};

void InteropFuture::wait() const {
  if (!state_) return;
  if (!state_->try_run()) {
    std::unique_lock<std::mutex> lock(state_->mu);
    state_->done_cv.wait(lock, [&] { return state_->status.load() == InteropTaskState::kDone; });
  }
  if (state_->error) std::rethrow_exception(state_->error);
}

bool InteropFuture::ready() const { return state_ && state_->status.load() == InteropTaskState::kDone; }

namespace {

std::atomic<int> g_num_interop_threads{0};  // 0: not set, default_num_threads()

// One set of worker threads with its queue; replaced as a whole when the size changes.
class Workers {
 public:
  explicit Workers(int n) {
    for (int i = 0; i < n; ++i) threads_.emplace_back([this] { loop(); });
  }
  void push(std::shared_ptr<InteropTaskState> task) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(std::move(task));
    }
    cv_.notify_one();
  }
  // Finishes the queued tasks, then joins the threads.
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
    threads_.clear();
  }
  int size() const { return static_cast<int>(threads_.size()); }

 private:
  void loop() {
    for (;;) {
      std::shared_ptr<InteropTaskState> task;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      apply_num_threads_here();
      task->try_run();  // false: a waiter already ran it inline
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<InteropTaskState>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace

struct InteropPool::Impl {
  std::mutex mu;
  std::shared_ptr<Workers> workers;  // null until the first submit
};

InteropPool& InteropPool::global() {
  static InteropPool pool;
  return pool;
}

InteropPool::InteropPool() : impl_(std::make_unique<Impl>()) {}

InteropPool::~InteropPool() { stop(); }

InteropFuture InteropPool::submit(std::function<void()> task) {
  auto state = std::make_shared<InteropTaskState>();
  state->fn = std::move(task);
  // Pushing under the pool's lock means a concurrent stop() either sees this task queued (and
  // drains it) or has already swapped in the next set of workers.
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (!impl_->workers) impl_->workers = std::make_shared<Workers>(get_num_interop_threads());
  impl_->workers->push(state);
  return InteropFuture(std::move(state));
}

int InteropPool::size() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->workers ? impl_->workers->size() : 0;
}

void InteropPool::stop() {
  std::shared_ptr<Workers> old;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    old = std::move(impl_->workers);
  }
  if (old) old->stop();
}

void set_num_interop_threads(int n) {
  if (n < 1) return;
  if (g_num_interop_threads.exchange(n) != n) InteropPool::global().stop();
}

int get_num_interop_threads() {
  const int n = g_num_interop_threads.load();
  return n > 0 ? n : default_num_threads();
}

}  // namespace jitctl
