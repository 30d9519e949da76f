#pragma once
// Builds pickle byte strings opcode by opcode, for tests that need exact (or hostile) pickles.
#include <cstdint>
#include <string>

#include "lib/archive/pickle_opcodes.h"

namespace jitctl::test {

struct PickleBytes {
  std::string s;
  PickleBytes& op(uint8_t o) { s += static_cast<char>(o); return *this; }
  PickleBytes& raw(const std::string& b) { s += b; return *this; }
  PickleBytes& u8(uint8_t v) { s += static_cast<char>(v); return *this; }
  PickleBytes& u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
    return *this;
  }
  PickleBytes& proto(uint8_t v = 2) { return op(pickle_op::PROTO).u8(v); }
  PickleBytes& global(const std::string& module, const std::string& name) {
    return op(pickle_op::GLOBAL).raw(module + "\n" + name + "\n");
  }
  PickleBytes& str(const std::string& v) { return op(pickle_op::BINUNICODE).u32(static_cast<uint32_t>(v.size())).raw(v); }
  PickleBytes& int1(uint8_t v) { return op(pickle_op::BININT1).u8(v); }
  PickleBytes& stop() { return op(pickle_op::STOP); }
};

}  // namespace jitctl::test
