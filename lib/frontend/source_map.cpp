#include "lib/frontend/source_map.h"

#include <algorithm>
#include <utility>

namespace jitctl {

SourceMap::SourceMap(std::vector<Record> records) : records_(std::move(records)) {
  std::stable_sort(records_.begin(), records_.end(),
                   [](const Record& a, const Record& b) { return a.code_offset < b.code_offset; });
}

std::optional<SourceLocation> SourceMap::location_for(uint32_t code_offset) const {
  // The last record starting at or before the offset generated it.
  auto it = std::upper_bound(records_.begin(), records_.end(), code_offset,
                             [](uint32_t off, const Record& r) { return off < r.code_offset; });
  if (it == records_.begin()) return std::nullopt;
  const Record& r = *(it - 1);
  const std::string& text = r.source->text;
  const size_t line_index = static_cast<size_t>(std::count(text.begin(), text.begin() + r.start, '\n'));
  const size_t line_start = text.rfind('\n', r.start == 0 ? std::string::npos : r.start - 1);
  const size_t col = line_start == std::string::npos || r.start == 0 ? r.start : r.start - line_start - 1;
  SourceLocation loc;
  loc.file = r.source->filename;
  loc.line = static_cast<uint32_t>(r.source->first_line + static_cast<int64_t>(line_index));
  loc.col = static_cast<uint32_t>(col);
  return loc;
}

}  // namespace jitctl
