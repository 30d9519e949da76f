#include "lib/runtime/outputs.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "lib/archive/npy.h"
#include "lib/archive/torch_save.h"
#include "lib/core/describe.h"
#include "lib/core/error.h"
#include "lib/core/half.h"

namespace jitctl {
namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string key_text(const IValue& k) {
  if (k.is(IValue::Kind::String)) return fmt::format("\"{}\"", k.to_string());
  return describe(k, 60);
}

// Calls f(path, leaf) for every leaf, depth-first; tuples, lists and dicts are containers.
void for_each_leaf(const IValue& v, const std::string& path, const std::function<void(const std::string&, const IValue&)>& f) {
  switch (v.kind()) {
    case IValue::Kind::Tuple: {
      const auto& items = v.to_tuple()->items;
      for (size_t i = 0; i < items.size(); ++i) for_each_leaf(items[i], fmt::format("{}[{}]", path, i), f);
      return;
    }
    case IValue::Kind::List: {
      const auto& items = v.to_list()->items;
      for (size_t i = 0; i < items.size(); ++i) for_each_leaf(items[i], fmt::format("{}[{}]", path, i), f);
      return;
    }
    case IValue::Kind::Dict:
      for (const auto& [k, item] : v.to_dict()->items) for_each_leaf(item, fmt::format("{}[{}]", path, key_text(k)), f);
      return;
    default: f(path, v);
  }
}

// The element at p as a double; nullopt for dtypes without an order.
std::optional<double> element(const uint8_t* p, DType t) {
  switch (t) {
    case DType::Bool: return *p ? 1.0 : 0.0;
    case DType::UInt8: return *p;
    case DType::Int8: return *reinterpret_cast<const int8_t*>(p);
    case DType::Int16: { int16_t v; std::memcpy(&v, p, 2); return v; }
    case DType::Int32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case DType::Int64: { int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
    case DType::Float16: { uint16_t v; std::memcpy(&v, p, 2); return half_to_float(v); }
    case DType::BFloat16: { uint16_t v; std::memcpy(&v, p, 2); uint32_t b = uint32_t(v) << 16; float f; std::memcpy(&f, &b, 4); return f; }
    case DType::Float32: { float v; std::memcpy(&v, p, 4); return v; }
    case DType::Float64: { double v; std::memcpy(&v, p, 8); return v; }
    default: return std::nullopt;
  }
}

std::string tensor_stats(const Tensor& t) {
  const int64_t n = t.numel();
  if (n == 0) return "empty";
  if (t.device().type != Device::Type::CPU) return fmt::format("on {}", t.device().str());
  static const uint8_t zeros[16] = {};
  if (!element(zeros, t.dtype()))  // complex and quantized types have no min/max
    return fmt::format("(no statistics for {})", dtype_name(t.dtype()));
  const auto* base = static_cast<const uint8_t*>(t.data());
  const size_t elem = element_size(t.dtype());
  const auto& sizes = t.sizes();
  const auto& strides = t.strides();
  std::vector<int64_t> idx(sizes.size(), 0);
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
  bool nan = false;
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (size_t d = 0; d < sizes.size(); ++d) off += idx[d] * strides[d];
    const double v = *element(base + off * static_cast<int64_t>(elem), t.dtype());
    if (std::isnan(v)) nan = true;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
    for (size_t d = sizes.size(); d-- > 0;) {
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
    }
  }
  if (n == 1) return fmt::format("value {:.6g}", sum);
  if (nan) return "min nan max nan mean nan";
  return fmt::format("min {:.6g} max {:.6g} mean {:.6g}", lo, hi, sum / static_cast<double>(n));
}

Tensor scalar_tensor(const IValue& v, const std::string& path) {
  switch (v.kind()) {
    case IValue::Kind::Tensor: return v.to_tensor();
    case IValue::Kind::Bool: { Tensor t = Tensor::empty(DType::Bool, {}); *static_cast<bool*>(t.mutable_data()) = v.to_bool(); return t; }
    case IValue::Kind::Int: { Tensor t = Tensor::empty(DType::Int64, {}); *static_cast<int64_t*>(t.mutable_data()) = v.to_int(); return t; }
    case IValue::Kind::Double: { Tensor t = Tensor::empty(DType::Float64, {}); *static_cast<double*>(t.mutable_data()) = v.to_double(); return t; }
    default:
      throw Unsupported(fmt::format("output {} is {}: .npz holds only tensors and numbers (use -o F.pt)", path, describe(v, 80)));
  }
}

}  // namespace

void write_outputs(const std::string& path, const IValue& result) {
  if (ends_with(path, ".pt") || ends_with(path, ".pth")) {
    save_torch_save(path, result);
  } else if (ends_with(path, ".npy")) {
    if (!result.is_tensor())
      throw InvalidInput(fmt::format("{}: .npy holds one tensor, but the result is {} (use .npz or .pt)", path, describe(result, 80)));
    save_npy(path, result.to_tensor());
  } else if (ends_with(path, ".npz")) {
    std::vector<std::pair<std::string, Tensor>> arrays;
    for_each_leaf(result, "out", [&](const std::string& leaf, const IValue& v) {
      arrays.emplace_back(fmt::format("arg{}", arrays.size()), scalar_tensor(v, leaf));
    });
    save_npz(path, arrays);
  } else {
    throw InvalidInput(fmt::format("{}: unknown output format (use .pt, .npy or .npz)", path));
  }
}

std::string summarize_outputs(const IValue& result) {
  std::string out;
  for_each_leaf(result, "out", [&](const std::string& path, const IValue& v) {
    if (v.is_tensor()) {
      const Tensor& t = v.to_tensor();
      out += fmt::format("{}: {} {} {}\n", path, dtype_name(t.dtype()), shape_string(t.sizes()), tensor_stats(t));
    } else {
      out += fmt::format("{}: {}\n", path, describe(v));
    }
  });
  if (out.empty()) out = fmt::format("out: {}\n", describe(result));  // an empty container
  return out;
}

}  // namespace jitctl
