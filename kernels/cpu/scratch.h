#pragma once
// Per-thread scratch buffers that kernels reuse from call to call: a fresh multi-megabyte buffer
// per call would be mapped and page-faulted in every time. One user per (thread, slot) at a time.
#include <cstddef>

namespace jitctl::cpu {

enum class ScratchSlot { ConvSrc, ConvDst, ConvAcc, Primitive, Linear, GemmTile, AttentionScores, Layer, ExpandBand, SmallGemm, Count };

// At least `bytes` bytes, 64-byte aligned, valid until the same thread asks for the same slot again.
void* scratch_buffer(ScratchSlot slot, size_t bytes);

}  // namespace jitctl::cpu
