#pragma once
// Device copies (copy.cu): strided gathers into contiguous memory and dtype conversions; and the
// strided-operand types the elementwise, reduction and norm launchers share. Plain C++17 (the .cu
// files include it): no jitctl header.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace jitctl::cuda {

// dst[i] (contiguous, numel elements of elsize bytes) = the element of `src` (its first element's
// address) at the i-th row-major index of `sizes`, stepping by `strides` (in elements). At most 12 dims.
void launch_strided_copy(const void* src, void* dst, int64_t numel, size_t elsize,
                         const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides, cudaStream_t stream);

// Element types as device code sees them: the values of jitctl::DType (lib/core/dtype.h), so a
// host file passes static_cast<int>(t.dtype()); elementwise.cpp static_asserts that they agree.
// Device kernels load and store these eight; other dtypes (float16, complex, ...) stay on the CPU.
enum DeviceDType : int {
  kDevUInt8 = 0,
  kDevInt8 = 1,
  kDevInt16 = 2,
  kDevInt32 = 3,
  kDevInt64 = 4,
  kDevFloat32 = 6,
  kDevFloat64 = 7,
  kDevBool = 11,
};
inline bool device_dtype_supported(int dt) {
  return dt == kDevUInt8 || dt == kDevInt8 || dt == kDevInt16 || dt == kDevInt32 || dt == kDevInt64 || dt == kDevFloat32 ||
         dt == kDevFloat64 || dt == kDevBool;
}

constexpr int kMaxDims = 12;

// The iteration space of an elementwise kernel: every operand is viewed with these sizes
// (broadcast operands by stride 0), after coalesce_dims().
struct DeviceShape {
  int ndim = 0;
  int64_t numel = 0;
  int64_t sizes[kMaxDims] = {};
};
// An input: a strided tensor (ptr, dtype, strides in elements), or, with ptr == nullptr, the
// Scalar dval/ival (ival holds an int or bool Scalar exactly; dval the value as double).
struct DeviceOperand {
  const void* ptr = nullptr;
  int dtype = kDevFloat32;
  int64_t strides[kMaxDims] = {};
  double dval = 0;
  int64_t ival = 0;
};
struct DeviceOut {
  void* ptr = nullptr;
  int dtype = kDevFloat32;
  int64_t strides[kMaxDims] = {};
};

// Drops size-1 dims and merges each dim into the next where every operand steps through both as
// one run (stride[d] == stride[d+1] * size[d+1]): a contiguous or same-layout operation becomes
// one dim, a broadcast add a few. `strides` holds one stride vector per operand.
inline void coalesce_dims(std::vector<int64_t>& sizes, std::vector<std::vector<int64_t>>& strides) {
  std::vector<int64_t> ns;
  std::vector<std::vector<int64_t>> nst(strides.size());
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 1) continue;
    if (!ns.empty()) {
      bool merge = true;
      for (size_t k = 0; k < strides.size(); ++k)
        if (nst[k].back() != strides[k][d] * sizes[d]) merge = false;
      if (merge) {
        ns.back() *= sizes[d];
        for (size_t k = 0; k < strides.size(); ++k) nst[k].back() = strides[k][d];
        continue;
      }
    }
    ns.push_back(sizes[d]);
    for (size_t k = 0; k < strides.size(); ++k) nst[k].push_back(strides[k][d]);
  }
  sizes = std::move(ns);
  strides = std::move(nst);
}

// dst (any strides) = src (any strides; stride 0 broadcasts) over `sizes`, each element converted
// from src_dtype to dst_dtype (DeviceDType codes; bool results are 0/1, as static_cast<bool>).
// At most kMaxDims dims after coalescing (std::invalid_argument otherwise, before any launch).
void launch_convert_copy(const void* src, int src_dtype, const std::vector<int64_t>& src_strides, void* dst, int dst_dtype,
                         const std::vector<int64_t>& dst_strides, const std::vector<int64_t>& sizes, cudaStream_t stream);

// dst (any strides) = src (any strides) over `sizes`, elements of `elsize` bytes copied as they
// are (any dtype). At most kMaxDims dims after coalescing (std::invalid_argument otherwise).
void launch_strided_copy_general(const void* src, const std::vector<int64_t>& src_strides, void* dst,
                                 const std::vector<int64_t>& dst_strides, const std::vector<int64_t>& sizes, size_t elsize,
                                 cudaStream_t stream);

// out[o, j, i] = src[o, index[j], i] for contiguous src [outer, n, inner] and out [outer, k, inner]
// of elsize-byte elements; index (int64 or int32, k entries, contiguous) may be negative (counted
// from n). An index outside [-n, n) gives zero bytes (the host cannot check without waiting).
void launch_index_select(const void* src, void* out, const void* index, bool index_is_int64, int64_t outer, int64_t n, int64_t k,
                         int64_t inner, size_t elsize, cudaStream_t stream);

#if defined(__CUDACC__)
// ---- device helpers shared by the .cu files ------------------------------------------------

template <class T, class S>
__device__ __forceinline__ T convert_value(S v) {
  if constexpr (std::is_same<T, bool>::value) return v != S(0);
  else return static_cast<T>(v);
}

// The element at `off` of a tensor of DeviceDType `dtype`, converted to T.
template <class T>
__device__ __forceinline__ T load_as(const void* base, int dtype, int64_t off) {
  switch (dtype) {
    case kDevFloat32: return convert_value<T>(static_cast<const float*>(base)[off]);
    case kDevFloat64: return convert_value<T>(static_cast<const double*>(base)[off]);
    case kDevInt64: return convert_value<T>(static_cast<const int64_t*>(base)[off]);
    case kDevInt32: return convert_value<T>(static_cast<const int32_t*>(base)[off]);
    case kDevInt16: return convert_value<T>(static_cast<const int16_t*>(base)[off]);
    case kDevInt8: return convert_value<T>(static_cast<const int8_t*>(base)[off]);
    case kDevUInt8: return convert_value<T>(static_cast<const uint8_t*>(base)[off]);
    case kDevBool: return convert_value<T>(static_cast<const uint8_t*>(base)[off] != 0);
    default: return T();
  }
}

template <class T>
__device__ __forceinline__ void store_as(void* base, int dtype, int64_t off, T v) {
  switch (dtype) {
    case kDevFloat32: static_cast<float*>(base)[off] = convert_value<float>(v); break;
    case kDevFloat64: static_cast<double*>(base)[off] = convert_value<double>(v); break;
    case kDevInt64: static_cast<int64_t*>(base)[off] = convert_value<int64_t>(v); break;
    case kDevInt32: static_cast<int32_t*>(base)[off] = convert_value<int32_t>(v); break;
    case kDevInt16: static_cast<int16_t*>(base)[off] = convert_value<int16_t>(v); break;
    case kDevInt8: static_cast<int8_t*>(base)[off] = convert_value<int8_t>(v); break;
    case kDevUInt8: static_cast<uint8_t*>(base)[off] = convert_value<uint8_t>(v); break;
    case kDevBool: static_cast<uint8_t*>(base)[off] = v != T(0) ? 1 : 0; break;
    default: break;
  }
}

// An input's value at `off` as T (its Scalar when it has no pointer).
template <class T>
__device__ __forceinline__ T operand_value(const DeviceOperand& op, int64_t off) {
  if (op.ptr) return load_as<T>(op.ptr, op.dtype, off);
  if constexpr (std::is_floating_point<T>::value) return static_cast<T>(op.dval);
  else return convert_value<T>(op.ival);
}

// Blocks for a grid-stride loop over n elements with `threads` per block.
inline unsigned grid_for(int64_t n, int threads) {
  const int64_t b = (n + threads - 1) / threads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > (1 << 20) ? (1 << 20) : b));
}
#endif

}  // namespace jitctl::cuda
