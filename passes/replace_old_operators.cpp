#include "passes/replace_old_operators.h"

#include <fmt/format.h>

#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

#include "lib/core/error.h"
#include "lib/ops/schema.h"
#include "lib/ir/graph_parser.h"

namespace jitctl {

std::string_view embedded_upgraders_text();

namespace {

// name -> parsed graph, from the `# NAME` sections of upgraders.txt; parsed once.
const std::map<std::string, std::shared_ptr<Graph>, std::less<>>& upgrader_graphs() {
  static const auto graphs = [] {
    std::map<std::string, std::shared_ptr<Graph>, std::less<>> out;
    std::string_view text = embedded_upgraders_text();
    std::string name;
    size_t body_start = 0;
    auto flush = [&](size_t end) {
      if (name.empty()) return;
      GraphParseOptions opts;
      opts.source_name = "upgrader " + name;
      out[name] = parse_graph(text.substr(body_start, end - body_start), opts);
    };
    size_t pos = 0;
    while (pos < text.size()) {
      const size_t nl = text.find('\n', pos);
      const size_t end = nl == std::string_view::npos ? text.size() : nl;
      if (text.substr(pos, 2) == "# ") {
        flush(pos);
        name = std::string(text.substr(pos + 2, end - pos - 2));
        body_start = end + 1;
      }
      pos = end + 1;
    }
    flush(text.size());
    return out;
  }();
  return graphs;
}

void collect(Block* b, std::vector<Node*>& out) {
  for (Node* n : b->nodes()) {
    out.push_back(n);
    for (Block* sub : n->blocks()) collect(sub, out);
  }
}

// insertGraph: the callee's nodes copied before the insert point, its inputs standing for `inputs`.
std::vector<Value*> insert_graph(Graph& g, const Graph& callee, const std::vector<Value*>& inputs) {
  std::unordered_map<const Value*, Value*> env;
  for (size_t i = 0; i < callee.inputs().size(); ++i) env[callee.inputs()[i]] = inputs[i];
  auto lookup = [&](Value* v) -> Value* {
    auto it = env.find(v);
    if (it == env.end()) throw std::logic_error("upgrader: value " + v->debug_name() + " used out of scope");
    return it->second;
  };
  for (Node* n : callee.nodes()) {
    Node* copy = g.insert_node(g.create_clone(n, lookup));
    for (size_t i = 0; i < n->outputs().size(); ++i) env[n->output(i)] = copy->output(i);
  }
  std::vector<Value*> outs;
  for (Value* v : callee.outputs()) outs.push_back(lookup(v));
  return outs;
}

}  // namespace

void replace_old_operators(Graph& g, int64_t version) {
  std::vector<Node*> nodes;
  collect(g.block(), nodes);
  for (Node* n : nodes) {
    if (!n->schema()) continue;
    const UpgraderEntry* e = find_upgrader(n->schema()->full_name(), version);
    if (!e) continue;
    const auto& graphs = upgrader_graphs();
    auto it = graphs.find(e->upgrader);
    if (it == graphs.end()) throw std::logic_error("no upgrader graph named " + e->upgrader);
    const Graph& body = *it->second;
    if (body.inputs().size() != n->inputs().size() || body.outputs().size() != n->outputs().size())
      // Only a crafted archive calls an old operator with arguments its own version never had.
      throw InvalidInput(fmt::format("{} called with {} arguments and {} results in an archive of operator version {}: "
                                     "its upgrader {} takes {} and gives {}",
                                     n->schema()->full_name(), n->inputs().size(), n->outputs().size(), version,
                                     e->upgrader, body.inputs().size(), body.outputs().size()));
    std::vector<Value*> outs;
    {
      WithInsertPoint guard(n);
      outs = insert_graph(g, body, n->inputs());
    }
    for (size_t i = 0; i < outs.size(); ++i) n->output(i)->replace_all_uses_with(outs[i]);
    n->destroy();
  }
}

void replace_old_operators_pass(Graph& g, const PassContext& ctx) {
  if (ctx.operator_version >= 0) replace_old_operators(g, ctx.operator_version);
}

}  // namespace jitctl
