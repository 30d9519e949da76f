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
// Conservative by construction: a graph that changes a tensor's metadata in place (resize_,
// squeeze_, transpose_, set_, `.data =`, ...), or still calls functions or methods (which could),
// gets no facts at all. Not a pass: built once over a graph, stale as soon as the graph changes.
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>

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

  // Unknown (all fields at their defaults) for values the analysis has nothing on, including
  // values that are not tensors.
  const TensorFacts& of(const Value* v) const;
  // False when the graph changes tensor metadata in place: then every answer is unknown.
  bool enabled() const { return enabled_; }

 private:
  void analyze(const Block* b);
  TensorFacts output_facts(const Node* n, size_t i) const;

  bool enabled_ = true;
  std::unordered_map<const Value*, TensorFacts> facts_;
};

}  // namespace jitctl
