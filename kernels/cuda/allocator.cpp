#include "kernels/cuda/allocator.h"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "lib/core/describe.h"
#include "lib/core/error.h"
#include "lib/core/run_limits.h"

namespace jitctl::cuda {

size_t size_class(size_t bytes) {
  if (bytes <= 512) return 512;
  if (bytes < (size_t{1} << 20)) return (bytes + 511) / 512 * 512;
  size_t p = size_t{1} << 20;
  while (p * 2 <= bytes) p *= 2;
  const size_t step = p / 4;
  return (bytes + step - 1) / step * step;
}

// cudaMalloc inside a capture: allowed in relaxed mode only, and safe here because the block joins
// the capture's pool, which the graph keeps for as long as it can be replayed.
cudaError_t malloc_relaxed(void** p, size_t bytes) {
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  cudaThreadExchangeStreamCaptureMode(&mode);
  const cudaError_t e = cudaMalloc(p, bytes);
  cudaThreadExchangeStreamCaptureMode(&mode);
  return e;
}

void* Allocator::device_malloc(size_t bytes, bool capturing) {
  void* p = nullptr;
  cudaError_t e = malloc_relaxed(&p, bytes);
  if (e == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    if (!capturing) release_cached();  // cudaFree would end a capture
    e = malloc_relaxed(&p, bytes);
  }
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    throw LimitReached(fmt::format("out of device memory allocating a tensor of {} ({})", human_bytes(bytes), cudaGetErrorString(e)));
  }
  return p;
}

std::shared_ptr<void> Allocator::allocate(size_t bytes, const std::shared_ptr<Pool>& pool) {
  const size_t cls = size_class(bytes);
  void* p = nullptr;
  {
    std::lock_guard lock(mu_);
    auto& lists = pool ? pool->free : free_;
    if (auto it = lists.find(cls); it != lists.end() && !it->second.empty()) {
      p = it->second.back();
      it->second.pop_back();
    }
    in_use_ += cls;
  }
  if (!p) {
    try {
      p = device_malloc(cls, pool != nullptr);
    } catch (...) {
      std::lock_guard lock(mu_);
      in_use_ -= cls;
      throw;
    }
    std::lock_guard lock(mu_);
    reserved_ += cls;
    if (pool) pool->blocks.emplace_back(p, cls);
  }
  // The pool stays alive while any of its blocks is in use.
  return std::shared_ptr<void>(p, [this, cls, pool](void* q) { give_back(q, cls, pool.get()); });
}

void Allocator::give_back(void* p, size_t cls, Pool* pool) {
  std::lock_guard lock(mu_);
  in_use_ -= cls;
  (pool ? pool->free : free_)[cls].push_back(p);
}

std::shared_ptr<Allocator::Pool> Allocator::new_pool() {
  auto pool = std::make_shared<Pool>();
  pool->owner = this;
  return pool;
}

Allocator::Pool::~Pool() {
  // Every block is free by now (each in-use block holds the pool): all go to the common lists.
  std::lock_guard lock(owner->mu_);
  for (auto& [p, cls] : blocks) owner->free_[cls].push_back(p);
}

void Allocator::release_cached() {
  std::unordered_map<size_t, std::vector<void*>> free;
  {
    std::lock_guard lock(mu_);
    free.swap(free_);
  }
  size_t released = 0;
  for (auto& [cls, list] : free)
    for (void* p : list) cudaFree(p), released += cls;
  std::lock_guard lock(mu_);
  reserved_ -= released;
}

size_t Allocator::in_use() const {
  std::lock_guard lock(mu_);
  return in_use_;
}

size_t Allocator::reserved() const {
  std::lock_guard lock(mu_);
  return reserved_;
}

}  // namespace jitctl::cuda
