#include "lib/ir/graph_printer.h"

#include <fmt/format.h>

#include "lib/ir/attribute_text.h"

namespace jitctl {
namespace {

void indent(std::string& out, size_t level) { out.append(level * 2, ' '); }

void value_refs(std::string& out, const std::vector<Value*>& values) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += '%';
    out += values[i]->debug_name();
  }
}

void typed_values(std::string& out, const std::vector<Value*>& values, const char* delim) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += delim;
    out += '%';
    out += values[i]->debug_name();
    out += " : ";
    out += values[i]->type()->graph_str();
  }
}

void attributes(std::string& out, const Node& n, bool skip_subgraph) {
  out += '[';
  bool first = true;
  for (const auto& a : n.attributes()) {
    if (skip_subgraph && a.name == attr::Subgraph) continue;
    if (!first) out += ", ";
    first = false;
    out += a.name.unqual_string();
    out += '=';
    out += attribute_value_text(a.value, n.kind() == prim::ConstantMKLDNNTensor);
  }
  out += ']';
}

void print_graph(std::string& out, const Graph& g, bool source_locations);

void print_node(std::string& out, const Node& n, size_t level, std::vector<const Node*>* groups,
                bool source_locations) {
  indent(out, level);
  typed_values(out, n.outputs(), ", ");
  out += " = ";
  if (groups && n.has_attribute(attr::Subgraph)) {
    out += n.kind().qual_string();
    out += '_';
    out += std::to_string(groups->size());
    if (n.num_attributes() > 1 && n.kind() != prim::DifferentiableGraph) attributes(out, n, true);
    groups->push_back(&n);
  } else {
    out += n.kind().qual_string();
    if (n.has_attributes()) attributes(out, n, false);
  }
  out += '(';
  value_refs(out, n.inputs());
  out += ')';
  if (source_locations && n.source_location()) {
    out += " # ";
    out += n.source_location()->str();
  }
  out += '\n';
  for (size_t i = 0; i < n.blocks().size(); ++i) {
    const Block* b = n.blocks()[i];
    indent(out, level + 1);
    out += fmt::format("block{}(", i);
    typed_values(out, b->inputs(), ", ");
    out += "):\n";
    for (const Node* nested : b->nodes()) print_node(out, *nested, level + 2, groups, true);
    indent(out, level + 2);
    out += "-> (";
    value_refs(out, b->outputs());
    out += ")\n";
  }
}

void print_graph(std::string& out, const Graph& g, bool source_locations) {
  out += "graph(";
  typed_values(out, g.inputs(), ",\n      ");
  out += "):\n";
  std::vector<const Node*> groups;
  for (const Node* n : g.nodes()) print_node(out, *n, 1, &groups, source_locations);
  out += "  return (";
  value_refs(out, g.outputs());
  out += ")\n";
  for (size_t i = 0; i < groups.size(); ++i) {
    out += "with ";
    out += groups[i]->kind().qual_string();
    out += fmt::format("_{} = ", i);
    // The subgraph prints as operator<< does, source locations on.
    print_graph(out, *groups[i]->g(attr::Subgraph), true);
  }
}

}  // namespace

std::string graph_to_string(const Graph& g, const GraphPrintOptions& opts) {
  std::string out;
  print_graph(out, g, opts.source_locations);
  return out;
}

std::string node_to_string(const Node& n) {
  std::string out;
  print_node(out, n, 0, nullptr, true);
  return out;
}

std::string Graph::str(bool print_source_locations) const {
  GraphPrintOptions opts;
  opts.source_locations = print_source_locations;
  return graph_to_string(*this, opts);
}

}  // namespace jitctl
