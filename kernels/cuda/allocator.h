#pragma once
// Device memory for tensors: a caching allocator, because cudaMalloc and cudaFree synchronize the
// device and cost tens of microseconds, more than most kernels of a batch-1 model take. Blocks are
// rounded to size classes and kept on free lists for the next request of that class.
//
// A graph capture allocates from a pool of its own (Pool): the captured kernels keep using those
// addresses on every replay, so the pool's blocks, even those freed during the capture, stay out of
// the common free lists until the graph and every tensor in the pool are gone. Within the capture
// a freed block may be reused: the stream runs the captured kernels in order.
#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace jitctl::cuda {

class Allocator {
 public:
  struct Pool;
  // A block of at least `bytes` (never null, also for 0 bytes), from `pool` when given. The
  // returned owner gives the block back (to its pool) when destroyed.
  std::shared_ptr<void> allocate(size_t bytes, const std::shared_ptr<Pool>& pool);
  std::shared_ptr<Pool> new_pool();
  // Gives every cached block of the common free lists back to the device (before reporting out of
  // memory, and at exit). Never while capturing: cudaFree synchronizes.
  void release_cached();
  size_t in_use() const;
  size_t reserved() const;

  struct Pool {
    Allocator* owner = nullptr;
    std::unordered_map<size_t, std::vector<void*>> free;
    std::vector<std::pair<void*, size_t>> blocks;  // every block the pool took, to return at the end
    ~Pool();
  };

 private:
  void* device_malloc(size_t bytes, bool capturing);
  void give_back(void* p, size_t bytes, Pool* pool);
  mutable std::mutex mu_;
  std::unordered_map<size_t, std::vector<void*>> free_;
  size_t in_use_ = 0, reserved_ = 0;
};

// Size classes: 512-byte steps below 1 MiB; above, four classes per power of two (at most 25%
// slack, and a model's activations of one shape always meet the same class).
size_t size_class(size_t bytes);

// cudaMalloc, allowed inside a graph capture (the capture-unsafe call is made in relaxed mode).
cudaError_t malloc_relaxed(void** p, size_t bytes);

}  // namespace jitctl::cuda
