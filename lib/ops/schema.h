#pragma once
// Operator schemas -- `aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor` --
// parsed and printed as PyTorch 1.13 does (function_schema_parser.cpp, FunctionSchema's
// operator<<): printing a parsed schema gives back the text torch printed, character for character.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/core/ivalue.h"
#include "lib/core/types.h"

namespace jitctl {

// An alias annotation: `(a)` reads alias set a, `(a!)` writes it, `(a -> *)` puts the value into
// the wildcard set, `(b|a)` may alias either.
struct AliasInfo {
  std::vector<std::string> before_sets;  // "a", "*" (the wildcard); in the order written
  std::vector<std::string> after_sets;   // the same as before_sets unless `->` says otherwise
  bool is_write = false;
  // A list's element annotation: `Tensor(a!)[]` is a list whose elements are written through a.
  std::vector<AliasInfo> contained;

  bool is_wildcard_before() const;
  bool is_wildcard_after() const;
  std::string str() const;  // "(a!)", "(a -> *)", "(b|a)"
};

struct Argument {
  std::string name;  // may be empty for returns
  // The type the compiler matches against: ScalarType, Layout, MemoryFormat and SymInt are int.
  TypePtr type;
  TypePtr real_type;           // as written in the schema
  std::optional<int32_t> N;    // `int[2]`: the size the list should have
  std::optional<IValue> default_value;
  bool kwarg_only = false;     // after `*`
  std::optional<AliasInfo> alias_info;

  bool is_write() const { return alias_info && alias_info->is_write; }
  std::string str() const;  // "Tensor(a!) out", "int[2] stride=1", "Scalar alpha=1"
};

struct FunctionSchema {
  std::string name;           // "aten::add"
  std::string overload_name;  // "Tensor"; "" when there is none
  std::vector<Argument> arguments;
  std::vector<Argument> returns;
  bool is_vararg = false;  // `...` ends the arguments
  bool is_varret = false;  // `...` ends the returns

  std::string str() const;
  // "aten::add.Tensor"; "aten::relu" without an overload name.
  std::string full_name() const;
  std::string_view name_space() const;  // "aten"
  std::optional<size_t> argument_index(std::string_view arg_name) const;
  // Does the operator write to one of its arguments (an `(a!)` annotation)?
  bool is_mutable() const;
  // Names and types, for class and interface subtyping (the first argument is `self`).
  MethodSignature signature() const;
};

// Parses one schema. Throws InvalidInput "invalid schema at column N: problem: <text>".
FunctionSchema parse_schema(std::string_view text);

// One type in schema syntax (`Tensor?`, `int[]`, `Dict(str, t)`, `(int, str)`), as PyTorch's IR
// parser reads a graph's value types; with `refined_tensors` also
// `Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)`. Returns the compiler's type (int for
// ScalarType). Throws InvalidInput as parse_schema.
TypePtr parse_schema_type(std::string_view text, bool refined_tensors = false);

// The ClassType of a torch custom class named in schemas or code
// (`__torch__.torch.classes.quantized.Conv2dPackedParamsBase`): one object per name, made on first
// use; such classes have no attributes jitctl knows of.
TypePtr custom_class_type(const std::string& qualified_name);

}  // namespace jitctl
