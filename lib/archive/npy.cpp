#include "lib/archive/npy.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <optional>

#include "lib/archive/mapped_file.h"
#include "lib/archive/zip_reader.h"
#include "lib/archive/zip_writer.h"
#include "lib/core/error.h"
#include "lib/core/output_file.h"

namespace jitctl {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
constexpr size_t kAlign = 64;  // numpy pads headers so the data is 64-byte aligned
constexpr uint64_t kMaxMemberBytes = uint64_t(1) << 40;

// The header is a Python dict literal with three keys; numpy writes it with repr(), but older
// writers differ in spacing, quotes and "3L" longs, so this parses the literal rather than
// matching text.
struct Header {
  std::optional<std::string> descr;
  std::optional<bool> fortran_order;
  std::optional<std::vector<int64_t>> shape;
};

class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& name) : s_(text), name_(name) {}

  Header parse() {
    Header h;
    skip_ws();
    expect('{');
    for (;;) {
      skip_ws();
      if (peek() == '}') break;
      const std::string key = string_literal();
      skip_ws();
      expect(':');
      skip_ws();
      if (key == "descr") {
        if (peek() == '[') throw Unsupported(fmt::format("{}: structured arrays (a list as 'descr') are not supported", name_));
        h.descr = string_literal();
      } else if (key == "fortran_order") {
        h.fortran_order = boolean();
      } else if (key == "shape") {
        h.shape = int_tuple();
      } else {
        fail(fmt::format("unexpected key '{}' (numpy writes only descr, fortran_order and shape)", key));
      }
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      skip_ws();
      if (peek() != '}') fail("expected ',' or '}'");
    }
    ++pos_;
    skip_ws();
    if (pos_ != s_.size()) fail("text after the closing '}'");
    if (!h.descr || !h.fortran_order || !h.shape) fail("it must have the keys 'descr', 'fortran_order' and 'shape'");
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InvalidInput(fmt::format("{}: malformed .npy header at byte {}: {}", name_, pos_, what));
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t' || s_[pos_] == '\r')) ++pos_;
  }
  void expect(char c) {
    if (peek() != c) fail(fmt::format("expected '{}'", c));
    ++pos_;
  }
  std::string string_literal() {
    const char q = peek();
    if (q != '\'' && q != '"') fail("expected a quoted string");
    const size_t end = s_.find(q, pos_ + 1);
    if (end == std::string_view::npos) fail("unterminated string");
    std::string out(s_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return out;
  }
  bool boolean() {
    if (s_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (s_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    fail("expected True or False");
  }
  std::vector<int64_t> int_tuple() {
    expect('(');
    std::vector<int64_t> dims;
    for (;;) {
      skip_ws();
      if (peek() == ')') break;
      if (!std::isdigit(static_cast<unsigned char>(peek()))) fail("expected a non-negative dimension");
      int64_t v = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        if (v > (INT64_MAX - 9) / 10) fail("dimension too large");
        v = v * 10 + (s_[pos_++] - '0');
      }
      if (peek() == 'L') ++pos_;  // Python 2 longs
      dims.push_back(v);
      skip_ws();
      if (peek() == ',') {
        ++pos_;
      } else if (peek() != ')') {
        fail("expected ',' or ')' in shape");
      }
    }
    ++pos_;
    return dims;
  }

  std::string_view s_;
  const std::string& name_;
  size_t pos_ = 0;
};

struct Descr {
  DType dtype;
  bool big_endian;
};

Descr parse_descr(const std::string& d, const std::string& name) {
  // numpy also reads a descr without its byte-order mark ('f4') as native order.
  const bool has_order = !d.empty() && (d[0] == '<' || d[0] == '>' || d[0] == '|' || d[0] == '=');
  if (d.size() < (has_order ? 2u : 1u)) throw InvalidInput(fmt::format("{}: malformed .npy header: dtype '{}'", name, d));
  const char order = has_order ? d[0] : '=', kind = d[has_order ? 1 : 0];
  const std::string size = d.substr(has_order ? 2 : 1);
  if (size.empty() || size.size() > 2 || !std::all_of(size.begin(), size.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    throw Unsupported(fmt::format("{}: numpy dtype '{}' is not supported (bool and numeric dtypes only)", name, d));
  const int n = std::stoi(size);
  std::optional<DType> t;
  switch (kind) {
    case 'b': if (n == 1) t = DType::Bool; break;
    case 'i':
      if (n == 1) t = DType::Int8;
      if (n == 2) t = DType::Int16;
      if (n == 4) t = DType::Int32;
      if (n == 8) t = DType::Int64;
      break;
    case 'u':
      if (n == 1) t = DType::UInt8;
      if (n == 2 || n == 4 || n == 8)
        throw Unsupported(fmt::format("{}: numpy dtype uint{} has no torch equivalent (torch 1.13 has only uint8)", name, n * 8));
      break;
    case 'f':
      if (n == 2) t = DType::Float16;
      if (n == 4) t = DType::Float32;
      if (n == 8) t = DType::Float64;
      break;
    case 'c':
      if (n == 8) t = DType::Complex64;
      if (n == 16) t = DType::Complex128;
      break;
    default: break;
  }
  if (!t) throw Unsupported(fmt::format("{}: numpy dtype '{}' is not supported (bool and numeric dtypes only)", name, d));
  return {*t, order == '>'};
}

std::string descr_of(DType t) {
  switch (t) {
    case DType::Bool: return "|b1";
    case DType::UInt8: return "|u1";
    case DType::Int8: return "|i1";
    case DType::Int16: return "<i2";
    case DType::Int32: return "<i4";
    case DType::Int64: return "<i8";
    case DType::Float16: return "<f2";
    case DType::Float32: return "<f4";
    case DType::Float64: return "<f8";
    case DType::Complex64: return "<c8";
    case DType::Complex128: return "<c16";
    default: throw Unsupported(fmt::format("numpy has no dtype for torch.{} (.npy/.npz output)", dtype_name(t)));
  }
}

// Copies a strided array of `elem`-byte elements into contiguous (C order) memory.
void copy_strided_bytes(const uint8_t* src, const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                        size_t elem, uint8_t* dst) {
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  if (numel == 0) return;
  const size_t nd = sizes.size();
  std::vector<int64_t> idx(nd, 0);
  for (int64_t i = 0; i < numel; ++i) {
    int64_t off = 0;
    for (size_t d = 0; d < nd; ++d) off += idx[d] * strides[d];
    std::memcpy(dst + static_cast<size_t>(i) * elem, src + off * static_cast<int64_t>(elem), elem);
    for (size_t d = nd; d-- > 0;) {
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
    }
  }
}

void byteswap_elements(uint8_t* p, size_t count, size_t width) {
  for (size_t i = 0; i < count; ++i, p += width)
    for (size_t a = 0, b = width - 1; a < b; ++a, --b) std::swap(p[a], p[b]);
}

std::string shape_repr(const std::vector<int64_t>& sizes) {
  if (sizes.size() == 1) return fmt::format("({},)", sizes[0]);
  return fmt::format("({})", fmt::join(sizes, ", "));
}

}  // namespace

Tensor parse_npy(const uint8_t* data, size_t size, const std::string& name) {
  if (size < kMagicLen + 4 || std::memcmp(data, kMagic, kMagicLen) != 0)
    throw InvalidInput(fmt::format("{}: not a .npy file (no \\x93NUMPY magic)", name));
  const int major = data[6], minor = data[7];
  size_t header_len = 0, header_start = 0;
  if (major == 1 && minor == 0) {
    header_len = data[8] | (size_t(data[9]) << 8);
    header_start = 10;
  } else if ((major == 2 || major == 3) && minor == 0) {
    if (size < 12) throw InvalidInput(fmt::format("{}: truncated .npy header", name));
    header_len = data[8] | (size_t(data[9]) << 8) | (size_t(data[10]) << 16) | (size_t(data[11]) << 24);
    header_start = 12;
  } else {
    throw InvalidInput(fmt::format("{}: unknown .npy format version {}.{}", name, major, minor));
  }
  if (header_len > size - header_start)
    throw InvalidInput(fmt::format("{}: .npy header length {} runs past the end of the file ({} bytes)", name, header_len, size));
  const std::string_view text(reinterpret_cast<const char*>(data + header_start), header_len);
  const Header h = HeaderParser(text, name).parse();
  const Descr d = parse_descr(*h.descr, name);

  const size_t elem = element_size(d.dtype);
  uint64_t numel = 1;
  for (int64_t s : *h.shape) {
    if (s != 0 && numel > (UINT64_MAX / elem) / static_cast<uint64_t>(s))
      throw InvalidInput(fmt::format("{}: .npy shape {} is too large", name, shape_repr(*h.shape)));
    numel *= static_cast<uint64_t>(s);
  }
  const uint64_t nbytes = numel * elem;
  const size_t have = size - header_start - header_len;
  if (have != nbytes)
    throw InvalidInput(fmt::format("{}: .npy data is {} bytes, but shape {} of '{}' needs {}", name, have,
                                   shape_repr(*h.shape), *h.descr, nbytes));

  auto storage = Storage::allocate(nbytes);
  uint8_t* out = storage->mutable_data();
  const uint8_t* src = data + header_start + header_len;
  if (*h.fortran_order && h.shape->size() > 1) {
    std::vector<int64_t> strides(h.shape->size());
    int64_t st = 1;
    for (size_t i = 0; i < strides.size(); ++i) {
      strides[i] = st;
      st *= (*h.shape)[i];
    }
    copy_strided_bytes(src, *h.shape, strides, elem, out);
  } else if (nbytes > 0) {
    std::memcpy(out, src, nbytes);
  }
  if (d.big_endian && elem > 1) {
    const bool cplx = is_complex(d.dtype);
    byteswap_elements(out, numel * (cplx ? 2 : 1), cplx ? elem / 2 : elem);
  }
  // A bool array's bytes as kernels may read them (0 or 1; see normalize_bools in archive.h).
  if (d.dtype == DType::Bool)
    for (uint64_t i = 0; i < nbytes; ++i) out[i] = out[i] != 0;
  return Tensor::view_of(storage, d.dtype, 0, *h.shape, contiguous_strides(*h.shape), name);
}

Tensor load_npy(const std::string& path) {
  auto file = MappedFile::open(path);
  return parse_npy(file->data(), file->size(), path);
}

std::string npy_bytes(const Tensor& t) {
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr_of(t.dtype()),
                                   shape_repr(t.sizes()));
  const size_t unpadded = kMagicLen + 4 + header.size() + 1;
  header.append((kAlign - unpadded % kAlign) % kAlign, ' ');
  header += '\n';
  if (header.size() > 0xffff) throw Unsupported(fmt::format(".npy header for shape {} is too long", shape_repr(t.sizes())));
  std::string out(kMagic, kMagicLen);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  const size_t body = t.nbytes();
  const size_t at = out.size();
  out.resize(at + body);
  if (body == 0) return out;
  auto* dst = reinterpret_cast<uint8_t*>(out.data() + at);
  const auto* src = static_cast<const uint8_t*>(t.data());
  if (t.is_contiguous()) {
    std::memcpy(dst, src, body);
  } else {
    copy_strided_bytes(src, t.sizes(), t.strides(), element_size(t.dtype()), dst);
  }
  return out;
}

void save_npy(const std::string& path, const Tensor& t) {
  const std::string bytes = npy_bytes(t);
  write_file_atomically(path, bytes);
}

std::vector<std::pair<std::string, Tensor>> load_npz(const std::string& path) {
  auto zip = ZipReader::open(path);
  std::vector<std::pair<std::string, Tensor>> out;
  for (const auto& e : zip->entries()) {
    if (e.name.empty() || e.name.back() == '/') continue;  // directory entries
    const std::string member = fmt::format("{}:{}", path, e.name);
    if (e.name.size() < 4 || e.name.compare(e.name.size() - 4, 4, ".npy") != 0)
      throw InvalidInput(fmt::format("{}: an .npz member must be a .npy file", member));
    Tensor t;
    if (const uint8_t* p = zip->in_place(e)) {
      t = parse_npy(p, e.size, member);
    } else {
      const std::string bytes = zip->read(e, kMaxMemberBytes);
      t = parse_npy(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), member);
    }
    out.emplace_back(e.name.substr(0, e.name.size() - 4), std::move(t));
  }
  return out;
}

void save_npz(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& arrays) {
  ZipWriter zip{ZipWriter::Plain{}};
  for (const auto& [name, t] : arrays) zip.add(name + ".npy", npy_bytes(t));
  zip.write(path);
}

}  // namespace jitctl
