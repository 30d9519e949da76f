#include "cli/cli_model.h"

#include "cli/conventions.h"

namespace jitctl::cli {
namespace {

// CLI11 writes an IsMember validator into the type name: "TEXT:{text,dot,json}".
std::vector<std::string> choices_of(const std::string& type_name) {
  std::vector<std::string> out;
  const size_t open = type_name.find(":{");
  if (open == std::string::npos) return out;
  const size_t close = type_name.find('}', open);
  if (close == std::string::npos) return out;
  std::string item;
  for (size_t i = open + 2; i <= close; ++i) {
    if (type_name[i] == ',' || i == close) {
      if (!item.empty()) out.push_back(item);
      item.clear();
    } else {
      item += type_name[i];
    }
  }
  return out;
}

std::vector<CliOption> options_of(const CLI::App& app) {
  std::vector<CliOption> out;
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_group().empty()) continue;  // hidden
    CliOption o;
    if (opt->get_positional() && opt->get_lnames().empty() && opt->get_snames().empty()) {
      o.names.push_back(opt->get_name(true));
      o.positional = true;
    } else {
      for (const auto& s : opt->get_snames()) o.names.push_back("-" + s);
      for (const auto& l : opt->get_lnames()) o.names.push_back("--" + l);
    }
    o.description = opt->get_description();
    const std::string type = opt->get_type_name();
    if (opt->get_type_size_max() > 0 && opt->get_items_expected_max() > 0) {
      o.value_name = type.substr(0, type.find(':'));
      if (o.value_name.empty()) o.value_name = "VALUE";
      o.choices = choices_of(type);
    }
    o.required = opt->get_required();
    o.repeatable = opt->get_items_expected_max() > 1 || opt->get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll;
    out.push_back(std::move(o));
  }
  return out;
}

nlohmann::ordered_json option_json(const CliOption& o) {
  nlohmann::ordered_json j;
  j["names"] = o.names;
  j["positional"] = o.positional;
  j["takes_value"] = !o.value_name.empty();
  if (!o.value_name.empty()) j["value_name"] = o.value_name;
  if (!o.choices.empty()) j["choices"] = o.choices;
  j["required"] = o.required;
  j["repeatable"] = o.repeatable;
  j["description"] = o.description;
  return j;
}

}  // namespace

CliModel cli_model(const CLI::App& app) {
  CliModel m;
  m.name = app.get_name();
  m.description = app.get_description();
  m.options = options_of(app);
  for (const CLI::App* sub : subcommands_of(app)) {
    if (sub->get_group().empty()) continue;  // hidden
    CliCommand c;
    c.name = sub->get_name();
    c.description = sub->get_description();
    c.aliases = sub->get_aliases();
    c.options = options_of(*sub);
    // The example lines of its --help footer (cli/help_examples.cpp, or the command's own footer).
    std::string footer = sub->get_footer();
    for (size_t start = 0; start < footer.size();) {
      size_t end = footer.find('\n', start);
      if (end == std::string::npos) end = footer.size();
      std::string line = footer.substr(start, end - start);
      start = end + 1;
      const size_t first = line.find_first_not_of(' ');
      if (first != std::string::npos && first > 0 && line.find("jitctl", first) != std::string::npos)
        c.examples.push_back(line.substr(first));
    }
    m.commands.push_back(std::move(c));
  }
  return m;
}

nlohmann::ordered_json cli_model_json(const CliModel& model) {
  nlohmann::ordered_json j;
  j["name"] = model.name;
  j["description"] = model.description;
  j["options"] = nlohmann::ordered_json::array();
  for (const auto& o : model.options) j["options"].push_back(option_json(o));
  j["commands"] = nlohmann::ordered_json::array();
  for (const auto& c : model.commands) {
    nlohmann::ordered_json cj;
    cj["name"] = c.name;
    cj["aliases"] = c.aliases;
    cj["description"] = c.description;
    cj["options"] = nlohmann::ordered_json::array();
    for (const auto& o : c.options) cj["options"].push_back(option_json(o));
    cj["examples"] = c.examples;
    j["commands"].push_back(std::move(cj));
  }
  return j;
}

}  // namespace jitctl::cli
