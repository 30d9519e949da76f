#include "lib/ir/graph_dot.h"

#include <fmt/format.h>

#include <string_view>
#include <unordered_map>
#include <vector>

#include "lib/ir/attribute_text.h"

namespace jitctl {
namespace {

// Length of the valid UTF-8 sequence at s[i] (1 for ASCII), or 0.
size_t utf8_sequence(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  const size_t n = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
  if (n == 0 || i + n > s.size() || (n == 2 && c < 0xC2) || (n == 4 && c > 0xF4)) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  return n;
}

// Inside a dot double-quoted string only `"` and `\` need escaping, and a newline must be written
// as `\n` (which dot reads as a centred line break). Other control bytes are dropped, and bytes
// that are not UTF-8 (which dot rejects) become `?`: file names in source locations are not
// checked anywhere else.
std::string escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    const size_t n = utf8_sequence(s, i);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (n == 0) {
      out += '?';
    } else if (n > 1 || (static_cast<unsigned char>(c) >= 0x20 && c != 0x7F)) {
      out.append(s.substr(i, n));
      i += n;
      continue;
    }
    ++i;
  }
  return out;
}

// Keeps labels readable: a long tensor or string constant becomes its first characters.
std::string shorten(std::string s, size_t max = 48) {
  if (s.size() <= max) return s;
  size_t cut = max - 3;
  // Do not split a UTF-8 sequence.
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  s.resize(cut);
  return s + "...";
}

std::string value_label(const Value* v) { return "%" + v->debug_name() + " : " + v->type()->graph_str(); }

class DotPrinter {
 public:
  std::string print(const Graph& g) {
    out_ += "digraph jitctl_graph {\n";
    // newrank: with dot's older ranking, the rank=source/sink groups below together with the
    // clusters of If/Loop blocks make dot fail ("trouble in init_rank") on an inlined transformer.
    out_ += "  graph [fontname=\"Helvetica\", fontsize=10, rankdir=TB, newrank=true];\n";
    out_ += "  node [shape=box, style=rounded, fontname=\"Courier\", fontsize=10];\n";
    out_ += "  edge [fontname=\"Courier\", fontsize=9];\n";
    // Inputs on the first rank and the return on the last, so the graph reads top to bottom.
    out_ += "  {\n    rank=source;\n";
    for (size_t i = 0; i < g.inputs().size(); ++i) {
      const std::string id = "in" + std::to_string(i);
      input_ids_[g.inputs()[i]] = id;
      declare(2, id, "%" + g.inputs()[i]->debug_name(), "shape=invhouse, style=filled, fillcolor=\"#dbe9f6\"");
    }
    out_ += "  }\n";
    declare_block_nodes(*g.block(), 1);
    ids_[g.return_node()] = "ret";
    declare_constant_inputs(g.return_node(), 1);
    out_ += "  {\n    rank=sink;\n";
    declare(2, "ret", "return", "shape=house, style=filled, fillcolor=\"#e8e8e8\"");
    out_ += "  }\n";
    edges_for_block(*g.block());
    out_ += edges_;
    out_ += "}\n";
    return out_;
  }

 private:
  void declare(int level, const std::string& id, const std::string& label, const std::string& extra,
               const std::string& tooltip = "") {
    out_.append(static_cast<size_t>(level) * 2, ' ');
    out_ += id + " [label=\"" + escape(label) + "\"";
    if (!extra.empty()) out_ += ", " + extra;
    if (!tooltip.empty()) out_ += ", tooltip=\"" + escape(tooltip) + "\"";
    out_ += "];\n";
  }

  static std::string node_label(const Node& n) {
    std::string label(n.kind().qual_string());
    for (const auto& a : n.attributes()) {
      label += '\n';
      label += a.name.unqual_string();
      label += '=';
      label += shorten(attribute_value_text(a.value, n.kind() == prim::ConstantMKLDNNTensor));
    }
    return label;
  }

  void declare_op(int level, const std::string& id, const Node& n) {
    const std::string tooltip = n.source_location() ? n.source_location()->str() : "";
    const bool constant = n.kind() == prim::Constant;
    declare(level, id, node_label(n), constant ? "style=\"rounded,filled\", fillcolor=\"#f6f3d8\"" : "", tooltip);
  }

  // A used constant is drawn once per use, next to the user: pooled constants sit at the top of
  // the graph with dozens of uses each (a `1` used 150 times in an inlined SqueezeNet), and the
  // long edges from one shared box make dot's layout take minutes and the picture unreadable.
  static bool drawn_at_uses(const Node* n) { return n->kind() == prim::Constant && n->has_uses(); }

  void declare_constant_inputs(const Node* user, int level) {
    auto& sources = constant_sources_[user];
    sources.assign(user->inputs().size(), "");
    for (size_t i = 0; i < user->inputs().size(); ++i) {
      const Node* producer = user->input(i)->node();
      if (!drawn_at_uses(producer)) continue;
      sources[i] = "c" + std::to_string(next_constant_id_++);
      declare_op(level, sources[i], *producer);
    }
  }

  void declare_block_nodes(const Block& b, int level) {
    for (const Node* n : b.nodes()) {
      if (drawn_at_uses(n)) continue;
      const std::string id = "n" + std::to_string(next_id_++);
      ids_[n] = id;
      declare_op(level, id, *n);
      declare_constant_inputs(n, level);
      for (size_t bi = 0; bi < n->blocks().size(); ++bi) {
        const Block& sub = *n->blocks()[bi];
        const std::string cluster = id + "_b" + std::to_string(bi);
        out_.append(static_cast<size_t>(level) * 2, ' ');
        out_ += "subgraph cluster_" + cluster + " {\n";
        out_.append(static_cast<size_t>(level + 1) * 2, ' ');
        out_ += "label=\"" + escape(std::string(n->kind().qual_string()) + " block" + std::to_string(bi)) +
                "\"; style=dashed; color=\"#888888\";\n";
        ids_[sub.param_node()] = cluster + "_in";
        std::string params = "block" + std::to_string(bi) + "(";
        for (size_t i = 0; i < sub.inputs().size(); ++i) params += (i ? ", %" : "%") + sub.inputs()[i]->debug_name();
        declare(level + 1, cluster + "_in", params + ")", "shape=invhouse, fontsize=9");
        declare_block_nodes(sub, level + 1);
        ids_[sub.return_node()] = cluster + "_out";
        declare_constant_inputs(sub.return_node(), level + 1);
        std::string rets = "-> (";
        for (size_t i = 0; i < sub.outputs().size(); ++i) rets += (i ? ", %" : "%") + sub.outputs()[i]->debug_name();
        declare(level + 1, cluster + "_out", rets + ")", "shape=house, fontsize=9");
        out_.append(static_cast<size_t>(level) * 2, ' ');
        out_ += "}\n";
      }
    }
  }

  // The dot node that makes input `i` of `user`: a constant's box for this use, a graph input's
  // own node, or the producing node (a block's param node for block inputs).
  const std::string& source_of(const Node* user, size_t i) {
    const std::string& constant = constant_sources_.at(user).at(i);
    if (!constant.empty()) return constant;
    const Value* v = user->input(i);
    if (auto it = input_ids_.find(v); it != input_ids_.end()) return it->second;
    return ids_.at(v->node());
  }

  void edges_into(const Node* user) {
    const std::string& to = ids_.at(user);
    for (size_t i = 0; i < user->inputs().size(); ++i)
      edges_ += "  " + source_of(user, i) + " -> " + to + " [label=\"" + escape(value_label(user->input(i))) + "\"];\n";
  }

  void edges_for_block(const Block& b) {
    for (const Node* n : b.nodes()) {
      if (drawn_at_uses(n)) continue;
      edges_into(n);
      for (const Block* sub : n->blocks()) {
        edges_ += "  " + ids_.at(n) + " -> " + ids_.at(sub->param_node()) + " [style=dotted, arrowhead=none];\n";
        edges_for_block(*sub);
      }
    }
    edges_into(b.return_node());
  }

  std::string out_, edges_;
  size_t next_id_ = 0, next_constant_id_ = 0;
  std::unordered_map<const Node*, std::string> ids_;
  std::unordered_map<const Value*, std::string> input_ids_;
  // Per user, per input: the id of the constant box drawn for that use ("" for other inputs).
  std::unordered_map<const Node*, std::vector<std::string>> constant_sources_;
};

}  // namespace

std::string graph_to_dot(const Graph& g) { return DotPrinter().print(g); }

}  // namespace jitctl
