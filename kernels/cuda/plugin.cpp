// The CUDA backend's core (kernels/cuda_backend.h, kernels/cuda/context.h): the selected device,
// its stream and library handles, tensors in device memory, copies, and graph capture. jitctl
// loads this file's library with dlopen (kernels/cuda_backend.cpp) through jitctl_cuda_backend().
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <fmt/format.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "kernels/cpu/tensor_util.h"
#include "kernels/cuda/allocator.h"
#include "kernels/cuda/context.h"
#include "kernels/cuda/copy_launch.h"
#include "kernels/cuda/register_cuda.h"
#include "kernels/cuda_backend.h"
#include "lib/core/error.h"

namespace jitctl::cuda {
namespace {

// cuBLAS's own workspace, given once so that it never allocates inside a graph capture.
constexpr size_t kCublasWorkspace = size_t{32} << 20;

struct State {
  int device = -1;
  bool tf32 = false;
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;
  cudnnHandle_t cudnn = nullptr;
  Allocator allocator;
  std::shared_ptr<Allocator::Pool> capture_pool;  // non-null while capturing
  bool capturing = false;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  std::vector<void*> retired_workspaces;  // a graph may still use them
  std::mutex upload_mu;
  // Archive storages (parameters, constants) copied to the device once, while the host storage lives.
  struct Upload {
    std::weak_ptr<Storage> host;
    std::shared_ptr<Storage> device;
  };
  std::unordered_map<const Storage*, Upload> uploads;
};

State& state() {
  static State* s = new State();  // never destroyed: device tensors may outlive static destructors
  return *s;
}

State& selected_state() {
  State& s = state();
  if (s.device < 0) throw std::logic_error("CUDA kernel called before a device was selected");
  return s;
}

Device device_of(int index) { return Device{Device::Type::CUDA, index}; }

std::shared_ptr<Storage> device_storage(size_t nbytes) {
  State& s = selected_state();
  std::shared_ptr<void> block = s.allocator.allocate(nbytes, s.capturing ? s.capture_pool : nullptr);
  void* address = block.get();
  return Storage::in_device_memory(nbytes, device_of(s.device), address, std::move(block));
}

bool from_archive(const Storage& s) { return s.origin() != "memory" && !s.in_device_memory(); }

class Graph final : public CudaGraph {
 public:
  Graph(cudaGraphExec_t exec, std::shared_ptr<Allocator::Pool> pool) : exec_(exec), pool_(std::move(pool)) {}
  ~Graph() override { cudaGraphExecDestroy(exec_); }
  void replay() override { check(cudaGraphLaunch(exec_, state().stream), "cudaGraphLaunch"); }

 private:
  cudaGraphExec_t exec_;
  std::shared_ptr<Allocator::Pool> pool_;  // the addresses the graph writes
};

class Backend final : public CudaBackend {
 public:
  std::string versions() const override {
    int rt = 0, drv = 0;
    cudaRuntimeGetVersion(&rt);
    cudaDriverGetVersion(&drv);
    (void)cudaGetLastError();
    int cb_major = 0, cb_minor = 0, cb_patch = 0;
    cublasGetProperty(MAJOR_VERSION, &cb_major);
    cublasGetProperty(MINOR_VERSION, &cb_minor);
    cublasGetProperty(PATCH_LEVEL, &cb_patch);
    const size_t dnn = cudnnGetVersion();
    std::string driver = drv ? fmt::format("{}.{}", drv / 1000, drv % 1000 / 10) : "none";
    return fmt::format("CUDA runtime {}.{}, driver {}, cuBLAS {}.{}.{}, cuDNN {}.{}.{}", rt / 1000, rt % 1000 / 10, driver,
                       cb_major, cb_minor, cb_patch, dnn / 10000, dnn % 10000 / 100, dnn % 100);
  }

  std::vector<CudaDeviceInfo> devices() const override {
    std::vector<CudaDeviceInfo> out;
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      (void)cudaGetLastError();
      return out;
    }
    for (int i = 0; i < n; ++i) {
      cudaDeviceProp p{};
      if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
      out.push_back({i, p.name, p.major, p.minor, p.totalGlobalMem, p.multiProcessorCount});
    }
    return out;
  }

  std::string no_device_reason() const override {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    (void)cudaGetLastError();
    if (e != cudaSuccess) return fmt::format("no CUDA device ({})", cudaGetErrorString(e));
    return n == 0 ? "no CUDA device" : "";
  }

  void select(int index, bool tf32) override {
    State& s = state();
    if (index < 0) index = 0;  // "cuda": the first device
    if (s.device >= 0) {
      if (s.device != index) throw InvalidInput(fmt::format("cuda:{} was already selected; one device per process", s.device));
      s.tf32 = tf32;
      apply_math_mode(s);
      return;
    }
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
      (void)cudaGetLastError();
      throw InvalidInput(e != cudaSuccess ? fmt::format("no CUDA device ({})", cudaGetErrorString(e)) : "no CUDA device");
    }
    if (index >= n)
      throw InvalidInput(fmt::format("there {} {} CUDA device{} (cuda:0{})", n == 1 ? "is" : "are", n, n == 1 ? "" : "s", n == 1 ? "" : fmt::format("..cuda:{}", n - 1)));
    check(cudaSetDevice(index), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cublasCreate(&s.cublas), "cublasCreate");
    check(cublasSetStream(s.cublas, s.stream), "cublasSetStream");
    void* ws = nullptr;
    check(cudaMalloc(&ws, kCublasWorkspace), "cudaMalloc (cuBLAS workspace)");
    check(cublasSetWorkspace(s.cublas, ws, kCublasWorkspace), "cublasSetWorkspace");
    check(cudnnCreate(&s.cudnn), "cudnnCreate");
    check(cudnnSetStream(s.cudnn, s.stream), "cudnnSetStream");
    s.tf32 = tf32;
    s.device = index;
    apply_math_mode(s);
  }
  int selected() const override { return state().device; }

  Tensor to_device(const Tensor& t) override { return on_device(t); }

  Tensor to_host(const Tensor& t) override {
    if (!t.storage()->in_device_memory()) return t;
    State& s = selected_state();
    if (s.capturing) throw CaptureBroken("a copy to the host cannot be captured");
    const Tensor c = contiguous(t);
    Tensor out = Tensor::empty(t.dtype(), t.sizes());
    if (out.nbytes()) {
      check(cudaMemcpyAsync(out.mutable_data(), address(c), out.nbytes(), cudaMemcpyDeviceToHost, s.stream), "cudaMemcpy to host");
      check(cudaStreamSynchronize(s.stream), "cudaStreamSynchronize");
    }
    out.impl().requires_grad = t.requires_grad();
    return out;
  }

  void copy_to(const Tensor& src, const Tensor& dst) override {
    State& s = selected_state();
    if (s.capturing) throw CaptureBroken("a copy from the host cannot be captured");
    if (!dst.storage()->in_device_memory() || !dst.is_contiguous() || src.dtype() != dst.dtype() || src.numel() != dst.numel())
      throw Unsupported(fmt::format("writing a {} host tensor into a {} device tensor that is not contiguous or not of its size",
                                    shape_string(src.sizes()), shape_string(dst.sizes())));
    const Tensor c = cpu::contiguous(src);
    if (!c.nbytes()) return;
    check(cudaMemcpyAsync(address(dst), c.data(), c.nbytes(), cudaMemcpyHostToDevice, s.stream), "cudaMemcpy to device");
    check(cudaStreamSynchronize(s.stream), "cudaStreamSynchronize");
  }

  void copy_device(const Tensor& src, const Tensor& dst) override {
    if (!src.storage()->in_device_memory()) return copy_to(src, dst);
    const Tensor c = contiguous(src);
    if (!dst.storage()->in_device_memory() || !dst.is_contiguous() || src.dtype() != dst.dtype() || src.numel() != dst.numel())
      throw Unsupported(fmt::format("copying a {} device tensor into a {} device tensor that is not contiguous or not of its size",
                                    shape_string(src.sizes()), shape_string(dst.sizes())));
    if (c.nbytes()) check(cudaMemcpyAsync(address(dst), address(c), c.nbytes(), cudaMemcpyDeviceToDevice, selected_state().stream), "cudaMemcpy on the device");
  }

  void synchronize() override {
    State& s = selected_state();
    if (s.capturing) throw CaptureBroken("synchronizing cannot be captured");
    check(cudaStreamSynchronize(s.stream), "cudaStreamSynchronize");
  }

  void begin_capture() override {
    State& s = selected_state();
    s.capture_pool = s.allocator.new_pool();
    check(cudaStreamBeginCapture(s.stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    s.capturing = true;
  }

  std::unique_ptr<CudaGraph> end_capture() override {
    State& s = selected_state();
    cudaGraph_t graph = nullptr;
    const cudaError_t e = cudaStreamEndCapture(s.stream, &graph);
    s.capturing = false;
    std::shared_ptr<Allocator::Pool> pool = std::move(s.capture_pool);
    if (e != cudaSuccess || !graph) {
      (void)cudaGetLastError();
      if (graph) cudaGraphDestroy(graph);
      return nullptr;
    }
    cudaGraphExec_t exec = nullptr;
    const cudaError_t ie = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    if (ie != cudaSuccess) {
      (void)cudaGetLastError();
      return nullptr;
    }
    return std::make_unique<Graph>(exec, std::move(pool));
  }

  bool capturing() const override { return state().capturing; }
  size_t memory_in_use() const override { return state().allocator.in_use(); }
  size_t memory_reserved() const override { return state().allocator.reserved(); }

 private:
  static void apply_math_mode(State& s) {
    check(cublasSetMathMode(s.cublas, s.tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  }
};

}  // namespace

cudaStream_t stream() { return selected_state().stream; }
cublasHandle_t cublas() { return selected_state().cublas; }
cudnnHandle_t cudnn() { return selected_state().cudnn; }
bool tf32() { return state().tf32; }
bool capturing() { return state().capturing; }

Tensor empty(DType dtype, const std::vector<int64_t>& sizes) {
  return empty_strided(dtype, sizes, contiguous_strides(sizes));
}

Tensor empty_strided(DType dtype, const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  int64_t extent = 1;
  bool none = false;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) none = true;
    extent += (sizes[d] - 1) * strides[d];
  }
  const size_t nbytes = none ? 0 : static_cast<size_t>(extent) * element_size(dtype);
  return Tensor::unchecked_view(device_storage(nbytes), dtype, 0, sizes, strides);
}

Tensor on_device(const Tensor& t) {
  const auto& storage = t.storage();
  if (storage->in_device_memory()) return t;
  State& s = selected_state();
  if (from_archive(*storage)) {
    std::shared_ptr<Storage> dev;
    {
      std::lock_guard lock(s.upload_mu);
      auto it = s.uploads.find(storage.get());
      if (it != s.uploads.end() && it->second.host.lock() == storage) dev = it->second.device;
    }
    if (!dev) {
      if (s.capturing) throw CaptureBroken(fmt::format("{} was first copied to the device inside a capture", storage->origin()));
      dev = device_storage(storage->nbytes());
      if (storage->nbytes())
        check(cudaMemcpyAsync(dev->device_address(), storage->data(), storage->nbytes(), cudaMemcpyHostToDevice, s.stream), "cudaMemcpy to device");
      // The host bytes may be a mapping of the archive that goes with the storage: wait for the copy.
      check(cudaStreamSynchronize(s.stream), "cudaStreamSynchronize");
      std::lock_guard lock(s.upload_mu);
      s.uploads[storage.get()] = {storage, dev};
    }
    Tensor out = Tensor::unchecked_view(dev, t.dtype(), t.storage_offset(), t.sizes(), t.strides());
    out.impl().requires_grad = t.requires_grad();
    out.impl().is_parameter = t.impl().is_parameter;
    return out;
  }
  if (s.capturing) throw CaptureBroken("a copy from the host cannot be captured");
  const Tensor c = cpu::contiguous(t);
  Tensor out = empty(t.dtype(), t.sizes());
  if (out.nbytes()) {
    check(cudaMemcpyAsync(address(out), c.data(), out.nbytes(), cudaMemcpyHostToDevice, s.stream), "cudaMemcpy to device");
    // Pageable host memory: the copy has read it once this returns (the host tensor may go now).
    check(cudaStreamSynchronize(s.stream), "cudaStreamSynchronize");
  }
  out.impl().requires_grad = t.requires_grad();
  return out;
}

Tensor contiguous(const Tensor& t) {
  Tensor d = on_device(t);
  if (d.is_contiguous()) return d;
  Tensor out = empty(d.dtype(), d.sizes());
  if (out.numel())
    launch_strided_copy(address(d), address(out), out.numel(), element_size(d.dtype()), d.sizes(), d.strides(), stream());
  check_launch("contiguous copy");
  return out;
}

void* address(const Tensor& t) {
  const auto& storage = t.storage();
  if (!storage->in_device_memory()) throw std::logic_error("cuda::address of a host tensor");
  return static_cast<uint8_t*>(storage->device_address()) + t.storage_offset() * static_cast<int64_t>(element_size(t.dtype()));
}

void* workspace(size_t bytes) {
  State& s = selected_state();
  if (bytes > s.workspace_bytes) {
    if (s.workspace) s.retired_workspaces.push_back(s.workspace);  // captured graphs may use it
    const size_t grown = size_class(std::max(bytes, s.workspace_bytes * 2));
    void* p = nullptr;
    check(malloc_relaxed(&p, grown), "cudaMalloc (workspace)");
    s.workspace = p;
    s.workspace_bytes = grown;
  }
  return s.workspace;
}

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  (void)cudaGetLastError();
  if (state().capturing) throw CaptureBroken(fmt::format("{}: {}", what, cudaGetErrorString(e)));
  throw InvalidInput(fmt::format("CUDA error in {}: {}", what, cudaGetErrorString(e)));
}

void check(cublasStatus_t st, const char* what) {
  if (st == CUBLAS_STATUS_SUCCESS) return;
  if (state().capturing) throw CaptureBroken(fmt::format("{}: {}", what, cublasGetStatusString(st)));
  throw InvalidInput(fmt::format("cuBLAS error in {}: {}", what, cublasGetStatusString(st)));
}

void check(cudnnStatus_t st, const char* what) {
  if (st == CUDNN_STATUS_SUCCESS) return;
  if (state().capturing) throw CaptureBroken(fmt::format("{}: {}", what, cudnnGetErrorString(st)));
  throw InvalidInput(fmt::format("cuDNN error in {}: {}", what, cudnnGetErrorString(st)));
}

void check_launch(const char* what) { check(cudaGetLastError(), what); }

}  // namespace jitctl::cuda

// The plugin's one entry point (kernels/cuda_backend.cpp looks it up with dlsym).
extern "C" __attribute__((visibility("default"))) jitctl::CudaBackend* jitctl_cuda_backend() {
  static jitctl::cuda::Backend* backend = [] {
    using namespace jitctl::cuda;
    register_elementwise_kernels();
    register_reduction_kernels();
    register_norm_kernels();
    register_shape_kernels();
    register_factory_kernels();
    register_linear_kernels();
    register_conv_kernels();
    register_pooling_kernels();
    register_attention_kernels();
    register_rnn_kernels();
    return new Backend();
  }();
  return backend;
}
