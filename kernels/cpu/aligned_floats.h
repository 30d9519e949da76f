#pragma once
// Packed weights and biases of jitctl's own kernels, 64-byte aligned: in a std::vector<float> (16
// bytes) every other 8-float load of a 64-byte weight row, and every 16-float one, split across
// two cache lines (PointwiseConv's AVX2 tile on ResNeXt's 1024 -> 512: see pointwise_conv.cpp).
#include <cstddef>
#include <new>
#include <vector>

namespace jitctl::cpu {

template <class T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlign{64};
  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlign)); }
  void deallocate(T* p, size_t) { ::operator delete(p, kAlign); }
  template <class U>
  bool operator==(const CacheLineAllocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const CacheLineAllocator<U>&) const { return false; }
};

using AlignedFloats = std::vector<float, CacheLineAllocator<float>>;

}  // namespace jitctl::cpu
