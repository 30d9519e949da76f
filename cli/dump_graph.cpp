// jitctl dump-graph M [--method N] [--inline] [--format text|dot|json]: a method's TorchScript IR
// graph, printed as PyTorch prints `torch.jit.load(M).graph`.
#include <fmt/format.h>

#include "cli/commands.h"
#include "lib/core/error.h"
#include "lib/frontend/ir_emitter.h"
#include "lib/frontend/load_module.h"

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
    if (a.inline_calls) throw Unsupported("dump-graph --inline is not implemented in this version");
    if (a.format != "text") throw Unsupported(fmt::format("dump-graph --format {} is not implemented in this version", a.format));
    LoadedModule m = load_module(a.model);
    const auto* fn = m.cu->find_method(m.class_name, a.method);
    if (!fn) throw InvalidInput(fmt::format("{}: class {} has no method '{}'", a.model, m.class_name, a.method));
    auto g = compile_function(*m.cu, *fn);
    fmt::print("{}", g->str());
  });
}

}  // namespace jitctl::cli
