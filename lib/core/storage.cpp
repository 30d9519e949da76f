#include "lib/core/storage.h"

#include <fmt/format.h>

#include <cstring>
#include <limits>
#include <mutex>
#include <new>
#include <vector>

#include "lib/core/describe.h"
#include "lib/core/error.h"
#include "lib/core/memory_pattern.h"
#include "lib/core/run_limits.h"

namespace jitctl {
namespace {

constexpr std::align_val_t kAlign{64};

// Every tensor buffer of the pool's sizes is charged to the memory limit before it is allocated
// (run_limits.h), and an allocation the system refuses is the same error: the interpreter names
// the op either way.
uint8_t* new_charged(size_t bytes) {
  charge_memory(bytes);
  try {
    return static_cast<uint8_t*>(::operator new[](bytes, kAlign));
  } catch (const std::bad_alloc&) {
    release_memory(bytes);
    throw LimitReached(with_limits_subject(fmt::format("out of memory allocating a tensor of {}", human_bytes(bytes))));
  }
}

void delete_charged(uint8_t* p, size_t bytes) {
  ::operator delete[](p, kAlign);
  release_memory(bytes);
}

// Buffers of 32 KiB and more freed by one call are what the next call of the same model asks
// for: keeping them saves the page faults and the kernel's zero-filling of freshly mapped memory,
// which the allocator would otherwise pay on every call (it returns blocks this large to the
// OS). A request takes the most recently freed buffer that fits it with at most a quarter to
// spare: the most recently freed is the one most likely still in the caches, so an output is
// written into cache-resident memory instead of memory that must first be fetched (for large
// activations, what decides a memory-bound kernel's speed: measured here, MobileNetV2 and
// EfficientNet-B0 5-6% faster than taking the last buffer of the exact size, the same peak memory).
// With the interpreter releasing each value at its last use, this is the memory plan.
class BufferPool {
 public:
  static constexpr size_t kMinBytes = size_t{32} << 10;
  static constexpr size_t kGranule = size_t{4} << 10;
  static constexpr size_t kMaxCached = size_t{1} << 30;
  static constexpr size_t kMaxFree = 256;  // buffers kept; the oldest go first

  static BufferPool& global() {
    static BufferPool* pool = new BufferPool();  // never destroyed: storages may outlive statics
    return *pool;
  }
  static size_t rounded(size_t n) { return (n + kGranule - 1) / kGranule * kGranule; }

  // Buffers kept here stay charged to the memory limit (run_limits.h): they are memory the
  // process holds. A charge that does not fit gives them back first (reclaim).
  // A buffer of at least `bytes` (a multiple of kGranule); `capacity` gets its size.
  uint8_t* get(size_t bytes, size_t& capacity) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      const size_t most = bytes + bytes / 4;
      for (size_t i = free_.size(); i-- > 0;) {
        if (free_[i].bytes < bytes || free_[i].bytes > most) continue;
        uint8_t* p = free_[i].data;
        capacity = free_[i].bytes;
        cached_ -= capacity;
        free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(i));
        return p;
      }
    }
    capacity = bytes;
    return new_charged(bytes);
  }
  void put(uint8_t* p, size_t bytes) {
    std::vector<Free> evicted;
    {
      std::lock_guard<std::mutex> lock(mu_);
      free_.push_back({p, bytes});
      cached_ += bytes;
      while (!free_.empty() && (cached_ > kMaxCached || free_.size() > kMaxFree)) {
        evicted.push_back(free_.front());
        cached_ -= free_.front().bytes;
        free_.erase(free_.begin());
      }
    }
    for (const Free& f : evicted) delete_charged(f.data, f.bytes);
  }
  // Gives back the oldest kept buffers, at least `bytes` of them (or all); returns how many bytes.
  uint64_t trim(size_t bytes) {
    std::vector<Free> evicted;
    {
      std::lock_guard<std::mutex> lock(mu_);
      size_t freed = 0;
      while (!free_.empty() && freed < bytes) {
        evicted.push_back(free_.front());
        freed += free_.front().bytes;
        cached_ -= free_.front().bytes;
        free_.erase(free_.begin());
      }
    }
    uint64_t released = 0;
    for (const Free& f : evicted) delete_charged(f.data, f.bytes), released += f.bytes;
    return released;
  }
  uint64_t reclaim() { return trim(std::numeric_limits<size_t>::max()); }

 private:
  struct Free {
    uint8_t* data;
    size_t bytes;
  };
  std::mutex mu_;
  std::vector<Free> free_;  // most recently freed last
  size_t cached_ = 0;
};

std::shared_ptr<uint8_t> pooled_buffer(size_t bytes) {
  size_t capacity = 0;
  uint8_t* p = BufferPool::global().get(bytes, capacity);
  return std::shared_ptr<uint8_t>(p, [capacity](uint8_t* q) { BufferPool::global().put(q, capacity); });
}

// 64-byte alignment keeps vectorized kernels on aligned loads.
std::shared_ptr<uint8_t> aligned_buffer(size_t nbytes, bool zero = true) {
  static const bool reclaimer_set = [] {
    set_memory_reclaimer([] { return BufferPool::global().reclaim(); });
    return true;
  }();
  (void)reclaimer_set;
  // No memory holds this much, and rounding it up to pages would wrap around.
  if (nbytes > (size_t{1} << 60))
    throw LimitReached(with_limits_subject(fmt::format("a tensor of {} bytes cannot be allocated", nbytes)));
  if (nbytes >= BufferPool::kMinBytes) {
    const size_t bytes = BufferPool::rounded(nbytes);
    std::shared_ptr<uint8_t> b = pattern_buffer(bytes, pooled_buffer);
    if (!b) b = pooled_buffer(bytes);
    if (zero) std::memset(b.get(), 0, nbytes);
    return b;
  }
  // Below the pool's size the charge is not made: two atomic operations per small tensor cost a
  // dispatch-bound model a few percent, and many small tensors are what the memory sampling of
  // run_limits.h catches.
  auto* p = static_cast<uint8_t*>(::operator new[](nbytes ? nbytes : 1, kAlign));
  if (zero) std::memset(p, 0, nbytes ? nbytes : 1);
  return std::shared_ptr<uint8_t>(p, [](uint8_t* q) { ::operator delete[](q, kAlign); });
}

}  // namespace

void trim_buffer_pool(size_t bytes) { BufferPool::global().trim(bytes); }

std::shared_ptr<Storage> Storage::allocate(size_t nbytes, Device device) { return owned(nbytes, device, true); }

std::shared_ptr<Storage> Storage::allocate_uninitialized(size_t nbytes, Device device) { return owned(nbytes, device, false); }

std::shared_ptr<Storage> Storage::owned(size_t nbytes, Device device, bool zero) {
  auto s = std::shared_ptr<Storage>(new Storage());
  s->nbytes_ = nbytes;
  s->device_ = device;
  s->origin_ = "memory";
  auto buf = aligned_buffer(nbytes, zero);
  s->data_ = buf.get();
  s->keepalive_ = std::shared_ptr<const void>(buf, buf.get());
  s->owned_ = true;
  return s;
}

std::shared_ptr<Storage> Storage::lazy(size_t nbytes, Device device, std::string origin, Loader loader) {
  auto s = std::shared_ptr<Storage>(new Storage());
  s->nbytes_ = nbytes;
  s->device_ = device;
  s->origin_ = std::move(origin);
  s->loader_ = std::move(loader);
  return s;
}

std::shared_ptr<Storage> Storage::in_device_memory(size_t nbytes, Device device, void* address, std::shared_ptr<const void> owner) {
  auto s = std::shared_ptr<Storage>(new Storage());
  s->nbytes_ = nbytes;
  s->device_ = device;
  s->origin_ = device.str() + " memory";
  s->keepalive_ = std::move(owner);
  s->device_address_ = address;
  s->owned_ = true;
  return s;
}

const uint8_t* Storage::data() const {
  if (!data_) [[unlikely]] {
    if (device_address_)
      throw DeviceMemoryRead(fmt::format("a tensor in {} memory was read by host code (a CPU kernel given a device tensor)", device_.str()));
    if (loader_) std::call_once(once_, [this] { data_ = loader_(keepalive_); });
  }
  return data_;
}

uint8_t* Storage::mutable_data() {
  const uint8_t* src = data();
  if (!owned_) {
    auto buf = aligned_buffer(nbytes_, !(src && nbytes_));  // the copy overwrites every byte
    if (src && nbytes_) std::memcpy(buf.get(), src, nbytes_);
    data_ = buf.get();
    keepalive_ = std::shared_ptr<const void>(buf, buf.get());
    owned_ = true;
  }
  return const_cast<uint8_t*>(data_);
}

}  // namespace jitctl
