#include "passes/remove_no_op_conversions.h"

#include <optional>
#include <vector>

#include "lib/ir/constants.h"
#include "lib/ops/schema.h"
#include "passes/analysis/tensor_facts.h"

namespace jitctl {
namespace {

constexpr int64_t kContiguousFormat = 0, kPreserveFormat = 1;

bool is_none(const Value* v) { return v->type()->kind() == TypeKind::None; }

std::optional<int64_t> const_int(const Value* v) {
  const auto c = to_ivalue(v);
  if (!c || !c->is(IValue::Kind::Int)) return std::nullopt;
  return c->to_int();
}

bool const_false(const Value* v) {
  const auto c = to_ivalue(v);
  return c && c->is(IValue::Kind::Bool) && !c->to_bool();
}

// The input of schema argument `name`, or nullptr.
const Value* argument(const Node* n, const char* name) {
  const FunctionSchema* s = n->schema();
  if (!s) return nullptr;
  const auto at = s->argument_index(name);
  return at && *at < n->inputs().size() ? n->input(*at) : nullptr;
}

class Remover {
 public:
  explicit Remover(Graph& g) : facts_(g) {}

  bool run(Block* b) {
    if (!facts_.enabled()) return false;
    bool changed = false;
    for (auto it = b->nodes().begin(); it != b->nodes().end();) {
      Node* n = *it;
      ++it;  // n may go
      for (Block* sub : n->blocks()) changed |= run(sub);
      if (n->outputs().size() == 1 && !n->inputs().empty() && n->input(0)->type()->kind() == TypeKind::Tensor &&
          no_op(n)) {
        n->output()->replace_all_uses_with(n->input(0));
        n->destroy();  // returned its input and did nothing else
        changed = true;
      }
    }
    return changed;
  }

 private:
  bool no_op(const Node* n) const {
    const std::string_view k = n->kind().qual_string();
    const TensorFacts& x = facts_.of_input(n, 0);
    if (k == "aten::contiguous") {
      const bool default_format = n->inputs().size() == 1 || const_int(n->input(1)) == kContiguousFormat;
      return default_format && x.contiguous;
    }
    if (k == "aten::flatten" && n->inputs().size() == 3) {
      const auto r = x.rank();
      const auto s = const_int(n->input(1)), e = const_int(n->input(2));
      if (!r || *r < 1 || !s || !e) return false;
      const int64_t ns = *s < 0 ? *s + *r : *s, ne = *e < 0 ? *e + *r : *e;
      return ns == ne && ns >= 0 && ns < *r;
    }
    if (k == "aten::to") return to_is_no_op(n, x);
    return false;
  }

  static bool to_is_no_op(const Node* n, const TensorFacts& x) {
    const FunctionSchema* s = n->schema();
    if (!s || !x.dtype) return false;
    const std::string& overload = s->overload_name;
    if (overload != "dtype" && overload != "prim_dtype" && overload != "dtype_layout") return false;
    // Nothing but the dtype may be asked for.
    for (const char* other : {"layout", "device", "pin_memory"})
      if (const Value* v = argument(n, other); v && !is_none(v)) return false;
    const Value* copy = argument(n, "copy");
    if (!copy || !const_false(copy)) return false;
    if (const Value* mf = argument(n, "memory_format"); mf && !is_none(mf) && const_int(mf) != kPreserveFormat) return false;
    const Value* dtype = argument(n, "dtype");
    if (!dtype) return false;
    if (is_none(dtype)) return true;
    const auto d = const_int(dtype);
    return d && *d == static_cast<int64_t>(*x.dtype);
  }

  TensorFactAnalysis facts_;
};

}  // namespace

bool remove_no_op_conversions(Graph& g) { return Remover(g).run(g.block()); }

}  // namespace jitctl
