#pragma once
// What is known of each tensor of a graph whenever the node that made it has run without raising:
// its dtype, its rank (as an interval) and whether it is contiguous. `jitctl optimize`'s passes
// ask it before they fold a shape or dtype query, remove a conversion that cannot change anything
// or an arithmetic identity (fold-tensor-queries, remove-no-op-conversions, simplify-arithmetic).
//
// Facts come from what is certain: tensor constants (exact), the graph's input types when they are
// refined (a traced graph's are not, once saved), and a small table of operator semantics. Most
// rules say "if this operator returned, its result is so": conv2d's output has its weight's dtype
// (PyTorch raises on a mixed one) and rank 3 or 4 (unbatched or batched); relu keeps its input's
// dtype and rank; a floating unary function keeps a floating input's dtype; add(x, 1) keeps a
// non-bool x's dtype; an in-place operator's result is its `self`. An If's outputs get what both
// branches agree on; loop-carried values and anything the table does not list are unknown.
//
// Checks narrow what is known after them: past an If one of whose blocks always raises, on a
// comparison of a tensor's rank (dim(x) or len(x.size())) with a constant -- scripted code's
// `if x.dim() != 4: raise ValueError(...)` -- x has the rank the check lets through, for the rest
// of that block (of_input answers with it; values computed there from x inherit it).
//
// Conservative by construction: a graph that changes a tensor's metadata in place (resize_,
// squeeze_, transpose_, set_, `.data =`, ...), or still calls functions or methods (which could),
// gets no facts at all. Not a pass: built once over a graph, stale as soon as the graph changes.
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>

#include "lib/core/dtype.h"
#include "lib/ir/ir.h"

namespace jitctl {

struct TensorFacts {
  static constexpr int64_t kAnyRank = INT64_MAX;
  std::optional<DType> dtype;
  int64_t min_rank = 0, max_rank = kAnyRank;
  bool contiguous = false;  // known contiguous in the default memory format

  std::optional<int64_t> rank() const {
    return min_rank == max_rank ? std::optional<int64_t>(min_rank) : std::nullopt;
  }
  bool operator==(const TensorFacts&) const = default;
};

class TensorFactAnalysis {
 public:
  explicit TensorFactAnalysis(const Graph& g);
  ~TensorFactAnalysis();

  // What holds wherever `v` is used. Unknown (all fields at their defaults) for values the
  // analysis has nothing on, including values that are not tensors.
  const TensorFacts& of(const Value* v) const;
  // What holds of input `i` of `n` where `n` reads it: of(n->input(i)), narrowed by the checks
  // that raised before `n` otherwise.
  const TensorFacts& of_input(const Node* n, size_t i) const;
  // False when the graph changes tensor metadata in place: then every answer is unknown.
  bool enabled() const { return enabled_; }

 private:
  // Values narrowed by checks, in the block being walked (copied into nested blocks).
  using Narrowed = std::unordered_map<const Value*, TensorFacts>;
  struct UseHash {
    size_t operator()(const std::pair<const Node*, size_t>& u) const {
      return std::hash<const void*>()(u.first) * 31 + u.second;
    }
  };

  void analyze(const Block* b, Narrowed narrowed);
  TensorFacts output_facts(const Node* n, size_t i, const Narrowed& narrowed) const;
  void narrow_after_check(const Node* n, Narrowed& narrowed);
  const Value* rank_query_of(const Value* v);

  bool enabled_ = true;
  std::unordered_map<const Value*, TensorFacts> facts_;
  std::unordered_map<std::pair<const Node*, size_t>, TensorFacts, UseHash> at_use_;
  const Graph& graph_;
  std::unique_ptr<class AliasDb> alias_db_;
};

// Whether entering `b` always ends in a raise (a prim::RaiseException among its own nodes).
bool block_always_raises(const Block* b);

}  // namespace jitctl
