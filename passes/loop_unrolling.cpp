#include "passes/loop_unrolling.h"

#include <unordered_map>
#include <vector>

#include "lib/ir/constants.h"
#include "lib/ops/schema_registry.h"
#include "passes/dead_code_elimination.h"
#include "passes/inliner.h"

namespace jitctl {
namespace {

constexpr int64_t kUnrollFactor = 8;
constexpr int64_t kMaxBodyRepeats = 64;

bool is_true_constant(const Value* v) {
  if (v->node()->kind() != prim::Constant || v->type()->kind() != TypeKind::Bool) return false;
  return to_ivalue(v)->to_bool();
}

bool is_for_loop(const Node* n) {
  return n->kind() == prim::Loop && is_true_constant(n->input(1)) && is_true_constant(n->blocks().at(0)->outputs().at(0));
}

// graph->insert(op, {a, b}) for the int overloads PyTorch's matching picks: the constant operand
// first, then the node.
Value* insert_int_op(Graph& g, std::string_view op, Value* a, Value* b) {
  Node* n = g.insert_node(g.create(Symbol::from_qual_string(op), {a, b}));
  n->output()->set_type(IntType::get());
  const auto& schemas = SchemaRegistry::builtin();
  const FunctionSchema* s = schemas.find(op, "int");
  n->set_schema(s ? s : schemas.find(op, ""));
  return n->output();
}

Value* insert_int_op(Graph& g, std::string_view op, Value* a, int64_t b) {
  Value* c = g.insert_constant(IValue(b));
  return insert_int_op(g, op, a, c);
}

Node* clone_into(Graph& g, const Node* n, const std::function<Value*(Value*)>& value_map) {
  Node* copy = g.insert_node(g.create_clone(n, value_map));
  copy_schemas(*n, *copy);
  return copy;
}

// A copy of `body` at the insertion point, its inputs bound to `inputs`; its outputs.
std::vector<Value*> insert_block_copy(Graph& g, const Block* body, const std::vector<Value*>& inputs) {
  std::unordered_map<Value*, Value*> map;
  auto get = [&](Value* v) -> Value* {
    auto it = map.find(v);
    return it == map.end() ? v : it->second;
  };
  for (size_t i = 0; i < inputs.size(); ++i) map[body->inputs()[i]] = inputs[i];
  for (const Node* n : body->nodes()) {
    Node* copy = clone_into(g, n, get);
    for (size_t i = 0; i < n->outputs().size(); ++i) map[n->output(i)] = copy->output(i);
  }
  std::vector<Value*> out;
  for (Value* v : body->outputs()) out.push_back(get(v));
  return out;
}

// `dest` (empty, same inputs as `body`) becomes `times` copies of `body` in sequence.
void repeat_body(const Block* body, int64_t times, Block* dest) {
  Graph& g = *body->owning_graph();
  WithInsertPoint guard(dest);
  for (Value* in : body->inputs()) dest->add_input()->copy_metadata(in);
  std::vector<Value*> io = dest->inputs();
  for (int64_t i = 0; i < times; ++i) {
    io[0] = body->inputs()[0];  // the trip counter, unused (a counter of our own replaced it)
    io = insert_block_copy(g, body, io);
  }
  for (Value* v : io) dest->register_output(v);
}

// The body of a loop that runs exactly once, in place of the loop.
void inline_body(Node* loop) {
  Graph& g = *loop->owning_graph();
  Block* body = loop->blocks().at(0);
  WithInsertPoint guard(loop);
  std::unordered_map<Value*, Value*> map;
  auto get = [&](Value* v) -> Value* {
    auto it = map.find(v);
    return it == map.end() ? v : it->second;
  };
  for (size_t i = 2; i < loop->inputs().size(); ++i) map[body->inputs()[i - 1]] = loop->input(i);
  for (const Node* n : body->nodes()) {
    Node* copy = clone_into(g, n, get);
    for (size_t i = 0; i < n->outputs().size(); ++i) map[n->output(i)] = copy->output(i);
  }
  for (size_t i = 0; i < loop->outputs().size(); ++i) loop->output(i)->replace_all_uses_with(get(body->outputs().at(i + 1)));
  // Destroyed here: DCE may not remove a loop whose body has side effects.
  loop->destroy();
}

// The trip counter becomes a loop-carried int, so that unrolled copies and the epilogue share it.
void replace_loop_counter(Node* loop) {
  Graph& g = *loop->owning_graph();
  Block* body = loop->blocks().at(0);
  WithInsertPoint guard(loop);
  Value* init = g.insert_constant(IValue(int64_t{0}));
  loop->insert_input(2, init);
  loop->insert_output(0)->set_type(IntType::get());
  Value* counter = body->insert_input(1)->set_type(init->type());
  body->inputs()[0]->replace_all_uses_with(counter);
  WithInsertPoint at_end(body->return_node());
  body->insert_output(1, insert_int_op(g, "aten::add", counter, 1));
}

void unroll(Node* loop) {
  Graph& g = *loop->owning_graph();
  Block* body = loop->blocks().at(0);
  if (body->inputs()[0]->has_uses()) replace_loop_counter(loop);
  const int64_t trips = to_ivalue(loop->input(0))->to_int();
  if (trips < kMaxBodyRepeats) {
    Block* dest = loop->add_block();
    repeat_body(loop->blocks().at(0), trips, dest);
    loop->erase_block(0);
    inline_body(loop);
    return;
  }
  WithInsertPoint guard(loop);
  Node* epilogue = g.create_clone(loop, [](Value* v) { return v; });
  copy_schemas(*loop, *epilogue);
  epilogue->insert_after(loop);
  for (size_t i = 0; i < loop->outputs().size(); ++i) {
    loop->output(i)->replace_all_uses_with(epilogue->output(i));
    epilogue->replace_input(i + 2, loop->output(i));
  }
  Block* dest = loop->add_block();
  repeat_body(loop->blocks().at(0), kUnrollFactor, dest);
  loop->erase_block(0);
  Value* trip_count = loop->input(0);
  Value* unrolled = insert_int_op(g, "aten::__round_to_zero_floordiv", trip_count, kUnrollFactor);
  loop->replace_input(0, unrolled);
  Value* done = insert_int_op(g, "aten::mul", unrolled, kUnrollFactor);
  epilogue->replace_input(0, insert_int_op(g, "aten::sub", trip_count, done));
}

bool unroll_in(Block* b) {
  bool changed = false;
  for (auto it = b->nodes().begin(); it != b->nodes().end();) {
    Node* n = *it++;  // unrolling destroys the loop
    for (Block* sub : n->blocks()) changed |= unroll_in(sub);
    if (!is_for_loop(n) || n->input(0)->node()->kind() != prim::Constant) continue;
    unroll(n);
    changed = true;
  }
  return changed;
}

}  // namespace

bool unroll_constant_loops(Graph& g) {
  const bool changed = unroll_in(g.block());
  if (changed) eliminate_dead_code(g);
  return changed;
}

}  // namespace jitctl
