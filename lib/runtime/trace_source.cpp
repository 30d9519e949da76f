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

std::string_view TraceSource::Text::line(size_t index) const {
  const size_t begin = line_starts[index];
  size_t end = text->find('\n', begin);
  if (end == std::string::npos) end = text->size();
  return std::string_view(*text).substr(begin, end - begin);
}

const TraceSource::Text* TraceSource::text_of(const std::string& file, uint32_t line) const {
  auto it = files_.find(file);
  if (it == files_.end()) return nullptr;
  for (const Text& t : it->second) {
    const int64_t index = static_cast<int64_t>(line) - t.first_line;
    if (index >= 0 && static_cast<size_t>(index) < t.line_starts.size()) return &t;
  }
  return nullptr;
}

std::string_view TraceSource::line(const std::string& file, uint32_t line) const {
  const Text* t = text_of(file, line);
  return t ? t->line(static_cast<size_t>(static_cast<int64_t>(line) - t->first_line)) : std::string_view();
}

namespace {

size_t indentation(std::string_view l) {
  size_t i = 0;
  while (i < l.size() && (l[i] == ' ' || l[i] == '\t')) ++i;
  return i;
}

bool blank(std::string_view l) { return indentation(l) == l.size() || l[indentation(l)] == '#'; }

}  // namespace

bool TraceSource::in_untraced_branch(const SourceLocation& loc) const {
  const auto key = std::make_pair(loc.file, loc.line);
  if (auto it = untraced_.find(key); it != untraced_.end()) return it->second;
  bool found = false;
  if (const Text* t = text_of(loc.file, loc.line)) {
    size_t index = static_cast<size_t>(static_cast<int64_t>(loc.line) - t->first_line);
    size_t indent = indentation(t->line(index));
    // Up through the enclosing blocks: each line less indented than the last opens one.
    while (index-- > 0 && indent > 0 && !found) {
      const std::string_view l = t->line(index);
      if (blank(l) || indentation(l) >= indent) continue;
      indent = indentation(l);
      if (l.substr(indent).rfind("else:", 0) != 0) continue;
      // Its `if`: the nearest line above at the same indentation that is not an elif/else.
      for (size_t j = index; j-- > 0;) {
        const std::string_view c = t->line(j);
        if (blank(c) || indentation(c) > indent) continue;
        if (indentation(c) < indent) break;
        const std::string_view code = c.substr(indent);
        if (code.rfind("if ", 0) == 0) {
          found = code.find("_get_tracing_state()") != std::string_view::npos;
          break;
        }
        if (code.rfind("elif ", 0) != 0) break;
      }
    }
  }
  untraced_[key] = found;
  return found;
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
