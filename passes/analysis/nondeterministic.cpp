#include "passes/analysis/nondeterministic.h"

#include <string_view>
#include <unordered_set>

#include "lib/ir/constants.h"

namespace jitctl {

bool is_nondeterministic(const Node* n) {
  // PyTorch lists these by schema; every overload of each name is random.
  static const std::unordered_set<std::string_view> random_ops = {
      "aten::dropout",   "aten::_fused_dropout", "aten::_standard_gamma", "aten::bernoulli",
      "aten::multinomial", "aten::native_dropout", "aten::normal",        "aten::poisson",
      "aten::binomial",  "aten::rrelu",          "aten::rrelu_with_noise", "aten::rand",
      "aten::rand_like", "aten::randint",        "aten::randint_like",  "aten::randn",
      "aten::randn_like", "aten::randperm"};
  if (!n->kind().is_aten() || !random_ops.count(n->kind().qual_string())) return false;
  if (n->kind() == Symbol::aten("dropout") && n->inputs().size() == 3) {
    const Value* train = n->input(2);
    if (train->node()->kind() == prim::Constant && train->type()->kind() == TypeKind::Bool &&
        !to_ivalue(train)->to_bool())
      return false;
  }
  return true;
}

}  // namespace jitctl
