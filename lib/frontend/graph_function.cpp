#include "lib/frontend/graph_function.h"

#include <fmt/format.h>

#include <utility>

#include "lib/core/error.h"
#include "passes/inliner.h"
#include "passes/registry.h"

namespace jitctl {
namespace {

// Inlining stacks callees inside callers: a chain of calls, each inside ifs, nests blocks as deep
// as the chain is long and deep, and every pass walks blocks recursively. Code files bound each
// function's own nesting (the parser: 256); these bound what inlining makes of it, before any
// walk gets deep enough to exhaust the stack. Real models stay far below both.
constexpr int kMaxInlineChain = 256;
constexpr size_t kMaxInlinedBlockDepth = 512;
thread_local int inline_chain = 0;

void check_inlined_depth(const std::string& name, const Graph& g) {
  if (g.block_depth() > kMaxInlinedBlockDepth)
    throw InvalidInput(fmt::format("{}: with its calls inlined, blocks (ifs, loops) nest more than {} deep", name,
                                   kMaxInlinedBlockDepth));
}

}  // namespace

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
  if (inline_chain >= kMaxInlineChain)
    throw InvalidInput(fmt::format("{}: calls nest more than {} deep", name_, kMaxInlineChain));
  optimizing_ = true;
  ++inline_chain;
  try {
    auto g = copy_graph_with_schemas(*graph());
    PassContext ctx;
    ctx.callees = callee_graphs();
    run_pipeline("preoptimize", *g, ctx);
    check_inlined_depth(name_, *g);
    optimized_ = std::move(g);
  } catch (...) {
    optimizing_ = false;
    --inline_chain;
    throw;
  }
  optimizing_ = false;
  --inline_chain;
  return optimized_;
}

std::shared_ptr<Graph> GraphFunction::inlined_graph() {
  auto g = copy_graph_with_schemas(*graph());
  inline_calls(*g, callee_graphs());
  check_inlined_depth(name_, *g);
  return g;
}

CalleeGraphFn GraphFunction::callee_graphs() const {
  return [resolve = resolve_](const std::string& owner, const std::string& method) -> std::shared_ptr<Graph> {
    GraphFunction* callee = resolve(owner, method);
    return callee ? callee->optimized_graph() : nullptr;
  };
}

}  // namespace jitctl
