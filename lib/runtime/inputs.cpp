#include "lib/runtime/inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <random>

#include "lib/archive/npy.h"
#include "lib/archive/torch_save.h"
#include "lib/core/error.h"
#include "lib/core/half.h"

namespace jitctl {
namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// "arg3" or numpy's default "arr_3" -> 3.
std::optional<size_t> positional_index(const std::string& name) {
  std::string_view digits;
  if (name.rfind("arg", 0) == 0) digits = std::string_view(name).substr(3);
  else if (name.rfind("arr_", 0) == 0) digits = std::string_view(name).substr(4);
  if (digits.empty() || digits.size() > 6) return std::nullopt;
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return std::nullopt;
  if (digits.size() > 1 && digits[0] == '0') return std::nullopt;
  return std::stoul(std::string(digits));
}

std::vector<IValue> npz_inputs(const std::string& path) {
  std::map<size_t, Tensor> by_index;
  for (auto& [name, t] : load_npz(path)) {
    const auto i = positional_index(name);
    if (!i)
      throw InvalidInput(fmt::format("{}: member '{}' is not a positional argument (name them arg0, arg1, ... or arr_0, arr_1, ...)",
                                     path, name));
    if (!by_index.emplace(*i, std::move(t)).second)
      throw InvalidInput(fmt::format("{}: argument {} appears twice", path, *i));
  }
  std::vector<IValue> args;
  for (auto& [i, t] : by_index) {
    if (i != args.size()) throw InvalidInput(fmt::format("{}: argument {} is missing (arguments must be numbered from 0)", path, args.size()));
    args.emplace_back(std::move(t));
  }
  return args;
}

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

InputSpec parse_one_spec(const std::string& spec, const std::string& whole) {
  auto bad = [&](const std::string& why) {
    return InvalidInput(fmt::format("--input-spec '{}': {} (expected e.g. 'float32[1,3,224,224]')", whole, why));
  };
  const size_t open = spec.find('[');
  if (open == std::string::npos || spec.back() != ']') throw bad(fmt::format("'{}' has no [shape]", spec));
  const std::string type = trim(std::string_view(spec).substr(0, open));
  const auto dtype = dtype_from_name(type);
  if (!dtype) throw bad(fmt::format("unknown dtype '{}'", type));
  switch (*dtype) {
    case DType::Bool: case DType::UInt8: case DType::Int8: case DType::Int16: case DType::Int32: case DType::Int64:
    case DType::Float16: case DType::BFloat16: case DType::Float32: case DType::Float64:
      break;
    default: throw Unsupported(fmt::format("--input-spec '{}': random {} tensors", whole, dtype_name(*dtype)));
  }
  InputSpec out;
  out.dtype = *dtype;
  const std::string dims = trim(std::string_view(spec).substr(open + 1, spec.size() - open - 2));
  if (dims.empty()) return out;  // a 0-d tensor
  size_t pos = 0;
  int64_t numel = 1;
  while (pos <= dims.size()) {
    const size_t comma = std::min(dims.find(',', pos), dims.size());
    const std::string d = trim(std::string_view(dims).substr(pos, comma - pos));
    if (d.empty() || d.size() > 12 || !std::all_of(d.begin(), d.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      throw bad(fmt::format("dimension '{}' is not a non-negative integer", d));
    const int64_t v = std::stoll(d);
    out.shape.push_back(v);
    if (v != 0 && numel > (int64_t(1) << 40) / v) throw bad("the tensor is too large");
    numel *= v;
    pos = comma + 1;
  }
  return out;
}

}  // namespace

std::vector<IValue> load_inputs(const std::string& path) {
  if (!std::filesystem::exists(path)) throw InvalidInput(fmt::format("{}: no such file", path));
  if (ends_with(path, ".npy")) return {IValue(load_npy(path))};
  if (ends_with(path, ".npz")) return npz_inputs(path);
  IValue v = load_torch_save(path);
  if (v.is(IValue::Kind::Tuple)) return v.to_tuple()->items;
  return {std::move(v)};
}

std::vector<InputSpec> parse_input_specs(const std::string& text) {
  std::vector<InputSpec> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ',';
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (depth < 0 || depth > 1) throw InvalidInput(fmt::format("--input-spec '{}': unbalanced brackets", text));
    if (c == ',' && depth == 0) {
      const std::string one = trim(std::string_view(text).substr(start, i - start));
      if (one.empty()) throw InvalidInput(fmt::format("--input-spec '{}': empty spec", text));
      out.push_back(parse_one_spec(one, text));
      start = i + 1;
    }
  }
  if (depth != 0) throw InvalidInput(fmt::format("--input-spec '{}': unbalanced brackets", text));
  return out;
}

Tensor random_tensor(const InputSpec& spec, uint64_t seed) {
  Tensor t = Tensor::empty(spec.dtype, spec.shape);
  const int64_t n = t.numel();
  if (n == 0) return t;
  std::mt19937_64 rng(seed);
  void* p = t.mutable_data();
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_int_distribution<int> small(0, 9), coin(0, 1);
  auto fill = [&](auto* data, auto draw) {
    for (int64_t i = 0; i < n; ++i) data[i] = draw();
  };
  switch (spec.dtype) {
    case DType::Float32: fill(static_cast<float*>(p), [&] { return static_cast<float>(normal(rng)); }); break;
    case DType::Float64: fill(static_cast<double*>(p), [&] { return normal(rng); }); break;
    case DType::Float16: fill(static_cast<uint16_t*>(p), [&] { return float_to_half(static_cast<float>(normal(rng))); }); break;
    case DType::BFloat16:
      fill(static_cast<uint16_t*>(p), [&] {
        const float f = static_cast<float>(normal(rng));
        uint32_t x;
        std::memcpy(&x, &f, 4);
        return static_cast<uint16_t>((x + 0x7fff + ((x >> 16) & 1)) >> 16);
      });
      break;
    case DType::Bool: fill(static_cast<bool*>(p), [&] { return coin(rng) == 1; }); break;
    case DType::UInt8: fill(static_cast<uint8_t*>(p), [&] { return static_cast<uint8_t>(small(rng)); }); break;
    case DType::Int8: fill(static_cast<int8_t*>(p), [&] { return static_cast<int8_t>(small(rng)); }); break;
    case DType::Int16: fill(static_cast<int16_t*>(p), [&] { return static_cast<int16_t>(small(rng)); }); break;
    case DType::Int32: fill(static_cast<int32_t*>(p), [&] { return static_cast<int32_t>(small(rng)); }); break;
    case DType::Int64: fill(static_cast<int64_t*>(p), [&] { return static_cast<int64_t>(small(rng)); }); break;
    default: throw Unsupported(fmt::format("random {} tensors", dtype_name(spec.dtype)));
  }
  return t;
}

std::vector<IValue> spec_inputs(const std::vector<std::string>& specs, uint64_t seed) {
  std::vector<IValue> args;
  for (const auto& text : specs)
    for (const auto& s : parse_input_specs(text)) args.emplace_back(random_tensor(s, seed + args.size()));
  return args;
}

std::vector<IValue> resolve_inputs(const std::string& inputs_path, const std::vector<std::string>& specs, uint64_t seed) {
  if (!inputs_path.empty() && !specs.empty()) throw InvalidInput("give either --inputs or --input-spec, not both");
  if (!inputs_path.empty()) return load_inputs(inputs_path);
  return spec_inputs(specs, seed);
}

}  // namespace jitctl
