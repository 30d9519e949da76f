#pragma once
// The oneDNN pieces every oneDNN-backed kernel shares: the CPU engine, a stream per thread, the
// fused epilogue as oneDNN post-ops, and tensors for its outputs.
//
// oneDNN JIT-compiles its kernels for the CPU it runs on (AVX-512, AVX2, SSE4.1), so portable
// builds lose nothing; JITCTL_ISA (cpu_features.h) caps it as it caps our own kernels. It runs on
// the same OpenMP team as everything else, with as many threads as omp_get_max_threads().
#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <vector>

#include "kernels/cpu/epilogue.h"
#include "lib/core/tensor.h"

namespace jitctl::cpu {

const dnnl::engine& dnnl_engine();
// Streams are not shared between threads: each thread that runs a primitive gets its own.
dnnl::stream& dnnl_stream();

// The post-op chain of `e`; Add becomes a sum post-op (the residual is in dst beforehand).
dnnl::post_ops dnnl_post_ops(const Epilogue& e);

// Whether oneDNN answered with one of its reference implementations (plain C loops, `ref:any`):
// what it picks when no JIT kernel takes the problem, often for a post-op chain the ISA's kernel
// lacks (AVX2's direct convolution takes a sum only before the activations, not after a swish).
// Those run 50-150x slower than the JIT kernels (an EfficientNetV2 layer: 204 ms against 1.7);
// PackedConv then asks again without post-ops and applies the epilogue itself. (No linear's
// chain has met a reference matmul here: brgemm on AVX-512, gemm:jit on SSE4.1, and AVX2's
// linears run on avx2_gemm.)
bool is_reference_impl(const char* impl_info);

// oneDNN's convolution for `desc` with `attr` (its post-ops and scratchpad mode), or, when that is
// a reference kernel and the same convolution without post-ops is not, that one with
// `without_post_ops` set: the caller then applies its epilogue after the kernel.
dnnl::convolution_forward::primitive_desc conv_primitive_desc(const dnnl::convolution_forward::desc& desc, const dnnl::primitive_attr& attr,
                                                              bool& without_post_ops);

// Runs a convolution from `conv_primitive_desc`: src, the packed weights and the bias (empty when
// none) into dst, its scratchpad from the calling thread's scratch. With `epilogue_after` it runs
// into scratch and `e` goes from there into dst (an Add adds what dst holds), waiting for the
// stream first; otherwise the caller waits.
void execute_conv(const dnnl::convolution_forward& prim, const dnnl::convolution_forward::primitive_desc& pd, const dnnl::memory& src,
                  const dnnl::memory& weights, const dnnl::memory& bias, const dnnl::memory& dst, bool epilogue_after, const Epilogue& e);

// `bytes` bytes from src to dst on the team: a residual already in the destination's layout (a
// oneDNN reorder between equal layouts is its slow generic one, and building one per call costs more).
void copy_bytes_parallel(void* dst, const void* src, size_t bytes);

// A new memory in layout `packed` holding the weights at `data`, stored as `plain` describes.
dnnl::memory pack_weights(const dnnl::memory::desc& plain, const void* data, const dnnl::memory::desc& packed);

// Strides of an NCHW-sized tensor stored channels-last (NHWC), as PyTorch's
// torch.channels_last: [H*W*C, 1, W*C, C].
std::vector<int64_t> channels_last_strides(const std::vector<int64_t>& sizes);
// Whether `t` (4-D) is stored densely channels-last (size-1 dims' strides ignored).
bool is_channels_last(const Tensor& t);
// The distance in floats between neighbouring pixels of `t` (4-D) when it is channels-last with
// its pixels evenly spaced (size-1 dims' strides ignored): C when dense, more for a channel slice
// of a wider channels-last tensor (a chunk along channels, as ShuffleNet's blocks split theirs);
// 0 when it is not so.
int64_t channels_last_pixel_stride(const Tensor& t);

// Keeps a oneDNN call on the calling thread while in scope when its work is too small to pay
// for the team (below kSmallWorkFlops): waking the other threads and joining them costs more
// than they save, and far more when the machine's cores are slow to answer each other.
// Primitives made in scope are made for one thread (their plans key on the count).
class SmallWorkOnOneThread {
 public:
  explicit SmallWorkOnOneThread(double flops);
  ~SmallWorkOnOneThread();
  SmallWorkOnOneThread(const SmallWorkOnOneThread&) = delete;
  SmallWorkOnOneThread& operator=(const SmallWorkOnOneThread&) = delete;

 private:
  int restore_ = 0;
};

// Plain memory descriptor for a tensor's sizes and strides (its element type).
dnnl::memory::desc dnnl_desc_of(const Tensor& t);
dnnl::memory dnnl_memory_of(const Tensor& t, const dnnl::memory::desc& d);

}  // namespace jitctl::cpu
