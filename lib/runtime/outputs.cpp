#include "lib/runtime/outputs.h"

#include <fmt/format.h>

#include <stdlib.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <optional>

#include "lib/archive/npy.h"
#include "lib/archive/torch_save.h"
#include "lib/core/describe.h"
#include "lib/core/error.h"
#include "lib/core/output_file.h"
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

// Python's name for a value's kind.
std::string value_kind(const IValue& v) {
  return v.is_object() ? v.to_object()->type_name : std::string(kind_name(v.kind()));
}

// Calls f(path, leaf) for every leaf, depth-first; tuples, lists and dicts are containers.
void for_each_leaf(const IValue& v, const std::string& path, const std::function<void(const std::string&, const IValue&)>& f) {
  const ValueDepthGuard level("summarizing");
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

struct Stats {
  std::optional<double> min, max, mean;
  std::string note;
};

Stats tensor_stats(const Tensor& t) {
  Stats st;
  const int64_t n = t.numel();
  if (n == 0) return {{}, {}, {}, "empty"};
  if (t.device().type != Device::Type::CPU) return {{}, {}, {}, fmt::format("on {}", t.device().str())};
  static const uint8_t zeros[16] = {};
  if (!element(zeros, t.dtype()))  // complex and quantized types have no min/max
    return {{}, {}, {}, fmt::format("no statistics for {}", dtype_name(t.dtype()))};
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
  if (nan) return {NAN, NAN, NAN, ""};
  return {lo, hi, sum / static_cast<double>(n), ""};
}

std::string stats_text(const Tensor& t, const Stats& st) {
  if (!st.note.empty()) return st.note == "empty" ? "empty" : "(" + st.note + ")";
  if (t.numel() == 1) return fmt::format("value {:.6g}", *st.mean);
  if (std::isnan(*st.mean)) return "min nan max nan mean nan";
  return fmt::format("min {:.6g} max {:.6g} mean {:.6g}", *st.min, *st.max, *st.mean);
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

std::string output_format(const std::string& path, const std::string& format) {
  if (!format.empty()) {
    if (format == "pt" || format == "npy" || format == "npz") return format;
    throw InvalidInput(fmt::format("output format '{}': use pt, npy or npz", format));
  }
  if (path == "-") return "pt";
  std::string lower = path;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ends_with(lower, ".pt") || ends_with(lower, ".pth")) return "pt";
  if (ends_with(lower, ".npy")) return "npy";
  if (ends_with(lower, ".npz")) return "npz";
  throw InvalidInput(fmt::format("{}: unknown output format (name it .pt, .npy or .npz, or give --output-format)", path));
}

namespace {

// The npz member name of each leaf (outputs.h): arg0, arg1.0, key, key.sub.
std::vector<std::pair<std::string, Tensor>> npz_arrays(const IValue& result) {
  std::vector<std::pair<std::string, Tensor>> arrays;
  std::function<void(const IValue&, const std::string&)> walk = [&](const IValue& v, const std::string& name) {
    const ValueDepthGuard level("writing");
    auto child = [&](const std::string& part) { return name.empty() ? part : name + "." + part; };
    switch (v.kind()) {
      case IValue::Kind::Tuple:
      case IValue::Kind::List: {
        const auto& items = v.is(IValue::Kind::Tuple) ? v.to_tuple()->items : v.to_list()->items;
        for (size_t i = 0; i < items.size(); ++i) walk(items[i], name.empty() ? fmt::format("arg{}", i) : child(std::to_string(i)));
        return;
      }
      case IValue::Kind::Dict:
        for (const auto& [k, item] : v.to_dict()->items) {
          std::string key = k.is(IValue::Kind::String) ? k.to_string() : describe(k, 60);
          // A member name is a zip path: no folders, no control bytes.
          for (auto& c : key)
            if (c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20) c = '_';
          if (key.empty()) key = "_";
          walk(item, child(key));
        }
        return;
      default:
        arrays.emplace_back(name.empty() ? "arg0" : name, scalar_tensor(v, name.empty() ? "out" : name));
    }
  };
  walk(result, "");
  return arrays;
}

void write_format(const std::string& path, const IValue& result, const std::string& format) {
  if (format == "pt") {
    save_torch_save(path, result);
  } else if (format == "npy") {
    if (!result.is_tensor())
      throw InvalidInput(fmt::format("{}: .npy holds one tensor, but the result is {} (use .npz or .pt)", path, describe(result, 80)));
    save_npy(path, result.to_tensor());
  } else {
    save_npz(path, npz_arrays(result));
  }
}

// Standard output gets the bytes of a file written in a private temporary folder (the zip
// writer writes files), so what reaches it is whole or nothing.
void write_to_stdout(const IValue& result, const std::string& format) {
  write_to_stdout_through_file("output." + format, [&](const std::string& file) { write_format(file, result, format); });
}

}  // namespace

void write_outputs(const std::string& path, const IValue& result, const std::string& format) {
  const std::string f = output_format(path, format);
  if (path == "-") return write_to_stdout(result, f);
  write_format(path, result, f);
}

std::vector<OutputLeaf> output_leaves(const IValue& result) {
  std::vector<OutputLeaf> out;
  for_each_leaf(result, "out", [&](const std::string& path, const IValue& v) {
    OutputLeaf leaf;
    leaf.path = path;
    if (v.is_tensor()) {
      const Tensor& t = v.to_tensor();
      leaf.kind = "Tensor";
      leaf.dtype = std::string(dtype_name(t.dtype()));
      leaf.shape = t.sizes();
      const Stats st = tensor_stats(t);
      leaf.min = st.min;
      leaf.max = st.max;
      leaf.mean = st.mean;
      leaf.note = st.note;
    } else {
      leaf.kind = value_kind(v);
      leaf.value = v.is(IValue::Kind::String) ? v.to_string() : describe(v);
    }
    out.push_back(std::move(leaf));
  });
  return out;
}

std::string summarize_outputs(const IValue& result) {
  std::string out;
  for_each_leaf(result, "out", [&](const std::string& path, const IValue& v) {
    if (v.is_tensor()) {
      const Tensor& t = v.to_tensor();
      out += fmt::format("{}: {} {} {}\n", path, dtype_name(t.dtype()), shape_string(t.sizes()), stats_text(t, tensor_stats(t)));
    } else {
      out += fmt::format("{}: {}\n", path, describe(v));
    }
  });
  if (out.empty()) out = fmt::format("out: {}\n", describe(result));  // an empty container
  return out;
}

}  // namespace jitctl
