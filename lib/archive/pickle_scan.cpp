#include "lib/archive/pickle_scan.h"

#include <cstdint>
#include <cstring>

#include "lib/archive/pickle_opcodes.h"

namespace jitctl {
namespace {

uint64_t little_endian(const char* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint64_t(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

}  // namespace

std::vector<std::string> pickle_globals(std::string_view s, size_t max_globals) {
  using namespace pickle_op;
  std::vector<std::string> out;
  std::string last_strings[2];  // the two most recent string pushes, for STACK_GLOBAL
  size_t pos = 0;
  auto line = [&](std::string& text) {
    const size_t nl = s.find('\n', pos);
    if (nl == std::string_view::npos) return false;
    text = std::string(s.substr(pos, nl - pos));
    pos = nl + 1;
    return true;
  };
  auto skip = [&](uint64_t n) {
    if (n > s.size() - pos) return false;
    pos += n;
    return true;
  };
  auto counted = [&](size_t width, bool is_string) {
    if (width > s.size() - pos) return false;
    const uint64_t n = little_endian(s.data() + pos, width);
    pos += width;
    if (n > s.size() - pos) return false;
    if (is_string) {
      last_strings[0] = std::move(last_strings[1]);
      last_strings[1] = std::string(s.substr(pos, n));
    }
    pos += n;
    return true;
  };
  while (pos < s.size() && out.size() < max_globals) {
    const auto op = static_cast<uint8_t>(s[pos++]);
    std::string a, b;
    bool ok = true;
    switch (op) {
      case STOP: return out;
      case GLOBAL:
        ok = line(a) && line(b);
        if (ok) out.push_back(a + "." + b);
        break;
      case STACK_GLOBAL: out.push_back(last_strings[0] + "." + last_strings[1]); break;
      case INST: ok = line(a) && line(b); break;
      case INT: case LONG: case FLOAT: case STRING: case UNICODE: case PERSID: case GET: case PUT: ok = line(a); break;
      case BININT1: case BINGET: case BINPUT: case PROTO: case EXT1: ok = skip(1); break;
      case BININT2: case EXT2: ok = skip(2); break;
      case BININT: case LONG_BINGET: case LONG_BINPUT: case EXT4: ok = skip(4); break;
      case BINFLOAT: case FRAME: ok = skip(8); break;
      case SHORT_BINSTRING: case SHORT_BINUNICODE: ok = counted(1, true); break;
      case SHORT_BINBYTES: case LONG1: ok = counted(1, false); break;
      case BINSTRING: case BINUNICODE: ok = counted(4, true); break;
      case BINBYTES: case LONG4: ok = counted(4, false); break;
      case BINUNICODE8: ok = counted(8, true); break;
      case BINBYTES8: case BYTEARRAY8: ok = counted(8, false); break;
      case MARK: case POP: case POP_MARK: case DUP: case NONE: case BINPERSID: case REDUCE: case APPEND: case BUILD:
      case DICT: case EMPTY_DICT: case APPENDS: case LIST: case EMPTY_LIST: case OBJ: case SETITEM: case TUPLE:
      case EMPTY_TUPLE: case SETITEMS: case NEWOBJ: case TUPLE1: case TUPLE2: case TUPLE3: case NEWTRUE: case NEWFALSE:
      case EMPTY_SET: case ADDITEMS: case FROZENSET: case NEWOBJ_EX: case MEMOIZE: case NEXT_BUFFER: case READONLY_BUFFER:
        break;
      default: return out;
    }
    if (!ok) return out;
  }
  return out;
}

}  // namespace jitctl
