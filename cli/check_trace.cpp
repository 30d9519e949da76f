// jitctl check-trace M --inputs F --inputs F... [--method N] [--rtol R] [--atol A] [--expected F]...
// [--format text|json|junit] [--save-trace OUT.pt] [--no-grad] [--no-strict] [--print-trace]: would
// torch.jit.trace(M, F1, check_inputs=[F1, F2, ...]) accept the trace? Exit 0 when it generalizes,
// 1 when it does not (or the model cannot be traced), 2 on bad input. The engine is lib/check.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/device_options.h"
#include "cli/limit_options.h"
#include "lib/check/check_trace.h"
#include "lib/check/check_trace_report.h"
#include "lib/core/error.h"
#include "lib/core/output_file.h"
#include "lib/ir/graph_printer.h"

namespace jitctl::cli {

void add_check_trace_command(CLI::App& app) {
  struct Args {
    std::string model, format = "text";
    std::vector<std::string> inputs, expected;
    double atol = -1;
    bool no_grad = false, no_strict = false, print_trace = false, force = false;
    CheckTraceOptions options;
    LimitOptions limits;
    DeviceOptions device;
  };
  static Args a;
  auto* cmd = app.add_subcommand(
      "check-trace", "Check whether a trace of the model generalizes across input sets, as torch.jit.trace(check_inputs=...)");
  cmd->add_option("model", a.model, "TorchScript archive (scripted or traced)")->required();
  cmd->add_option("--inputs", a.inputs, "an input set (torch.save tuple, .npy, .npz); repeat: the first is traced")
      ->required();
  cmd->add_option("--method", a.options.method, "method to trace")->capture_default_str();
  cmd->add_option("--rtol", a.options.rtol, "relative tolerance of the output check")->capture_default_str();
  cmd->add_option("--atol", a.atol, "absolute tolerance (default: torch.testing's for the dtypes compared)");
  cmd->add_option("--expected", a.expected, "outputs saved from Python for each input set (in --inputs order), compared "
                                            "instead of the model's own");
  cmd->add_option("--format", a.format, "text, json or junit")
      ->check(CLI::IsMember({"text", "json", "junit"}))
      ->capture_default_str();
  cmd->add_option("--save-trace", a.options.save_trace, "write the trace of the first input set as an archive");
  cmd->add_flag("--no-grad", a.no_grad, "the trace is made under torch.no_grad() (default: gradients enabled, as torch.jit.trace)");
  cmd->add_flag("--no-strict", a.no_strict, "as torch.jit.trace(strict=False): allow dicts among the outputs");
  cmd->add_flag("--print-trace", a.print_trace, "print the graph of the first trace before the report");
  cmd->add_flag("--force", a.force, "let --save-trace replace the model, an --inputs or an --expected file");
  add_device_options(*cmd, a.device);
  add_limit_options(*cmd, a.limits);
  cmd->callback([] {
    const RunLimitsScope limits(run_limits(a.limits, a.model));
    select_device(a.device);  // the traces run there (the tracing itself records on the CPU)
    if (a.atol >= 0) a.options.atol = a.atol;
    a.options.traced_with_grad = !a.no_grad;
    a.options.strict = !a.no_strict;
    if (!a.options.save_trace.empty()) {
      std::vector<std::string> ins = a.inputs;
      ins.push_back(a.model);
      ins.insert(ins.end(), a.expected.begin(), a.expected.end());
      check_output_path(a.options.save_trace, ins, a.force, "--save-trace");
    }
    CheckTraceReport r = check_trace(a.model, a.inputs, a.expected, a.options);
    if (a.print_trace && r.trace) fmt::print("{}\n", graph_to_string(*r.trace));
    if (a.format == "json")
      fmt::print("{}", check_trace_json(r));
    else if (a.format == "junit")
      fmt::print("{}", check_trace_junit(r));
    else
      fmt::print("{}", check_trace_text(r));
    if (!r.generalizes()) throw CheckFailed();
  });
}

}  // namespace jitctl::cli
