#include "lib/runtime/trace_source.h"

#include <cctype>
#include <set>

#include "lib/frontend/importer.h"

namespace jitctl {

TraceSource::TraceSource(const CompilationUnit& cu) {
  std::set<const SourceMap::Original*> seen;
  for (const auto& f : cu.files()) {
    for (const auto& r : f->map.records()) {
      const SourceMap::Original* o = r.source.get();
      if (!o || o->filename.empty() || !seen.insert(o).second) continue;
      Text t;
      t.first_line = o->first_line;
      t.text = std::shared_ptr<const std::string>(r.source, &o->text);
      t.line_starts.push_back(0);
      for (size_t i = 0; i < o->text.size(); ++i)
        if (o->text[i] == '\n') t.line_starts.push_back(i + 1);
      files_[o->filename].push_back(std::move(t));
    }
  }
}

std::string_view TraceSource::line(const std::string& file, uint32_t line) const {
  auto it = files_.find(file);
  if (it == files_.end()) return {};
  for (const Text& t : it->second) {
    const int64_t index = static_cast<int64_t>(line) - t.first_line;
    if (index < 0 || static_cast<size_t>(index) >= t.line_starts.size()) continue;
    const size_t begin = t.line_starts[static_cast<size_t>(index)];
    size_t end = t.text->find('\n', begin);
    if (end == std::string::npos) end = t.text->size();
    return std::string_view(*t.text).substr(begin, end - begin);
  }
  return {};
}

std::string_view TraceSource::wrapping_conversion(const SourceLocation& loc) const {
  const std::string_view text = line(loc.file, loc.line);
  if (text.empty() || loc.col > text.size()) return "";
  size_t end = loc.col;
  while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\t')) --end;
  if (end == 0 || text[end - 1] != '(') return "";
  --end;
  while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\t')) --end;
  for (std::string_view name : {std::string_view("int"), std::string_view("float")}) {
    if (end < name.size() || text.substr(end - name.size(), name.size()) != name) continue;
    const size_t before = end - name.size();
    // A name of its own: not `myint(`, not `np.int(`.
    if (before > 0 && (std::isalnum(static_cast<unsigned char>(text[before - 1])) || text[before - 1] == '_' ||
                       text[before - 1] == '.'))
      continue;
    return name;
  }
  return "";
}

}  // namespace jitctl
