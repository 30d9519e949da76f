#pragma once
// The activations jitctl's vector kernels (depthwise_conv, pointwise_conv) apply in registers
// before a store, on GCC vector types; one per call, chosen from the convolution's epilogue.
#include "kernels/cpu/epilogue.h"
#include "kernels/cpu/isa_dispatch.h"

namespace jitctl::cpu {

// Row: none of these; a kernel applies its epilogue to the finished row instead. Silu: only
// PointwiseConv applies it in registers (vector_silu.h); vec_activation_of never gives it.
enum class VecActivation { None, Relu, Clamp, Hardswish, Row, Silu };

// The in-register form of one post-op (Row when there is none).
inline VecActivation vec_activation_of(const PostOp& op) {
  switch (op.kind) {
    case PostOp::Kind::Relu: return VecActivation::Relu;
    case PostOp::Kind::Clamp: return VecActivation::Clamp;
    case PostOp::Kind::Hardswish: return VecActivation::Hardswish;
    default: return VecActivation::Row;
  }
}

// Vector arguments in a header compiled for the baseline ISA: always inlined into the kernels'
// target functions, so no call with the vector ABI GCC warns about exists.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

// Compares and selects, so NaN stays NaN as in PyTorch's kernels. lo, hi: Clamp's bounds.
template <VecActivation M, class vf>
JITCTL_ALWAYS_INLINE vf activate(vf v, vf lo, vf hi) {
  const vf zero = {};
  if constexpr (M == VecActivation::Relu) v = zero > v ? zero : v;  // one maxps, NaN kept
  if constexpr (M == VecActivation::Clamp) {
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
  }
  if constexpr (M == VecActivation::Hardswish) {
    const vf six = zero + 6.0f;
    vf t = v + 3.0f;
    t = t < zero ? zero : t;
    t = t > six ? six : t;
    v = v * t / 6.0f;
  }
  return v;
}

#pragma GCC diagnostic pop

}  // namespace jitctl::cpu
