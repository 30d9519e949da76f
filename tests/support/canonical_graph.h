#pragma once
// The "canonical" form of printed graph text that shared/oracle/compat.py compares `--inline`
// output in (its canonical_graph): source-location comments, `___torch_mangle_N.` and warn_id
// values are dropped, and every %name is renamed %v0, %v1, ... in order of first appearance, so
// that two graphs agree when they have the same nodes in the same order whatever their value
// names and ids. Written out by hand rather than with std::regex, which GCC's sanitizer builds
// warn about; each step says which of compat.py's re.sub calls it is.
#include <cctype>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>

namespace jitctl::test {

namespace canonical_detail {

inline bool space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
inline bool digit(char c) { return c >= '0' && c <= '9'; }
inline bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

// re.sub(r"\s+#\s.*$", "", line): cut at the whitespace run before the first `#` that has
// whitespace on both sides.
inline std::string drop_comment(const std::string& line) {
  for (size_t j = 1; j + 1 < line.size(); ++j) {
    if (line[j] != '#' || !space(line[j - 1]) || !space(line[j + 1])) continue;
    size_t start = j - 1;
    while (start > 0 && space(line[start - 1])) --start;
    return line.substr(0, start);
  }
  return line;
}

// re.sub(r"___torch_mangle_\d+\.", "", line)
inline std::string drop_mangles(const std::string& line) {
  static constexpr std::string_view kMangle = "___torch_mangle_";
  std::string out;
  for (size_t i = 0; i < line.size();) {
    if (line.compare(i, kMangle.size(), kMangle) == 0) {
      size_t j = i + kMangle.size();
      const size_t digits_at = j;
      while (j < line.size() && digit(line[j])) ++j;
      if (j > digits_at && j < line.size() && line[j] == '.') {
        i = j + 1;
        continue;
      }
    }
    out += line[i++];
  }
  return out;
}

// re.sub(r"warn_id=\d+", "warn_id=N", line)
inline std::string normalize_warn_ids(const std::string& line) {
  static constexpr std::string_view kKey = "warn_id=";
  std::string out;
  for (size_t i = 0; i < line.size();) {
    if (line.compare(i, kKey.size(), kKey) == 0 && i + kKey.size() < line.size() && digit(line[i + kKey.size()])) {
      out += "warn_id=N";
      i += kKey.size();
      while (i < line.size() && digit(line[i])) ++i;
      continue;
    }
    out += line[i++];
  }
  return out;
}

}  // namespace canonical_detail

inline std::string canonical_graph(const std::string& text) {
  using namespace canonical_detail;
  // Python's str.strip() and then splitlines().
  size_t b = 0, e = text.size();
  while (b < e && space(text[b])) ++b;
  while (e > b && space(text[e - 1])) --e;
  std::unordered_map<std::string, std::string> names;
  std::istringstream in(text.substr(b, e - b));
  std::string line, out;
  bool first = true;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    line = normalize_warn_ids(drop_mangles(drop_comment(line)));
    // re.sub(r"%([A-Za-z0-9_.]+)", rename, line)
    std::string renamed;
    for (size_t i = 0; i < line.size();) {
      size_t j = i + 1;
      if (line[i] == '%')
        while (j < line.size() && name_char(line[j])) ++j;
      if (line[i] != '%' || j == i + 1) {
        renamed += line[i++];
        continue;
      }
      auto [it, inserted] = names.try_emplace(line.substr(i + 1, j - i - 1), "");
      if (inserted) it->second = "%v" + std::to_string(names.size() - 1);
      renamed += it->second;
      i = j;
    }
    while (!renamed.empty() && space(renamed.back())) renamed.pop_back();
    if (!first) out += '\n';
    out += renamed;
    first = false;
  }
  return out;
}

}  // namespace jitctl::test
