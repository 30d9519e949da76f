#include "lib/check/graph_diff.h"

#include <dtl/dtl.hpp>
#include <fmt/format.h>

#include <algorithm>
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

// The shortest edit script as one entry per line of either side: ' ' in both, '-' only in the
// first, '+' only in the second; each run of changes with its removals first, as unified diffs
// show them.
std::vector<char> edit_script(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  dtl::Diff<std::string, std::vector<std::string>> d(a, b);
  d.compose();
  std::vector<char> ops;
  for (const auto& [elem, info] : d.getSes().getSequence())
    ops.push_back(info.type == dtl::SES_ADD ? '+' : info.type == dtl::SES_DELETE ? '-' : ' ');
  for (size_t i = 0; i < ops.size();) {
    if (ops[i] == ' ') {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < ops.size() && ops[j] != ' ') ++j;
    std::stable_partition(ops.begin() + static_cast<std::ptrdiff_t>(i), ops.begin() + static_cast<std::ptrdiff_t>(j),
                          [](char op) { return op == '-'; });
    i = j;
  }
  return ops;
}

// A side's range in a hunk header, as diff -u and difflib write it: the first line and the count,
// the count left out when it is 1, an empty range as the line before it and 0.
std::string hunk_range(size_t first, size_t count) {
  if (count == 1) return std::to_string(first);
  return fmt::format("{},{}", count == 0 ? first - 1 : first, count);
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
  std::vector<char> ops;
  if (sa != sb) {
    ops = edit_script(sa, sb);
  } else {
    sa.clear();
    sb.clear();
    for (const auto& l : a) sa.push_back(l.text);
    for (const auto& l : b) sb.push_back(l.text);
    ops = edit_script(sa, sb);
  }
  // Each entry's line in each side: the lines of that side before it (0-based).
  std::vector<size_t> line_a(ops.size() + 1), line_b(ops.size() + 1);
  for (size_t i = 0; i < ops.size(); ++i) {
    line_a[i + 1] = line_a[i] + (ops[i] != '+' ? 1 : 0);
    line_b[i + 1] = line_b[i] + (ops[i] != '-' ? 1 : 0);
  }
  GraphDiff d;
  // Hunks: runs of changes with up to `context` common lines around them, joined when at most
  // 2 * context common lines lie between two runs.
  std::vector<size_t> changed;
  for (size_t i = 0; i < ops.size(); ++i)
    if (ops[i] != ' ') changed.push_back(i);
  size_t k = 0;
  while (k < changed.size()) {
    size_t first = changed[k], last = changed[k];
    while (k + 1 < changed.size() && changed[k + 1] - last <= 2 * context + 1) last = changed[++k];
    ++k;
    const size_t begin = first >= context ? first - context : 0;
    const size_t end = std::min(ops.size(), last + context + 1);
    std::vector<DiffLine> hunk;
    for (size_t i = begin; i < end; ++i) {
      if (ops[i] == '-') ++d.removed;
      if (ops[i] == '+') ++d.added;
      hunk.push_back({ops[i], ops[i] == '+' ? b[line_b[i]] : a[line_a[i]]});
    }
    d.hunks.push_back(std::move(hunk));
    d.first_line_a.push_back(line_a[begin] + 1);
    d.first_line_b.push_back(line_b[begin] + 1);
    d.length_a.push_back(line_a[end] - line_a[begin]);
    d.length_b.push_back(line_b[end] - line_b[begin]);
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
    out += fmt::format("@@ -{} +{} @@\n", hunk_range(d.first_line_a[i], d.length_a[i]),
                       hunk_range(d.first_line_b[i], d.length_b[i]));
    for (const auto& l : d.hunks[i]) {
      if (l.op != ' ' && !l.line.where.empty())
        out += fmt::format("{}{:<{}}  # {}\n", l.op, l.line.text, width, l.line.where);
      else
        out += fmt::format("{}{}\n", l.op, l.line.text);
    }
  }
  return out;
}

std::string strip_mangling(std::string name) {
  for (size_t i; (i = name.find("___torch_mangle_")) != std::string::npos;) {
    size_t j = i + 16;
    while (j < name.size() && std::isdigit(static_cast<unsigned char>(name[j]))) ++j;
    name.erase(i, j + 1 - i);
  }
  return name;
}

}  // namespace jitctl
