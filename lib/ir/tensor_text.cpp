#include "lib/ir/tensor_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "lib/core/dtype.h"
#include "lib/core/error.h"
#include "lib/core/half.h"

namespace jitctl {
namespace {

// --- element access -------------------------------------------------------------------------

template <class T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <class T>
void store(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

// An element as ATen's `.to(kDouble)` sees it (complex: the real part).
double element_double(DType t, const uint8_t* p) {
  switch (t) {
    case DType::UInt8:
    case DType::QUInt8:
    case DType::QUInt4x2:
    case DType::QUInt2x4: return *p;
    case DType::Int8:
    case DType::QInt8: return static_cast<int8_t>(*p);
    case DType::Int16: return load<int16_t>(p);
    case DType::Int32:
    case DType::QInt32: return load<int32_t>(p);
    case DType::Int64: return static_cast<double>(load<int64_t>(p));
    case DType::Float16: return half_to_float(load<uint16_t>(p));
    case DType::BFloat16: return bfloat16_to_float(load<uint16_t>(p));
    case DType::Float32: return load<float>(p);
    case DType::Float64: return load<double>(p);
    case DType::Complex32: return half_to_float(load<uint16_t>(p));
    case DType::Complex64: return load<float>(p);
    case DType::Complex128: return load<double>(p);
    case DType::Bool: return *p != 0 ? 1.0 : 0.0;
  }
  return 0;
}

int64_t element_int(DType t, const uint8_t* p) {
  if (t == DType::Int64) return load<int64_t>(p);
  return static_cast<int64_t>(element_double(t, p));
}

std::complex<double> element_complex(DType t, const uint8_t* p) {
  switch (t) {
    case DType::Complex32: return {half_to_float(load<uint16_t>(p)), half_to_float(load<uint16_t>(p + 2))};
    case DType::Complex64: return {load<float>(p), load<float>(p + 4)};
    case DType::Complex128: return {load<double>(p), load<double>(p + 8)};
    default: return {element_double(t, p), 0.0};
  }
}

void set_element(DType t, uint8_t* p, std::complex<double> c) {
  const double d = c.real();
  switch (t) {
    case DType::UInt8:
    case DType::QUInt8:
    case DType::QUInt4x2:
    case DType::QUInt2x4: *p = static_cast<uint8_t>(static_cast<int64_t>(d)); break;
    case DType::Int8:
    case DType::QInt8: store(p, static_cast<int8_t>(static_cast<int64_t>(d))); break;
    case DType::Int16: store(p, static_cast<int16_t>(static_cast<int64_t>(d))); break;
    case DType::Int32:
    case DType::QInt32: store(p, static_cast<int32_t>(static_cast<int64_t>(d))); break;
    case DType::Int64: store(p, static_cast<int64_t>(d)); break;
    case DType::Float16: store(p, float_to_half(static_cast<float>(d))); break;
    case DType::BFloat16: store(p, float_to_bfloat16(static_cast<float>(d))); break;
    case DType::Float32: store(p, static_cast<float>(d)); break;
    case DType::Float64: store(p, d); break;
    case DType::Complex32:
      store(p, float_to_half(static_cast<float>(d)));
      store(p + 2, float_to_half(static_cast<float>(c.imag())));
      break;
    case DType::Complex64:
      store(p, static_cast<float>(d));
      store(p + 4, static_cast<float>(c.imag()));
      break;
    case DType::Complex128:
      store(p, d);
      store(p + 8, c.imag());
      break;
    case DType::Bool: *p = d != 0 ? 1 : 0; break;
  }
}

// Visits the elements of `t` in row-major order.
template <class F>
void for_each_element(const Tensor& t, F&& f) {
  const int64_t n = t.numel();
  if (n == 0) return;
  const auto* base = static_cast<const uint8_t*>(t.data());
  const size_t esize = element_size(t.dtype());
  const auto& sizes = t.sizes();
  const auto& strides = t.strides();
  std::vector<int64_t> idx(sizes.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * strides[d];
    f(base + off * static_cast<int64_t>(esize));
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
    }
  }
}

// --- ATen's printer ---------------------------------------------------------------------------

// The stream state ATen's __printFormat leaves behind: a scale to divide by, a field width and a
// float format.
struct Format {
  double scale = 1;
  int width = 0;
  char conv = 'g';  // 'g' default (precision 6), 'e' scientific (4), 'f' fixed (4)
};

Format choose_format(const double* v, size_t n) {
  bool int_mode = true;
  for (size_t i = 0; i < n; ++i)
    if (std::isfinite(v[i]) && v[i] != std::ceil(v[i])) {
      int_mode = false;
      break;
    }
  size_t offset = 0;
  while (offset < n && !std::isfinite(v[offset])) ++offset;
  double exp_min = 1, exp_max = 1;
  if (offset < n) {
    exp_min = std::fabs(v[offset]);
    exp_max = std::fabs(v[offset]);
    for (size_t i = offset; i < n; ++i) {
      const double z = std::fabs(v[i]);
      if (std::isfinite(z)) {
        if (z < exp_min) exp_min = z;
        if (v[i] > exp_max) exp_max = z;  // ATen compares the signed value here
      }
    }
    exp_min = exp_min != 0 ? std::floor(std::log10(exp_min)) + 1 : 1;
    exp_max = exp_max != 0 ? std::floor(std::log10(exp_max)) + 1 : 1;
  }
  Format f;
  if (int_mode) {
    if (exp_max > 9) {
      f.width = 11;
      f.conv = 'e';
    } else {
      f.width = static_cast<int>(exp_max + 1);
      f.conv = 'g';
    }
  } else if (exp_max - exp_min > 4) {
    f.width = 11;
    if (std::fabs(exp_max) > 99 || std::fabs(exp_min) > 99) f.width += 1;
    f.conv = 'e';
  } else {
    f.conv = 'f';
    if (exp_max > 5 || exp_max < 0) {
      f.width = 7;
      f.scale = std::pow(10, exp_max - 1);
    } else {
      f.width = exp_max == 0 ? 7 : static_cast<int>(exp_max + 6);
    }
  }
  return f;
}

void put_number(std::string& out, double x, const Format& f) {
  char buf[512];
  const int prec = f.conv == 'g' ? 6 : 4;
  const char spec[] = {'%', '*', '.', '*', f.conv, '\0'};
  std::snprintf(buf, sizeof buf, spec, f.width, prec, x);
  out += buf;
}

void put_scale(std::string& out, double scale) {
  // Printed in default float notation but with the precision (4) the fixed format left set.
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", scale);
  out += buf;
  out += " *\n";
}

void put_indent(std::string& out, int indent) { out.append(static_cast<size_t>(indent), ' '); }

constexpr int kLineSize = 80;

void print_matrix(std::string& out, const double* v, int64_t rows, int64_t cols, int indent) {
  const Format f = choose_format(v, static_cast<size_t>(rows * cols));
  put_indent(out, indent);
  const int64_t per_line = (kLineSize - indent) / (f.width + 1);
  int64_t first = 0;
  while (first < cols) {
    const int64_t last = first + per_line <= cols ? first + per_line - 1 : cols - 1;
    if (per_line < cols) {
      if (first != 0) out += '\n';
      out += fmt::format("Columns {} to {}", first + 1, last + 1);  // no newline: ATen's quirk
      put_indent(out, indent);
    }
    if (f.scale != 1) {
      put_scale(out, f.scale);
      put_indent(out, indent);
    }
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = first; c <= last; ++c) {
        put_number(out, v[r * cols + c] / f.scale, f);
        if (c == last) {
          out += '\n';
          if (r != rows - 1) {
            put_indent(out, indent);
            if (f.scale != 1) out += ' ';
          }
        } else {
          out += ' ';
        }
      }
    }
    first = last + 1;
  }
}

// The leading dimensions of an N-d tensor, odometer style with the FIRST index turning fastest
// (ATen's order), each naming one matrix.
template <class F>
void for_each_matrix(const std::vector<int64_t>& sizes, F&& f) {
  const size_t lead = sizes.size() - 2;
  std::vector<int64_t> counter(lead, 0);
  while (true) {
    f(counter);
    size_t i = 0;
    for (; i < lead; ++i) {
      if (++counter[i] < sizes[i]) break;
      counter[i] = 0;
    }
    if (i == lead) return;
  }
}

std::string type_string(const Tensor& t, bool mkldnn) {
  const char* backend = t.device().type == Device::Type::CUDA   ? "CUDA"
                        : t.device().type == Device::Type::Meta ? "Meta"
                                                                : "CPU";
  return fmt::format("{}{}{}Type", mkldnn ? "Mkldnn" : "", backend, scalar_type_name(t.dtype()));
}

constexpr std::string_view kMkldnnPrefix = "MKLDNN Tensor: ";

std::string aten_printout(const Tensor& t, bool mkldnn) {
  std::vector<double> v;
  v.reserve(static_cast<size_t>(t.numel()));
  for_each_element(t, [&](const uint8_t* p) { v.push_back(element_double(t.dtype(), p)); });
  const auto& sizes = t.sizes();
  std::string out(mkldnn ? kMkldnnPrefix : "");
  if (sizes.size() == 1) {
    if (!v.empty()) {
      const Format f = choose_format(v.data(), v.size());
      if (f.scale != 1) put_scale(out, f.scale);
      for (double x : v) {
        put_number(out, x / f.scale, f);
        out += '\n';
      }
    }
  } else if (sizes.size() == 2) {
    if (!v.empty()) print_matrix(out, v.data(), sizes[0], sizes[1], 0);
  } else if (!v.empty()) {
    const int64_t rows = sizes[sizes.size() - 2], cols = sizes.back();
    const auto strides = contiguous_strides(sizes);
    bool first = true;
    for_each_matrix(sizes, [&](const std::vector<int64_t>& counter) {
      if (!first) out += '\n';
      first = false;
      out += '(';
      int64_t off = 0;
      for (size_t i = 0; i < counter.size(); ++i) {
        out += fmt::format("{},", counter[i] + 1);
        off += counter[i] * strides[i];
      }
      out += ".,.) = \n";
      print_matrix(out, v.data() + off, rows, cols, 1);
    });
  }
  out += "[ " + type_string(t, mkldnn) + "{" + fmt::format("{}", fmt::join(sizes, ",")) + "}";
  out += " ]";
  std::replace(out.begin(), out.end(), '\n', ' ');
  return out;
}

std::string g6(double d) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", d);
  return buf;
}

// --- reading back -----------------------------------------------------------------------------

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// `[ CPUFloatType{2,3} ]` at text[pos]: returns its end, fills backend/dtype/sizes.
size_t footer_at(std::string_view s, size_t pos, std::string* prefix, std::vector<int64_t>* sizes) {
  if (s.substr(pos, 2) != "[ ") return 0;
  size_t i = pos + 2;
  const size_t name_start = i;
  while (i < s.size() && std::isalnum(static_cast<unsigned char>(s[i]))) ++i;
  const std::string_view name = s.substr(name_start, i - name_start);
  if (!name.ends_with("Type") || i >= s.size() || s[i] != '{') return 0;
  ++i;
  std::vector<int64_t> dims;
  while (i < s.size() && s[i] != '}') {
    int64_t d = 0;
    auto [p, ec] = std::from_chars(s.data() + i, s.data() + s.size(), d);
    if (ec != std::errc()) return 0;
    dims.push_back(d);
    i = static_cast<size_t>(p - s.data());
    if (i < s.size() && s[i] == ',') ++i;
  }
  if (s.substr(i, 3) != "} ]") return 0;
  if (prefix) *prefix = std::string(name.substr(0, name.size() - 4));
  if (sizes) *sizes = std::move(dims);
  return i + 3;
}

// `(1,2,.,.) = ` at the start of a printout.
bool matrix_header_at(std::string_view s, size_t pos) {
  if (pos >= s.size() || s[pos] != '(') return false;
  size_t i = pos + 1;
  bool any = false;
  while (i < s.size() && is_digit(s[i])) {
    while (i < s.size() && is_digit(s[i])) ++i;
    if (i >= s.size() || s[i] != ',') return false;
    ++i;
    any = true;
  }
  return any && s.substr(i, 7) == ".,.) = ";
}

[[noreturn]] void bad(const std::string& why) { throw InvalidInput("malformed tensor printout: " + why); }

class PrintoutReader {
 public:
  explicit PrintoutReader(std::string_view body) {
    size_t i = 0;
    while (i < body.size()) {
      while (i < body.size() && body[i] == ' ') ++i;
      const size_t start = i;
      while (i < body.size() && body[i] != ' ') ++i;
      if (i > start) tokens_.push_back(body.substr(start, i - start));
    }
  }

  // A whole 1-d vector.
  void vector(int64_t n, std::vector<double>& out) {
    const double scale = maybe_scale();
    for (int64_t i = 0; i < n; ++i) out.push_back(number(next()) * scale);
  }

  void matrix(int64_t rows, int64_t cols, std::vector<double>& out) {
    const size_t base = out.size();
    out.resize(base + static_cast<size_t>(rows * cols));
    int64_t first = 0;
    while (first < cols) {
      int64_t last = cols - 1;
      if (peek() == "Columns") {
        next();
        if (number(next()) != static_cast<double>(first + 1)) bad("column blocks out of order");
        if (next() != "to") bad("expected 'to'");
        last = block_end(first, cols) - 1;
      }
      const double scale = maybe_scale();
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = first; c <= last; ++c) out[base + static_cast<size_t>(r * cols + c)] = number(next()) * scale;
      first = last + 1;
    }
  }

  void header() {
    if (pos_ >= tokens_.size() || tokens_[pos_].empty() || tokens_[pos_][0] != '(') bad("expected a matrix header");
    ++pos_;
    if (next() != "=") bad("expected '='");
  }

  bool done() const { return pos_ == tokens_.size() && pending_.empty(); }

 private:
  std::string_view peek() const { return !pending_.empty() ? pending_ : pos_ < tokens_.size() ? tokens_[pos_] : ""; }
  std::string_view next() {
    if (!pending_.empty()) {
      auto t = pending_;
      pending_ = {};
      return t;
    }
    if (pos_ >= tokens_.size()) bad("too few values");
    return tokens_[pos_++];
  }

  double maybe_scale() {
    if (pending_.empty() && pos_ + 1 < tokens_.size() && tokens_[pos_ + 1] == "*") {
      const double s = number(tokens_[pos_]);
      pos_ += 2;
      return s;
    }
    return 1;
  }

  static double number(std::string_view t) {
    std::string s(t);
    char* end = nullptr;
    const double d = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size()) bad(fmt::format("'{}' is not a number", t));
    return d;
  }

  // "Columns 1 to 6" may run into the first value when that fills its field ("to 6-1.0e+05",
  // "to 81.23457e+06"): the block's last column is the longest digit prefix that can be one.
  int64_t block_end(int64_t first, int64_t cols) {
    const std::string_view tok = next();
    size_t digits = 0;
    while (digits < tok.size() && is_digit(tok[digits])) ++digits;
    for (size_t len = std::min<size_t>(digits, 2); len > 0; --len) {
      int64_t k = 0;
      std::from_chars(tok.data(), tok.data() + len, k);
      if (k < first + 1 || k > cols) continue;
      const std::string_view rest = tok.substr(len);
      if (!rest.empty() && !is_number(rest)) continue;
      pending_ = rest;
      return k;
    }
    bad("bad 'Columns' line");
  }

  static bool is_number(std::string_view t) {
    std::string s(t);
    char* end = nullptr;
    std::strtod(s.c_str(), &end);
    return !s.empty() && end == s.c_str() + s.size();
  }

  std::vector<std::string_view> tokens_;
  size_t pos_ = 0;
  std::string_view pending_;
};

DType dtype_from_printed(const std::string& prefix, Device* device) {
  std::string_view name = prefix;
  *device = Device{};
  if (name.starts_with("Mkldnn")) name.remove_prefix(6);
  if (name.starts_with("CUDA")) {
    device->type = Device::Type::CUDA;
    name.remove_prefix(4);
  } else if (name.starts_with("CPU")) {
    name.remove_prefix(3);
  } else if (name.starts_with("Meta")) {
    device->type = Device::Type::Meta;
    name.remove_prefix(4);
  } else {
    bad(fmt::format("unknown backend in '{}Type'", prefix));
  }
  auto dt = dtype_from_storage_class(std::string(name) + "Storage");
  if (!dt) bad(fmt::format("unknown scalar type in '{}Type'", prefix));
  return *dt;
}

}  // namespace

std::string tensor_attribute_text(const Tensor& t, bool mkldnn) {
  const int64_t n = t.numel();
  if (n == 1) {
    // A boxed scalar, printed through a double (or long, or complex) at ostream's default
    // precision of 6.
    std::string out = "{";
    for_each_element(t, [&](const uint8_t* p) {
      if (is_floating(t.dtype())) {
        out += g6(element_double(t.dtype(), p));
      } else if (is_complex(t.dtype())) {
        const auto c = element_complex(t.dtype(), p);
        out += fmt::format("({},{})", g6(c.real()), g6(c.imag()));
      } else {
        out += fmt::format("{}", element_int(t.dtype(), p));
      }
    });
    return out + "}";
  }
  if (n <= 10) return aten_printout(t, mkldnn);
  return "<Tensor>";
}

size_t tensor_printout_end(std::string_view s, size_t pos) {
  if (s.substr(pos, kMkldnnPrefix.size()) == kMkldnnPrefix) pos += kMkldnnPrefix.size();
  if (pos < s.size() && s[pos] == '(' && !matrix_header_at(s, pos)) return 0;
  // The body holds numbers, `*`, `Columns a to b` and matrix headers; it ends at the footer.
  static constexpr std::string_view allowed = "0123456789 .-+*(),=einfaCoolumnst";
  for (size_t i = pos; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '[') return footer_at(s, i, nullptr, nullptr);
    if (allowed.find(c) == std::string_view::npos) return 0;
  }
  return 0;
}

Tensor parse_tensor_printout(std::string_view text) {
  const size_t open = text.rfind("[ ");
  std::string prefix;
  std::vector<int64_t> sizes;
  if (open == std::string_view::npos || footer_at(text, open, &prefix, &sizes) != text.size()) bad("no footer");
  Device device;
  const DType dtype = dtype_from_printed(prefix, &device);
  int64_t numel = 1;
  for (int64_t d : sizes) numel *= d;
  if (sizes.empty() || numel == 1 || numel > 10) bad("wrong element count for a printout");

  std::string_view values_text = text.substr(0, open);
  if (values_text.starts_with(kMkldnnPrefix)) values_text.remove_prefix(kMkldnnPrefix.size());
  PrintoutReader r(values_text);
  std::vector<double> values;
  if (numel > 0) {
    if (sizes.size() == 1) {
      r.vector(sizes[0], values);
    } else if (sizes.size() == 2) {
      r.matrix(sizes[0], sizes[1], values);
    } else {
      // Matrices come first-index-fastest; place each where it belongs.
      values.resize(static_cast<size_t>(numel));
      const auto strides = contiguous_strides(sizes);
      const int64_t rows = sizes[sizes.size() - 2], cols = sizes.back();
      for_each_matrix(sizes, [&](const std::vector<int64_t>& counter) {
        r.header();
        std::vector<double> m;
        r.matrix(rows, cols, m);
        int64_t off = 0;
        for (size_t i = 0; i < counter.size(); ++i) off += counter[i] * strides[i];
        std::copy(m.begin(), m.end(), values.begin() + off);
      });
    }
  }
  if (!r.done()) bad("too many values");
  std::vector<std::complex<double>> cv(values.begin(), values.end());
  return tensor_from_values(dtype, std::move(sizes), cv, device);
}

Tensor parse_scalar_tensor_text(std::string_view inside, const TypePtr& hint) {
  std::complex<double> value;
  bool complex = false;
  auto number = [](std::string_view t) {
    std::string s(t);
    char* end = nullptr;
    const double d = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size()) bad(fmt::format("'{}' is not a number", t));
    return d;
  };
  if (inside.starts_with("(") && inside.ends_with(")")) {
    const auto comma = inside.find(',');
    if (comma == std::string_view::npos) bad("complex scalar without ','");
    value = {number(inside.substr(1, comma - 1)), number(inside.substr(comma + 1, inside.size() - comma - 2))};
    complex = true;
  } else {
    value = number(inside);
  }
  DType dtype = complex ? DType::Complex64
                : inside.find_first_of(".eE") != std::string_view::npos ||
                        inside.find("inf") != std::string_view::npos || inside.find("nan") != std::string_view::npos
                    ? DType::Float32
                    : DType::Int64;
  std::vector<int64_t> sizes;
  Device device;
  if (hint && hint->kind() == TypeKind::Tensor) {
    const auto& r = hint->expect<TensorType>().refinement();
    if (r.dtype) dtype = *r.dtype;
    if (r.device) device = *r.device;
    if (r.sizes && std::all_of(r.sizes->begin(), r.sizes->end(), [](const auto& d) { return d && *d == 1; }))
      sizes.assign(r.sizes->size(), 1);
  }
  return tensor_from_values(dtype, std::move(sizes), std::span<const std::complex<double>>(&value, 1), device);
}

Tensor tensor_from_values(DType dtype, std::vector<int64_t> sizes, std::span<const std::complex<double>> values,
                          Device device) {
  Tensor t = Tensor::empty(dtype, std::move(sizes), device);
  if (static_cast<int64_t>(values.size()) != t.numel())
    throw InvalidInput(fmt::format("{} values for a tensor of {} elements", values.size(), t.numel()));
  auto* p = static_cast<uint8_t*>(t.mutable_data());
  const size_t esize = element_size(dtype);
  for (size_t i = 0; i < values.size(); ++i) set_element(dtype, p + i * esize, values[i]);
  return t;
}

}  // namespace jitctl
