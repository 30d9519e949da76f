#pragma once
// How str(graph) shows a tensor attribute, and reading that back.
//
// PyTorch 1.13 prints a one-element tensor as a boxed scalar (`{2.5}`, `{7}`, `{(1,2)}`), a
// tensor of up to 10 elements with ATen's tensor printer with newlines turned into spaces
// (` 1.5410 -0.2934 [ CPUFloatType{2} ]`, `0.001 *  0.1820 -0.8567 [ CPUFloatType{2} ]`,
// `(1,.,.) =    1  2 ... [ CPUFloatType{2,2,2} ]`), and anything larger as `<Tensor>`.
//
// Reading back gives a contiguous CPU (or CUDA-tagged) tensor with the printed values, which are
// rounded to what was printed: printing it again gives the same text except in rare cases where
// the rounding changes the printer's choice of format (values that print as `1.0000` but were not
// integers, for instance).
#include <complex>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/core/tensor.h"
#include "lib/core/types.h"

namespace jitctl {

// The attribute text of a defined tensor. `mkldnn`: print it as the opaque MKLDNN tensor that a
// prim::ConstantMKLDNNTensor holds in PyTorch (`MKLDNN Tensor: ... [ MkldnnCPUFloatType{...} ]`);
// jitctl keeps such tensors dense, so the node kind says which they are.
std::string tensor_attribute_text(const Tensor& t, bool mkldnn = false);

// Is there an ATen tensor printout (not `{...}` nor `<Tensor>`) starting exactly at text[pos]?
// Returns the offset just past its closing ` ]`, or 0.
size_t tensor_printout_end(std::string_view text, size_t pos);

// Reads the printout text[pos, end) found by tensor_printout_end (an MKLDNN printout gives a
// dense tensor). Throws InvalidInput (with a message, no position) when it is malformed.
Tensor parse_tensor_printout(std::string_view printout);

// Reads the inside of `{...}`. `hint` (the type of the value the tensor becomes, or nullptr)
// supplies dtype and shape, which the text does not show; without it a number with `.`, `e`, `inf`
// or `nan` gives a 0-dim float32 tensor, other numbers int64, `(re,im)` complex64.
Tensor parse_scalar_tensor_text(std::string_view inside, const TypePtr& hint);

// A contiguous tensor holding `values` (row-major) converted to `dtype`: real parts for real
// dtypes, rounded to nearest (even) for half and bfloat16, truncated toward zero for integers.
Tensor tensor_from_values(DType dtype, std::vector<int64_t> sizes, std::span<const std::complex<double>> values,
                          Device device = {});

}  // namespace jitctl
