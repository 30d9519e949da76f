// jitctl dump-graph M [--method N] [--inline] [--format text|dot|json]: a method's TorchScript IR
// graph, printed as PyTorch prints `torch.jit.load(M).graph` (or `.inlined_graph` with --inline),
// or as Graphviz dot or JSON for tools.
#include <fmt/format.h>

#include <memory>

#include "cli/commands.h"
#include "lib/core/error.h"
#include "lib/frontend/graph_function.h"
#include "lib/serialization/load_module.h"
#include "lib/ir/graph_dot.h"
#include "lib/ir/graph_json.h"

namespace jitctl::cli {

void add_dump_graph_command(CLI::App& app) {
  struct Args {
    std::string model, method = "forward", format = "text";
    bool inline_calls = false;
  };
  static Args a;
  auto* cmd = app.add_subcommand("dump-graph", "Print a method's TorchScript IR graph, as PyTorch prints it");
  cmd->alias("graph");
  cmd->add_option("model", a.model, "TorchScript archive")->required();
  cmd->add_option("--method", a.method, "method of the top-level module")->capture_default_str();
  cmd->add_flag("--inline", a.inline_calls, "inline method and function calls (like .inlined_graph)");
  cmd->add_option("--format", a.format, "text, dot or json")->check(CLI::IsMember({"text", "dot", "json"}))->capture_default_str();
  cmd->callback([] {
    LoadedModule m = load_module(a.model);
    check_method(m, a.method);
    GraphFunction* function = m.cu->graph_function(m.class_name, a.method);
    const std::shared_ptr<Graph> g = a.inline_calls ? function->inlined_graph() : function->graph();
    if (a.format == "dot") {
      fmt::print("{}", graph_to_dot(*g));
    } else if (a.format == "json") {
      fmt::print("{}\n", graph_to_json(*g));
    } else {
      fmt::print("{}", g->str());
    }
  });
}

}  // namespace jitctl::cli
