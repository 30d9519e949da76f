// jitctl dump-graph M [--method N] [--inline] [--format text|dot|json]: a method's TorchScript IR
// graph, printed as PyTorch prints `torch.jit.load(M).graph` (or `.inlined_graph` with --inline),
// or as Graphviz dot or JSON for tools.
#include <fmt/format.h>

#include <map>
#include <utility>

#include "cli/commands.h"
#include "lib/core/error.h"
#include "lib/frontend/ir_emitter.h"
#include "lib/serialization/load_module.h"
#include "lib/ir/graph_dot.h"
#include "lib/ir/graph_json.h"
#include "passes/inliner.h"

namespace jitctl::cli {
namespace {

// Callees compiled from the archive's code, each once however many call sites name it.
class CalleeCompiler {
 public:
  explicit CalleeCompiler(LoadedModule& m) : m_(m) {}

  std::shared_ptr<Graph> operator()(const std::string& name, const std::string& method) {
    auto key = std::make_pair(name, method);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    const CompilationUnit::Function* fn = method.empty() ? m_.cu->find_function(name) : m_.cu->find_method(name, method);
    std::shared_ptr<Graph> g;
    if (fn) {
      g = compile_function(*m_.cu, *fn);
    } else if (method.empty() || m_.cu->find_class(name)) {
      throw InvalidInput(method.empty() ? fmt::format("{}: a call to function {}, which the archive does not define",
                                                      m_.archive->path(), name)
                                        : fmt::format("{}: a call to {}.{}, which the archive's code does not define",
                                                      m_.archive->path(), name, method));
    }
    // else: a class the code does not define (a torch.classes C++ class): its methods are not
    // graphs, and PyTorch leaves such calls in place.
    memo_.emplace(std::move(key), g);
    return g;
  }

 private:
  LoadedModule& m_;
  std::map<std::pair<std::string, std::string>, std::shared_ptr<Graph>> memo_;
};

}  // namespace

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
    const auto* fn = m.cu->find_method(m.class_name, a.method);
    if (!fn) throw InvalidInput(fmt::format("{}: class {} has no method '{}'", a.model, m.class_name, a.method));
    auto g = compile_function(*m.cu, *fn);
    if (a.inline_calls) g = inlined_graph(*g, CalleeCompiler(m));
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
