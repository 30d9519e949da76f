#include "kernels/cpu/scratch.h"

#include <array>
#include <memory>
#include <new>

namespace jitctl::cpu {
namespace {

struct AlignedFree {
  void operator()(void* p) const { ::operator delete[](p, std::align_val_t{64}); }
};

struct Buffer {
  std::unique_ptr<void, AlignedFree> data;
  size_t size = 0;
};

}  // namespace

void* scratch_buffer(ScratchSlot slot, size_t bytes) {
  thread_local std::array<Buffer, static_cast<size_t>(ScratchSlot::Count)> buffers;
  Buffer& b = buffers[static_cast<size_t>(slot)];
  if (b.size < bytes || !b.data) {
    b.data.reset();
    const size_t size = bytes + bytes / 4 + 64;  // grow with headroom: shapes vary a little
    b.data.reset(::operator new[](size, std::align_val_t{64}));
    b.size = size;
  }
  return b.data.get();
}

}  // namespace jitctl::cpu
