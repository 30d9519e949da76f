#include "lib/runtime/node_evaluator.h"

#include <fmt/format.h>

#include "kernels/registry.h"
#include "lib/core/error.h"
#include "lib/frontend/schema_matching.h"
#include "lib/runtime/prim_ops.h"

namespace jitctl {
namespace {

KernelFn kernel_named(std::string_view name) {
  if (KernelFn k = find_kernel(name)) return k;
  return find_prim_op(name);
}

// The containers a node builds carry the node's element types, which the values alone do not
// say (an empty list), so that they can become constants of the node's type.
std::string element_type_text(const TypePtr& list_type) {
  const auto* l = list_type->cast<ListType>();
  return l ? l->elem()->str() : std::string();
}

std::optional<std::vector<IValue>> evaluate(const Node& n, const std::vector<IValue>& inputs) {
  const Symbol k = n.kind();
  if (k == prim::ListConstruct) {
    auto list = std::make_shared<ListData>();
    list->items = inputs;
    list->elem_type = element_type_text(n.output()->type());
    return std::vector<IValue>{IValue(std::move(list))};
  }
  if (k == prim::TupleConstruct) {
    auto tuple = std::make_shared<TupleData>();
    tuple->items = inputs;
    return std::vector<IValue>{IValue(std::move(tuple))};
  }
  if (k == prim::DictConstruct) {
    if (inputs.size() % 2 != 0) return std::nullopt;
    auto dict = std::make_shared<DictData>();
    if (const auto* d = n.output()->type()->cast<DictType>()) {
      dict->key_type = d->key()->str();
      dict->value_type = d->value()->str();
    }
    for (size_t i = 0; i < inputs.size(); i += 2) dict->set(inputs[i], inputs[i + 1]);
    return std::vector<IValue>{IValue(std::move(dict))};
  }
  if (k == prim::ListUnpack) {
    if (inputs.size() != 1 || !inputs[0].is(IValue::Kind::List)) return std::nullopt;
    const auto& items = inputs[0].to_list()->items;
    if (items.size() != n.outputs().size()) return std::nullopt;
    return items;
  }
  const FunctionSchema* s = n.schema() ? n.schema() : match_builtin_schema(&n);
  if (s && s->is_vararg) return std::nullopt;
  KernelFn fn = s ? kernel_named(s->full_name()) : nullptr;
  if (!fn) fn = find_prim_op(n.kind().qual_string());
  if (!fn) return std::nullopt;
  Stack stack = inputs;
  try {
    fn(stack);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (stack.size() != n.outputs().size()) return std::nullopt;
  return stack;
}

}  // namespace

NodeEvaluator node_evaluator() { return evaluate; }

OperatorRunner operator_runner() {
  return [](std::string_view name, std::vector<IValue> args) {
    KernelFn fn = kernel_named(name);
    if (!fn) throw Unsupported(fmt::format("no kernel for {}", name));
    fn(args);
    return args;
  };
}

PassContext evaluating_pass_context() {
  PassContext ctx;
  ctx.evaluate = node_evaluator();
  ctx.run_operator = operator_runner();
  return ctx;
}

}  // namespace jitctl
