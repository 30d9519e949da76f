#include "passes/simplify_arithmetic.h"

#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <unordered_set>
#include <vector>

#include "lib/ir/constants.h"
#include "passes/analysis/alias_db.h"
#include "passes/analysis/tensor_facts.h"

namespace jitctl {
namespace {

int category(DType d) {
  if (d == DType::Bool) return 0;
  if (is_complex(d)) return 3;
  if (is_floating(d)) return 2;
  return 1;
}

// The value of a one-element real tensor, as a double.
std::optional<double> single_element(const Tensor& t) {
  if (t.numel() != 1 || is_complex(t.dtype()) || is_quantized(t.dtype())) return std::nullopt;
  const void* p = t.data();  // already at the storage offset
  auto read = [&](auto sample) {
    decltype(sample) v;
    std::memcpy(&v, p, sizeof v);
    return static_cast<double>(v);
  };
  switch (t.dtype()) {
    case DType::Float32: return read(float{});
    case DType::Float64: return read(double{});
    case DType::Int64: return read(int64_t{});
    case DType::Int32: return read(int32_t{});
    case DType::Int16: return read(int16_t{});
    case DType::Int8: return read(int8_t{});
    case DType::UInt8: return read(uint8_t{});
    case DType::Bool: return read(uint8_t{});
    default: return std::nullopt;  // half types: not worth decoding for an identity
  }
}

class Simplifier {
 public:
  explicit Simplifier(Graph& g) : g_(g), facts_(g) {}

  bool run() {
    if (!facts_.enabled()) return false;
    walk(g_.block());
    return changed_;
  }

 private:
  void walk(Block* b) {
    for (auto it = b->nodes().begin(); it != b->nodes().end();) {
      Node* n = *it;
      ++it;  // n may go
      for (Block* sub : n->blocks()) walk(sub);
      if (identity(n)) replace(n);
    }
  }

  // Is `n` x * 1, x / 1, x + 0 * alpha or x - 0 * alpha with a result exactly x?
  bool identity(const Node* n) const {
    const std::string_view k = n->kind().qual_string();
    const bool mul_div = k == "aten::mul" || k == "aten::div";
    const bool add_sub = k == "aten::add" || k == "aten::sub";
    if (!(mul_div && n->inputs().size() == 2) && !(add_sub && n->inputs().size() == 3)) return false;
    if (n->outputs().size() != 1 || n->input(0)->type()->kind() != TypeKind::Tensor) return false;
    const TensorFacts& x = facts_.of_input(n, 0);
    if (!x.dtype) return false;
    const int xc = category(*x.dtype);
    if (k == "aten::div" && xc < 2) return false;  // true division of integers makes floats
    if (add_sub) {
      // x + other * alpha: alpha must be a number PyTorch accepts for x (no float alpha for an
      // integral x), and finite: 0 * inf and 0 * nan are nan. Then it is irrelevant.
      const auto alpha = to_ivalue(n->input(2));
      if (!alpha || !(alpha->is(IValue::Kind::Int) ||
                      (alpha->is(IValue::Kind::Double) && xc >= 2 && std::isfinite(alpha->to_double()))))
        return false;
    }
    const double neutral = mul_div ? 1.0 : 0.0;
    const auto other = to_ivalue(n->input(1));
    if (!other) return false;
    if (other->is(IValue::Kind::Int)) return xc >= 1 && static_cast<double>(other->to_int()) == neutral;
    if (other->is(IValue::Kind::Double)) return xc >= 2 && other->to_double() == neutral;
    if (!other->is(IValue::Kind::Tensor) || !other->to_tensor().defined()) return false;
    const Tensor& c = other->to_tensor();
    const auto value = single_element(c);
    if (!value || *value != neutral) return false;
    // Shape: every size of c is 1 and c has at most x's rank, so broadcasting gives x's shape.
    if (c.dim() > x.min_rank) return false;
    // Dtype: c's own, or a zero-dim c of a category no higher (x has rank >= 1 here if c.dim()
    // is 0 and x.min_rank >= 1; a zero-dim x promotes with c as an equal).
    if (c.dtype() == *x.dtype) return true;
    return c.dim() == 0 && x.min_rank >= 1 && category(c.dtype()) <= xc;
  }

  void replace(Node* n) {
    if (!alias_db_) alias_db_ = std::make_unique<AliasDb>(g_);
    Value* x = n->input(0);
    Value* y = n->output();
    // The analysis is not updated as values merge: a value touched once is not touched again.
    if (stale_.count(x) || stale_.count(y)) return;
    if (!alias_db_->safe_to_change_aliasing_relationship({x}, {y})) return;
    y->replace_all_uses_with(x);
    stale_.insert(x);
    n->destroy();  // arithmetic without side effects, its result now unused
    changed_ = true;
  }

  Graph& g_;
  TensorFactAnalysis facts_;
  std::unique_ptr<AliasDb> alias_db_;
  std::unordered_set<const Value*> stale_;
  bool changed_ = false;
};

}  // namespace

bool simplify_arithmetic(Graph& g) { return Simplifier(g).run(); }

}  // namespace jitctl
