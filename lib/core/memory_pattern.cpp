#include "lib/core/memory_pattern.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <map>
#include <new>

#include "lib/core/run_limits.h"
#include "lib/core/storage.h"

namespace jitctl {
namespace {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
constexpr std::align_val_t kArenaAlign{4096};
// Past this many large tensors in one call the placement (quadratic in the live set) is not
// worth it; such a method keeps the pool.
constexpr size_t kMaxBlocks = 1 << 14;
// Callers of one method that get a pattern of their own; more run on the pool.
constexpr size_t kMaxStates = 4;
// Calls whose allocations differed from the recording before a state gives up its pattern
// (a method whose shapes change from call to call).
constexpr int kMaxDeviations = 4;
// Calls a method that allocated no large tensors runs without a pattern before it records again
// (its shapes may have grown).
constexpr uint32_t kIdleCalls = 64;

std::atomic<uint64_t> g_recorded{0}, g_replayed{0}, g_fallbacks{0};

// One call's large allocations in order: size, and the clock at allocation and at release.
struct Recording {
  struct Block {
    size_t bytes;
    uint64_t born;
    uint64_t died = kNever;  // still alive when the call returned: an output or kept state
  };
  std::mutex mu;
  std::vector<Block> blocks;
  uint64_t clock = 0;
  bool open = true;

  size_t add(size_t bytes) {
    std::lock_guard lock(mu);
    blocks.push_back({bytes, clock++});
    return blocks.size() - 1;
  }
  void died(size_t k) {
    std::lock_guard lock(mu);
    if (open) blocks[k].died = clock++;
  }
};

// The replayed call's memory. Blocks in use are tracked by offset so that two live tensors never
// share bytes, whatever the recording said.
struct Arena {
  uint8_t* base = nullptr;
  size_t bytes = 0;
  std::mutex mu;
  std::map<size_t, size_t> live;  // offset -> end

  explicit Arena(size_t n) : bytes(n) {
    charge_memory(n);
    try {
      base = static_cast<uint8_t*>(::operator new[](n, kArenaAlign));
    } catch (const std::bad_alloc&) {
      release_memory(n);
      throw;
    }
  }
  ~Arena() {
    ::operator delete[](base, kArenaAlign);
    release_memory(bytes);
  }
  bool take(size_t off, size_t n) {
    std::lock_guard lock(mu);
    auto next = live.lower_bound(off);
    if (next != live.end() && next->first < off + n) return false;
    if (next != live.begin() && std::prev(next)->second > off) return false;
    live.emplace(off, off + n);
    return true;
  }
  void give(size_t off) {
    std::lock_guard lock(mu);
    live.erase(off);
  }
};

// First fit over lifetimes, in allocation order: each block goes to the lowest offset that no
// block alive at its allocation overlaps. Lowest-first keeps the arena compact, so a new tensor
// lands on bytes freed moments ago.
size_t place(const std::vector<Recording::Block>& blocks, std::vector<size_t>& offsets) {
  offsets.assign(blocks.size(), 0);
  std::vector<size_t> alive;  // indices placed and not yet dead, by offset
  size_t top = 0;
  for (size_t k = 0; k < blocks.size(); ++k) {
    const uint64_t now = blocks[k].born;
    std::erase_if(alive, [&](size_t j) { return blocks[j].died <= now; });
    size_t at = 0;
    for (size_t j : alive) {  // sorted by offset
      if (offsets[j] >= at + blocks[k].bytes) break;
      at = std::max(at, offsets[j] + blocks[j].bytes);
    }
    offsets[k] = at;
    top = std::max(top, at + blocks[k].bytes);
    auto pos = std::lower_bound(alive.begin(), alive.end(), k, [&](size_t a, size_t b) { return offsets[a] < offsets[b]; });
    alive.insert(pos, k);
  }
  return top;
}

}  // namespace

struct PatternState {
  enum class Mode { Record, Replay, Off };
  Mode mode = Mode::Record;
  std::shared_ptr<Recording> recording;
  std::vector<size_t> sizes, offsets;
  size_t arena_bytes = 0;
  std::shared_ptr<Arena> arena;
  size_t next = 0;
  bool deviated = false;
  int deviations = 0;
  bool idle = false;  // the call just recorded had no large tensors

  // Whether the call runs under this state.
  bool begin() {
    if (mode == Mode::Record) {
      recording = std::make_shared<Recording>();
      return true;
    }
    if (mode == Mode::Replay) {
      if (!arena || arena->bytes < arena_bytes) {
        try {
          arena = std::make_shared<Arena>(arena_bytes);
        } catch (const std::exception&) {  // over the memory limit or the machine's: the pool serves
          give_up();
          return false;
        }
        // The recording call's buffers wait in the pool; the arena replaces them.
        trim_buffer_pool(arena_bytes);
      }
      next = 0;
      deviated = false;
      return true;
    }
    return false;
  }

  void end() {
    if (mode == Mode::Record) {
      std::vector<Recording::Block> blocks;
      {
        std::lock_guard lock(recording->mu);
        recording->open = false;
        blocks.swap(recording->blocks);
      }
      recording.reset();
      g_recorded.fetch_add(1, std::memory_order_relaxed);
      if (blocks.size() > kMaxBlocks) return give_up();
      if (blocks.size() < 2) {  // nothing to place: skip a while, then look again
        idle = true;
        return;
      }
      sizes.clear();
      for (const auto& b : blocks) sizes.push_back(b.bytes);
      arena_bytes = place(blocks, offsets);
      mode = Mode::Replay;
      return;
    }
    if (deviated || next != sizes.size()) {
      if (++deviations >= kMaxDeviations) return give_up();
      mode = Mode::Record;
      return;
    }
    g_replayed.fetch_add(1, std::memory_order_relaxed);
  }

  void give_up() {
    mode = Mode::Off;
    arena.reset();
    sizes.clear();
    offsets.clear();
  }

  std::shared_ptr<uint8_t> buffer(size_t bytes, BufferSource fallback) {
    if (mode == Mode::Record) {
      if (recording->blocks.size() > kMaxBlocks) return fallback(bytes);
      const size_t k = recording->add(bytes);
      std::shared_ptr<uint8_t> b = fallback(bytes);
      uint8_t* p = b.get();
      return std::shared_ptr<uint8_t>(p, [b = std::move(b), rec = recording, k](uint8_t*) mutable {
        rec->died(k);
        b.reset();
      });
    }
    const size_t k = next++;
    if (deviated || k >= sizes.size() || sizes[k] != bytes) {
      deviated = true;
      return fallback(bytes);
    }
    if (!arena->take(offsets[k], bytes)) {
      g_fallbacks.fetch_add(1, std::memory_order_relaxed);
      return fallback(bytes);
    }
    const size_t off = offsets[k];
    return std::shared_ptr<uint8_t>(arena->base + off, [a = arena, off](uint8_t*) { a->give(off); });
  }
};

namespace {
thread_local PatternState* t_active = nullptr;
}  // namespace

MemoryPatterns::MemoryPatterns() = default;
MemoryPatterns::~MemoryPatterns() = default;

std::shared_ptr<PatternState> MemoryPatterns::acquire() {
  std::lock_guard lock(mu_);
  if (!idle_.empty()) {
    auto s = std::move(idle_.back());
    idle_.pop_back();
    return s;
  }
  if (created_ >= kMaxStates) return nullptr;
  ++created_;
  return std::make_shared<PatternState>();
}

void MemoryPatterns::release(std::shared_ptr<PatternState> state) {
  std::lock_guard lock(mu_);
  idle_.push_back(std::move(state));
}

MemoryPatternScope::MemoryPatternScope(MemoryPatterns& patterns) {
  if (t_active) return;
  // A method without large tensors (most small models) pays a load and a store per call here
  // instead of two locks; the count may race between callers, which only moves the next look.
  if (const uint32_t skip = patterns.skip_.load(std::memory_order_relaxed)) {
    patterns.skip_.store(skip - 1, std::memory_order_relaxed);
    return;
  }
  state_ = patterns.acquire();
  if (!state_) return;
  owner_ = &patterns;
  if (state_->begin()) t_active = state_.get();
}

MemoryPatternScope::~MemoryPatternScope() {
  if (!state_) return;
  if (t_active == state_.get()) {
    t_active = nullptr;
    state_->end();
    if (state_->idle) {
      state_->idle = false;
      owner_->skip_.store(kIdleCalls, std::memory_order_relaxed);
    }
  }
  owner_->release(std::move(state_));
}

std::shared_ptr<uint8_t> pattern_buffer(size_t bytes, BufferSource fallback) {
  return t_active ? t_active->buffer(bytes, fallback) : nullptr;
}

MemoryPatternStats memory_pattern_stats() {
  return {g_recorded.load(), g_replayed.load(), g_fallbacks.load()};
}

}  // namespace jitctl
