#include "lib/ops/operator_versions.h"

#include <stdexcept>

namespace jitctl {

std::string_view embedded_version_map_text();

namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    const size_t at = s.find(sep);
    out.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + 1);
  }
}

}  // namespace

const std::vector<UpgraderEntry>& operator_version_map() {
  static const std::vector<UpgraderEntry> map = [] {
    std::vector<UpgraderEntry> out;
    for (std::string_view line : split(embedded_version_map_text(), '\n')) {
      if (line.empty()) continue;
      const auto f = split(line, '\t');
      if (f.size() != 4) throw std::logic_error("version_map.txt: a line without 4 fields");
      out.push_back({std::string(f[0]), std::stoll(std::string(f[1])), std::string(f[2]), std::string(f[3])});
    }
    return out;
  }();
  return map;
}

const UpgraderEntry* find_upgrader(std::string_view op, int64_t version) {
  const UpgraderEntry* best = nullptr;
  for (const auto& e : operator_version_map())
    if (e.op == op && e.bumped_at > version && (!best || e.bumped_at < best->bumped_at)) best = &e;
  return best;
}

}  // namespace jitctl
