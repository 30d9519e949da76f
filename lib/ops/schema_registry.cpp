#include "lib/ops/schema_registry.h"

#include <array>
#include <charconv>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "lib/core/error.h"
#include "lib/ops/operator_versions.h"

namespace jitctl {

struct KnownVersions {
  static constexpr std::array<std::string_view, 4> names{"1.13", "2.0", "2.4", "2.15"};
  static const SchemaRegistry& get(size_t i) {
    static const std::array<std::string_view (*)(), 4> texts{embedded_schemas_text, embedded_schemas_2_0_text,
                                                             embedded_schemas_2_4_text, embedded_schemas_2_15_text};
    static std::array<std::once_flag, 4> once;
    static std::array<std::unique_ptr<SchemaRegistry>, 4> regs;
    std::call_once(once[i], [i] {
      regs[i] = std::make_unique<SchemaRegistry>(texts[i]());
      regs[i]->version_ = names[i];
    });
    return *regs[i];
  }
};

namespace {

thread_local const SchemaRegistry* active_registry = nullptr;
thread_local int64_t active_operator_version = -1;

// "2.15" -> {2, 15}; nullopt when it is not MAJOR.MINOR[.anything].
std::optional<std::pair<int, int>> parse_version(std::string_view v) {
  int major = 0, minor = 0;
  auto r = std::from_chars(v.data(), v.data() + v.size(), major);
  if (r.ec != std::errc() || r.ptr == v.data() + v.size() || *r.ptr != '.') return std::nullopt;
  auto r2 = std::from_chars(r.ptr + 1, v.data() + v.size(), minor);
  if (r2.ec != std::errc() || r2.ptr == r.ptr + 1) return std::nullopt;
  return std::pair{major, minor};
}

size_t known_index(std::string_view version) {
  const auto want = parse_version(version);
  if (!want) throw InvalidInput(fmt::format("'{}' is not a PyTorch version (expected MAJOR.MINOR, e.g. 2.4)", version));
  size_t best = 0;
  for (size_t i = 0; i < KnownVersions::names.size(); ++i)
    if (*parse_version(KnownVersions::names[i]) <= *want) best = i;
  return best;
}

// "aten::add.Tensor(Tensor self, ...) -> Tensor" -> "aten::add"
std::string_view operator_name(std::string_view line) {
  const size_t end = line.find_first_of(".(");
  return line.substr(0, end == std::string_view::npos ? line.size() : end);
}

}  // namespace

const SchemaRegistry& SchemaRegistry::builtin() {
  return active_registry ? *active_registry : KnownVersions::get(0);
}

std::span<const std::string_view> SchemaRegistry::versions() { return KnownVersions::names; }

const SchemaRegistry& SchemaRegistry::for_version(std::string_view version) {
  return KnownVersions::get(known_index(version));
}

std::string_view SchemaRegistry::known_version(std::string_view version) {
  return KnownVersions::names[known_index(version)];
}

ScopedSchemaVersion::ScopedSchemaVersion(std::string_view version, int64_t operator_version)
    : previous_(active_registry), previous_operator_version_(active_operator_version) {
  active_registry = &SchemaRegistry::for_version(version);
  active_operator_version = operator_version;
}

ScopedSchemaVersion::~ScopedSchemaVersion() {
  active_registry = previous_;
  active_operator_version = previous_operator_version_;
}

std::vector<const FunctionSchema*> historic_overloads(std::string_view name) {
  std::vector<const FunctionSchema*> out;
  if (active_operator_version < 0) return out;
  // Parsed once; std::deque keeps the schemas where they are.
  static const std::deque<FunctionSchema> parsed = [] {
    std::deque<FunctionSchema> d;
    for (const auto& e : operator_version_map()) d.push_back(parse_schema(e.old_schema));
    return d;
  }();
  const auto& map = operator_version_map();
  for (size_t i = 0; i < map.size(); ++i)
    if (map[i].bumped_at > active_operator_version && parsed[i].name == name) out.push_back(&parsed[i]);
  return out;
}

std::string_view active_schema_version() { return SchemaRegistry::builtin().version(); }

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
    for (std::string_view line : o.lines) {
      // A few 2.x schemas use types no TorchScript archive can reach (`Await(t)`, `SymBool`, `int64_t` in
      // cuda:: ops); they are left out of the registry rather than failing every lookup.
      try {
        o.schemas.push_back(parse_schema(line));
      } catch (const InvalidInput&) {
      }
    }
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
