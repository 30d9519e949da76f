#include "kernels/cpu/value_util.h"

#include <cmath>
#include <cstdio>

namespace jitctl::cpu {

double number_of(const IValue& v) {
  if (v.is(IValue::Kind::Bool)) return v.to_bool() ? 1.0 : 0.0;
  return v.to_double();
}

std::string format_double(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  // PyTorch prints integral doubles that fit an int64 as the integer and a dot ("1.", and "0."
  // for -0.0), everything else with 17 significant digits.
  if (std::trunc(d) == d && std::fabs(d) < 9.2e18) return std::to_string(static_cast<int64_t>(d)) + ".";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  return buf;
}

namespace {

void append_str(std::string& out, const IValue& v) {
  const ValueDepthGuard level("printing");
  using K = IValue::Kind;
  switch (v.kind()) {
    case K::None: out += "None"; return;
    case K::Bool: out += v.to_bool() ? "True" : "False"; return;
    case K::Int: out += std::to_string(v.to_int()); return;
    case K::Double: out += format_double(v.to_double()); return;
    case K::String: out += v.to_string(); return;
    case K::Device: out += v.to_device().str(); return;
    case K::List: {
      out += '[';
      const auto& items = v.to_list()->items;
      for (size_t i = 0; i < items.size(); ++i) {
        if (i) out += ", ";
        append_str(out, items[i]);
      }
      out += ']';
      return;
    }
    case K::Tuple: {
      out += '(';
      const auto& items = v.to_tuple()->items;
      for (size_t i = 0; i < items.size(); ++i) {
        if (i) out += ", ";
        append_str(out, items[i]);
      }
      if (items.size() == 1) out += ',';
      out += ')';
      return;
    }
    case K::Dict: {
      out += '{';
      bool first = true;
      for (const auto& [k, val] : v.to_dict()->items) {
        if (!first) out += ", ";
        first = false;
        append_str(out, k);
        out += ": ";
        append_str(out, val);
      }
      out += '}';
      return;
    }
    default:
      throw Unsupported(std::string("str()/format() of a ") + kind_name(v.kind()) + " value is not supported yet");
  }
}

}  // namespace

std::string script_str(const IValue& v) {
  std::string out;
  append_str(out, v);
  return out;
}

size_t normalize_index(int64_t i, size_t n) {
  const int64_t size = static_cast<int64_t>(n);
  if (i < 0) i += size;
  if (i < 0 || i >= size) throw InvalidInput("list index out of range");
  return static_cast<size_t>(i);
}

SliceRange slice_range(const IValue& start_v, const IValue& end_v, int64_t step, int64_t n) {
  if (step == 0) throw InvalidInput("List slice should have non-zero step");
  const int64_t lower = step > 0 ? 0 : -1;
  const int64_t upper = step > 0 ? n : n - 1;
  auto adjust = [&](const IValue& v, int64_t dflt) {
    if (v.is_none()) return dflt;
    int64_t x = v.to_int();
    if (x < 0) x = x < -n ? lower : x + n;
    if (x < lower) x = lower;
    if (x > upper) x = upper;
    return x;
  };
  const int64_t start = adjust(start_v, step > 0 ? lower : upper);
  const int64_t end = adjust(end_v, step > 0 ? upper : lower);
  int64_t count = 0;
  if (step > 0 && end > start) count = (end - start - 1) / step + 1;
  if (step < 0 && start > end) count = (start - end - 1) / (-step) + 1;
  return {start, count, step};
}

}  // namespace jitctl::cpu
