// The IR's semantics: symbols, naming, ids, list surgery, attributes, constants. Expected names
// and texts come from torch 1.13 doing the same operations (torch._C.Graph from Python).
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <thread>

#include "lib/core/error.h"
#include "lib/ir/constants.h"
#include "lib/ir/graph_printer.h"
#include "lib/ir/ir.h"
#include "tests/support/error_of.h"

using namespace jitctl;
using jitctl::test::error_of;

namespace {

std::vector<std::string> names(const std::vector<Value*>& vs) {
  std::vector<std::string> out;
  for (const Value* v : vs) out.push_back(v->debug_name());
  return out;
}

std::vector<Symbol> kinds(const Block* b) {
  std::vector<Symbol> out;
  for (const Node* n : b->nodes()) out.push_back(n->kind());
  return out;
}

IValue list_of(std::vector<IValue> items, std::string elem_type = "") {
  auto l = std::make_shared<ListData>();
  l->items = std::move(items);
  l->elem_type = std::move(elem_type);
  return IValue(std::move(l));
}

IValue tuple_of(std::vector<IValue> items) {
  auto t = std::make_shared<TupleData>();
  t->items = std::move(items);
  return IValue(std::move(t));
}

Tensor float_tensor(std::vector<int64_t> sizes, std::vector<float> values) {
  Tensor t = Tensor::empty(DType::Float32, std::move(sizes));
  std::copy(values.begin(), values.end(), static_cast<float*>(t.mutable_data()));
  return t;
}

// The node lines of a graph, without the header and the return line.
std::string body(const Graph& g) {
  std::string s = graph_to_string(g);
  s = s.substr(s.find('\n') + 1);
  return s.substr(0, s.rfind("  return"));
}

}  // namespace

TEST_CASE("symbols: builtins, interning, namespaces") {
  CHECK(prim::Constant.qual_string() == "prim::Constant");
  CHECK(attr::value.unqual_string() == "value");
  CHECK(aten::add.ns_string() == "aten");
  CHECK(aten::add.ns() == namespaces::aten);
  CHECK(namespaces::aten.qual_string() == "namespaces::aten");
  CHECK(Symbol::from_qual_string("prim::Constant") == prim::Constant);
  CHECK(Symbol::aten("add") == aten::add);
  CHECK(Symbol::attr("value") == attr::value);
  CHECK(prim::If.is_prim());
  CHECK(!prim::If.is_aten());
  CHECK(attr::name.is_attr());
  const Symbol custom = Symbol::from_qual_string("my_ops::frobnicate");
  CHECK(custom == Symbol::from_qual_string("my_ops::frobnicate"));
  CHECK(custom != aten::add);
  CHECK(custom.ns_string() == "my_ops");
  CHECK(custom.unqual_string() == "frobnicate");
  CHECK(custom.ns().qual_string() == "namespaces::my_ops");
  CHECK(!custom.is_prim());
  CHECK(Symbol().qual_string().empty());
  CHECK(error_of([] { Symbol::from_qual_string("add"); }) == "'add' is not a qualified name (ns::name)");
  CHECK(error_of([] { Symbol::from_qual_string("aten::"); }) == "'aten::' is not a qualified name (ns::name)");
  switch (prim::Loop) {
    case prim::Loop: break;
    default: FAIL("switch on a symbol");
  }
  // Interning from several threads agrees.
  std::vector<std::thread> threads;
  std::vector<Symbol> seen(8);
  for (size_t i = 0; i < seen.size(); ++i)
    threads.emplace_back([&, i] {
      for (int k = 0; k < 200; ++k) Symbol::aten(fmt::format("t{}", k));
      seen[i] = Symbol::aten("t_shared");
    });
  for (auto& t : threads) t.join();
  for (const Symbol s : seen) CHECK(s == seen[0]);
}

TEST_CASE("names: set_debug_name renames the previous owner as PyTorch does") {
  // torch 1.13: vs[i].setDebugName(...) on eight graph inputs, names() after each step.
  Graph g;
  std::vector<Value*> vs;
  for (int i = 0; i < 8; ++i) vs.push_back(g.add_input());
  vs[0]->set_debug_name("x");
  vs[1]->set_debug_name("x");
  CHECK(names(vs) == std::vector<std::string>{"x.1", "x", "2", "3", "4", "5", "6", "7"});
  vs[2]->set_debug_name("x");  // the suffix map says 2 was handed out last: next is 3
  CHECK(names(vs) == std::vector<std::string>{"x.1", "x.3", "x", "3", "4", "5", "6", "7"});
  vs[3]->set_debug_name("x.5");
  vs[4]->set_debug_name("x.5");  // the old owner continues from its own suffix
  CHECK(names(vs) == std::vector<std::string>{"x.1", "x.3", "x", "x.6", "x.5", "5", "6", "7"});
  vs[5]->set_debug_name("x.1");
  CHECK(names(vs) == std::vector<std::string>{"x.8", "x.3", "x", "x.6", "x.5", "x.1", "6", "7"});
  vs[6]->set_debug_name("y.1");
  vs[7]->set_debug_name("y.1");
  CHECK(names(vs) == std::vector<std::string>{"x.8", "x.3", "x", "x.6", "x.5", "x.1", "y.2", "y.1"});
  vs[6]->set_debug_name("y");
  vs[6]->set_debug_name("y");  // taking one's own name again changes nothing
  CHECK(names(vs) == std::vector<std::string>{"x.8", "x.3", "x", "x.6", "x.5", "x.1", "y", "y.1"});
  vs[6]->set_debug_name("");
  CHECK(names(vs)[6] == "6");
  CHECK(!vs[6]->has_debug_name());
  CHECK(error_of([&] { vs[6]->set_debug_name("12"); }) == "Invalid name: '12'");
  vs[6]->set_debug_name("y.");
  vs[7]->set_debug_name("y.");  // a trailing dot is no suffix
  CHECK(names(vs)[6] == "y..1");
  CHECK(names(vs)[7] == "y.");
  CHECK(g.debug_names().at("y.") == vs[7]);
  CHECK(g.debug_names().count("y.1") == 0);
}

TEST_CASE("names: validity and bases") {
  CHECK(Value::is_valid_name(""));
  CHECK(Value::is_valid_name("x"));
  CHECK(Value::is_valid_name("1x"));
  CHECK(Value::is_valid_name("1.5"));
  CHECK(!Value::is_valid_name("15"));
  Graph g;
  Value* v = g.add_input("acc.12");
  CHECK(v->debug_name_base() == "acc");
  v->set_debug_name("a.b");
  CHECK(v->debug_name_base() == "a.b");
  v->set_debug_name("");
  CHECK(v->debug_name_base() == "0");
}

TEST_CASE("ids: every value ever created takes the next id") {
  Graph g;
  Node* three = g.create(Symbol::prim("Foo"), 3);
  CHECK(three->outputs()[0]->unique() == 0);
  CHECK(three->outputs()[2]->unique() == 2);
  three->destroy();  // ids stay used up
  Node* one = g.insert_node(g.create(Symbol::prim("Foo"), 1));
  CHECK(one->output()->unique() == 3);
  Value* in = g.add_input();
  CHECK(in->unique() == 4);
  Value* extra = one->add_output();
  CHECK(extra->unique() == 5);
  one->erase_output(1);
  CHECK(one->insert_output(0)->unique() == 6);
  CHECK(one->outputs()[1]->offset() == 1);
  CHECK(g.next_unique() == 7);
  // A destroyed value frees its name.
  Value* named = one->add_output();
  named->set_debug_name("z");
  one->erase_output(2);
  CHECK(g.debug_names().count("z") == 0);
}

TEST_CASE("uses: inputs, replacement, removal keep uses in step") {
  Graph g;
  Value* a = g.add_input("a");
  Value* b = g.add_input("b");
  Node* n = g.insert_node(g.create(aten::add, {a, b, a}));
  CHECK(a->uses().size() == 2);
  CHECK(a->uses()[1] == Use{n, 2});
  n->remove_input(0);
  CHECK(a->uses().size() == 1);
  CHECK(a->uses()[0].offset == 1);
  CHECK(b->uses()[0].offset == 0);
  n->insert_input(0, b);
  CHECK(names(n->inputs()) == std::vector<std::string>{"b", "b", "a"});
  CHECK(b->uses().size() == 2);
  n->replace_input(2, b);
  CHECK(a->uses().empty());
  b->replace_all_uses_with(a);
  CHECK(names(n->inputs()) == std::vector<std::string>{"a", "a", "a"});
  CHECK(b->uses().empty());
  n->permute_inputs({2, 0, 1});
  CHECK(a->uses().size() == 3);
  n->remove_all_inputs();
  CHECK(a->uses().empty());
  g.lint();

  // Only uses after (or dominated by) a node.
  Node* first = g.insert_node(g.create(aten::relu, {a}));
  Node* mid = g.insert_node(g.create(aten::relu, {a}));
  Node* last = g.insert_node(g.create(aten::relu, {a}));
  a->replace_all_uses_after_node_with(mid, mid->output());
  CHECK(first->input() == a);
  CHECK(mid->input() == a);
  CHECK(last->input() == mid->output());
  g.lint();
}

TEST_CASE("node lists: insertion, moves, destruction") {
  Graph g;
  Value* x = g.add_input("x");
  Node* a = g.insert_node(g.create(Symbol::aten("a"), {x}));
  Node* c = g.insert_node(g.create(Symbol::aten("c"), {x}));
  Node* b = g.create(Symbol::aten("b"), {x});
  b->insert_after(a);
  CHECK(kinds(g.block()) == std::vector<Symbol>{Symbol::aten("a"), Symbol::aten("b"), Symbol::aten("c")});
  CHECK(a->is_before(b));
  CHECK(c->is_after(b));
  c->move_before(a);
  CHECK(kinds(g.block()) == std::vector<Symbol>{Symbol::aten("c"), Symbol::aten("a"), Symbol::aten("b")});
  CHECK(c->is_before(a));
  a->move_after(b);
  CHECK(kinds(g.block()) == std::vector<Symbol>{Symbol::aten("c"), Symbol::aten("b"), Symbol::aten("a")});
  std::vector<Symbol> backwards;
  for (Node* n : g.nodes().reverse()) backwards.push_back(n->kind());
  CHECK(backwards == std::vector<Symbol>{Symbol::aten("a"), Symbol::aten("b"), Symbol::aten("c")});

  // Insertion point and its guard.
  {
    WithInsertPoint guard(b);
    g.insert_node(g.create(Symbol::aten("before_b"), 0));
  }
  g.insert_node(g.create(Symbol::aten("end"), 0));
  CHECK(kinds(g.block()) == std::vector<Symbol>{Symbol::aten("c"), Symbol::aten("before_b"), Symbol::aten("b"),
                                                Symbol::aten("a"), Symbol::aten("end")});

  // Misuse PyTorch asserts on.
  Node* loose = g.create(Symbol::aten("loose"), 0);
  CHECK_THROWS_AS(loose->insert_after(g.return_node()), std::logic_error);
  CHECK_THROWS_AS(loose->insert_before(g.param_node()), std::logic_error);
  CHECK_THROWS_AS(a->insert_after(b), std::logic_error);  // already in a list
  g.block()->prepend_node(loose);
  CHECK(*g.nodes().begin() == loose);
  Value* used = a->output();
  g.register_output(used);
  CHECK_THROWS_AS(a->destroy(), std::logic_error);
  g.erase_output(0);
  a->destroy();
  loose->destroy();
  CHECK(kinds(g.block()).size() == 4);

  // Destroying while walking: advance first.
  for (auto it = g.nodes().begin(); it != g.nodes().end();) {
    Node* n = *it++;
    if (!n->has_uses()) n->destroy();
  }
  CHECK(g.nodes().empty());
  g.lint();
}

TEST_CASE("nodes: many inserts in the middle renumber the block") {
  Graph g;
  Node* first = g.insert_node(g.create(Symbol::aten("first"), 0));
  Node* last = g.insert_node(g.create(Symbol::aten("last"), 0));
  Node* at = last;
  for (int i = 0; i < 200; ++i) at = g.create(Symbol::aten("mid"), 0)->insert_before(at);
  CHECK(first->is_before(at));
  CHECK(at->is_before(last));
  Node* prev = first;
  for (Node* n : g.nodes()) {
    if (n != first) CHECK(prev->is_before(n));
    prev = n;
  }
  g.lint();
}

TEST_CASE("blocks: inputs, outputs, nesting, dominance, destruction") {
  Graph g;
  Value* c = g.add_input("c");
  c->set_type(BoolType::get());
  Node* if_node = g.insert_node(g.create(prim::If, {c}, 1));
  Block* then_b = if_node->add_block();
  Block* else_b = if_node->add_block();
  CHECK(then_b->owning_node() == if_node);
  CHECK(g.block()->owning_node() == nullptr);
  Node* inner = then_b->append_node(g.create(aten::relu, {c}));
  then_b->register_output(inner->output());
  else_b->register_output(c);
  Value* in0 = then_b->add_input("p");
  Value* in1 = then_b->insert_input(0, "q");
  CHECK(names(then_b->inputs()) == std::vector<std::string>{"q", "p"});
  CHECK(in0->offset() == 1);
  then_b->erase_input(0);
  CHECK(names(then_b->inputs()) == std::vector<std::string>{"p"});
  (void)in1;
  then_b->erase_input(0);

  Node* after = g.insert_node(g.create(aten::relu, {if_node->output()}));
  CHECK(inner->is_before(after));
  CHECK(inner->is_dominated_by(if_node) == false);  // the If is not before its own block's nodes
  Node* top = g.create(aten::relu, {c});
  top->insert_before(if_node);
  CHECK(inner->is_dominated_by(top));
  CHECK(inner->blocks_from_graph_block() == 1);
  CHECK(inner->find_common_ancestor_block_with(after) == g.block());
  g.lint();

  if_node->erase_block(0);
  CHECK(if_node->blocks().size() == 1);
  g.lint();
}

TEST_CASE("attributes: kinds, order, replacement, errors, copies") {
  Graph g;
  Node* n = g.create(Symbol::prim("Foo"), 0);
  n->i_(attr::value, 3)->s_(attr::name, "x")->f_(Symbol::attr("f"), 0.5);
  CHECK(n->attribute_names() == std::vector<Symbol>{attr::value, attr::name, Symbol::attr("f")});
  CHECK(n->kind_of(attr::value) == AttributeKind::i);
  n->s_(attr::value, "now a string");  // same slot, new kind
  CHECK(n->attribute_names()[0] == attr::value);
  CHECK(n->kind_of(attr::value) == AttributeKind::s);
  CHECK(n->s(attr::value) == "now a string");
  CHECK(error_of([&] { n->i(attr::value); }) == "required keyword attribute 'value' has the wrong type");
  CHECK(error_of([&] { n->i(Symbol::attr("missing")); }) == "required keyword attribute 'missing' is undefined");
  n->remove_attribute(attr::name);
  CHECK(n->num_attributes() == 2);
  CHECK(!n->has_attribute(attr::name));
  CHECK_THROWS_AS(n->has_attribute(aten::add), std::logic_error);

  n->c_(Symbol::attr("c"), {1, 2})
      ->cs_(Symbol::attr("cs"), {{1, 2}})
      ->fs_(Symbol::attr("fs"), {1.5})
      ->is_(Symbol::attr("is"), {1})
      ->ss_(Symbol::attr("ss"), {"a"})
      ->t_(Symbol::attr("t"), float_tensor({1}, {1}))
      ->ts_(Symbol::attr("ts"), {})
      ->ty_(Symbol::attr("ty"), IntType::get())
      ->tys_(Symbol::attr("tys"), {IntType::get()})
      ->ival_(Symbol::attr("ival"), IValue(int64_t{4}));
  auto sub = std::make_shared<Graph>();
  sub->add_input("s");
  n->g_(attr::Subgraph, sub);
  n->gs_(Symbol::attr("gs"), {sub});
  CHECK(n->kind_of(Symbol::attr("cs")) == AttributeKind::cs);
  CHECK(n->kind_of(attr::Subgraph) == AttributeKind::g);
  CHECK(n->ival(Symbol::attr("ival")).to_int() == 4);
  CHECK(std::string(attribute_kind_name(AttributeKind::tys)) == "tys");

  // Copies own their graphs.
  Node* m = g.create(Symbol::prim("Foo"), 0);
  m->copy_attributes(*n);
  CHECK(m->attribute_names() == n->attribute_names());
  CHECK(m->g(attr::Subgraph) != sub);
  CHECK(m->g(attr::Subgraph)->inputs()[0]->debug_name() == "s");
  n->destroy();
  m->destroy();
}

TEST_CASE("schema slot: cleared whenever the signature changes") {
  Graph g;
  Value* x = g.add_input();
  Node* n = g.insert_node(g.create(aten::relu, {x}));
  const auto* fake = reinterpret_cast<const FunctionSchema*>(&g);
  n->set_schema(fake);
  CHECK(n->schema() == fake);
  n->add_input(x);
  CHECK(n->schema() == nullptr);
  n->set_schema(fake);
  x->set_type(IntType::get());  // a user's input type changed
  CHECK(n->schema() == nullptr);
}

TEST_CASE("insert_constant: each kind as torch 1.13's insertConstant makes it") {
  Graph g;
  const auto c = [&](IValue v) { g.insert_constant(v); };
  c(IValue());
  c(IValue(true));
  c(IValue(false));
  c(IValue(int64_t{3}));
  c(IValue(int64_t{-7}));
  c(IValue(1.0));
  c(IValue(0.1));
  c(IValue(1e-5));
  c(IValue(std::numeric_limits<double>::infinity()));
  c(IValue(-std::numeric_limits<double>::infinity()));
  c(IValue(std::numeric_limits<double>::quiet_NaN()));
  c(IValue(-0.0));
  c(IValue(1e10));
  c(IValue(1e22));
  c(IValue(123456789.0));
  c(IValue(std::complex<double>(2, 3)));
  c(IValue(std::complex<double>(1.5, -2)));
  c(IValue("hi"));
  c(IValue(Device{}));
  c(IValue(*Device::parse("cuda:1")));
  c(list_of({int64_t{1}, int64_t{2}}, "int"));
  c(list_of({1.0, 2.5}, "float"));
  c(list_of({true, false}, "bool"));
  c(list_of({"a", "b"}, "str"));
  c(tuple_of({int64_t{1}, "x", 2.0}));
  c(tuple_of({int64_t{1}}));
  c(tuple_of({}));
  CHECK(body(g) ==
        "  %0 : NoneType = prim::Constant()\n"
        "  %1 : bool = prim::Constant[value=1]()\n"
        "  %2 : bool = prim::Constant[value=0]()\n"
        "  %3 : int = prim::Constant[value=3]()\n"
        "  %4 : int = prim::Constant[value=-7]()\n"
        "  %5 : float = prim::Constant[value=1.]()\n"
        "  %6 : float = prim::Constant[value=0.10000000000000001]()\n"
        "  %7 : float = prim::Constant[value=1.0000000000000001e-05]()\n"
        "  %8 : float = prim::Constant[value=inf]()\n"
        "  %9 : float = prim::Constant[value=-inf]()\n"
        "  %10 : float = prim::Constant[value=nan]()\n"
        "  %11 : float = prim::Constant[value=-0.]()\n"
        "  %12 : float = prim::Constant[value=10000000000]()\n"
        "  %13 : float = prim::Constant[value=1e+22]()\n"
        "  %14 : float = prim::Constant[value=123456789.]()\n"
        "  %15 : complex = prim::Constant[value=2.+3.j]()\n"
        "  %16 : complex = prim::Constant[value=1.5-2.j]()\n"
        "  %17 : str = prim::Constant[value=\"hi\"]()\n"
        "  %18 : Device = prim::Constant[value=\"cpu\"]()\n"
        "  %19 : Device = prim::Constant[value=\"cuda:1\"]()\n"
        "  %20 : int[] = prim::Constant[value=[1, 2]]()\n"
        "  %21 : float[] = prim::Constant[value=[1., 2.5]]()\n"
        "  %22 : bool[] = prim::Constant[value=[True, False]]()\n"
        "  %23 : str[] = prim::Constant[value=[\"a\", \"b\"]]()\n"
        "  %24 : (int, str, float) = prim::Constant[value=(1, \"x\", 2.)]()\n"
        "  %25 : (int) = prim::Constant[value=(1,)]()\n"
        "  %26 : () = prim::Constant[value=()]()\n");
  auto* first = *g.nodes().begin();
  CHECK(first->outputs()[0]->type()->kind() == TypeKind::None);
  const Node* b = first->next();
  CHECK(b->kind_of(attr::value) == AttributeKind::i);
  CHECK(to_ivalue(b->output())->to_bool());
  CHECK(to_ivalue(first->output())->is_none());
  CHECK(to_ivalue(g.nodes().begin().operator*()->next()->next()->next()->output())->to_int() == 3);
}

TEST_CASE("insert_constant: tensors, containers, element types, refusals") {
  Graph g;
  g.insert_constant(IValue(float_tensor({}, {2.5f})));
  g.insert_constant(IValue(float_tensor({2, 3}, {0, 0, 0, 0, 0, 0})));
  g.insert_constant(IValue(Tensor::empty(DType::Float32, {20})));
  g.insert_constant(list_of({IValue(float_tensor({2}, {0, 0}))}, "Tensor"));
  auto dict = std::make_shared<DictData>();
  dict->set(IValue("a"), IValue(int64_t{1}));
  g.insert_constant(IValue(dict));
  g.insert_constant(tuple_of({int64_t{1}, list_of({int64_t{2}, int64_t{3}})}));
  g.insert_constant(list_of({list_of({int64_t{1}, int64_t{2}}), list_of({int64_t{3}})}));
  g.insert_constant(list_of({}, "int"));
  g.insert_constant(list_of({int64_t{1}, IValue()}, "Optional[int]"));
  auto empty_dict = std::make_shared<DictData>();
  empty_dict->key_type = "str";
  empty_dict->value_type = "int";
  g.insert_constant(IValue(empty_dict));
  g.insert_constant(tuple_of({int64_t{1}, IValue(Device{})}), SourceLocation{"m.py", 1, 2});
  CHECK(body(g) ==
        "  %0 : Float(requires_grad=0, device=cpu) = prim::Constant[value={2.5}]()\n"
        "  %1 : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu) = prim::Constant[value= 0  0  0  0  0  0 [ "
        "CPUFloatType{2,3} ]]()\n"
        "  %2 : Float(20, strides=[1], requires_grad=0, device=cpu) = prim::Constant[value=<Tensor>]()\n"
        "  %3 : Tensor[] = prim::Constant[value=[<Tensors>]]()\n"
        "  %4 : Dict(str, int) = prim::Constant[value={\"a\": 1}]()\n"
        "  %5 : (int, int[]) = prim::Constant[value=(1, [2, 3])]()\n"
        "  %6 : int[][] = prim::Constant[value=[[1, 2], [3]]]()\n"
        "  %7 : int[] = prim::Constant[value=annotate(List[int], [])]()\n"
        "  %8 : int?[] = prim::Constant[value=annotate(List[Optional[int]], [1, None])]()\n"
        "  %9 : Dict(str, int) = prim::Constant[value=annotate(Dict[str, int],{})]()\n"
        "  %10 : (int, Device) = prim::Constant[value=(1, torch.device(\"cpu\"))]() # m.py:1:2\n");

  // Refused values still use up an id, as PyTorch's node-first insertConstant does.
  Graph h;
  CHECK(h.try_insert_constant(IValue(Tensor())) == nullptr);
  CHECK(h.try_insert_constant(list_of({})) == nullptr);  // no element type to give it
  CHECK(h.next_unique() == 2);
  CHECK(h.nodes().empty());
  CHECK(error_of([&] { h.insert_constant(IValue(std::make_shared<ObjectData>())); }) ==
        "Unsupported value kind: object");
  Tensor grad = float_tensor({1}, {1});
  grad.impl().requires_grad = true;
  CHECK(error_of([&] { h.insert_constant(IValue(grad)); }) == "a constant tensor cannot require grad");
  h.lint();
}

TEST_CASE("graph builders set PyTorch's types and names") {
  Graph g;
  auto cls = ClassType::create("__torch__.M", true);
  cls->add_attribute("0", IntType::get());
  cls->add_attribute("weight", TensorType::get());
  Value* self = g.add_input("self");
  self->set_type(cls);
  Value* idx = g.insert_node(g.create_get_attr(self, "0"))->output();
  Value* w = g.insert_node(g.create_get_attr(self, "weight"))->output();
  CHECK(idx->debug_name() == "_0");
  CHECK(w->debug_name() == "weight");
  Node* tup = g.insert_node(g.create_tuple({idx, w}));
  CHECK(tup->output()->type()->str() == "(int, Tensor)");
  Node* unpack = g.insert_node(g.create_tuple_unpack(tup->output()));
  CHECK(unpack->outputs().size() == 2);
  Node* list = g.insert_node(g.create_list(IntType::get(), {idx, idx}));
  CHECK(list->output()->type()->str() == "int[]");
  CHECK(error_of([&] { g.create_list(IntType::get(), {w}); }) ==
        "Expected a list element that subtypes 'int' but got an element of type 'Tensor'");
  Node* d = g.insert_node(g.create_dict(IntType::get(), TensorType::get(), {idx}, {w}));
  CHECK(d->output()->type()->str() == "Dict(int, Tensor)");
  Node* isinst = g.insert_node(g.create_is_instance(w, {TensorType::get()}));
  CHECK(isinst->output()->type() == BoolType::get());
  Node* none = g.insert_node(g.create_none());
  CHECK(none->output()->must_be_none());
  Node* fork = g.insert_node(g.create_with_subgraph(prim::fork));
  CHECK(fork->outputs().empty());
  CHECK(fork->g(attr::Subgraph)->inputs().empty());
  g.insert_node(g.create_set_attr(self, "weight", w));
  g.register_output(w);
  CHECK(body(g).find("prim::GetAttr[name=\"0\"](%self)") != std::string::npos);
  g.lint();
}

TEST_CASE("copies: clone and copy keep names, types, attributes and blocks") {
  Graph g;
  Value* x = g.add_input("x.1");
  Node* if_node = g.insert_node(g.create(prim::If, {x}));
  if_node->set_source_location(SourceLocation{"f.py", 2, 4});
  Block* b0 = if_node->add_block();
  Node* inner = b0->append_node(g.create(aten::relu, {x}));
  inner->output()->set_debug_name("r");
  b0->register_output(inner->output());
  Block* b1 = if_node->add_block();
  b1->register_output(x);
  g.register_output(if_node->output());
  auto copy = g.copy();
  CHECK(graph_to_string(*copy) == graph_to_string(g));
  copy->lint();

  Graph other;
  Value* y = other.add_input("y");
  Node* clone = other.create_clone(if_node, [&](Value*) { return y; });
  other.insert_node(clone);
  other.register_output(clone->output());
  CHECK(graph_to_string(other) ==
        "graph(%y : Tensor):\n"
        "  %1 : Tensor = prim::If(%y) # f.py:2:4\n"
        "    block0():\n"
        "      %r : Tensor = aten::relu(%y)\n"
        "      -> (%r)\n"
        "    block1():\n"
        "      -> (%y)\n"
        "  return (%1)\n");
  other.lint();
}
