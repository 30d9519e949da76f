#include "passes/frozen_concat_linear.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "passes/frozen_params.h"
#include "lib/ir/constants.h"
#include "lib/ops/schema_registry.h"
#include "passes/analysis/alias_db.h"

namespace jitctl {
namespace {

constexpr size_t kWeight = 1, kBias = 2;

// Equal rank and equal sizes past dim 0 (PyTorch's isNonZeroDimEqual).
bool equal_past_dim0(const Tensor& a, const Tensor& b) {
  if (a.dim() != b.dim()) return false;
  return std::equal(a.sizes().begin() + std::min<int64_t>(1, a.dim()), a.sizes().end(),
                    b.sizes().begin() + std::min<int64_t>(1, b.dim()));
}

class ConcatLinear {
 public:
  ConcatLinear(Graph& g, const PassContext& ctx) : g_(g), ctx_(ctx) {}

  bool run(Block* b) {
    for (Node* n : b->nodes())
      for (Block* sub : n->blocks()) run(sub);
    // The linears of this block, grouped by input in order of first use.
    std::unordered_map<Value*, std::vector<Node*>> groups;
    std::vector<Value*> order;
    for (Node* n : b->nodes()) {
      if (!candidate(n)) continue;
      auto [it, fresh] = groups.try_emplace(n->input(0));
      if (fresh) order.push_back(n->input(0));
      it->second.push_back(n);
    }
    // Last input first, as PyTorch does, so that its alias analysis stays valid for what is left.
    for (auto it = order.rbegin(); it != order.rend(); ++it) merge_group(groups.at(*it));
    return changed_;
  }

 private:
  static bool candidate(const Node* n) {
    if (n->kind() != Symbol::aten("linear") || n->inputs().size() != 3 || n->outputs().size() != 1) return false;
    if (n->input(kWeight)->type()->kind() == TypeKind::None || n->input(kBias)->type()->kind() == TypeKind::None)
      return false;
    if (!constant_parameters(n)) return false;
    const auto w = to_ivalue(n->input(kWeight)), b = to_ivalue(n->input(kBias));
    if (!w || !w->is(IValue::Kind::Tensor) || !b || !b->is(IValue::Kind::Tensor)) return false;
    return w->to_tensor().dim() >= 1 && w->to_tensor().device().type == Device::Type::CUDA;
  }

  void merge_group(const std::vector<Node*>& linears) {
    std::unordered_set<const Node*> taken;
    for (size_t i = 0; i < linears.size(); ++i) {
      Node* base = linears[i];
      if (taken.count(base)) continue;
      const Tensor bw = constant_tensor(base->input(kWeight)), bb = constant_tensor(base->input(kBias));
      std::vector<Node*> together = {base};
      for (size_t j = i + 1; j < linears.size(); ++j) {
        Node* n = linears[j];
        if (taken.count(n)) continue;
        const Tensor w = constant_tensor(n->input(kWeight)), b = constant_tensor(n->input(kBias));
        // Matching dtypes only: promotion could make the merged linear slower, not faster.
        if (w.dtype() != bw.dtype() || !(w.device() == bw.device()) || b.dtype() != bb.dtype() || !(b.device() == bb.device()))
          continue;
        if (!equal_past_dim0(bw, w) || !equal_past_dim0(bb, b)) continue;
        if (!could_move_before(n, base)) continue;
        together.push_back(n);
        taken.insert(n);
      }
      if (together.size() > 1) merge(together);
    }
  }

  // Whether `later` (a linear of constant weights) could run where `earlier` is: nothing between
  // them writes to the memory of its input. PyTorch's couldMoveBeforeTopologically, for a node
  // whose only non-constant input is defined before both.
  bool could_move_before(const Node* later, const Node* earlier) {
    if (!alias_db_) alias_db_ = std::make_unique<AliasDb>(g_);
    const std::unordered_set<const Value*> read = {later->input(0)};
    for (const Node* n = earlier->next(); n && n != later; n = n->next())
      if (alias_db_->writes_to_alias(n, read)) return false;
    return true;
  }

  // at::cat(tensors, 0), on the tensors' device.
  Tensor cat0(const std::vector<Tensor>& tensors) {
    auto list = std::make_shared<ListData>();
    for (const Tensor& t : tensors) list->items.emplace_back(t);
    Tensor out = ctx_.run_operator("aten::cat", {IValue(list), IValue(int64_t{0})}).at(0).to_tensor();
    const Device device = tensors.front().device();
    if (out.device() == device) return out;
    // The kernels compute on the host; the result keeps the weights' device, as PyTorch's would.
    Tensor placed = Tensor::empty(out.dtype(), out.sizes(), device);
    std::memcpy(placed.mutable_data(), out.data(), out.nbytes());
    return placed;
  }

  void merge(const std::vector<Node*>& together) {
    changed_ = true;
    Node* base = together.front();
    Node* linear = nullptr;
    {
      WithInsertPoint guard(base);
      std::vector<Tensor> weights, biases;
      for (const Node* n : together) {
        weights.push_back(constant_tensor(n->input(kWeight)));
        biases.push_back(constant_tensor(n->input(kBias)));
      }
      Value* w = g_.insert_constant(IValue(cat0(weights)));
      Value* b = g_.insert_constant(IValue(cat0(biases)));
      linear = g_.create(Symbol::aten("linear"), {base->input(0), w, b});
      linear->set_schema(SchemaRegistry::builtin().find("aten::linear", ""));
      linear->insert_before(base);
    }
    WithInsertPoint guard(linear);
    Value* minus_one = g_.insert_constant(IValue(int64_t{-1}));
    Value* one = g_.insert_constant(IValue(int64_t{1}));
    Value* start = g_.insert_constant(IValue(int64_t{0}));
    int64_t offset = 0;
    for (Node* n : together) {
      offset += constant_tensor(n->input(kWeight)).sizes().at(0);
      Value* end = g_.insert_constant(IValue(offset));
      Node* slice = g_.create(Symbol::aten("slice"), {linear->output(), minus_one, start, end, one});
      slice->set_schema(SchemaRegistry::builtin().find("aten::slice", "Tensor"));
      slice->insert_after(linear);
      n->output()->replace_all_uses_with(slice->output());
      n->destroy();
      start = end;
    }
  }

  Graph& g_;
  const PassContext& ctx_;
  std::unique_ptr<AliasDb> alias_db_;
  bool changed_ = false;
};

}  // namespace

bool frozen_concat_linear(Graph& g, const PassContext& ctx) {
  if (!ctx.run_operator) return false;
  return ConcatLinear(g, ctx).run(g.block());
}

}  // namespace jitctl
