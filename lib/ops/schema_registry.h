#pragma once
// The operator schemas PyTorch's JIT knows (torch._C._jit_get_all_schemas()), one list per PyTorch
// version jitctl knows (1.13: testdata/schemas/schemas.txt; 2.0, 2.4, 2.15: schemas_2.N.txt), each in that
// version's registration order and compiled into the binary. Each operator's overloads are parsed
// the first time someone asks for that operator, so a lookup costs microseconds, not the whole
// table.
//
// Which list a compilation uses: PyTorch compiles an archive's code with the schemas of the
// PyTorch that loads it, so the graph of a 2.x archive is what that 2.x prints only when its
// code is matched against that version's overloads (new trailing defaults such as
// scaled_dot_product_attention's enable_gqa show as constants). builtin() is the list of the
// calling thread's active version: 1.13 unless a ScopedSchemaVersion says otherwise (the
// compiler sets the version of the archive it compiles, see CompilationUnit::schema_version).
#include <cstddef>
#include <deque>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lib/ops/schema.h"

namespace jitctl {

class SchemaRegistry {
 public:
  // The embedded schemas of the active version (see above); built on first use, safe to use from
  // any thread.
  static const SchemaRegistry& builtin();
  // The versions whose lists are compiled in, oldest first: "1.13", "2.0", "2.4", "2.15".
  static std::span<const std::string_view> versions();
  // The list of a version "MAJOR.MINOR": the newest known one not newer than it (2.7 -> 2.4; 1.13
  // for anything older than 2.0). InvalidInput for text that is not a version.
  static const SchemaRegistry& for_version(std::string_view version);
  // The known version for_version() would use ("2.7" -> "2.4").
  static std::string_view known_version(std::string_view version);

  // Indexes schema text, one schema a line (blank lines are skipped); parses nothing yet. The
  // registry keeps views into `text`, which must outlive it.
  explicit SchemaRegistry(std::string_view text);
  SchemaRegistry(const SchemaRegistry&) = delete;
  SchemaRegistry& operator=(const SchemaRegistry&) = delete;

  // Every overload of an operator ("aten::add"), in the order of the text; empty when unknown.
  // NB: PyTorch tries overloads in registration order; this is the order of the file.
  std::span<const FunctionSchema> overloads(std::string_view name) const;
  // "aten::add.Tensor", or "aten::relu" for the overload without a name; nullptr when unknown.
  const FunctionSchema* find(std::string_view full_name) const;
  const FunctionSchema* find(std::string_view name, std::string_view overload_name) const;

  // Operator names in order of first appearance.
  std::vector<std::string_view> names() const;
  size_t size() const { return lines_; }  // schemas in all
  std::string_view version() const { return version_; }  // "1.13"; "" for a registry made from text

 private:
  struct Operator {
    std::string_view name;
    std::vector<std::string_view> lines;
    mutable std::once_flag parsed;
    mutable std::vector<FunctionSchema> schemas;
  };
  const Operator* op(std::string_view name) const;

  std::deque<Operator> ops_;  // a deque: Operators hold a once_flag and must not move
  std::unordered_map<std::string_view, size_t> by_name_;
  size_t lines_ = 0;
  std::string_view version_;
  friend struct KnownVersions;
};

// Makes `version` ("1.13", "2.15"; as for_version) the calling thread's builtin() list while it
// lives; scopes nest.
class ScopedSchemaVersion {
 public:
  // `operator_version`: the file-format version of the archive being compiled (-1: none), which
  // makes the schemas operators had before a later change candidates too (historic_overloads).
  explicit ScopedSchemaVersion(std::string_view version, int64_t operator_version = -1);
  ~ScopedSchemaVersion();
  ScopedSchemaVersion(const ScopedSchemaVersion&) = delete;
  ScopedSchemaVersion& operator=(const ScopedSchemaVersion&) = delete;

 private:
  const SchemaRegistry* previous_;
  int64_t previous_operator_version_;
};

// The version active on the calling thread ("1.13" by default).
std::string_view active_schema_version();

// The old schemas of operator `name` ("aten::linspace") that calls in code of the active
// operator version may have been written against (PyTorch's loadPossibleHistoricOps: each
// upgrader entry whose change came after that version); empty without an active version.
std::vector<const FunctionSchema*> historic_overloads(std::string_view name);

// The embedded texts themselves (generated from testdata/schemas/schemas*.txt at build time).
std::string_view embedded_schemas_text();
std::string_view embedded_schemas_2_0_text();
std::string_view embedded_schemas_2_4_text();
std::string_view embedded_schemas_2_15_text();

}  // namespace jitctl
