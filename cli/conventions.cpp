#include "cli/conventions.h"

#include "cli/validators.h"

namespace jitctl::cli {

// Hidden positionals (more --input-spec values after the model) show in usage lines as
// "[MORE-SPECS...]" rather than CLI11's "[(64x)]".
std::string Formatter::make_option_usage(const CLI::Option* opt) const {
  if (opt->get_positional() && opt->get_group().empty()) {
    std::string name = opt->get_single_name();
    for (auto& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return "[" + name + "...]";
  }
  return CLI::Formatter::make_option_usage(opt);
}

std::vector<CLI::App*> subcommands_of(CLI::App& app) {
  return app.get_subcommands([](CLI::App* s) { return !s->get_name().empty(); });
}

std::vector<const CLI::App*> subcommands_of(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* s) { return !s->get_name().empty(); });
}

void apply_conventions(CLI::App& app) {
  plain_number_messages(app);
  for (CLI::App* sub : subcommands_of(app)) {
    for (CLI::Option* opt : sub->get_options())
      if (!opt->get_positional() && opt->get_items_expected_max() > 1) opt->allow_extra_args(false);
    // A subcommand inherits its parent's footer; one of its own (set by its file) wins.
    if (sub->get_footer().empty() || sub->get_footer() == app.get_footer()) {
      const auto& lines = help_examples(sub->get_name());
      if (!lines.empty()) {
        std::string footer = lines.size() == 1 ? "Example:" : "Examples:";
        for (const auto& l : lines) footer += "\n  " + l;
        sub->footer(footer);
      }
    }
  }
}

}  // namespace jitctl::cli
