#include "lib/frontend/graph_function.h"

#include <utility>

#include "lib/core/error.h"
#include "passes/inliner.h"
#include "passes/registry.h"

namespace jitctl {

GraphFunction::GraphFunction(std::string qualified_name, std::function<std::shared_ptr<Graph>()> make_graph,
                             Resolver resolve)
    : name_(std::move(qualified_name)), make_graph_(std::move(make_graph)), resolve_(std::move(resolve)) {}

const std::shared_ptr<Graph>& GraphFunction::graph() {
  if (!graph_) graph_ = make_graph_();
  return graph_;
}

const std::shared_ptr<Graph>& GraphFunction::optimized_graph() {
  if (optimized_) return optimized_;
  if (optimizing_) throw InvalidInput("recursive call of " + name_ + ": TorchScript does not support recursion");
  optimizing_ = true;
  try {
    auto g = copy_graph_with_schemas(*graph());
    PassContext ctx;
    ctx.callees = callee_graphs();
    run_pipeline("preoptimize", *g, ctx);
    optimized_ = std::move(g);
  } catch (...) {
    optimizing_ = false;
    throw;
  }
  optimizing_ = false;
  return optimized_;
}

std::shared_ptr<Graph> GraphFunction::inlined_graph() {
  auto g = copy_graph_with_schemas(*graph());
  inline_calls(*g, callee_graphs());
  return g;
}

CalleeGraphFn GraphFunction::callee_graphs() const {
  return [resolve = resolve_](const std::string& owner, const std::string& method) -> std::shared_ptr<Graph> {
    GraphFunction* callee = resolve(owner, method);
    return callee ? callee->optimized_graph() : nullptr;
  };
}

}  // namespace jitctl
