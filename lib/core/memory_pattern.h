#pragma once
// A method's memory pattern: where its large tensors go, learned from one call and replayed on
// the next ones. A model called again with the same shapes allocates the same tensors in the same
// order and frees them at the same points; the pattern gives them fixed places in one arena,
// placed first-fit over their lifetimes, so a tensor takes the bytes that tensors freed just
// before it were using. Those bytes are still in the caches: a memory-bound kernel writing its
// output there skips the fetch of memory last touched a whole call ago (the buffer pool's
// steady state). Measured on MNASNet's first twelve convolutions alone: 1146 -> 830 us.
//
// Replaying never trusts the recording: an arena block is handed out only when no tensor still
// alive overlaps it (an output the caller kept, a tensor whose lifetime changed); otherwise the
// allocation falls back to the pool. A call whose sizes differ from the recording makes the
// next call record again; a pattern that keeps changing is given up.
#include <cstddef>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace jitctl {

struct PatternState;  // one per concurrent caller of a method

// The patterns of one method (a plan), for any number of threads calling it at once: each call
// takes a state of its own for its duration.
class MemoryPatterns {
 public:
  MemoryPatterns();
  ~MemoryPatterns();
  MemoryPatterns(const MemoryPatterns&) = delete;
  MemoryPatterns& operator=(const MemoryPatterns&) = delete;

 private:
  friend class MemoryPatternScope;
  std::shared_ptr<PatternState> acquire();
  void release(std::shared_ptr<PatternState> state);
  std::mutex mu_;
  std::vector<std::shared_ptr<PatternState>> idle_;
  size_t created_ = 0;
  std::atomic<uint32_t> skip_{0};  // calls to run without a pattern (see kIdleCalls)
};

// Makes the calling thread's large tensor allocations follow `patterns` until destroyed. Nested
// scopes (a method calling another through the interpreter) leave the outer one in charge.
class MemoryPatternScope {
 public:
  explicit MemoryPatternScope(MemoryPatterns& patterns);
  ~MemoryPatternScope();
  MemoryPatternScope(const MemoryPatternScope&) = delete;
  MemoryPatternScope& operator=(const MemoryPatternScope&) = delete;

 private:
  MemoryPatterns* owner_ = nullptr;
  std::shared_ptr<PatternState> state_;
};

// For the storage layer: a buffer of `bytes` (a multiple of 4 KiB) for a tensor allocated while a
// scope is active on this thread, from the arena or, recorded, from `fallback`; nullptr when no
// scope is active.
using BufferSource = std::shared_ptr<uint8_t> (*)(size_t bytes);
std::shared_ptr<uint8_t> pattern_buffer(size_t bytes, BufferSource fallback);

// Counters for tests: calls that recorded a pattern, calls that replayed one, and allocations a
// replay could not place in its arena (a live tensor overlapped the block).
struct MemoryPatternStats {
  uint64_t recorded = 0, replayed = 0, fallbacks = 0;
};
MemoryPatternStats memory_pattern_stats();

}  // namespace jitctl
