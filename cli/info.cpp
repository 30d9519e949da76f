// jitctl info M [--format text|json]: what an archive holds, without compiling code or reading
// weights. Parameters and buffers are listed as PyTorch's named_parameters()/named_buffers() do.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "lib/archive/file_kind.h"
#include "lib/archive/torch_save.h"
#include "lib/archive/zip_reader.h"
#include "lib/core/describe.h"
#include "lib/core/error.h"
#include "lib/core/string_literal.h"
#include "lib/frontend/importer.h"
#include "lib/frontend/ir_emitter.h"
#include "lib/serialization/import_code.h"
#include "lib/serialization/module_info.h"

namespace jitctl::cli {
namespace {

using Json = nlohmann::ordered_json;

Json tensor_rows(const std::vector<NamedTensor>& ts) {
  Json rows = Json::array();
  for (const auto& [name, t] : ts)
    rows.push_back({{"name", name}, {"dtype", dtype_name(t.dtype())}, {"shape", t.sizes()}, {"bytes", t.nbytes()}});
  return rows;
}

uint64_t total_numel(const std::vector<NamedTensor>& ts) {
  uint64_t n = 0;
  for (const auto& t : ts) n += static_cast<uint64_t>(t.tensor.numel());
  return n;
}
uint64_t total_bytes(const std::vector<NamedTensor>& ts) {
  uint64_t n = 0;
  for (const auto& t : ts) n += t.tensor.nbytes();
  return n;
}

std::vector<std::string> sorted_extra_names(const ModuleInfo& info) {
  std::vector<std::string> names;
  for (const auto& [name, size] : info.extra_files) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

// PyTorch's `m.<method>.schema` for every method of the top-level class, in definition order.
std::vector<std::pair<std::string, std::string>> method_schemas(const Archive& archive, const ModuleInfo& info) {
  auto cu = import_code(archive);
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& m : info.methods)
    if (const auto* fn = cu->find_method(info.class_name, m)) out.emplace_back(m, schema_of(*cu, *fn).str());
  return out;
}

void print_json(const ModuleInfo& info, const std::vector<std::pair<std::string, std::string>>& schemas) {
  Json j;
  j["format_version"] = info.format_version;
  j["root"] = info.root;
  j["class"] = info.class_name;
  j["methods"] = info.methods;
  j["method_schemas"] = Json::object();
  for (const auto& [name, schema] : schemas) j["method_schemas"][name] = schema;
  j["parameters"] = tensor_rows(info.parameters);
  j["buffers"] = tensor_rows(info.buffers);
  j["extra_files"] = sorted_extra_names(info);
  j["constants"] = tensor_rows(info.constants);
  j["total_parameters"] = total_numel(info.parameters);
  j["total_bytes"] = total_bytes(info.parameters) + total_bytes(info.buffers);
  fmt::print("{}\n", j.dump(2, ' ', false, Json::error_handler_t::replace));
}

struct SubtreeTotals {
  uint64_t params = 0, bytes = 0;
};

SubtreeTotals totals(const ModuleNode& n) {
  SubtreeTotals t;
  if (!n.same_as.empty()) return t;
  t.params = total_numel(n.parameters);
  t.bytes = total_bytes(n.parameters) + total_bytes(n.buffers);
  for (const auto& c : n.children) {
    auto ct = totals(c);
    t.params += ct.params;
    t.bytes += ct.bytes;
  }
  return t;
}

std::string short_class(const std::string& q) {
  auto dot = q.rfind('.');
  return dot == std::string::npos ? q : q.substr(dot + 1);
}

void print_tree(const ModuleNode& n, int depth) {
  // Names come from the file: printed escaped, as messages are (string_literal.h).
  const std::string label =
      printable_text(depth == 0 ? short_class(n.type_name) : n.name + ": " + short_class(n.type_name));
  const std::string indent(2 * depth, ' ');
  if (!n.same_as.empty()) {
    fmt::print("  {}{}  (same module as {})\n", indent, label, n.same_as);
    return;
  }
  const auto t = totals(n);
  fmt::print("  {:<48} {:>13} {:>10}\n", indent + label, grouped(t.params), human_bytes(t.bytes));
  for (const auto& c : n.children) print_tree(c, depth + 1);
}

void print_tensor_table(const char* title, const std::vector<NamedTensor>& ts, bool mark_frozen = false) {
  if (ts.empty()) return;
  fmt::print("\n{}\n", title);
  size_t w = 0;
  for (const auto& t : ts) w = std::max(w, printable_text(t.name).size());
  for (const auto& [name, t] : ts)
    fmt::print("  {:<{}}  {:<10} {:<20} {:>10}{}\n", printable_text(name), w, dtype_name(t.dtype()), shape_string(t.sizes()),
               human_bytes(t.nbytes()), mark_frozen && !t.requires_grad() ? "  requires_grad=False" : "");
}

void print_text(const ModuleInfo& info, const std::vector<std::pair<std::string, std::string>>& schemas) {
  fmt::print("archive      {} (TorchScript, format version {}, root folder '{}')\n", info.path, info.format_version,
             printable_text(info.root));
  fmt::print("class        {}\n", printable_text(info.class_name));
  for (size_t i = 0; i < schemas.size(); ++i)
    fmt::print("{:<13}{}\n", i == 0 ? "methods" : "", schemas[i].second);
  fmt::print("parameters   {} in {} tensors ({})\n", grouped(total_numel(info.parameters)), info.parameters.size(),
             human_bytes(total_bytes(info.parameters)));
  fmt::print("buffers      {} in {} tensors ({})\n", grouped(total_numel(info.buffers)), info.buffers.size(),
             human_bytes(total_bytes(info.buffers)));
  if (!info.constants.empty())
    fmt::print("constants    {} tensors ({})\n", info.constants.size(), human_bytes(total_bytes(info.constants)));
  if (!info.extra_files.empty()) {
    std::vector<std::string> extras;
    for (const auto& [name, size] : info.extra_files) extras.push_back(fmt::format("{} ({})", printable_text(name), human_bytes(size)));
    fmt::print("extra files  {}\n", fmt::join(extras, ", "));
  }
  fmt::print("\nmodules{:>56} {:>10}\n", "parameters", "bytes");
  print_tree(info.tree, 0);
  print_tensor_table("parameters", info.parameters, true);
  print_tensor_table("buffers", info.buffers);
  print_tensor_table("constants", info.constants);
}

void print_torch_save(const std::string& path, const IValue& v, const std::string& format) {
  if (format == "json") {
    Json j{{"path", path}, {"kind", "torch.save"}, {"value", describe(v, 4000)}};
    fmt::print("{}\n", j.dump(2, ' ', false, Json::error_handler_t::replace));
  } else {
    fmt::print("file   {} (torch.save)\nvalue  {}\n", path, describe(v, 2000));
  }
}

}  // namespace

void add_info_command(CLI::App& app) {
  struct Args {
    std::string model, format = "text";
  };
  static Args a;
  auto* cmd = app.add_subcommand("info", "Summarize an archive: class, methods, parameters, buffers, extra files");
  cmd->add_option("model", a.model, "TorchScript archive (or a torch.save file; - reads standard input)")->required();
  cmd->add_option("--format", a.format, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  cmd->callback([] {
    // By content: a torch.save file is summarized; a state_dict, an ONNX file, ... is named with
    // what to do (lib/archive/file_kind.h).
    const auto file = MappedFile::open(a.model);
    const FileIdentity id = identify_file(file);
    if (id.kind == FileKind::TorchSave)
      return print_torch_save(file->path(), load_torch_save(*Archive::open(ZipReader::open(file))), a.format);
    refuse_unless_model(file->path(), id, file);
    auto archive = Archive::open(ZipReader::open(file));
    const ModuleInfo info = inspect_archive(*archive);
    const auto schemas = method_schemas(*archive, info);
    if (a.format == "json") print_json(info, schemas);
    else print_text(info, schemas);
  });
}

}  // namespace jitctl::cli
