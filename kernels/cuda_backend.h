#pragma once
// The CUDA backend as the rest of jitctl sees it, without any CUDA header: kernels/cuda is built
// into a plugin, libjitctl_cuda.so, which links the CUDA runtime, cuBLAS and cuDNN, and which
// jitctl loads only when a command asks for `--device cuda` (or --version asks what is there).
// So a CUDA-enabled jitctl starts, and runs on the CPU, on a machine without the CUDA libraries.
//
// Loading the plugin registers its kernels in the one registry (registry.h, Backend::CUDA), under
// the same schema names as the CPU kernels; lib/runtime/device_dispatch decides per node which
// backend runs it.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <string>
#include <vector>

#include "kernels/prepared.h"
#include "lib/core/tensor.h"

namespace jitctl {

struct CudaDeviceInfo {
  int index = 0;
  std::string name;               // "NVIDIA H100 80GB HBM3"
  int major = 0, minor = 0;       // compute capability
  size_t memory_bytes = 0;
  int multiprocessors = 0;
};

// A whole method's work on the stream, captured once and replayed (cudaGraph_t).
class CudaGraph {
 public:
  virtual ~CudaGraph() = default;
  virtual void replay() = 0;
};

class CudaBackend {
 public:
  virtual ~CudaBackend() = default;
  // "CUDA runtime 13.0, driver 13.0, cuBLAS 13.0.0, cuDNN 9.12.0"
  virtual std::string versions() const = 0;
  // Every visible device; empty when there is none (then no_device_reason() says why).
  virtual std::vector<CudaDeviceInfo> devices() const = 0;
  virtual std::string no_device_reason() const = 0;
  // Makes `index` the device the kernels run on; `tf32` lets cuBLAS and cuDNN use TF32 tensor
  // cores for fp32 (off: outputs match fp32 arithmetic, as PyTorch's matmul default). Throws
  // InvalidInput when there is no such device.
  virtual void select(int index, bool tf32) = 0;
  virtual int selected() const = 0;

  // A contiguous copy of `t` in device memory (the device's tensors are returned as they are).
  // Storages read from the archive (parameters, a frozen graph's constants) are copied once and
  // the copy is kept while the storage lives: parameters move once, not per call.
  virtual Tensor to_device(const Tensor& t) = 0;
  // A contiguous host copy of a device tensor (host tensors are returned as they are).
  virtual Tensor to_host(const Tensor& t) = 0;
  // Writes host tensor `src` into device tensor `dst` (same dtype and number of elements; `dst`
  // contiguous, else Unsupported).
  virtual void copy_to(const Tensor& src, const Tensor& dst) = 0;
  // Device tensor `src` into device tensor `dst` (same dtype and number of elements, both
  // contiguous), on the stream (capturable).
  virtual void copy_device(const Tensor& src, const Tensor& dst) = 0;
  // Waits for the stream.
  virtual void synchronize() = 0;

  // Stream capture: between begin_capture() and end_capture() kernels are recorded, not run, and
  // memory comes from a pool that belongs to the graph (freed with it). Anything that would make
  // the host wait for the device while capturing (a copy to the host, a first-time cuDNN
  // algorithm search) throws CaptureBroken; end_capture() then returns nullptr and the caller
  // runs without a graph.
  virtual void begin_capture() = 0;
  virtual std::unique_ptr<CudaGraph> end_capture() = 0;
  virtual bool capturing() const = 0;

  // Device memory in use and held by the caching allocator, in bytes.
  virtual size_t memory_in_use() const = 0;
  virtual size_t memory_reserved() const = 0;
};

// Thrown by a CUDA kernel, before it changes anything, for a case it does not take on the device
// (a dtype, a layout, an argument combination): the dispatcher then runs the CPU kernel on host
// copies of the inputs and moves its outputs to the device (lib/runtime/device_dispatch.h).
struct NotOnDevice : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Thrown by the CUDA backend when something cannot be part of a captured graph.
struct CaptureBroken : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Whether this jitctl was built with the CUDA plugin.
bool cuda_built_in();
// The loaded backend (the plugin is loaded on the first call), or nullptr with `why` set:
// "built without CUDA", "libjitctl_cuda.so: libcudnn.so.9: cannot open shared object file".
CudaBackend* cuda_backend(std::string* why = nullptr);

// The CUDA preparers (kernels/prepared.h) that the plugin registers: state made once per node
// when a method is lowered for the device (cuDNN descriptors, weights uploaded).
void register_cuda_preparer(std::string_view name, PrepareFn fn);
PrepareFn find_cuda_preparer(std::string_view name);

}  // namespace jitctl
