// The Inline pass, GraphFunction's `.inlined_graph` and optimized_graph(), and the peephole pass
// that optimized_graph() runs on callees.
// The peephole expectations are what torch 1.13 printed for the same input after
// torch._C._jit_pass_peephole(graph, disable_shape_peepholes=True); they are compared in the
// oracle's canonical form, since a parsed graph numbers its values differently from parse_ir.
#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "lib/core/error.h"
#include "lib/frontend/graph_function.h"
#include "lib/ir/graph_parser.h"
#include "passes/inliner.h"
#include "passes/peephole.h"
#include "lib/frontend/schema_matching.h"
#include "tests/support/canonical_graph.h"

using namespace jitctl;

namespace {

std::shared_ptr<Graph> parse(const std::string& text, std::unordered_map<std::string, Value*>* names = nullptr,
                             TypeTextContext* types = nullptr) {
  auto g = std::make_shared<Graph>();
  GraphParseOptions opts;
  opts.types = types;
  parse_graph_into(text, *g, names, opts);
  attach_builtin_schemas(g->block());
  return g;
}

std::string peephole(const std::string& text, bool* changed = nullptr) {
  auto g = parse(text);
  const bool c = peephole_optimize(*g);
  if (changed) *changed = c;
  g->lint();
  return g->str();
}

// GraphFunctions over parsed graphs, as a CompilationUnit makes them over compiled ones; `made`
// counts how often each one's graph was asked for.
struct Functions {
  std::map<std::string, std::unique_ptr<GraphFunction>> by_key;  // "owner.method"
  std::map<std::string, int> made;

  GraphFunction* add(const std::string& key, std::shared_ptr<Graph> g) {
    auto fn = std::make_unique<GraphFunction>(
        key, [this, key, g] { ++made[key]; return g; },
        [this](const std::string& owner, const std::string& method) -> GraphFunction* {
          auto it = by_key.find(owner + "." + method);
          return it == by_key.end() ? nullptr : it->second.get();
        });
    return (by_key[key] = std::move(fn)).get();
  }
};

void check_same(const std::string& got, const std::string& want) {
  INFO("jitctl:\n", got, "\ntorch:\n", want);
  CHECK(test::canonical_graph(got) == test::canonical_graph(want));
}

}  // namespace

TEST_CASE("canonical_graph renames values in order of first appearance, as compat.py does") {
  const std::string text =
      "graph(%self.1 : __torch__.___torch_mangle_3.M,\n"
      "      %x : Tensor):\n"
      "  %7 : int = prim::Constant[value=1]() # m.py:1:2\n"
      "   = aten::warn[warn_id=12](%x, %7)\n"
      "  return (%x)\n";
  CHECK(test::canonical_graph(text) ==
        "graph(%v0 : __torch__.M,\n"
        "      %v1 : Tensor):\n"
        "  %v2 : int = prim::Constant[value=1]()\n"
        "   = aten::warn[warn_id=N](%v1, %v2)\n"
        "  return (%v1)");
}

TEST_CASE("peephole: integer arithmetic, x == x, int(int), unchecked_cast (torch 1.13)") {
  bool changed = false;
  const std::string got = peephole(R"(graph(%a : int, %b : int):
  %1 : int = prim::Constant[value=1]()
  %0 : int = prim::Constant[value=0]()
  %3 : int = prim::Constant[value=3]()
  %c : int = aten::mul(%1, %a)
  %d : int = aten::add(%c, %0)
  %e : int = aten::add(%d, %3)
  %f : int = aten::sub(%e, %3)
  %g : bool = aten::eq(%a, %a)
  %h : int = aten::Int(%a)
  %i : int = prim::unchecked_cast(%a)
  %q : int = aten::add(%3, %b)
  %r : int = aten::add(%q, %3)
  %s : int = aten::mul(%3, %b)
  %t : (int, int, bool, int, int, int, int) = prim::TupleConstruct(%c, %f, %g, %h, %i, %r, %s)
  return (%t)
)",
                                   &changed);
  CHECK(changed);
  check_same(got, R"(graph(%a : int,
      %b : int):
  %4 : int = prim::Constant[value=3]()
  %16 : bool = prim::Constant[value=1]()
  %17 : int = prim::Constant[value=6]()
  %13 : int = aten::add(%b, %17)
  %14 : int = aten::mul(%b, %4)
  %15 : (int, int, bool, int, int, int, int) = prim::TupleConstruct(%a, %a, %16, %a, %a, %13, %14)
  return (%15)
)");
}

TEST_CASE("peephole: list idioms on lists nothing mutates (torch 1.13)") {
  check_same(peephole(R"(graph(%a : int, %x : Tensor):
  %0 : int = prim::Constant[value=0]()
  %1 : int = prim::Constant[value=1]()
  %2 : int = prim::Constant[value=2]()
  %m : int = prim::Constant[value=-1]()
  %n : NoneType = prim::Constant()
  %l : int[] = prim::ListConstruct(%a, %1, %2)
  %len : int = aten::len(%l)
  %g : int = aten::__getitem__(%l, %m)
  %u : int, %v : int, %w : int = prim::ListUnpack(%l)
  %l2 : int[] = prim::ListConstruct(%2)
  %cat : int[] = aten::add(%l, %l2)
  %s : int[] = aten::slice(%l, %n, %m, %1)
  %s2 : int[] = aten::slice(%l, %n, %n, %2)
  %s3 : int[] = aten::slice(%l, %0, %a, %1)
  %mut : int[] = prim::ListConstruct(%a)
  %ap : int[] = aten::append(%mut, %1)
  %len2 : int = aten::len(%mut)
  %t : (int, int, int, int, int, int[], int[], int[], int[], int) = prim::TupleConstruct(%len, %g, %u, %v, %w, %cat, %s, %s2, %s3, %len2)
  return (%t)
)"),
             R"(graph(%a : int,
      %x : Tensor):
  %2 : int = prim::Constant[value=0]()
  %3 : int = prim::Constant[value=1]()
  %4 : int = prim::Constant[value=2]()
  %7 : int[] = prim::ListConstruct(%a, %3, %4)
  %22 : int = prim::Constant[value=3]()
  %23 : int[] = prim::ListConstruct(%a, %3, %4, %4)
  %24 : int[] = prim::ListConstruct(%a, %3)
  %25 : int[] = prim::ListConstruct(%a, %4)
  %17 : int[] = aten::slice(%7, %2, %a, %3)
  %18 : int[] = prim::ListConstruct(%a)
  %19 : int[] = aten::append(%18, %3)
  %20 : int = aten::len(%18)
  %21 : (int, int, int, int, int, int[], int[], int[], int[], int) = prim::TupleConstruct(%22, %4, %a, %3, %4, %23, %24, %25, %17, %20)
  return (%21)
)");
}

TEST_CASE("peephole: dict idioms, None checks, unwraps, If outputs (torch 1.13)") {
  check_same(peephole(R"(graph(%x : Tensor, %o : Tensor?, %c : bool):
  %k1 : str = prim::Constant[value="a"]()
  %k2 : str = prim::Constant[value="b"]()
  %d : Dict(str, Tensor) = prim::DictConstruct(%k1, %x, %k2, %o)
  %n : int = aten::len(%d)
  %g : Tensor = aten::__getitem__(%d, %k2)
  %nn : NoneType = prim::Constant()
  %i : bool = aten::__is__(%x, %nn)
  %i2 : bool = aten::__isnot__(%o, %nn)
  %u : Tensor = aten::_unwrap_optional(%x)
  %uc : Tensor = prim::unchecked_cast(%o)
  %one : int = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %r : int? = prim::If(%c)
    block0():
      -> (%one)
    block1():
      -> (%two)
  %t : bool = prim::Constant[value=1]()
  %f : bool = prim::Constant[value=0]()
  %same : bool = prim::If(%c)
    block0():
      -> (%t)
    block1():
      -> (%f)
  %tup : (int, Tensor, bool, bool, Tensor, Tensor, int?, bool) = prim::TupleConstruct(%n, %g, %i, %i2, %u, %uc, %r, %same)
  return (%tup)
)"),
             R"(graph(%x : Tensor,
      %o : Tensor?,
      %c : bool):
  %20 : int = prim::Constant[value=2]()
  %8 : NoneType = prim::Constant()
  %21 : bool = prim::Constant[value=0]()
  %10 : bool = aten::__isnot__(%o, %8)
  %12 : Tensor = prim::unchecked_cast(%o)
  %13 : int = prim::Constant[value=1]()
  %14 : int = prim::Constant[value=2]()
  %15 : int = prim::If(%c)
    block0():
      -> (%13)
    block1():
      -> (%14)
  %19 : (int, Tensor, bool, bool, Tensor, Tensor, int?, bool) = prim::TupleConstruct(%20, %o, %21, %10, %x, %12, %15, %c)
  return (%19)
)");
}

TEST_CASE("peephole: dim(conv2d), x + 0, x * 1, t(t(x)), int(NumToTensor(n)) (torch 1.13)") {
  check_same(peephole(R"(graph(%x : Tensor, %w : Tensor):
  %0 : int = prim::Constant[value=0]()
  %1 : int = prim::Constant[value=1]()
  %l : int[] = prim::ListConstruct(%1, %1)
  %y : Tensor = aten::conv2d(%x, %w, %w, %l, %l, %l, %1)
  %d : int = aten::dim(%y)
  %r : Tensor = aten::relu(%y)
  %z : Tensor = aten::add(%r, %0, %1)
  %r2 : Tensor = aten::relu(%z)
  %zz : Tensor = aten::mul(%r2, %1)
  %r3 : Tensor = aten::relu(%zz)
  %t1 : Tensor = aten::t(%r3)
  %t2 : Tensor = aten::t(%t1)
  %nt : Tensor = prim::NumToTensor(%d)
  %di : int = aten::Int(%nt)
  %out : (Tensor, int) = prim::TupleConstruct(%t2, %di)
  return (%out)
)"),
             R"(graph(%x : Tensor,
      %w : Tensor):
  %3 : int = prim::Constant[value=1]()
  %4 : int[] = prim::ListConstruct(%3, %3)
  %5 : Tensor = aten::conv2d(%x, %w, %w, %4, %4, %4, %3)
  %17 : int = prim::Constant[value=4]()
  %7 : Tensor = aten::relu(%5)
  %9 : Tensor = aten::relu(%7)
  %11 : Tensor = aten::relu(%9)
  %16 : (Tensor, int) = prim::TupleConstruct(%11, %17)
  return (%16)
)");
}

TEST_CASE("peephole: cat of cat on the same dim (torch 1.13)") {
  check_same(peephole(R"(graph(%a : Tensor, %b : Tensor, %c : Tensor):
  %0 : int = prim::Constant[value=0]()
  %l1 : Tensor[] = prim::ListConstruct(%a, %b)
  %c1 : Tensor = aten::cat(%l1, %0)
  %l2 : Tensor[] = prim::ListConstruct(%c, %c1, %c)
  %c2 : Tensor = aten::cat(%l2, %0)
  return (%c2)
)"),
             R"(graph(%a : Tensor,
      %b : Tensor,
      %c : Tensor):
  %3 : int = prim::Constant[value=0]()
  %8 : Tensor[] = prim::ListConstruct(%c, %a, %b, %c)
  %7 : Tensor = aten::cat(%8, %3)
  return (%7)
)");
}

TEST_CASE("peephole: dead code goes only when something changed, as PyTorch's flag decides") {
  // A None-typed output counts as a change even though nothing uses it; the dead relu then goes.
  bool changed = false;
  check_same(peephole(R"(graph(%x : Tensor):
  %dead : Tensor = aten::relu(%x)
  %h : NoneType = prim::Uninitialized()
  %y : Tensor = aten::relu(%x)
  return (%y)
)",
                      &changed),
             R"(graph(%x : Tensor):
  %3 : Tensor = aten::relu(%x)
  return (%3)
)");
  CHECK(changed);
  // Refining an Optional If output to the type it already has counts too.
  check_same(peephole(R"(graph(%x : Tensor, %c : bool):
  %dead : Tensor = aten::relu(%x)
  %one : int = prim::Constant[value=1]()
  %none : NoneType = prim::Constant()
  %r : int? = prim::If(%c)
    block0():
      -> (%one)
    block1():
      -> (%none)
  %t : (Tensor, int?) = prim::TupleConstruct(%x, %r)
  return (%t)
)",
                      &changed),
             R"(graph(%x : Tensor,
      %c : bool):
  %3 : int = prim::Constant[value=1]()
  %4 : NoneType = prim::Constant()
  %5 : int? = prim::If(%c)
    block0():
      -> (%3)
    block1():
      -> (%4)
  %6 : (Tensor, int?) = prim::TupleConstruct(%x, %5)
  return (%6)
)");
  CHECK(changed);
  const std::string unchanged = R"(graph(%x : Tensor):
  %dead : Tensor = aten::relu(%x)
  %y : Tensor = aten::relu(%x)
  return (%y)
)";
  check_same(peephole(unchanged, &changed), unchanged);
  CHECK(!changed);
}

namespace {

// A caller with a method call on a submodule and a function call, and the two callees.
const char* kCaller = R"(graph(%self : __torch__.M, %x : Tensor):
  %sub : __torch__.Sub = prim::GetAttr[name="sub"](%self)
  %y : Tensor = prim::CallMethod[name="forward"](%sub, %x) # m.py:3:4
  %f : Function = prim::Constant[name="helper"]()
  %z : Tensor = prim::CallFunction(%f, %y) # m.py:4:4
  return (%z)
)";

const char* kSubForward = R"(graph(%self : __torch__.Sub, %x : Tensor):
  %1 : int = prim::Constant[value=1]() # sub.py:1:1
  %y : Tensor = aten::add(%x, %x, %1) # sub.py:2:2
  return (%y)
)";

const char* kHelper = R"(graph(%x : Tensor):
  %r : Tensor = aten::relu(%x) # h.py:7:3
  return (%r)
)";

struct Program {
  TypeTextContext types;  // one class per name across the graphs
  std::shared_ptr<Graph> caller, sub, helper;
  std::map<std::pair<std::string, std::string>, int> calls;

  Program() {
    std::unordered_map<std::string, Value*> names;
    caller = parse(kCaller, &names, &types);
    names.at("f")->set_type(FunctionType::create("__torch__.helper"));
    sub = parse(kSubForward, nullptr, &types);
    helper = parse(kHelper, nullptr, &types);
  }

  CalleeGraphFn callees() {
    return [this](const std::string& name, const std::string& method) -> std::shared_ptr<Graph> {
      ++calls[{name, method}];
      if (name == "__torch__.Sub" && method == "forward") return sub;
      if (name == "__torch__.helper" && method.empty()) return helper;
      return nullptr;
    };
  }
};

}  // namespace

TEST_CASE("inline: calls are replaced by the callee's nodes; the function constant stays") {
  Program p;
  inline_calls(*p.caller, p.callees());
  p.caller->lint();
  check_same(p.caller->str(), R"(graph(%self : __torch__.M,
      %x : Tensor):
  %sub : __torch__.Sub = prim::GetAttr[name="sub"](%self)
  %1 : int = prim::Constant[value=1]()
  %y : Tensor = aten::add(%x, %x, %1)
  %f : Function = prim::Constant[name="helper"]()
  %z : Tensor = aten::relu(%y)
  return (%z)
)");
  // Inlined nodes keep the callee's source locations; the call's output name moves to the value
  // that replaces it.
  for (const Node* n : p.caller->nodes()) {
    if (n->kind() == aten::relu) {
      REQUIRE(n->source_location());
      CHECK(n->source_location()->str() == "h.py:7:3");
      CHECK(n->output()->debug_name() == "z");
    }
    if (n->kind() == aten::add) CHECK(n->source_location()->str() == "sub.py:2:2");
  }
  // The callee graphs themselves are untouched.
  CHECK(p.sub->str().find("aten::add") != std::string::npos);
}

TEST_CASE("inline: a callee the callback does not know stays a call") {
  Program p;
  inline_calls(*p.caller, [](const std::string&, const std::string&) { return std::shared_ptr<Graph>(); });
  const std::string s = p.caller->str();
  CHECK(s.find("prim::CallMethod") != std::string::npos);
  CHECK(s.find("prim::CallFunction(%f, %y)") != std::string::npos);
}

TEST_CASE("GraphFunction::inlined_graph: callees are optimized once and inlined as PyTorch's optimized_graph()") {
  // Sub.forward calls h(x, None); inside Sub's optimized graph `o is None` folds, the If goes, and
  // the dead function constant is swept with it. The caller's own graph is not cleaned up.
  TypeTextContext types;
  std::unordered_map<std::string, Value*> names;
  auto caller = parse(R"(graph(%self : __torch__.M, %x : Tensor):
  %sub : __torch__.Sub = prim::GetAttr[name="sub"](%self)
  %a : Tensor = prim::CallMethod[name="forward"](%sub, %x)
  %b : Tensor = prim::CallMethod[name="forward"](%sub, %a)
  return (%b)
)",
                      nullptr, &types);
  auto sub = parse(R"(graph(%self : __torch__.Sub, %x : Tensor):
  %none : NoneType = prim::Constant()
  %h : Function = prim::Constant[name="h"]()
  %r : Tensor = prim::CallFunction(%h, %x, %none)
  return (%r)
)",
                   &names, &types);
  names.at("h")->set_type(FunctionType::create("__torch__.h"));
  auto h = parse(R"(graph(%x : Tensor, %o : Tensor?):
  %none : NoneType = prim::Constant()
  %one : int = prim::Constant[value=1]()
  %c : bool = aten::__is__(%o, %none)
  %r : Tensor = prim::If(%c)
    block0():
      %r1 : Tensor = aten::relu(%x)
      -> (%r1)
    block1():
      %u : Tensor = prim::unchecked_cast(%o)
      %r2 : Tensor = aten::add(%x, %u, %one)
      -> (%r2)
  return (%r)
)",
                 nullptr, &types);
  Functions fns;
  GraphFunction* m = fns.add("__torch__.M.forward", caller);
  fns.add("__torch__.Sub.forward", sub);
  fns.add("__torch__.h.", h);
  auto g = m->inlined_graph();
  g->lint();
  check_same(g->str(), R"(graph(%self : __torch__.M,
      %x : Tensor):
  %sub : __torch__.Sub = prim::GetAttr[name="sub"](%self)
  %a : Tensor = aten::relu(%x)
  %b : Tensor = aten::relu(%a)
  return (%b)
)");
  CHECK(fns.made["__torch__.Sub.forward"] == 1);
  CHECK(fns.made["__torch__.h."] == 1);
  // Each optimized graph is made once and shared; inlined_graph() is a new graph every time.
  GraphFunction* s = fns.by_key.at("__torch__.Sub.forward").get();
  CHECK(s->optimized_graph() == s->optimized_graph());
  CHECK(m->inlined_graph() != g);
  CHECK(fns.made["__torch__.Sub.forward"] == 1);
  // The caller's graph is copied, not changed.
  CHECK(caller->str().find("prim::CallMethod") != std::string::npos);
}

TEST_CASE("GraphFunction: recursion is an error, as TorchScript does not support it") {
  TypeTextContext types;
  auto caller = parse(R"(graph(%self : __torch__.M, %x : Tensor):
  %y : Tensor = prim::CallMethod[name="forward"](%self, %x)
  return (%y)
)",
                      nullptr, &types);
  Functions fns;
  GraphFunction* m = fns.add("__torch__.M.forward", caller);
  CHECK_THROWS_AS(m->inlined_graph(), InvalidInput);
  CHECK_THROWS_AS(m->optimized_graph(), InvalidInput);
}
