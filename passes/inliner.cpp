#include "passes/inliner.h"

#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

namespace jitctl {
namespace {

// See copy_graph_with_schemas.
void copy_block_schemas(const Block* from, Block* to) {
  auto t = to->nodes().begin();
  for (Node* f : from->nodes()) copy_schemas(*f, **t++);
}

}  // namespace

// `call`'s inputs are the callee's inputs (a CallFunction's function constant has already been
// dropped).
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
      copy_schemas(*n, *copy);
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

namespace {

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

}  // namespace

void inline_calls(Graph& g, const CalleeGraphFn& callee_graph) { inline_block(g.block(), callee_graph); }

void inline_calls_pass(Graph& g, const PassContext& ctx) {
  if (!ctx.callees) throw std::logic_error("inline: run without the callees' graphs (PassContext::callees)");
  inline_calls(g, ctx.callees);
}

std::shared_ptr<Graph> copy_graph_with_schemas(const Graph& g) {
  auto copy = g.copy();
  copy_block_schemas(g.block(), copy->block());
  return copy;
}

void copy_schemas(const Node& from, Node& to) {
  to.set_schema(from.schema());
  for (size_t i = 0; i < from.blocks().size() && i < to.blocks().size(); ++i)
    copy_block_schemas(from.blocks()[i], to.blocks()[i]);
}

}  // namespace jitctl
