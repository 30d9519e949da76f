#pragma once
// Which dtypes the device kernels take, and the type they compute in.
#include <fmt/format.h>

#include "kernels/cuda/copy_launch.h"
#include "kernels/cuda_backend.h"
#include "lib/core/dtype.h"

namespace jitctl::cuda {

inline int code(DType d) { return static_cast<int>(d); }

inline void require_dtype(DType dt, const char* op) {
  if (!device_dtype_supported(code(dt)))
    throw NotOnDevice(fmt::format("{}: dtype {} is not supported on the device", op, dtype_name(dt)));
}

// float32 and float64 compute as themselves; integer and bool compute dtypes in int64, whose
// results stored back into the narrower output are the same (two's complement wrap-around, 0/1).
inline int kernel_type(DType dt, const char* op) {
  if (dt == DType::Float32) return kDevFloat32;
  if (dt == DType::Float64) return kDevFloat64;
  if (dt == DType::Int64 || dt == DType::Int32 || dt == DType::Int16 || dt == DType::Int8 || dt == DType::UInt8 || dt == DType::Bool)
    return kDevInt64;
  throw NotOnDevice(fmt::format("{}: compute dtype {} is not supported on the device", op, dtype_name(dt)));
}

}  // namespace jitctl::cuda
