#include "tests/fuzz/fuzz_support.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <vector>

#include "lib/core/error.h"
#include "lib/core/run_limits.h"
#include "lib/core/tensor.h"

namespace jitctl::fuzz {

void expect_clean(const char* target, const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& e) {
    // JITCTL_FUZZ_VERBOSE=1: what each input was refused for (to see how far seeds get).
    static const bool verbose = std::getenv("JITCTL_FUZZ_VERBOSE") != nullptr;
    if (verbose) std::fprintf(stderr, "  %s: %s\n", target, e.what());
    if (std::string_view(e.what()).empty()) {
      std::fprintf(stderr, "fuzz %s: a jitctl::Error with an empty message\n", target);
      std::abort();
    }
  } catch (const LimitReached&) {
    // --timeout or --max-memory ending a run: exit 2 with its message, as the contract allows.
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz %s: escaped as a non-jitctl exception: %s\n", target, e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "fuzz %s: escaped as an unknown exception\n", target);
    std::abort();
  }
}

uint64_t touch(const IValue& root, size_t max_values) {
  uint64_t sum = 0;
  std::vector<IValue> todo = {root};
  size_t seen = 0;
  while (!todo.empty() && seen++ < max_values) {
    IValue v = std::move(todo.back());
    todo.pop_back();
    if (v.is_tensor()) {
      const Tensor& t = v.to_tensor();
      if (t.numel() > 0) {
        // The first and the last byte the view covers: the storage was checked to hold both.
        const auto* p = static_cast<const uint8_t*>(t.data());
        sum += p[0] + p[element_size(t.dtype()) - 1];
      }
      sum += static_cast<uint64_t>(t.numel());
    } else if (v.is(IValue::Kind::Tuple)) {
      for (const auto& x : v.to_tuple()->items) todo.push_back(x);
    } else if (v.is(IValue::Kind::List)) {
      for (const auto& x : v.to_list()->items) todo.push_back(x);
    } else if (v.is(IValue::Kind::Dict)) {
      for (const auto& [k, x] : v.to_dict()->items) todo.push_back(k), todo.push_back(x);
    } else if (v.is_object()) {
      for (const auto& [name, x] : v.to_object()->attrs) sum += name.size(), todo.push_back(x);
    }
  }
  return sum;
}

// Far below libFuzzer's -timeout (run_fuzzers.py) and -rss_limit_mb, so that a model that loops
// or allocates tensors without end ends here, as a LimitReached, before libFuzzer calls it a
// finding. Not the memory sampling: under ASan and libFuzzer the process's memory is mostly
// theirs (it went past 1.25 GiB while libFuzzer read the seeds); libFuzzer's -rss_limit_mb
// stands in for it.
RunLimits::RunLimits() {
  ::sigaction(SIGALRM, nullptr, &fuzzer_alarm_);
  ::getitimer(ITIMER_REAL, &fuzzer_timer_);
  start_run_limits({.max_memory = uint64_t{1} << 30, .timeout_s = 5, .subject = "fuzz.pt", .sample_rss = false});
}

RunLimits::~RunLimits() {
  stop_run_limits();
  ::sigaction(SIGALRM, &fuzzer_alarm_, nullptr);
  ::setitimer(ITIMER_REAL, &fuzzer_timer_, nullptr);
}

}  // namespace jitctl::fuzz
