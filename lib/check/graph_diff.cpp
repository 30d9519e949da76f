#include "lib/check/graph_diff.h"

#include <dtl/dtl.hpp>
#include <fmt/format.h>

#include <cctype>
#include <unordered_map>

#include "lib/core/types.h"
#include "lib/ir/graph_printer.h"

namespace jitctl {
namespace {

// PyTorch erases shape information before it compares traces.
TypePtr erase_shapes(const TypePtr& t) {
  switch (t->kind()) {
    case TypeKind::Tensor: return TensorType::get();
    case TypeKind::Optional: return OptionalType::create(erase_shapes(t->contained()[0]));
    case TypeKind::List: return ListType::create(erase_shapes(t->contained()[0]));
    case TypeKind::Tuple: {
      if (t->str().find('(') == std::string::npos) return t;  // no refined tensor inside
      std::vector<TypePtr> elems;
      for (const auto& e : t->contained()) elems.push_back(erase_shapes(e));
      return TupleType::create(std::move(elems));
    }
    default: return t;
  }
}

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

// compat.py's canonical line, value names through `names` (shared by the whole graph).
std::string canonical_text(const std::string& line, std::unordered_map<std::string, std::string>& names) {
  std::string out;
  out.reserve(line.size());
  for (size_t i = 0; i < line.size();) {
    if (line.compare(i, 16, "___torch_mangle_") == 0) {
      size_t j = i + 16;
      while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
      if (j < line.size() && line[j] == '.' && j > i + 16) {
        i = j + 1;
        continue;
      }
    }
    if (line.compare(i, 8, "warn_id=") == 0) {
      size_t j = i + 8;
      while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
      if (j > i + 8) {
        out += "warn_id=N";
        i = j;
        continue;
      }
    }
    if (line[i] == '%' && i + 1 < line.size() && name_char(line[i + 1])) {
      size_t j = i + 1;
      while (j < line.size() && name_char(line[j])) ++j;
      const std::string name = line.substr(i + 1, j - i - 1);
      auto it = names.find(name);
      if (it == names.end()) it = names.emplace(name, fmt::format("%v{}", names.size())).first;
      out += it->second;
      i = j;
      continue;
    }
    out += line[i++];
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '\t')) out.pop_back();
  return out;
}

// The line with every value name replaced by `%`: what the node computes, not what it reads.
std::string shape_of(const std::string& text) {
  // The return keeps its names: which value a graph returns is what a changed trace changes.
  if (text.find_first_not_of(' ') != std::string::npos && text.compare(text.find_first_not_of(' '), 7, "return ") == 0)
    return text;
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (text[i] == '%') {
      out += '%';
      ++i;
      while (i < text.size() && name_char(text[i])) ++i;
      continue;
    }
    out += text[i++];
  }
  return out;
}

struct Edit {
  char op;
  size_t a, b;  // 0-based indices into the sequences (the one that applies)
};

std::vector<Edit> edit_script(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  dtl::Diff<std::string, std::vector<std::string>> d(a, b);
  d.compose();
  std::vector<Edit> out;
  for (const auto& [elem, info] : d.getSes().getSequence()) {
    const char op = info.type == dtl::SES_ADD ? '+' : info.type == dtl::SES_DELETE ? '-' : ' ';
    out.push_back({op, static_cast<size_t>(info.beforeIdx > 0 ? info.beforeIdx - 1 : 0),
                   static_cast<size_t>(info.afterIdx > 0 ? info.afterIdx - 1 : 0)});
  }
  return out;
}

}  // namespace

std::vector<GraphLine> canonical_graph_lines(const Graph& g) {
  auto copy = g.copy();
  copy->remap_types(erase_shapes);
  for (Value* v : copy->inputs()) v->set_type(erase_shapes(v->type()));
  const std::string printed = graph_to_string(*copy);
  std::unordered_map<std::string, std::string> names;
  std::vector<GraphLine> out;
  size_t start = 0;
  while (start < printed.size()) {
    size_t end = printed.find('\n', start);
    if (end == std::string::npos) end = printed.size();
    std::string line = printed.substr(start, end - start);
    start = end + 1;
    std::string where;
    // The source comment: whitespace, '#', whitespace, to the end of the line (as compat.py strips it).
    for (size_t i = 0; i + 2 < line.size(); ++i) {
      if ((line[i] == ' ' || line[i] == '\t') && line[i + 1] == '#' && (line[i + 2] == ' ' || line[i + 2] == '\t')) {
        std::string loc = line.substr(i + 3);
        line.resize(i);
        // file:line:col -> file:line
        if (auto colon = loc.rfind(':'); colon != std::string::npos) loc.resize(colon);
        if (loc != ":0" && !loc.empty()) where = loc;
        break;
      }
    }
    std::string text = canonical_text(line, names);
    if (text.empty()) continue;
    out.push_back({std::move(text), std::move(where)});
  }
  return out;
}

std::string canonical_graph_text(const Graph& g) {
  std::string out;
  for (const auto& l : canonical_graph_lines(g)) {
    if (!out.empty()) out += '\n';
    out += l.text;
  }
  return out;
}

GraphDiff diff_graphs(const std::vector<GraphLine>& a, const std::vector<GraphLine>& b, size_t context) {
  std::vector<std::string> sa, sb;
  for (const auto& l : a) sa.push_back(shape_of(l.text));
  for (const auto& l : b) sb.push_back(shape_of(l.text));
  std::vector<Edit> edits;
  if (sa != sb) {
    edits = edit_script(sa, sb);
  } else {
    sa.clear();
    sb.clear();
    for (const auto& l : a) sa.push_back(l.text);
    for (const auto& l : b) sb.push_back(l.text);
    edits = edit_script(sa, sb);
  }
  GraphDiff d;
  // Hunks: runs of changes with up to `context` common lines around them, joined when the gap
  // between two runs is at most 2 * context.
  std::vector<size_t> changed;
  for (size_t i = 0; i < edits.size(); ++i)
    if (edits[i].op != ' ') changed.push_back(i);
  size_t k = 0;
  while (k < changed.size()) {
    size_t first = changed[k], last = changed[k];
    while (k + 1 < changed.size() && changed[k + 1] - last <= 2 * context + 1) last = changed[++k];
    ++k;
    const size_t begin = first >= context ? first - context : 0;
    const size_t end = std::min(edits.size(), last + context + 1);
    std::vector<DiffLine> hunk;
    size_t la = 0, lb = 0, na = 0, nb = 0;
    bool seen_a = false, seen_b = false;
    for (size_t i = begin; i < end; ++i) {
      const Edit& e = edits[i];
      if (e.op != '+') {
        if (!seen_a) la = e.a + 1, seen_a = true;
        ++na;
      }
      if (e.op != '-') {
        if (!seen_b) lb = e.b + 1, seen_b = true;
        ++nb;
      }
      if (e.op == '-') ++d.removed;
      if (e.op == '+') ++d.added;
      hunk.push_back({e.op, e.op == '+' ? b[e.b] : a[e.a]});
    }
    d.hunks.push_back(std::move(hunk));
    d.first_line_a.push_back(la);
    d.first_line_b.push_back(lb);
    d.length_a.push_back(na);
    d.length_b.push_back(nb);
  }
  return d;
}

std::string format_graph_diff(const GraphDiff& d, const std::string& label_a, const std::string& label_b) {
  if (d.equal()) return "";
  std::string out = fmt::format("--- {}\n+++ {}\n", label_a, label_b);
  size_t width = 0;
  for (const auto& h : d.hunks)
    for (const auto& l : h)
      if (l.op != ' ' && !l.line.where.empty()) width = std::max(width, l.line.text.size());
  width = std::min<size_t>(width, 100);
  for (size_t i = 0; i < d.hunks.size(); ++i) {
    out += fmt::format("@@ -{},{} +{},{} @@\n", d.first_line_a[i], d.length_a[i], d.first_line_b[i], d.length_b[i]);
    for (const auto& l : d.hunks[i]) {
      if (l.op != ' ' && !l.line.where.empty())
        out += fmt::format("{}{:<{}}  # {}\n", l.op, l.line.text, width, l.line.where);
      else
        out += fmt::format("{}{}\n", l.op, l.line.text);
    }
  }
  return out;
}

}  // namespace jitctl
