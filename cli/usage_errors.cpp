#include "cli/usage_errors.h"

#include <fmt/format.h>

#include "cli/conventions.h"
#include "lib/core/suggest.h"

namespace jitctl::cli {
namespace {

std::vector<std::string> command_names(const CLI::App& app, bool with_aliases) {
  std::vector<std::string> out;
  for (const CLI::App* sub : subcommands_of(app)) {
    if (sub->get_group().empty()) continue;
    out.push_back(sub->get_name());
    if (with_aliases)
      for (const auto& a : sub->get_aliases()) out.push_back(a);
  }
  return out;
}

std::vector<std::string> flag_names(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_group().empty()) continue;
    for (const auto& s : opt->get_snames()) out.push_back("-" + s);
    for (const auto& l : opt->get_lnames()) out.push_back("--" + l);
  }
  return out;
}

// Quoted, shortened and stripped of control bytes: what a user typed may be anything.
std::string quoted(std::string s) {
  if (s.size() > 80) s = s.substr(0, 77) + "...";
  for (auto& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return "'" + s + "'";
}

// The subcommand being parsed when the error came: the last one parsed, or the top.
const CLI::App* active_command(const CLI::App& app) {
  const CLI::App* cur = &app;
  for (;;) {
    const auto parsed = cur->get_subcommands();
    if (parsed.empty()) return cur;
    cur = parsed.back();
  }
}

std::string command_path(const CLI::App* a) {
  std::string path;
  for (; a; a = a->get_parent()) path = a->get_name() + (path.empty() ? "" : " " + path);
  return path;
}

std::string extras_message(const CLI::App& cmd, const std::vector<std::string>& extras) {
  // CLI11 lists leftovers in reverse; the one to name is the first flag typed, else the first word.
  std::vector<std::string> in_order(extras.rbegin(), extras.rend());
  for (const auto& e : in_order) {
    if (e.size() > 1 && e[0] == '-' && !(e.size() > 1 && std::isdigit(static_cast<unsigned char>(e[1])))) {
      const std::string name = e.substr(0, e.find('='));
      return fmt::format("unknown option {}{}", quoted(name), did_you_mean(name, flag_names(cmd)));
    }
  }
  const std::string& first = in_order.empty() ? std::string() : in_order.front();
  if (first.size() > 1 && first[0] == '-')
    return fmt::format("{} looks like an option; a negative number as a value goes right after its option "
                       "(--input-spec {})",
                       quoted(first), first);
  if (!cmd.get_parent()) return fmt::format("unknown command {}{}", quoted(first), did_you_mean(first, command_names(cmd, true)));
  std::vector<std::string> positionals;
  bool has_lists = false;
  for (const CLI::Option* opt : cmd.get_options()) {
    if (opt->get_positional() && opt->get_lnames().empty() && opt->get_snames().empty())
      positionals.push_back(opt->get_name(true));
    else if (opt->get_items_expected_max() > 1)
      has_lists = true;
  }
  std::string msg = fmt::format("unexpected argument {}: {} takes {}", quoted(first), cmd.get_name(),
                                positionals.empty() ? "no positional argument"
                                                    : fmt::format("{} ({})", positionals.size() == 1 ? "one positional argument" : "positional arguments",
                                                                  fmt::join(positionals, ", ")));
  if (has_lists) msg += "; options that take several values take one per occurrence (repeat the option, or join the values with commas where its help says so)";
  return msg;
}

}  // namespace

std::optional<std::string> check_command_word(const CLI::App& app, const std::vector<std::string>& args) {
  if (args.empty())
    return fmt::format("a command is needed: jitctl COMMAND [options] MODEL (commands: {}); see 'jitctl --help'",
                       fmt::join(command_names(app, false), ", "));
  const std::string& w = args[0];
  if (w.size() > 1 && w[0] == '-') {
    const std::string name = w.substr(0, w.find('='));
    for (const auto& f : flag_names(app))
      if (f == name) return std::nullopt;
    return fmt::format("unknown option {}{}; see 'jitctl --help'", quoted(name), did_you_mean(name, flag_names(app)));
  }
  for (const auto& c : command_names(app, true))
    if (c == w) return std::nullopt;
  // With no close spelling, the list itself is the most useful answer (the user may not know the names).
  const std::string near = did_you_mean(w, command_names(app, true));
  if (near.empty())
    return fmt::format("unknown command {}; the commands are {}; see 'jitctl help COMMAND'", quoted(w),
                       fmt::join(command_names(app, false), ", "));
  return fmt::format("unknown command {}{}; see 'jitctl --help' for the commands", quoted(w), near);
}

std::string usage_error_message(const CLI::App& app, const CLI::ParseError& e) {
  const CLI::App* cmd = active_command(app);
  const std::string path = command_path(cmd);
  std::string what;
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    what = extras_message(*cmd, cmd->remaining(false));
  } else if (const auto* conv = dynamic_cast<const CLI::ConversionError*>(&e)) {
    // "Could not convert: --threads = abc"
    std::string m = conv->what();
    const std::string prefix = "Could not convert: ";
    if (m.rfind(prefix, 0) == 0) {
      m = m.substr(prefix.size());
      const size_t eq = m.find(" = ");
      if (eq != std::string::npos) m = fmt::format("{} {}: not a valid value", m.substr(0, eq), quoted(m.substr(eq + 3)));
    }
    what = m;
  } else if (dynamic_cast<const CLI::RequiredError*>(&e)) {
    // "model is required", "--output is required"
    what = e.what();
  } else {
    what = e.what();
  }
  for (auto& c : what)
    if (c == '\n' || c == '\r') c = ' ';
  return fmt::format("{}: {}; see '{} --help'", path, what, path);
}

}  // namespace jitctl::cli
