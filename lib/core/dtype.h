#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace jitctl {

// Every scalar type PyTorch stores in archives. Quantized and packed types are recognized so they
// can be reported by name; jitctl does not compute with them.
enum class DType : uint8_t {
  UInt8, Int8, Int16, Int32, Int64, Float16, Float32, Float64, Complex32, Complex64, Complex128,
  Bool, QInt8, QUInt8, QInt32, BFloat16, QUInt4x2, QUInt2x4,
};

// Bytes per element (QUInt4x2 and QUInt2x4 pack sub-byte values into one byte).
size_t element_size(DType t);
// The name torch prints without the "torch." prefix: float32, int64, bool, ...
std::string_view dtype_name(DType t);
// PyTorch's C++ ScalarType name, which storage classes are named after: Float, Long, ...
std::string_view scalar_type_name(DType t);
bool is_quantized(DType t);
bool is_floating(DType t);
bool is_complex(DType t);

// "FloatStorage" -> Float32; nullopt for names PyTorch does not write.
std::optional<DType> dtype_from_storage_class(std::string_view name);
// "float32" / "float" / "int64" / "long" ... -> DType; nullopt when unknown.
std::optional<DType> dtype_from_name(std::string_view name);

}  // namespace jitctl
