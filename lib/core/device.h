#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace jitctl {

struct Device {
  enum class Type { CPU, CUDA, Meta };
  Type type = Type::CPU;
  int index = -1;  // -1: the current device of that type

  // "cpu", "cuda", "cuda:1", "meta"; nullopt when malformed.
  static std::optional<Device> parse(std::string_view s);
  std::string str() const;
  bool operator==(const Device&) const = default;
};

}  // namespace jitctl
