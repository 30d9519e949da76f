#pragma once
// Alias analysis as PyTorch 1.13's AliasDb answers it, for the questions the clean-up passes ask:
// does a node write to memory something outside the graph can see (DCE keeps it), does it write
// to a live value's memory (DCE keeps it while that value is live), and may two constants be
// merged without changing what aliases what (constant pooling).
//
// Not a pass: an analysis built once over a graph, stale as soon as the graph changes.
//
// The model is PyTorch's: every value of a mutable type (Tensor, List, Dict, class, and tuples,
// optionals, futures and unions holding one) gets an element in a points-to graph; an element
// that points nowhere is a memory location. Values that escape the analysis (graph inputs,
// attributes read from objects, things put into containers or passed to calls) are "wildcards":
// their locations also point at one wildcard location per type. Writes come from schema alias
// annotations (`Tensor(a!)`), from SetAttr, and from calls treated conservatively.
#include <memory>
#include <unordered_set>
#include <vector>

#include "lib/ir/ir.h"

namespace jitctl {

// PyTorch's Node::hasSideEffects, which goes by kind: raise, print, warn, save, calls, RPC, fork
// waits, `with` enter/exit, ..., and the operators registered with conservative alias analysis
// (set_grad_enabled, backward, the c10d collectives, ...).
bool kind_has_side_effects(Symbol kind);

class AliasDb {
 public:
  // `frozen`: PyTorch's isFrozen mode, which freezing uses to find the attributes a method
  // mutates: a prim::GetAttr on a module makes a fresh value (each read of an attribute is its
  // own location, written only through that read) instead of one escaping to the wildcard, and
  // batch_norm/instance_norm do not write their running statistics (training will fold to False).
  explicit AliasDb(const Graph& g, bool frozen = false);
  ~AliasDb();
  AliasDb(const AliasDb&) = delete;
  AliasDb& operator=(const AliasDb&) = delete;

  // Can a value of this type alias another one (PyTorch's AliasDb::isMutableType)?
  static bool is_mutable_type(const TypePtr& type);

  // Does `n` itself (not its blocks) write to a wildcard location?
  bool writes_to_wildcard(const Node* n) const;
  // Does `n`, or a node in its blocks, write to memory one of `values` may point to?
  bool writes_to_alias(const Node* n, const std::unordered_set<const Value*>& values) const;
  // Does any node write to memory `v` may point to?
  bool has_writers(const Value* v) const;
  // ... to memory one of `n`'s inputs or outputs may point to (PyTorch's hasWriters(Node*))?
  bool has_writers(const Node* n) const;
  // ... to memory one of `n`'s outputs may point to?
  bool has_output_writers(const Node* n) const;
  // May a value of `a`, or something it contains, share memory with a value of `b` or its contents?
  bool may_contain_alias(const std::vector<Value*>& a, const std::vector<Value*>& b) const;
  // PyTorch's safeToChangeAliasingRelationship: nothing writes to either side, and not both
  // may reach outside the graph (an input, an output, a wildcard).
  bool safe_to_change_aliasing_relationship(const std::vector<Value*>& a, const std::vector<Value*>& b) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace jitctl
