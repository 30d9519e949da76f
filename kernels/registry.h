#pragma once
// Operator kernels, registered under their schema's name and overload ("aten::add.Tensor",
// "aten::relu", "aten::__getitem__.t"), so the interpreter resolves every node to a function
// pointer once, when it compiles a method, and never looks anything up per call.
//
// Calling convention: on entry `stack` holds exactly the node's inputs, in schema order (a
// TorchScript graph passes every argument, defaults included); the kernel replaces them with its
// outputs, in schema order. A kernel throws InvalidInput with PyTorch's message for arguments
// PyTorch rejects (shape mismatch, index out of range), and Unsupported for argument combinations
// jitctl does not implement (naming the op and what is missing).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/core/ivalue.h"

namespace jitctl {

using Stack = std::vector<IValue>;
using KernelFn = void (*)(Stack& stack);

// Which table a kernel is in: one registry, two backends. A CUDA kernel (kernels/cuda) takes the
// same stack as the CPU kernel of that name and leaves its tensor outputs in device memory.
enum class Backend : uint8_t { CPU, CUDA };

// Registers `fn` under `name` ("aten::add.Tensor"; the overload after the dot, none for the
// default overload). Registering a name twice is a programming error (std::logic_error).
void register_kernel(std::string_view name, KernelFn fn, Backend backend = Backend::CPU);

// The kernel for `name`, or nullptr. The first call registers every built-in CPU kernel; CUDA
// kernels are registered when the CUDA backend is loaded (kernels/cuda_backend.h).
KernelFn find_kernel(std::string_view name, Backend backend = Backend::CPU);

// Every registered name, sorted (for `jitctl run --list-ops` style diagnostics and tests).
std::vector<std::string> registered_kernels();

}  // namespace jitctl
