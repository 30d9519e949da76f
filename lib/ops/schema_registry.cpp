#include "lib/ops/schema_registry.h"

namespace jitctl {
namespace {

// "aten::add.Tensor(Tensor self, ...) -> Tensor" -> "aten::add"
std::string_view operator_name(std::string_view line) {
  const size_t end = line.find_first_of(".(");
  return line.substr(0, end == std::string_view::npos ? line.size() : end);
}

}  // namespace

const SchemaRegistry& SchemaRegistry::builtin() {
  static const SchemaRegistry registry(embedded_schemas_text());
  return registry;
}

SchemaRegistry::SchemaRegistry(std::string_view text) {
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    const std::string_view name = operator_name(line);
    auto [it, inserted] = by_name_.try_emplace(name, ops_.size());
    if (inserted) ops_.emplace_back().name = name;
    ops_[it->second].lines.push_back(line);
    ++lines_;
  }
}

const SchemaRegistry::Operator* SchemaRegistry::op(std::string_view name) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return nullptr;
  const Operator& o = ops_[it->second];
  std::call_once(o.parsed, [&o] {
    o.schemas.reserve(o.lines.size());
    for (std::string_view line : o.lines) o.schemas.push_back(parse_schema(line));
  });
  return &o;
}

std::span<const FunctionSchema> SchemaRegistry::overloads(std::string_view name) const {
  const Operator* o = op(name);
  return o ? std::span<const FunctionSchema>(o->schemas) : std::span<const FunctionSchema>();
}

const FunctionSchema* SchemaRegistry::find(std::string_view name, std::string_view overload_name) const {
  for (const FunctionSchema& s : overloads(name))
    if (s.overload_name == overload_name) return &s;
  return nullptr;
}

const FunctionSchema* SchemaRegistry::find(std::string_view full_name) const {
  // The overload follows the first '.' after the namespace's "::".
  const size_t colons = full_name.find("::");
  const size_t dot = full_name.find('.', colons == std::string_view::npos ? 0 : colons + 2);
  if (dot == std::string_view::npos) return find(full_name, "");
  return find(full_name.substr(0, dot), full_name.substr(dot + 1));
}

std::vector<std::string_view> SchemaRegistry::names() const {
  std::vector<std::string_view> out;
  out.reserve(ops_.size());
  for (const Operator& o : ops_) out.push_back(o.name);
  return out;
}

}  // namespace jitctl
