#pragma once
// Elementwise device kernels (elementwise.cu), called from elementwise.cpp with plain structs:
// the coalesced iteration shape, the output and up to three inputs (copy_launch.h). Inputs are
// read with conversion from their own dtype to the compute type, the result stored with
// conversion to the output's dtype, so mixed-dtype operands need no temporary copies.
//
// Compute types: kDevFloat32 (float), kDevFloat64 (double), kDevInt64 (int64_t: the host passes it
// for every integer and bool compute dtype where int64 arithmetic stored back is the same
// modular result). Each launcher returns false, launching nothing, for an (op, compute dtype)
// it has no kernel for.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/cuda/copy_launch.h"

namespace jitctl::cuda {

enum class UnaryOp : int {
  // Any compute type.
  Identity,     // fill, dropout copies
  Relu,         // NaN stays NaN
  Hardtanh,     // clamp to [a, b]; NaN stays NaN (relu6: a = 0, b = 6)
  Clamp,        // flags & 1: has min a, flags & 2: has max b (PyTorch's NaN rules)
  Abs,
  Neg,
  Square,
  Sign,
  // float32 only.
  Sigmoid,
  Tanh,
  Silu,
  GeluErf,
  GeluTanh,
  Hardswish,
  Hardsigmoid,
  LeakyRelu,    // slope a
  Elu,          // alpha a, scale b, input_scale c
  Exp,
  Expm1,
  Log,
  Log2,
  Log10,
  Log1p,
  Sqrt,
  Rsqrt,
  Erf,
  Softplus,     // beta a, threshold b
  Mish,
  Sin,
  Cos,
  Tan,
  Reciprocal,
  PowScalar,    // x ** a
  Floor,
  Ceil,
  Round,        // half to even, as nearbyint
  Trunc,
  LogicalNot,   // any compute type; output bool
};

struct UnaryParams {
  double a = 0, b = 0, c = 0;
  int flags = 0;
};

enum class BinaryOp : int {
  Add,          // x + alpha * y (sub: alpha negated)
  Mul,
  Div,          // float types only (the host promotes integers to float32)
  DivTrunc,     // float types only
  DivFloor,     // float types only
  Remainder,    // float types only
  Pow,          // float types only
  Maximum,      // NaN wins
  Minimum,
  Eq, Ne, Lt, Le, Gt, Ge,             // output bool
  LogicalAnd, LogicalOr, LogicalXor,  // output bool
};

bool launch_unary(UnaryOp op, int compute_dtype, const DeviceShape& shape, const DeviceOut& out, const DeviceOperand& x,
                  const UnaryParams& params, cudaStream_t stream);
// alpha (double) for float compute, ialpha for int64 compute (Add only).
bool launch_binary(BinaryOp op, int compute_dtype, const DeviceShape& shape, const DeviceOut& out, const DeviceOperand& a,
                   const DeviceOperand& b, double alpha, int64_t ialpha, cudaStream_t stream);
// out = cond ? a : b (cond read as bool, nonzero = true).
bool launch_where(int compute_dtype, const DeviceShape& shape, const DeviceOut& out, const DeviceOperand& cond, const DeviceOperand& a,
                  const DeviceOperand& b, cudaStream_t stream);

}  // namespace jitctl::cuda
