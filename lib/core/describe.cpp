#include "lib/core/describe.h"

#include <fmt/format.h>

namespace jitctl {
namespace {

void describe_into(const IValue& v, std::string& out, size_t max_len, int depth) {
  if (out.size() > max_len) return;
  using K = IValue::Kind;
  auto items = [&](const std::vector<IValue>& xs, const char* open, const char* close) {
    out += open;
    for (size_t i = 0; i < xs.size(); ++i) {
      if (i) out += ", ";
      if (out.size() > max_len || depth > 8) {
        out += "...";
        break;
      }
      describe_into(xs[i], out, max_len, depth + 1);
    }
    out += close;
  };
  switch (v.kind()) {
    case K::None: out += "None"; break;
    case K::Bool: out += v.to_bool() ? "True" : "False"; break;
    case K::Int: out += fmt::format("int {}", v.to_int()); break;
    case K::Double: out += fmt::format("float {}", v.to_double()); break;
    case K::Complex: out += fmt::format("complex ({}+{}j)", v.to_complex().real(), v.to_complex().imag()); break;
    case K::String: {
      const auto& s = v.to_string();
      out += fmt::format("str '{}'", s.size() > 40 ? s.substr(0, 40) + "..." : s);
      break;
    }
    case K::Tensor: {
      const auto& t = v.to_tensor();
      out += fmt::format("{}{}", dtype_name(t.dtype()), shape_string(t.sizes()));
      if (t.device().type != Device::Type::CPU) out += " on " + t.device().str();
      break;
    }
    case K::Tuple: items(v.to_tuple()->items, "tuple(", ")"); break;
    case K::List: items(v.to_list()->items, "[", "]"); break;
    case K::Dict: {
      out += "{";
      bool first = true;
      for (const auto& [k, x] : v.to_dict()->items) {
        if (!first) out += ", ";
        first = false;
        if (out.size() > max_len || depth > 8) {
          out += "...";
          break;
        }
        describe_into(k, out, max_len, depth + 1);
        out += ": ";
        describe_into(x, out, max_len, depth + 1);
      }
      out += "}";
      break;
    }
    case K::Object: out += v.to_object()->type_name; break;
    case K::Device: out += "device " + v.to_device().str(); break;
    default: out += kind_name(v.kind());
  }
}

}  // namespace

std::string describe(const IValue& v, size_t max_len) {
  std::string out;
  describe_into(v, out, max_len, 0);
  return out;
}

std::string human_bytes(uint64_t b) {
  if (b < 1024) return fmt::format("{} B", b);
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double x = static_cast<double>(b);
  int u = -1;
  while (x >= 1024 && u < 3) x /= 1024, ++u;
  return fmt::format("{:.1f} {}", x, units[u]);
}

std::string grouped(uint64_t n) {
  std::string s = std::to_string(n), out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i && (s.size() - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return out;
}

}  // namespace jitctl
