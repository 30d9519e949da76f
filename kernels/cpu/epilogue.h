#pragma once
// What a convolution or linear does to its output before writing it: the elementwise ops that
// followed it in the graph (activations, a residual add), folded into the kernel's output loop by
// the runtime's lowering, so the output is written once instead of once per op.
#include <cstdint>
#include <vector>

namespace jitctl::cpu {

struct PostOp {
  enum class Kind : uint8_t {
    Relu,         // max(x, 0) (NaN stays NaN)
    LeakyRelu,    // x > 0 ? x : a * x
    Clamp,        // min(max(x, a), b): relu6, hardtanh
    Silu,         // x * sigmoid(x)
    Hardswish,    // x * relu6(x + 3) / 6
    Hardsigmoid,  // relu6(x + 3) / 6
    Sigmoid,
    Tanh,
    GeluErf,      // x * (1 + erf(x / sqrt 2)) / 2
    GeluTanh,     // PyTorch's approximate="tanh"
    Add,          // x + the residual: the op's extra tensor input, same shape as the output
  };
  Kind kind;
  float a = 0, b = 0;

  friend bool operator==(const PostOp&, const PostOp&) = default;
};

// Applied in order after the bias; at most one Add.
using Epilogue = std::vector<PostOp>;

inline bool has_residual(const Epilogue& e) {
  for (const auto& p : e)
    if (p.kind == PostOp::Kind::Add) return true;
  return false;
}

}  // namespace jitctl::cpu
