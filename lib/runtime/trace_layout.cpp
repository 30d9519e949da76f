#include "lib/runtime/trace_layout.h"

#include <fmt/format.h>

#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "lib/frontend/schema_matching.h"
#include "passes/dead_code_elimination.h"
#include "passes/inliner.h"
#include "passes/lower_simple_tuples.h"
#include "passes/registry.h"

namespace jitctl {
namespace {

std::vector<std::string> atoms(const std::string& path) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t dot = path.find('.', start);
    out.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) return out;
    start = dot + 1;
  }
}

bool is_prefix(const std::vector<std::string>& prefix, const std::vector<std::string>& name) {
  if (prefix.size() > name.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (prefix[i] != name[i]) return false;
  return true;
}

// Attribute reads: each use of a prim::TracedAttr becomes a GetAttr chain from the `self` of the
// tightest enclosing scope whose module owns the attribute, inserted at the start of that scope's
// block (so the reads of a block appear in reverse order of their first use); a scope that uses
// an attribute of an enclosing module gets it as a block input from its caller.
class AttributeReads {
 public:
  explicit AttributeReads(Graph& g) : g_(g) {
    for (Node* n : g.nodes())
      if (n->kind() == prim::TracedAttr) attrs_[n->s(attr::scope)] = n->output();
  }

  void run() {
    add_self_inputs(g_.block());
    convert(g_.block(), atoms("__module"), g_.inputs()[0]);
    for (Node* n : g_.nodes()) {
      if (n->kind() != prim::TracedAttr) continue;
      if (n->output()->has_uses()) throw std::logic_error("trace layout: an attribute read outside any scope's nodes");
    }
    for (auto it = g_.nodes().begin(); it != g_.nodes().end();) {
      Node* n = *it++;
      if (n->kind() == prim::TracedAttr) n->destroy();
    }
  }

 private:
  void add_self_inputs(Block* b) {
    for (Node* n : b->nodes()) {
      if (n->kind() != prim::TracedModuleForward) continue;
      Value* self = attrs_.at(n->s(attr::scope));
      n->add_input(self);
      n->blocks()[0]->add_input("self")->set_type(self->type());
      add_self_inputs(n->blocks()[0]);
    }
  }

  std::vector<Value*> convert(Block* b, const std::vector<std::string>& prefix, Value* self) {
    std::vector<Value*> unresolved;
    std::unordered_map<Value*, Value*> remaps;
    for (Node* n : b->nodes()) {
      if (n->kind() == prim::TracedModuleForward) {
        Block* sub = n->blocks()[0];
        for (Value* v : convert(sub, atoms(n->s(attr::scope)), sub->inputs()[0])) n->add_input(v);
      }
      for (size_t i = 0; i < n->inputs().size(); ++i) {
        Value* in = n->input(i);
        if (auto it = remaps.find(in); it != remaps.end()) {
          n->replace_input(i, it->second);
          continue;
        }
        if (in->node()->kind() != prim::TracedAttr) continue;
        const std::vector<std::string> name = atoms(in->node()->s(attr::scope));
        if (is_prefix(prefix, name)) {
          WithInsertPoint guard(b->param_node()->next());
          Value* v = self;
          for (size_t k = prefix.size(); k < name.size(); ++k) {
            Node* get = g_.insert_node(g_.create_get_attr(v, name[k]));
            get->output()->set_type(in->type());
            if (k + 1 < name.size()) {
              // An intermediate module: its type is that of its own TracedAttr.
              std::string path;
              for (size_t j = 0; j <= k; ++j) path += (j ? "." : "") + name[j];
              if (auto a = attrs_.find(path); a != attrs_.end()) get->output()->set_type(a->second->type());
            }
            v = get->output();
          }
          n->replace_input(i, v);
          remaps[in] = v;
        } else {
          Value* captured = b->add_input()->copy_metadata(in);
          n->replace_input(i, captured);
          unresolved.push_back(in);
          remaps[in] = captured;
        }
      }
    }
    return unresolved;
  }

  Graph& g_;
  std::map<std::string, Value*> attrs_;
};

// Values used outside the scope block that defines them become outputs of that block (and of
// the blocks around it up to the common one), as PyTorch's MakeDefsDominateUses does.
class LiftDefinitions {
 public:
  void run(Block* b) {
    process(b->param_node(), b);
    for (Node* n : b->nodes()) process(n, b);
    process(b->return_node(), b);
  }

 private:
  void process(Node* n, Block* b) {
    for (size_t i = 0; i < n->inputs().size(); ++i) {
      Value* in = n->input(i);
      if (auto it = remap_.find(in); it != remap_.end()) {
        n->replace_input(i, it->second);
        in = it->second;
      }
      if (in->node()->owning_block() == b) continue;
      Block* common = n->find_common_ancestor_block_with(in->node());
      Value* v = in;
      Block* at = in->node()->owning_block();
      while (at != common) {
        at->register_output(v);
        v = at->owning_node()->add_output();
        v->copy_metadata(in);
        at = at->owning_node()->owning_block();
      }
      remap_[in] = v;
      n->replace_input(i, v);
    }
    if (n->kind() == prim::TracedModuleForward) run(n->blocks()[0]);
  }

  std::unordered_map<Value*, Value*> remap_;
};

// A scope with several results returns them as one tuple; one with none returns None.
void returns_to_tuples(Graph& g, Block* b) {
  for (Node* n : b->nodes()) {
    if (n->kind() != prim::TracedModuleForward) continue;
    Block* sub = n->blocks()[0];
    returns_to_tuples(g, sub);
    if (sub->outputs().size() > 1) {
      {
        WithInsertPoint guard(sub->return_node());
        Node* tuple = g.insert_node(g.create_tuple(sub->outputs()));
        while (!sub->outputs().empty()) sub->erase_output(0);
        sub->register_output(tuple->output());
      }
      Value* packed = n->add_output()->set_type(sub->outputs()[0]->type());
      Node* unpack = g.create_tuple_unpack(packed);
      unpack->insert_after(n);
      for (size_t k = unpack->outputs().size(); k-- > 0;) {
        n->output(k)->replace_all_uses_with(unpack->output(k));
        n->erase_output(k);
      }
    } else if (sub->outputs().empty()) {
      WithInsertPoint guard(sub->return_node());
      sub->register_output(g.insert_node(g.create_none())->output());
      n->add_output()->set_type(NoneType::get());
    }
  }
}

// The schemas of the recorded operators (a clone drops them), which dead code elimination's alias
// analysis reads: an in-place write to a buffer (BatchNorm's num_batches_tracked.add_(1)) is kept, as
// PyTorch keeps it.
void attach_schemas(Block* b) {
  for (Node* n : b->nodes()) {
    if (!n->schema() && n->kind().is_aten())
      if (const FunctionSchema* s = match_builtin_schema(n)) n->set_schema(s);
    for (Block* sub : n->blocks()) attach_schemas(sub);
  }
}

// Each scope block becomes a graph (values it reads from outside become its inputs) called by a
// prim::CallMethod; the callee graphs are kept by method name for the inliner.
class Methods {
 public:
  // The lifted methods under PyTorch's names, in the order the calls run: per module `forward`,
  // then `forward1`, ... The graphs are copies, their calls renamed.
  std::vector<TracedMethod> named(const Graph& root, std::shared_ptr<Graph>& renamed_root) {
    std::map<std::string, std::string> names;  // internal -> public
    std::map<std::string, size_t> per_module;
    std::vector<std::string> order;
    std::function<void(const Graph&)> visit = [&](const Graph& g) {
      for (const Node* n : g.nodes()) {
        if (n->kind() != prim::CallMethod || names.count(n->s(attr::name))) continue;
        const std::string& internal = n->s(attr::name);
        auto scope = scopes_.find(internal);
        if (scope == scopes_.end()) continue;
        const size_t k = per_module[scope->second]++;
        names[internal] = k == 0 ? "forward" : fmt::format("forward{}", k);
        order.push_back(internal);
        visit(*graphs_.at(internal));
      }
    };
    visit(root);
    auto rename = [&](const Graph& g) {
      auto copy = copy_graph_with_schemas(g);
      for (Node* n : copy->nodes())
        if (n->kind() == prim::CallMethod)
          if (auto it = names.find(n->s(attr::name)); it != names.end()) n->s_(attr::name, it->second);
      return copy;
    };
    renamed_root = rename(root);
    std::vector<TracedMethod> out;
    for (const auto& internal : order) {
      std::string path = scopes_.at(internal);
      const std::string prefix = "__module.";
      if (path.compare(0, prefix.size(), prefix) == 0) path = path.substr(prefix.size());
      out.push_back({path, names.at(internal), rename(*graphs_.at(internal))});
    }
    return out;
  }

  std::shared_ptr<Graph> callee(const std::string& name) {
    auto it = optimized_.find(name);
    if (it != optimized_.end()) return it->second;
    auto g = copy_graph_with_schemas(*graphs_.at(name));
    PassContext ctx;
    ctx.callees = [this](const std::string&, const std::string& method) { return callee(method); };
    run_pipeline("preoptimize", *g, ctx);
    return optimized_[name] = g;
  }

  void lift(Graph& g, Block* b) {
    for (auto it = b->nodes().begin(); it != b->nodes().end();) {
      Node* n = *it++;
      if (n->kind() != prim::TracedModuleForward) continue;
      auto graph = std::make_shared<Graph>();
      Block* sub = n->blocks()[0];
      std::unordered_map<Value*, Value*> outer;
      graph->block()->clone_from(sub, [&](Value* v) {
        auto found = outer.find(v);
        if (found != outer.end()) return found->second;
        Value* in = graph->add_input()->copy_metadata(v);
        n->add_input(v);
        return outer[v] = in;
      });
      lift(*graph, graph->block());
      n->erase_block(0);
      // The call.
      const std::string name = fmt::format("forward__trace_scope_{}", graphs_.size());
      scopes_[name] = n->s(attr::scope);
      Node* call = g.create(prim::CallMethod, n->inputs(), 1);
      call->s_(attr::name, name);
      call->output()->set_type(graph->outputs()[0]->type());
      call->insert_before(n);
      if (!n->outputs().empty()) n->output(0)->replace_all_uses_with(call->output());
      n->destroy();
      // The clean-up PyTorch runs on every traced method.
      attach_schemas(graph->block());
      lower_simple_tuples(*graph);
      eliminate_dead_code(*graph);
      graphs_[name] = std::move(graph);
    }
  }

 private:
  std::map<std::string, std::shared_ptr<Graph>> graphs_, optimized_;
  std::map<std::string, std::string> scopes_;  // internal name -> the module's scope ("__module.net.0")
};

}  // namespace

TraceLayout lay_out_trace(Graph& recorded) {
  AttributeReads(recorded).run();
  LiftDefinitions().run(recorded.block());
  returns_to_tuples(recorded, recorded.block());
  Methods methods;
  methods.lift(recorded, recorded.block());
  attach_schemas(recorded.block());
  lower_simple_tuples(recorded);
  eliminate_dead_code(recorded);
  TraceLayout layout;
  layout.methods = methods.named(recorded, layout.calls);
  layout.inlined = copy_graph_with_schemas(recorded);
  inline_calls(*layout.inlined, [&](const std::string&, const std::string& method) { return methods.callee(method); });
  return layout;
}

}  // namespace jitctl
