// jitctl diff A.pt B.pt [--method N] [--inline] [--format text|json]: did the export change? Exit 0
// when the archives have the same parameters, buffers and method graphs, 1 when they differ.
#include <fmt/format.h>

#include "cli/commands.h"
#include "lib/check/archive_diff.h"
#include "lib/core/error.h"

namespace jitctl::cli {

void add_diff_command(CLI::App& app) {
  static std::string a, b, format = "text";
  static ArchiveDiffOptions options;
  auto* cmd = app.add_subcommand("diff", "Compare two archives: parameters, buffers (values by checksum) and method graphs");
  cmd->add_option("a", a, "TorchScript archive")->required();
  cmd->add_option("b", b, "TorchScript archive (a re-export)")->required();
  cmd->add_option("--method", options.method, "compare only this method (default: every method of the root class)");
  cmd->add_flag("--inline", options.inline_calls, "compare the inlined graphs (submodules' code included)");
  cmd->add_option("--format", format, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  cmd->callback([] {
    const ArchiveDiff d = diff_archives(a, b, options);
    fmt::print("{}", format == "json" ? archive_diff_json(d) : archive_diff_text(d));
    if (!d.equal()) throw CheckFailed();
  });
}

}  // namespace jitctl::cli
