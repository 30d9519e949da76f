// Device copies: strided gathers (cuda::contiguous, clone, cat), converting copies (to, copy_) and
// index_select / embedding row gathers. Elements are moved as unsigned words of their size, so
// one kernel serves every dtype of that size.
#include <stdexcept>
#include <string>

#include "kernels/cuda/copy_launch.h"

namespace jitctl::cuda {
namespace {

constexpr int kThreads = 256;

struct CopyGeom {
  int ndim = 0;
  int64_t numel = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t src[kMaxDims] = {};
  int64_t dst[kMaxDims] = {};
};

struct Word16 {
  uint64_t lo, hi;
};

__device__ __forceinline__ void copy_offsets(const CopyGeom& g, int64_t i, int64_t& so, int64_t& dof) {
  if (g.ndim == 1) {
    so = i * g.src[0];
    dof = i * g.dst[0];
    return;
  }
  so = 0;
  dof = 0;
  for (int d = g.ndim - 1; d >= 0; --d) {
    const int64_t c = i % g.sizes[d];
    i /= g.sizes[d];
    so += c * g.src[d];
    dof += c * g.dst[d];
  }
}

template <class U>
__global__ void strided_copy_kernel(const U* __restrict__ src, U* __restrict__ dst, const __grid_constant__ CopyGeom g) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < g.numel; i += step) {
    int64_t so, dof;
    copy_offsets(g, i, so, dof);
    dst[dof] = src[so];
  }
}

// Element sizes that are no power of two up to 16: byte by byte.
__global__ void strided_copy_bytes_kernel(const uint8_t* __restrict__ src, uint8_t* __restrict__ dst, const __grid_constant__ CopyGeom g,
                                          int64_t elsize) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < g.numel; i += step) {
    int64_t so, dof;
    copy_offsets(g, i, so, dof);
    for (int64_t b = 0; b < elsize; ++b) dst[dof * elsize + b] = src[so * elsize + b];
  }
}

// Converts through int64 when both dtypes are integers or bool (exact), through double otherwise.
template <class M>
__global__ void convert_copy_kernel(const void* __restrict__ src, int src_dtype, void* __restrict__ dst, int dst_dtype,
                                    const __grid_constant__ CopyGeom g) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < g.numel; i += step) {
    int64_t so, dof;
    copy_offsets(g, i, so, dof);
    store_as<M>(dst, dst_dtype, dof, load_as<M>(src, src_dtype, so));
  }
}

// Builds the coalesced geometry; false when more than kMaxDims dims remain.
bool make_geom(const std::vector<int64_t>& sizes, const std::vector<int64_t>& src_strides, const std::vector<int64_t>& dst_strides,
               CopyGeom& g) {
  if (src_strides.size() != sizes.size() || dst_strides.size() != sizes.size())
    throw std::invalid_argument("strided copy: sizes and strides differ in length");
  std::vector<int64_t> sz = sizes;
  std::vector<std::vector<int64_t>> st{src_strides, dst_strides};
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  coalesce_dims(sz, st);
  if (sz.size() > static_cast<size_t>(kMaxDims)) return false;
  g.ndim = static_cast<int>(sz.size());
  g.numel = numel;
  for (size_t d = 0; d < sz.size(); ++d) {
    g.sizes[d] = sz[d];
    g.src[d] = st[0][d];
    g.dst[d] = st[1][d];
  }
  return true;
}

bool is_floating_code(int dt) { return dt == kDevFloat32 || dt == kDevFloat64; }

void copy_with_geom(const void* src, void* dst, const CopyGeom& g, size_t elsize, cudaStream_t stream) {
  if (g.numel == 0) return;
  // One run of memory on both sides: a plain device-to-device copy.
  if (g.ndim == 0 || (g.ndim == 1 && g.src[0] == 1 && g.dst[0] == 1)) {
    (void)cudaMemcpyAsync(dst, src, static_cast<size_t>(g.numel) * elsize, cudaMemcpyDeviceToDevice, stream);
    return;
  }
  const unsigned blocks = grid_for(g.numel, kThreads);
  switch (elsize) {
    case 1: strided_copy_kernel<uint8_t><<<blocks, kThreads, 0, stream>>>(static_cast<const uint8_t*>(src), static_cast<uint8_t*>(dst), g); break;
    case 2: strided_copy_kernel<uint16_t><<<blocks, kThreads, 0, stream>>>(static_cast<const uint16_t*>(src), static_cast<uint16_t*>(dst), g); break;
    case 4: strided_copy_kernel<uint32_t><<<blocks, kThreads, 0, stream>>>(static_cast<const uint32_t*>(src), static_cast<uint32_t*>(dst), g); break;
    case 8: strided_copy_kernel<uint64_t><<<blocks, kThreads, 0, stream>>>(static_cast<const uint64_t*>(src), static_cast<uint64_t*>(dst), g); break;
    case 16: strided_copy_kernel<Word16><<<blocks, kThreads, 0, stream>>>(static_cast<const Word16*>(src), static_cast<Word16*>(dst), g); break;
    default:
      strided_copy_bytes_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const uint8_t*>(src), static_cast<uint8_t*>(dst), g,
                                                                 static_cast<int64_t>(elsize));
  }
}

template <class U, class I>
__global__ void index_select_kernel(const U* __restrict__ src, U* __restrict__ out, const I* __restrict__ index, int64_t outer,
                                    int64_t n, int64_t k, int64_t inner) {
  const int64_t total = outer * k * inner;
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += step) {
    const int64_t i = e % inner;
    const int64_t j = (e / inner) % k;
    const int64_t o = e / (inner * k);
    int64_t r = static_cast<int64_t>(index[j]);
    if (r < 0) r += n;
    if (r < 0 || r >= n) {
      out[e] = U{};
      continue;
    }
    out[e] = src[(o * n + r) * inner + i];
  }
}

template <class U>
void index_select_typed(const void* src, void* out, const void* index, bool i64, int64_t outer, int64_t n, int64_t k, int64_t inner,
                        cudaStream_t stream) {
  const unsigned blocks = grid_for(outer * k * inner, kThreads);
  if (i64)
    index_select_kernel<U, int64_t><<<blocks, kThreads, 0, stream>>>(static_cast<const U*>(src), static_cast<U*>(out),
                                                                     static_cast<const int64_t*>(index), outer, n, k, inner);
  else
    index_select_kernel<U, int32_t><<<blocks, kThreads, 0, stream>>>(static_cast<const U*>(src), static_cast<U*>(out),
                                                                     static_cast<const int32_t*>(index), outer, n, k, inner);
}

}  // namespace

void launch_strided_copy(const void* src, void* dst, int64_t numel, size_t elsize, const std::vector<int64_t>& sizes,
                         const std::vector<int64_t>& strides, cudaStream_t stream) {
  if (numel == 0) return;
  std::vector<int64_t> dst_strides(sizes.size());
  int64_t s = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    dst_strides[d] = s;
    s *= sizes[d];
  }
  CopyGeom g;
  if (!make_geom(sizes, strides, dst_strides, g))
    throw std::invalid_argument("launch_strided_copy: more than " + std::to_string(kMaxDims) + " dims after coalescing");
  copy_with_geom(src, dst, g, elsize, stream);
}

void launch_strided_copy_general(const void* src, const std::vector<int64_t>& src_strides, void* dst,
                                 const std::vector<int64_t>& dst_strides, const std::vector<int64_t>& sizes, size_t elsize,
                                 cudaStream_t stream) {
  CopyGeom g;
  if (!make_geom(sizes, src_strides, dst_strides, g))
    throw std::invalid_argument("launch_strided_copy_general: more than " + std::to_string(kMaxDims) + " dims after coalescing");
  copy_with_geom(src, dst, g, elsize, stream);
}

void launch_convert_copy(const void* src, int src_dtype, const std::vector<int64_t>& src_strides, void* dst, int dst_dtype,
                         const std::vector<int64_t>& dst_strides, const std::vector<int64_t>& sizes, cudaStream_t stream) {
  if (!device_dtype_supported(src_dtype) || !device_dtype_supported(dst_dtype))
    throw std::invalid_argument("launch_convert_copy: unsupported dtype code");
  CopyGeom g;
  if (!make_geom(sizes, src_strides, dst_strides, g))
    throw std::invalid_argument("launch_convert_copy: more than " + std::to_string(kMaxDims) + " dims after coalescing");
  if (g.numel == 0) return;
  const unsigned blocks = grid_for(g.numel, kThreads);
  if (is_floating_code(src_dtype) || is_floating_code(dst_dtype))
    convert_copy_kernel<double><<<blocks, kThreads, 0, stream>>>(src, src_dtype, dst, dst_dtype, g);
  else
    convert_copy_kernel<int64_t><<<blocks, kThreads, 0, stream>>>(src, src_dtype, dst, dst_dtype, g);
}

void launch_index_select(const void* src, void* out, const void* index, bool index_is_int64, int64_t outer, int64_t n, int64_t k,
                         int64_t inner, size_t elsize, cudaStream_t stream) {
  if (outer * k * inner == 0) return;
  switch (elsize) {
    case 1: index_select_typed<uint8_t>(src, out, index, index_is_int64, outer, n, k, inner, stream); break;
    case 2: index_select_typed<uint16_t>(src, out, index, index_is_int64, outer, n, k, inner, stream); break;
    case 4: index_select_typed<uint32_t>(src, out, index, index_is_int64, outer, n, k, inner, stream); break;
    case 8: index_select_typed<uint64_t>(src, out, index, index_is_int64, outer, n, k, inner, stream); break;
    case 16: index_select_typed<Word16>(src, out, index, index_is_int64, outer, n, k, inner, stream); break;
    default: throw std::invalid_argument("launch_index_select: element size " + std::to_string(elsize) + " is not supported");
  }
}

}  // namespace jitctl::cuda
