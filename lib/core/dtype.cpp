#include "lib/core/dtype.h"

#include <array>

namespace jitctl {
namespace {

struct DTypeInfo {
  DType type;
  size_t size;
  std::string_view name;         // as torch prints it
  std::string_view scalar_name;  // c10::ScalarType name, storage classes are "<scalar_name>Storage"
  std::string_view alias;        // the other spelling torch accepts (torch.float, torch.long, ...)
};

constexpr std::array<DTypeInfo, 18> kInfo = {{
    {DType::UInt8, 1, "uint8", "Byte", ""},
    {DType::Int8, 1, "int8", "Char", ""},
    {DType::Int16, 2, "int16", "Short", "short"},
    {DType::Int32, 4, "int32", "Int", "int"},
    {DType::Int64, 8, "int64", "Long", "long"},
    {DType::Float16, 2, "float16", "Half", "half"},
    {DType::Float32, 4, "float32", "Float", "float"},
    {DType::Float64, 8, "float64", "Double", "double"},
    {DType::Complex32, 4, "complex32", "ComplexHalf", "chalf"},
    {DType::Complex64, 8, "complex64", "ComplexFloat", "cfloat"},
    {DType::Complex128, 16, "complex128", "ComplexDouble", "cdouble"},
    {DType::Bool, 1, "bool", "Bool", ""},
    {DType::QInt8, 1, "qint8", "QInt8", ""},
    {DType::QUInt8, 1, "quint8", "QUInt8", ""},
    {DType::QInt32, 4, "qint32", "QInt32", ""},
    {DType::BFloat16, 2, "bfloat16", "BFloat16", ""},
    {DType::QUInt4x2, 1, "quint4x2", "QUInt4x2", ""},
    {DType::QUInt2x4, 1, "quint2x4", "QUInt2x4", ""},
}};

const DTypeInfo& info(DType t) { return kInfo[static_cast<size_t>(t)]; }

}  // namespace

size_t element_size(DType t) { return info(t).size; }
std::string_view dtype_name(DType t) { return info(t).name; }
std::string_view scalar_type_name(DType t) { return info(t).scalar_name; }

bool is_quantized(DType t) {
  return t == DType::QInt8 || t == DType::QUInt8 || t == DType::QInt32 || t == DType::QUInt4x2 ||
         t == DType::QUInt2x4;
}
bool is_floating(DType t) {
  return t == DType::Float16 || t == DType::Float32 || t == DType::Float64 || t == DType::BFloat16;
}
bool is_complex(DType t) {
  return t == DType::Complex32 || t == DType::Complex64 || t == DType::Complex128;
}

std::optional<DType> dtype_from_storage_class(std::string_view name) {
  constexpr std::string_view suffix = "Storage";
  if (name.size() <= suffix.size() || name.substr(name.size() - suffix.size()) != suffix)
    return std::nullopt;
  name.remove_suffix(suffix.size());
  for (const auto& i : kInfo)
    if (i.scalar_name == name) return i.type;
  return std::nullopt;
}

std::optional<DType> dtype_from_name(std::string_view name) {
  for (const auto& i : kInfo)
    if (i.name == name || (!i.alias.empty() && i.alias == name)) return i.type;
  return std::nullopt;
}

}  // namespace jitctl
