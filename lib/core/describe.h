#pragma once
// Short human-readable descriptions of values and sizes, for command output.
#include <cstdint>
#include <string>

#include "lib/core/ivalue.h"

namespace jitctl {

// "float32[1, 3, 224, 224]", "int 3", "tuple(float32[2], str 'a')" -- one line, bounded length.
std::string describe(const IValue& v, size_t max_len = 200);
// 1536 -> "1.5 KiB"
std::string human_bytes(uint64_t bytes);
// 1234567 -> "1,234,567"
std::string grouped(uint64_t n);

}  // namespace jitctl
