#pragma once
// Matching a call's arguments against operator schemas, as PyTorch's compiler does it -- including
// its side effects. The ids of the values a match creates (defaults materialized as constants,
// lists built from an int for `int[2]`, implicit conversions) show in printed graphs, and a failed
// attempt leaves what it created behind, so the order of attempts is PyTorch's: the overloads in
// registration order, first without implicit conversions, then with them.
#include <optional>
#include <string>
#include <vector>

#include "lib/ops/schema.h"
#include "lib/ir/ir.h"

namespace jitctl {

// An argument of a call: a value already emitted, or (for defaults) a constant not yet inserted.
struct NamedValue {
  std::string name;  // "" for positional arguments
  Value* value = nullptr;
  std::optional<IValue> constant;  // materialized (insert_constant) only when a match reaches it
  Value* materialize(Graph& g) const;
};

struct MatchedSchema {
  std::vector<Value*> inputs;
  std::vector<TypePtr> return_types;
  std::vector<std::string> return_field_names;  // all empty, or a name for every return
  const FunctionSchema* schema = nullptr;
};

std::optional<MatchedSchema> try_match_schema(const FunctionSchema& schema, Graph& g,
                                              const std::optional<SourceLocation>& loc,
                                              const std::vector<NamedValue>& args,
                                              const std::vector<NamedValue>& kwargs,
                                              const std::optional<NamedValue>& self, bool allow_conversions,
                                              std::string* why_not);

// Tries each schema in turn (one schema: conversions allowed at once). Throws InvalidInput with
// the reasons when none matches. Returns the index of the schema matched.
std::pair<size_t, MatchedSchema> match_schemas(const std::vector<const FunctionSchema*>& schemas, Graph& g,
                                               const std::optional<SourceLocation>& loc,
                                               const std::vector<NamedValue>& args,
                                               const std::vector<NamedValue>& kwargs,
                                               const std::optional<NamedValue>& self, const std::string& where);

// Implicit conversion of `v` to `type` where PyTorch makes one (Optional unwrapping, homogeneous
// tuple to list, tensor/number/bool to int/float/Scalar, str to Device).
Value* try_convert_to_type(Graph& g, const std::optional<SourceLocation>& loc, const TypePtr& type, Value* v,
                           bool allow_conversions);

// Emits a call of the builtin operator `name` (every overload the registry has) and returns its
// result; zero or several returns are packed into a tuple, as PyTorch does.
Value* emit_builtin_call(Graph& g, const std::optional<SourceLocation>& loc, const std::string& name,
                         const std::vector<NamedValue>& args, const std::vector<NamedValue>& kwargs,
                         const std::optional<NamedValue>& self, const std::string& where);

// Zero or several values become one TupleConstruct (named when field names are given).
Value* pack_outputs(Graph& g, const std::vector<Value*>& values, const std::vector<std::string>& field_names);

// The operator PyTorch picks for a node that carries no schema (graphs read by the graph-text
// parser, nodes made by passes): the first overload whose argument and return counts and types
// fit; nullptr when none does.
const FunctionSchema* match_builtin_schema(const Node* n);
// Sets that schema on every aten/prim node of `b` (and its sub-blocks) that has none; alias
// analysis and the interpreter read it.
void attach_builtin_schemas(Block* b);

}  // namespace jitctl
