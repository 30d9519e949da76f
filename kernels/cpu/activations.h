#pragma once
// float32 transcendental activations over contiguous runs, vectorized for the ISA in use
// (isa_dispatch.h): exp, tanh, sigmoid, SiLU, erf and both GELUs. The approximations are
// branch-free so they vectorize: exp as tensor_util.h's vexp (within 2 ulp); erf as Abramowitz &
// Stegun 7.1.26 (absolute error below 1.5e-7, the formula ATen's own vectorized erf uses), but
// inside the erf GELU as a rational fit of ours without exp (1.36x faster: the GELU after a
// transformer's or ConvNeXt's first linear; within 1e-6 of the exact GELU, PyTorch's within 4e-7;
// below -5.5 it gives -0 where PyTorch's rounding gives about -1.6e-7); tanh through exp with a
// series near 0. SiLU, the activation convolutions apply after oneDNN's
// kernel (packed_conv.cpp), has hand-written AVX-512 and AVX2 paths with the same polynomial.
#include <cstdint>

namespace jitctl::cpu {

enum class Activation { Exp, Tanh, Sigmoid, Silu, Erf, GeluErf, GeluTanh };

// y[i] = f(x[i]) for i < n; x and y may be the same array.
void activation_f32(Activation f, const float* x, float* y, int64_t n);

// Softmax of one row in place: exp(x - max) / sum, vectorized (attention's inner loop). A row
// whose entries are all -inf (every key masked) becomes zeros, as ATen's masked softmax gives;
// NaN propagates.
void softmax_f32(float* x, int64_t n);

// y[i] = exp(x[i] - shift) for i < n, vectorized, returning their sum: aten::softmax's and
// log_softmax's rows, shift their maximum, finite (rows with NaN or infinities take ATen's
// scalar formula). x and y may be the same array.
float exp_shifted_f32(const float* x, float* y, int64_t n, float shift);

// aten::softmax over `rows` contiguous rows of n: y = exp(x - max) / sum per row, vectorized. A
// row with a NaN, a +inf, or only -inf becomes NaN, as ATen's formula gives. x and y may be the
// same array.
void softmax_rows_f32(const float* x, float* y, int64_t rows, int64_t n);

}  // namespace jitctl::cpu
