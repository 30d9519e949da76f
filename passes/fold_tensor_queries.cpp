#include "passes/fold_tensor_queries.h"

#include <memory>
#include <optional>
#include <vector>

#include "lib/ir/constants.h"
#include "passes/analysis/alias_db.h"
#include "passes/analysis/tensor_facts.h"

namespace jitctl {
namespace {

class Folder {
 public:
  explicit Folder(Graph& g) : g_(g), facts_(g) {}

  size_t run() {
    if (!facts_.enabled()) return 0;
    std::vector<std::pair<Node*, IValue>> answers;
    collect(g_.block(), answers);
    for (auto& [n, value] : answers) {
      WithInsertPoint guard(n);
      n->output()->replace_all_uses_with(g_.insert_constant(value));
      n->destroy();
    }
    return answers.size();
  }

 private:
  void collect(Block* b, std::vector<std::pair<Node*, IValue>>& out) {
    for (Node* n : b->nodes()) {
      for (Block* sub : n->blocks()) collect(sub, out);
      if (auto v = answer(n)) out.emplace_back(n, std::move(*v));
    }
  }

  struct Interval {
    int64_t lo, hi;
  };

  // The node reading the tensor whose rank `v` is (dim(x), or the size() of len(x.size()) with
  // the list unwritten), or nullptr: what is known there is what the rank is.
  const Node* rank_reader(const Value* v) {
    const Node* n = v->node();
    if (n->inputs().size() != 1) return nullptr;
    if (n->kind() == Symbol::aten("dim") && n->input(0)->type()->kind() == TypeKind::Tensor) return n;
    if (n->kind() != Symbol::aten("len")) return nullptr;
    const Value* list = n->input(0);
    if (list->node()->kind() != Symbol::aten("size") || list->node()->inputs().size() != 1) return nullptr;
    if (!alias_db_) alias_db_ = std::make_unique<AliasDb>(g_);
    if (alias_db_->has_writers(list)) return nullptr;
    return list->node();
  }

  std::optional<Interval> interval(const Value* v) {
    if (const auto c = to_ivalue(v); c && c->is(IValue::Kind::Int)) return Interval{c->to_int(), c->to_int()};
    const Node* reader = rank_reader(v);
    if (!reader) return std::nullopt;
    const TensorFacts& f = facts_.of_input(reader, 0);
    return Interval{f.min_rank, f.max_rank};
  }

  // A comparison of a rank with a constant (or another rank) that the known ranges decide:
  // `x.dim() != 4` when x is certainly 4-D, `len(x.size()) > 2` when x has rank 3 or 4.
  std::optional<IValue> compare(const Node* n, std::string_view k) {
    if (n->inputs().size() != 2 || n->input(0)->type()->kind() != TypeKind::Int ||
        n->input(1)->type()->kind() != TypeKind::Int)
      return std::nullopt;
    if (!rank_reader(n->input(0)) && !rank_reader(n->input(1))) return std::nullopt;
    const auto a = interval(n->input(0)), b = interval(n->input(1));
    if (!a || !b) return std::nullopt;
    const bool point = a->lo == a->hi && b->lo == b->hi;
    const bool disjoint = a->hi < b->lo || b->hi < a->lo;
    if (k == "aten::eq" || k == "aten::ne") {
      if (point && a->lo == b->lo) return IValue(k == "aten::eq");
      if (disjoint) return IValue(k == "aten::ne");
    } else if (k == "aten::lt" || k == "aten::ge") {
      if (a->hi < b->lo) return IValue(k == "aten::lt");
      if (a->lo >= b->hi) return IValue(k == "aten::ge");
    } else if (k == "aten::gt" || k == "aten::le") {
      if (a->lo > b->hi) return IValue(k == "aten::gt");
      if (a->hi <= b->lo) return IValue(k == "aten::le");
    }
    return std::nullopt;
  }

  std::optional<IValue> answer(const Node* n) {
    const std::string_view k = n->kind().qual_string();
    if (n->outputs().size() != 1) return std::nullopt;
    if (k == "aten::eq" || k == "aten::ne" || k == "aten::lt" || k == "aten::le" || k == "aten::gt" || k == "aten::ge")
      return compare(n, k);
    if (n->inputs().size() != 1) return std::nullopt;
    const Value* x = n->input(0);
    if (k == "aten::len") {
      // len(x.size()), unless something appends to or pops from the list first.
      const Node* reader = rank_reader(n->output());
      if (!reader) return std::nullopt;
      if (auto r = facts_.of_input(reader, 0).rank()) return IValue(*r);
      return std::nullopt;
    }
    if (x->type()->kind() != TypeKind::Tensor) return std::nullopt;
    const TensorFacts& f = facts_.of_input(n, 0);
    if (k == "aten::dim") {
      if (auto r = f.rank()) return IValue(*r);
    } else if (k == "prim::dtype") {
      if (f.dtype) return IValue(static_cast<int64_t>(*f.dtype));
    } else if (k == "aten::is_floating_point") {
      if (f.dtype) return IValue(is_floating(*f.dtype));
    } else if (k == "aten::is_complex") {
      if (f.dtype) return IValue(is_complex(*f.dtype));
    }
    return std::nullopt;
  }

  Graph& g_;
  TensorFactAnalysis facts_;
  std::unique_ptr<AliasDb> alias_db_;
};

}  // namespace

bool fold_tensor_queries(Graph& g, const PassContext& ctx) {
  const size_t folded = Folder(g).run();
  if (ctx.stats) ctx.stats->constants_folded += folded;
  return folded > 0;
}

}  // namespace jitctl
