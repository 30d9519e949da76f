#pragma once
// The "canonical" form of printed graph text that shared/oracle/compat.py compares `--inline`
// output in (its canonical_graph): source-location comments, `___torch_mangle_N.` and warn_id
// values are dropped, and every %name is renamed %v0, %v1, ... in order of first appearance, so
// that two graphs agree when they have the same nodes in the same order whatever their value
// names and ids.
#include <cctype>
#include <regex>
#include <sstream>
#include <string>
#include <unordered_map>

namespace jitctl::test {

inline std::string canonical_graph(const std::string& text) {
  // Python's str.strip() then splitlines(): leading and trailing whitespace go first.
  size_t b = 0, e = text.size();
  while (b < e && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1]))) --e;
  static const std::regex comment(R"(\s+#\s.*$)");
  static const std::regex mangle(R"(___torch_mangle_\d+\.)");
  static const std::regex warn_id(R"(warn_id=\d+)");
  static const std::regex value(R"(%([A-Za-z0-9_.]+))");
  std::unordered_map<std::string, std::string> names;
  std::istringstream in(text.substr(b, e - b));
  std::string line, out;
  bool first = true;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    line = std::regex_replace(line, comment, "", std::regex_constants::format_first_only);
    line = std::regex_replace(line, mangle, "");
    line = std::regex_replace(line, warn_id, "warn_id=N");
    std::string renamed;
    auto it = std::sregex_iterator(line.begin(), line.end(), value);
    size_t last = 0;
    for (; it != std::sregex_iterator(); ++it) {
      const auto& m = *it;
      renamed.append(line, last, static_cast<size_t>(m.position(0)) - last);
      auto [pos, inserted] = names.try_emplace(m[1].str(), "");
      if (inserted) pos->second = "%v" + std::to_string(names.size() - 1);
      renamed += pos->second;
      last = static_cast<size_t>(m.position(0) + m.length(0));
    }
    renamed.append(line, last, std::string::npos);
    while (!renamed.empty() && std::isspace(static_cast<unsigned char>(renamed.back()))) renamed.pop_back();
    if (!first) out += '\n';
    out += renamed;
    first = false;
  }
  return out;
}

}  // namespace jitctl::test
