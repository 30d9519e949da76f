#pragma once
// The operator schemas PyTorch 1.13's JIT knows (torch._C._jit_get_all_schemas(), committed as
// testdata/schemas/schemas.txt and compiled into the binary). Each operator's overloads are parsed
// the first time someone asks for that operator, so a lookup costs microseconds, not the whole
// table.
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
  // The embedded schemas; built on first use, safe to use from any thread.
  static const SchemaRegistry& builtin();

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
};

// The embedded text itself (generated from testdata/schemas/schemas.txt at build time).
std::string_view embedded_schemas_text();

}  // namespace jitctl
