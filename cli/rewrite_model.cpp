#include "cli/rewrite_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "lib/core/error.h"
#include "lib/core/output_file.h"
#include "lib/frontend/graph_function.h"
#include "lib/ir/graph_printer.h"
#include "lib/runtime/node_evaluator.h"
#include "lib/serialization/export.h"
#include "lib/serialization/freeze_module.h"
#include "lib/serialization/load_module.h"
#include "lib/serialization/module_passes.h"
#include "passes/inliner.h"

namespace jitctl::cli {
namespace {

// Operator kind -> nodes, counting the nodes of every block (and fork subgraph), constants too.
using NodeCounts = std::map<std::string, size_t>;

struct TransformReport {
  std::string command;
  std::string input, output;
  bool eval_mode = false;
  size_t modules_switched_to_eval = 0;
  NodeCounts before, after;
  size_t attributes_folded = 0, attributes_removed = 0, constants_folded = 0;
  std::string pipeline;
  std::vector<std::string> passes;  // --passes, in order
  uint64_t bytes_before = 0, bytes_after = 0;
};

void count_block(const Block* b, NodeCounts& counts) {
  for (const Node* n : b->nodes()) {
    ++counts[std::string(n->kind().qual_string())];
    for (const Block* sub : n->blocks()) count_block(sub, counts);
    if (n->kind() == prim::fork && n->has_attribute(attr::Subgraph)) count_block(n->g(attr::Subgraph)->block(), counts);
  }
}

void count_nodes(const Graph& g, NodeCounts& counts) { count_block(g.block(), counts); }

size_t total(const NodeCounts& counts) {
  size_t n = 0;
  for (const auto& [k, c] : counts) n += c;
  return n;
}

// What a method computes before anything is done to it: its graph with every call inlined.
void count_method(LoadedModule& m, const std::string& cls, const std::string& method, NodeCounts& counts) {
  if (GraphFunction* fn = m.cu->graph_function(cls, method)) count_nodes(*fn->inlined_graph(), counts);
}

void print_report(const TransformReport& r, const std::string& format) {
  std::set<std::string> kinds;
  for (const auto& [k, c] : r.before) kinds.insert(k);
  for (const auto& [k, c] : r.after) kinds.insert(k);
  auto get = [](const NodeCounts& m, const std::string& k) -> size_t {
    auto it = m.find(k);
    return it == m.end() ? 0 : it->second;
  };
  if (format == "json") {
    nlohmann::ordered_json ops = nlohmann::ordered_json::object();
    for (const std::string& k : kinds) ops[k] = {{"before", get(r.before, k)}, {"after", get(r.after, k)}};
    nlohmann::ordered_json j = {{"command", r.command},
                                {"input", r.input},
                                {"output", r.output},
                                {"eval_mode", r.eval_mode},
                                {"modules_switched_to_eval", r.modules_switched_to_eval},
                                {"pipeline", r.pipeline},
                                {"passes", r.passes},
                                {"nodes", {{"before", total(r.before)}, {"after", total(r.after)}}},
                                {"ops", ops},
                                {"attributes_folded", r.attributes_folded},
                                {"constants_folded", r.constants_folded},
                                {"attributes_removed", r.attributes_removed},
                                {"bytes", {{"before", r.bytes_before}, {"after", r.bytes_after}}}};
    fmt::print("{}\n", j.dump(1));
    return;
  }
  fmt::print(stderr, "{}: written by jitctl {}{}\n", r.output, r.command,
             r.pipeline.empty() ? "" : fmt::format(" (then pipeline {})", r.pipeline));
  // Said because it changes what the model computes (dropout, batch_norm statistics).
  if (r.eval_mode)
    fmt::print(stderr, "  eval mode  training=False on every module ({} were in training mode), as for inference\n",
               r.modules_switched_to_eval);
  fmt::print(stderr, "  nodes      {} -> {}\n", total(r.before), total(r.after));
  fmt::print(stderr, "  constants  {} attribute read(s) folded; {} node(s) computed and folded; {} attribute(s) removed\n",
             r.attributes_folded, r.constants_folded, r.attributes_removed);
  fmt::print(stderr, "  bytes      {} -> {}\n", r.bytes_before, r.bytes_after);
  fmt::print(stderr, "  {:<32} {:>7} {:>7}\n", "op", "before", "after");
  for (const std::string& k : kinds) {
    const size_t b = get(r.before, k), a = get(r.after, k);
    if (b != a) fmt::print(stderr, "  {:<32} {:>7} {:>7}\n", k, b, a);
  }
}

}  // namespace

void rewrite_model(const RewriteJob& job) {
  // A mistyped -o should not replace the user's only copy of the model.
  if (is_stdout(job.output) && job.format == "json")
    throw InvalidInput(fmt::format("{}: -o - writes the archive to standard output, where the --format json report would go; use one",
                                   job.command));
  check_output_path(job.output, {job.input}, job.force, "-o");
  LoadedModule m = load_module(job.input);
  TransformReport r;
  r.command = job.command;
  r.input = job.input;
  r.output = job.output;
  r.pipeline = job.pipeline;
  for (const PassInfo* p : job.passes) r.passes.emplace_back(p->name);
  if (job.freeze) restore_setstate_attributes(m);
  if (job.eval_mode) {
    r.eval_mode = true;
    r.modules_switched_to_eval = set_eval_mode(m);
  }

  PassContext ctx = evaluating_pass_context();
  PassStats stats;
  ctx.stats = &stats;
  if (job.print_after_each)
    ctx.after_each = [](std::string_view pass, const Graph& g) {
      fmt::print(stderr, "=== after {} ===\n{}", pass, graph_to_string(g));
    };
  const auto graph_rewrite = [&](Graph& g, const PassContext& c) {
    if (!job.pipeline.empty()) run_pipeline(job.pipeline, g, c);
    for (const PassInfo* p : job.passes) p->run(g, c);
  };

  GraphOverrides graphs;
  if (job.freeze) {
    const auto cls = m.cu->find_class(m.class_name);
    for (const auto& method : cls->methods()) {
      const bool kept = method.name == "forward" ||
                        std::find(job.preserve.begin(), job.preserve.end(), method.name) != job.preserve.end();
      if (kept) count_method(m, m.class_name, method.name, r.before);
    }
    FreezeOptions options;
    options.preserve = job.preserve;
    options.optimize_numerics = job.optimize_numerics;
    FreezeResult frozen = freeze_module(m, options, ctx);
    r.attributes_folded = frozen.attributes_folded;
    r.attributes_removed = frozen.attributes_removed;
    graphs = std::move(frozen.graphs);
    for (auto& [key, g] : graphs) {
      graph_rewrite(*g, ctx);
      count_nodes(*g, r.after);
    }
  } else {
    const auto cls = m.cu->find_class(m.class_name);
    for (const auto& method : cls->methods()) count_method(m, m.class_name, method.name, r.before);
    graphs = rewrite_module_graphs(m, graph_rewrite, ctx);
    for (const auto& method : cls->methods()) {
      auto it = graphs.find({m.class_name, method.name});
      if (it == graphs.end()) {
        count_method(m, m.class_name, method.name, r.after);
      } else {
        // The rewritten graph, with what it still calls inlined, as `before` counts.
        auto g = copy_graph_with_schemas(*it->second);
        inline_calls(*g, m.cu->graph_function(m.class_name, method.name)->callee_graphs());
        count_nodes(*g, r.after);
      }
    }
  }
  r.constants_folded = stats.constants_folded;
  std::error_code ec;
  r.bytes_before = std::filesystem::file_size(job.input, ec);
  if (is_stdout(job.output)) {
    // The archive goes to standard output; the report to standard error (so not as JSON).
    r.output = "<stdout>";
    write_to_stdout_through_file("model.pt", [&](const std::string& file) {
      export_module(m, file, graphs);
      r.bytes_after = std::filesystem::file_size(file, ec);
    });
  } else {
    export_module(m, job.output, graphs);
    r.bytes_after = std::filesystem::file_size(job.output, ec);
  }
  print_report(r, job.format);
}

}  // namespace jitctl::cli
