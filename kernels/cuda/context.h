#pragma once
// What a CUDA kernel (kernels/cuda/*.cpp) needs from the backend: the stream everything runs on,
// the library handles, device outputs, device views of its inputs, and error checks. Host-side
// files (.cpp, compiled by the C++ compiler) do the op's shape and dtype logic with the CPU side's
// definitions (kernels/cpu/tensor_util.h: promotion, broadcasting, dim wrapping) and call the
// device code in the .cu files through kernels/cuda/launch.h, which takes plain pointers.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstdint>
#include <vector>

#include "kernels/registry.h"
#include "lib/core/ivalue.h"
#include "lib/core/tensor.h"

namespace jitctl::cuda {

cudaStream_t stream();
cublasHandle_t cublas();
cudnnHandle_t cudnn();
bool tf32();            // --tf32: tensor-core math allowed for fp32
bool capturing();       // inside a graph capture (see CudaBackend::begin_capture)

// A new contiguous device tensor, uninitialized (kernels write every element).
Tensor empty(DType dtype, const std::vector<int64_t>& sizes);
// A device tensor with the given strides (as CPU's new_output_strided).
Tensor empty_strided(DType dtype, const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides);
// `t` on the device: device tensors as they are; host tensors copied (parameters once, cached).
Tensor on_device(const Tensor& t);
// on_device(), then contiguous (a device-side copy when it is a strided view).
Tensor contiguous(const Tensor& t);
// The device address of t's first element (storage address + offset * element size).
void* address(const Tensor& t);
template <class T>
T* ptr(const Tensor& t) { return static_cast<T*>(address(t)); }
// Scratch memory on the stream, valid until the next call of workspace() (cuDNN, reductions).
void* workspace(size_t bytes);

// Throw Error (exit 2) naming `what` and CUDA's message.
void check(cudaError_t e, const char* what);
void check(cublasStatus_t s, const char* what);
void check(cudnnStatus_t s, const char* what);
// After a kernel launch: the launch error, if any.
void check_launch(const char* what);

}  // namespace jitctl::cuda
