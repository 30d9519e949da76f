#include "passes/inliner.h"

#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lib/core/error.h"
#include "passes/constant_pooling.h"
#include "passes/constant_propagation.h"
#include "passes/peephole.h"

namespace jitctl {
namespace {

// Graph::create_clone and Graph::copy leave matched schemas behind (a clone's inputs are new),
// but a clone has the same input types, so the schema still holds; alias analysis in the passes
// that run on the inlined graph reads it, as PyTorch's would find it again by matching.
void copy_schemas(const Block* from, Block* to);

void copy_schemas(const Node* from, Node* to) {
  to->set_schema(from->schema());
  for (size_t i = 0; i < from->blocks().size(); ++i) copy_schemas(from->blocks()[i], to->blocks()[i]);
}

void copy_schemas(const Block* from, Block* to) {
  auto t = to->nodes().begin();
  for (Node* f : from->nodes()) copy_schemas(f, *t++);
}

std::shared_ptr<Graph> copy_graph(const Graph& g) {
  auto copy = g.copy();
  copy_schemas(g.block(), copy->block());
  return copy;
}

// inlineCallTo: `call`'s inputs are the callee's inputs (a CallFunction's function constant has
// already been dropped).
void inline_call(Node* call, const Graph& callee) {
  Graph& g = *call->owning_graph();
  if (callee.inputs().size() != call->inputs().size() || callee.outputs().size() != call->outputs().size())
    throw std::logic_error("inline: a call with " + std::to_string(call->inputs().size()) + " inputs and " +
                           std::to_string(call->outputs().size()) + " outputs to a graph with " +
                           std::to_string(callee.inputs().size()) + " and " + std::to_string(callee.outputs().size()));
  std::unordered_map<const Value*, Value*> env;
  for (size_t i = 0; i < callee.inputs().size(); ++i) env[callee.inputs()[i]] = call->input(i);
  auto lookup = [&](Value* v) -> Value* {
    auto it = env.find(v);
    if (it == env.end()) throw std::logic_error("inline: callee value " + v->debug_name() + " used out of scope");
    return it->second;
  };
  {
    WithInsertPoint guard(call);
    for (Node* n : callee.nodes()) {
      Node* copy = g.insert_node(g.create_clone(n, lookup));
      copy_schemas(n, copy);
      for (size_t i = 0; i < n->outputs().size(); ++i) env[n->output(i)] = copy->output(i);
    }
  }
  for (size_t i = 0; i < call->outputs().size(); ++i) {
    Value* old_out = call->output(i);
    Value* new_out = lookup(callee.outputs()[i]);
    // The call's name wins; the callee's value (or a caller value passed straight through) takes it.
    if (old_out->has_debug_name()) new_out->set_debug_name(old_out->debug_name());
    old_out->replace_all_uses_with(new_out);
  }
  call->destroy();
}

void inline_block(Block* b, const CalleeGraphFn& callee_graph) {
  for (auto it = b->nodes().begin(); it != b->nodes().end();) {
    Node* cur = *it++;  // nodes inserted in front of `cur` are not visited
    if (cur->kind() == prim::CallFunction) {
      Node* fn = cur->inputs().empty() ? nullptr : cur->input(0)->node();
      if (!fn || fn->kind() != prim::Constant || fn->output()->type()->kind() != TypeKind::Function)
        throw std::logic_error("inline: prim::CallFunction whose first input is not a function constant");
      auto callee = callee_graph(fn->output()->type()->expect<FunctionType>().qualified_name(), "");
      if (!callee) continue;
      cur->remove_input(0);
      inline_call(cur, *callee);
    } else if (cur->kind() == prim::CallMethod) {
      // Interface calls (and anything else not on a class) stay calls: the callee is not known.
      const auto* cls = cur->inputs().empty() ? nullptr : cur->input(0)->type()->cast<ClassType>();
      if (!cls) continue;
      auto callee = callee_graph(cls->qualified_name(), cur->s(attr::name));
      if (!callee) continue;
      inline_call(cur, *callee);
    } else {
      for (Block* sub : cur->blocks()) inline_block(sub, callee_graph);
    }
  }
}

// optimized_graph() per callee, computed once: PyTorch caches it on the Function.
class CalleeOptimizer {
 public:
  explicit CalleeOptimizer(const CalleeGraphFn& graph_of) : graph_of_(graph_of) {}

  std::shared_ptr<Graph> optimize(const Graph& g) {
    auto copy = copy_graph(g);
    inline_calls(*copy, callee_fn());
    peephole_optimize(*copy);
    propagate_immutable_constants(*copy);
    pool_constants(*copy);
    return copy;
  }

  CalleeGraphFn callee_fn() {
    return [this](const std::string& name, const std::string& method) { return optimized(name, method); };
  }

 private:
  std::shared_ptr<Graph> optimized(const std::string& name, const std::string& method) {
    const Key key{name, method};
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    const std::string what = method.empty() ? name : name + "." + method;
    if (!active_.insert(key).second)
      throw InvalidInput("recursive call of " + what + ": TorchScript does not support recursion");
    auto g = graph_of_(name, method);
    auto result = g ? optimize(*g) : nullptr;
    active_.erase(key);
    memo_.emplace(key, result);
    return result;
  }

  using Key = std::pair<std::string, std::string>;
  const CalleeGraphFn& graph_of_;
  std::map<Key, std::shared_ptr<Graph>> memo_;
  std::set<Key> active_;
};

}  // namespace

void inline_calls(Graph& g, const CalleeGraphFn& callee_graph) { inline_block(g.block(), callee_graph); }

std::shared_ptr<Graph> inlined_graph(const Graph& g, const CalleeGraphFn& graph_of) {
  CalleeOptimizer optimizer(graph_of);
  auto copy = copy_graph(g);
  inline_calls(*copy, optimizer.callee_fn());
  return copy;
}

std::shared_ptr<Graph> optimized_graph(const Graph& g, const CalleeGraphFn& graph_of) {
  CalleeOptimizer optimizer(graph_of);
  return optimizer.optimize(g);
}

}  // namespace jitctl
