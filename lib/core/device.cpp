#include "lib/core/device.h"

#include <fmt/format.h>

#include <charconv>

namespace jitctl {

std::optional<Device> Device::parse(std::string_view s) {
  Device d;
  std::string_view kind = s, idx;
  if (auto colon = s.find(':'); colon != std::string_view::npos) {
    kind = s.substr(0, colon);
    idx = s.substr(colon + 1);
    if (idx.empty()) return std::nullopt;
  }
  if (kind == "cpu") d.type = Type::CPU;
  else if (kind == "cuda") d.type = Type::CUDA;
  else if (kind == "meta") d.type = Type::Meta;
  else return std::nullopt;
  if (!idx.empty()) {
    auto [p, ec] = std::from_chars(idx.data(), idx.data() + idx.size(), d.index);
    if (ec != std::errc() || p != idx.data() + idx.size() || d.index < 0 || d.index > 1023)
      return std::nullopt;
  }
  return d;
}

std::string Device::str() const {
  std::string s = type == Type::CPU ? "cpu" : type == Type::CUDA ? "cuda" : "meta";
  if (index >= 0) s += fmt::format(":{}", index);
  return s;
}

}  // namespace jitctl
