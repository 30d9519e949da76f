// jitctl optimize's own rewrites (no PyTorch pass to compare with): the tensor facts they rest on
// (passes/analysis/tensor_facts.h), and each pass as IR text in -> IR text out, the expected text
// checked by hand against the rule in the pass's header, and both graphs run in the interpreter
// on the same random input -- the rewrite must not change a single output. That the written
// archives load in PyTorch 1.13 and compute what the original does is
// tests/oracle/check_optimize_rewrites.py's job.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "lib/frontend/schema_matching.h"
#include "lib/ir/graph_parser.h"
#include "lib/ir/graph_printer.h"
#include "lib/runtime/interpreter.h"
#include "lib/runtime/node_evaluator.h"
#include "passes/analysis/tensor_facts.h"
#include "passes/registry.h"
#include "tests/support/canonical_graph.h"
#include "tests/support/output_compare.h"

using namespace jitctl;

namespace {

Tensor filled(DType dtype, std::vector<int64_t> sizes, float scale, float value = NAN) {
  Tensor t = Tensor::empty(dtype, std::move(sizes));
  for (int64_t i = 0; i < t.numel(); ++i) {
    const double v = std::isnan(value) ? std::sin(scale * static_cast<double>(i + 1)) : value;
    char* p = static_cast<char*>(t.mutable_data()) + i * static_cast<int64_t>(element_size(dtype));
    if (dtype == DType::Float32) {
      const float f = static_cast<float>(v);
      std::memcpy(p, &f, sizeof f);
    } else if (dtype == DType::Float64) {
      std::memcpy(p, &v, sizeof v);
    } else {
      const int64_t k = static_cast<int64_t>(v);
      std::memcpy(p, &k, sizeof k);
    }
  }
  return t;
}

// `text`'s inputs named in `consts` become constants, in order, before the first node.
std::shared_ptr<Graph> make(const std::string& text, const std::vector<std::pair<std::string, Tensor>>& consts = {}) {
  auto g = parse_graph(text);
  attach_builtin_schemas(g->block());
  {
    WithInsertPoint guard(*g->nodes().begin());
    for (const auto& [name, t] : consts) {
      Value* c = g->insert_constant(IValue(t));
      for (Value* in : g->inputs())
        if (in->debug_name() == name) in->replace_all_uses_with(c);
    }
  }
  for (size_t i = g->inputs().size(); i-- > 0;) {
    const std::string name = g->inputs()[i]->debug_name();
    if (std::any_of(consts.begin(), consts.end(), [&](const auto& c) { return c.first == name; })) g->erase_input(i);
  }
  return g;
}

// Canonical text without tensor constants' values.
std::string canonical(const Graph& g) {
  std::istringstream in(test::canonical_graph(graph_to_string(g)));
  std::string line, out;
  while (std::getline(in, line)) {
    const size_t at = line.find(" = prim::Constant[value=");
    if (at != std::string::npos && line.find("strides=[") != std::string::npos) {
      line = line.substr(0, at) + " = <tensor>";
      const size_t s = line.find("strides=[");
      line.erase(s, line.find(']', s) + 3 - s);  // "strides=[...], "
    }
    out += line + "\n";
  }
  return out;
}

// Runs `before` and `after` on `inputs`: "" when every output is the same.
std::string same_outputs(const std::shared_ptr<Graph>& before, const std::shared_ptr<Graph>& after,
                         const std::vector<IValue>& inputs) {
  const IValue want = plan_graph(before)(inputs);
  const IValue got = plan_graph(after)(inputs);
  return test::differs(got, want, "out");
}

// A conv2d with constant weight and bias on the input (so its output's dtype is known, its rank
// 3 or 4), for the graphs below: %y.
const std::string kConvHead =
    "  %one : int = prim::Constant[value=1]()\n"
    "  %s : int[] = prim::Constant[value=[1, 1]]()\n"
    "  %p : int[] = prim::Constant[value=[0, 0]]()\n"
    "  %y : Tensor = aten::conv2d(%x, %w, %b, %s, %p, %s, %one)\n";

std::vector<std::pair<std::string, Tensor>> conv_constants() {
  return {{"w", filled(DType::Float32, {4, 3, 3, 3}, 0.37f)}, {"b", filled(DType::Float32, {4}, 0.91f)}};
}

IValue image() { return IValue(filled(DType::Float32, {2, 3, 8, 8}, 0.13f)); }

bool run_pass(const char* name, Graph& g) { return find_pass(name)->run(g, evaluating_pass_context()); }

const Value* named(const Block* b, const std::string& name) {
  for (const Node* n : b->nodes()) {
    for (const Value* v : n->outputs())
      if (v->debug_name() == name) return v;
    for (const Block* sub : n->blocks())
      if (const Value* v = named(sub, name)) return v;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("tensor facts: constants exactly, operators by their rules") {
  auto g = make("graph(%x : Tensor, %w : Tensor, %b : Tensor, %c : bool):\n" + kConvHead +
                    "  %minus1 : int = prim::Constant[value=-1]()\n"
                    "  %zero : int = prim::Constant[value=0]()\n"
                    "  %long : int = prim::Constant[value=4]()\n"
                    "  %false : bool = prim::Constant[value=0]()\n"
                    "  %none : NoneType = prim::Constant()\n"
                    "  %half : float = prim::Constant[value=0.5]()\n"
                    "  %r : Tensor = aten::relu(%y)\n"
                    "  %f : Tensor = aten::flatten(%r, %one, %minus1)\n"
                    "  %g : Tensor = aten::sigmoid(%x)\n"
                    "  %l : Tensor = aten::to(%x, %long, %false, %false, %none)\n"
                    "  %m : Tensor = aten::mul(%l, %one)\n"
                    "  %mf : Tensor = aten::mul(%l, %half)\n"
                    "  %i : Tensor = prim::If(%c)\n"
                    "    block0():\n      -> (%y)\n"
                    "    block1():\n      -> (%f)\n"
                    "  %k : Tensor = aten::contiguous(%g, %zero)\n"
                    "  %a : Tensor = aten::add_(%r, %y, %one)\n"
                    "  return (%f, %g, %m, %mf, %i, %k, %a)\n",
                conv_constants());
  const TensorFactAnalysis facts(*g);
  REQUIRE(facts.enabled());
  auto of = [&](const char* name) {
    const Value* v = named(g->block(), name);
    REQUIRE(v != nullptr);
    return facts.of(v);
  };
  // The weight: a constant, all known.
  const TensorFacts w = facts.of((*g->nodes().begin())->output());
  CHECK(w.dtype == DType::Float32);
  CHECK(w.rank() == 4);
  CHECK(w.contiguous);
  // conv2d: the weight's dtype, unbatched or batched.
  CHECK(of("y").dtype == DType::Float32);
  CHECK(of("y").min_rank == 3);
  CHECK(of("y").max_rank == 4);
  CHECK_FALSE(of("y").contiguous);  // a channels-last input gives a channels-last output
  CHECK(of("r").dtype == DType::Float32);
  CHECK(of("f").rank() == 2);
  // The input's dtype is unknown, so the sigmoid's is; to(int64) says it; an int keeps int64, a
  // float does not.
  CHECK_FALSE(of("g").dtype.has_value());
  CHECK(of("l").dtype == DType::Int64);
  CHECK(of("m").dtype == DType::Int64);
  CHECK_FALSE(of("mf").dtype.has_value());
  // An If's output: what both branches agree on.
  CHECK(of("i").dtype == DType::Float32);
  CHECK(of("i").min_rank == 2);
  CHECK(of("i").max_rank == 4);
  CHECK(of("k").contiguous);
  // In place: self's facts.
  CHECK(of("a") == of("r"));
}

TEST_CASE("tensor facts: a check that raises narrows the rank after it, in its block only") {
  auto g = make("graph(%x : Tensor, %c : bool):\n"
                "  %one : int = prim::Constant[value=1]()\n"
                "  %three : int = prim::Constant[value=3]()\n"
                "  %msg : str = prim::Constant[value=\"bad\"]()\n"
                "  %cls : str = prim::Constant[value=\"builtins.ValueError\"]()\n"
                "  %before : Tensor = aten::relu(%x)\n"
                "  %y : Tensor = prim::If(%c)\n"
                "    block0():\n"
                "      %d : int = aten::dim(%x)\n"
                "      %small : bool = aten::lt(%d, %three)\n"
                "       = prim::If(%small)\n"
                "        block0():\n"
                "           = prim::RaiseException(%msg, %cls)\n"
                "          -> ()\n"
                "        block1():\n"
                "          -> ()\n"
                "      %inside : Tensor = aten::relu(%x)\n"
                "      -> (%inside)\n"
                "    block1():\n"
                "      -> (%x)\n"
                "  %after : Tensor = aten::relu(%x)\n"
                "  %o : (Tensor, Tensor, Tensor) = prim::TupleConstruct(%before, %y, %after)\n"
                "  return (%o)\n");
  const TensorFactAnalysis facts(*g);
  const Value* before = named(g->block(), "before");
  const Value* inside = named(g->block(), "inside");
  const Value* after = named(g->block(), "after");
  CHECK(facts.of(before).min_rank == 0);
  CHECK(facts.of(inside).min_rank == 3);  // computed past `if x.dim() < 3: raise`
  CHECK(facts.of(inside).max_rank == TensorFacts::kAnyRank);
  CHECK(facts.of_input(inside->node(), 0).min_rank == 3);
  CHECK(facts.of(after).min_rank == 0);  // the check was in a block that may not have run
  CHECK(facts.of_input(after->node(), 0).min_rank == 0);
}

TEST_CASE("tensor facts: nothing at all when the graph changes a tensor's metadata in place") {
  auto g = make("graph(%x : Tensor, %w : Tensor, %b : Tensor):\n" + kConvHead +
                    "  %u : Tensor = aten::unsqueeze_(%y, %one)\n"
                    "  %d : int = aten::dim(%y)\n"
                    "  return (%d)\n",
                conv_constants());
  const TensorFactAnalysis facts(*g);
  CHECK_FALSE(facts.enabled());
  CHECK(facts.of(named(g->block(), "y")) == TensorFacts{});
  // And the passes change nothing: dim(y) is 5 or 4 here, not 4 or 3.
  const std::string before = graph_to_string(*g);
  CHECK_FALSE(run_pass("fold-tensor-queries", *g));
  CHECK(graph_to_string(*g) == before);
}

TEST_CASE("fold-tensor-queries: ranks, dtypes and rank comparisons the facts decide") {
  const std::string text = "graph(%x : Tensor, %w : Tensor, %b : Tensor):\n" + kConvHead +
                           "  %two : int = prim::Constant[value=2]()\n"
                           "  %four : int = prim::Constant[value=4]()\n"
                           "  %r : Tensor = aten::relu(%y)\n"
                           "  %sz : int[] = aten::size(%r)\n"
                           "  %n : int = aten::len(%sz)\n"
                           "  %gt : bool = aten::gt(%n, %two)\n"
                           "  %d : int = aten::dim(%r)\n"
                           "  %ne : bool = aten::ne(%d, %four)\n"
                           "  %dt : int = prim::dtype(%r)\n"
                           "  %fp : bool = aten::is_floating_point(%r)\n"
                           "  %xd : int = aten::dim(%x)\n"
                           "  %o : (Tensor, bool, bool, int, bool, int) = prim::TupleConstruct(%r, %gt, %ne, %dt, %fp, %xd)\n"
                           "  return (%o)\n";
  auto before = make(text, conv_constants());
  auto g = make(text, conv_constants());
  PassContext ctx = evaluating_pass_context();
  PassStats stats;
  ctx.stats = &stats;
  CHECK(find_pass("fold-tensor-queries")->run(*g, ctx));
  CHECK(stats.constants_folded == 3);  // the report's constants_folded counts each answer
  // len(size(r)) > 2 holds for rank 3 or 4; dim(r) != 4 does not decide (3 or 4); r is float32
  // (dtype 6); nothing is known of x's rank.
  CHECK(canonical(*g) ==
        "graph(%v0 : Tensor):\n"
        "  %v1 : Float(4, 3, 3, 3, requires_grad=0, device=cpu) = <tensor>\n"
        "  %v2 : Float(4, requires_grad=0, device=cpu) = <tensor>\n"
        "  %v3 : int = prim::Constant[value=1]()\n"
        "  %v4 : int[] = prim::Constant[value=[1, 1]]()\n"
        "  %v5 : int[] = prim::Constant[value=[0, 0]]()\n"
        "  %v6 : Tensor = aten::conv2d(%v0, %v1, %v2, %v4, %v5, %v4, %v3)\n"
        "  %v7 : int = prim::Constant[value=2]()\n"
        "  %v8 : int = prim::Constant[value=4]()\n"
        "  %v9 : Tensor = aten::relu(%v6)\n"
        "  %v10 : int[] = aten::size(%v9)\n"
        "  %v11 : int = aten::len(%v10)\n"
        "  %v12 : bool = prim::Constant[value=1]()\n"
        "  %v13 : int = aten::dim(%v9)\n"
        "  %v14 : bool = aten::ne(%v13, %v8)\n"
        "  %v15 : int = prim::Constant[value=6]()\n"
        "  %v16 : bool = prim::Constant[value=1]()\n"
        "  %v17 : int = aten::dim(%v0)\n"
        "  %v18 : (Tensor, bool, bool, int, bool, int) = prim::TupleConstruct(%v9, %v12, %v14, %v15, %v16, %v17)\n"
        "  return (%v18)\n");
  const std::string why = same_outputs(before, g, {image()});
  CHECK_MESSAGE(why.empty(), why);
  // Unbatched (3-D) input: the same answers hold.
  const std::string why3 = same_outputs(before, g, {IValue(filled(DType::Float32, {3, 8, 8}, 0.21f))});
  CHECK_MESSAGE(why3.empty(), why3);
}

TEST_CASE("fold-tensor-queries: not len(x.size()) when the list is written") {
  auto g = make("graph(%x : Tensor, %w : Tensor, %b : Tensor):\n" + kConvHead +
                    "  %sz : int[] = aten::size(%y)\n"
                    "  %e : int[] = aten::append(%sz, %one)\n"
                    "  %n : int = aten::len(%sz)\n"
                    "  %two : int = prim::Constant[value=2]()\n"
                    "  %gt : bool = aten::gt(%n, %two)\n"
                    "  return (%gt)\n",
                conv_constants());
  CHECK_FALSE(run_pass("fold-tensor-queries", *g));
}

TEST_CASE("eliminate-dead-branches: conditions decided by an enclosing If or a check that raised") {
  const std::string text =
      "graph(%x : Tensor, %c : bool, %d : bool):\n"
      "  %msg : str = prim::Constant[value=\"bad\"]()\n"
      "  %cls : str = prim::Constant[value=\"builtins.ValueError\"]()\n"
      "   = prim::If(%c)\n"
      "    block0():\n"
      "       = prim::RaiseException(%msg, %cls)\n"
      "      -> ()\n"
      "    block1():\n"
      "      -> ()\n"
      "  %nc : bool = aten::__not__(%c)\n"
      "  %y : Tensor = prim::If(%c)\n"
      "    block0():\n"
      "      %a : Tensor = aten::neg(%x)\n"
      "      -> (%a)\n"
      "    block1():\n"
      "      %b : Tensor = aten::relu(%x)\n"
      "      -> (%b)\n"
      "  %z : Tensor = prim::If(%d)\n"
      "    block0():\n"
      "      %e : Tensor = prim::If(%d)\n"
      "        block0():\n"
      "          %f : Tensor = aten::sigmoid(%y)\n"
      "          -> (%f)\n"
      "        block1():\n"
      "          -> (%y)\n"
      "      -> (%e)\n"
      "    block1():\n"
      "      -> (%y)\n"
      "  %o : (Tensor, bool) = prim::TupleConstruct(%z, %nc)\n"
      "  return (%o)\n";
  auto before = make(text);
  auto g = make(text);
  CHECK(run_pass("eliminate-dead-branches", *g));
  // After the check, c is False (in `not c` too) and `not c` True: the second If is its else
  // block; inside If(d)'s first block d is True, so the inner If is its first block.
  CHECK(canonical(*g) ==
        "graph(%v0 : Tensor,\n"
        "      %v1 : bool,\n"
        "      %v2 : bool):\n"
        "  %v3 : str = prim::Constant[value=\"bad\"]()\n"
        "  %v4 : str = prim::Constant[value=\"builtins.ValueError\"]()\n"
        "   = prim::If(%v1)\n"
        "    block0():\n"
        "       = prim::RaiseException(%v3, %v4)\n"
        "      -> ()\n"
        "    block1():\n"
        "      -> ()\n"
        "  %v5 : bool = prim::Constant[value=0]()\n"
        "  %v6 : bool = aten::__not__(%v5)\n"
        "  %v7 : bool = prim::Constant[value=0]()\n"
        "  %v8 : Tensor = aten::relu(%v0)\n"
        "  %v9 : Tensor = prim::If(%v2)\n"
        "    block0():\n"
        "      %v10 : bool = prim::Constant[value=1]()\n"
        "      %v11 : Tensor = aten::sigmoid(%v8)\n"
        "      -> (%v11)\n"
        "    block1():\n"
        "      -> (%v8)\n"
        "  %v12 : bool = prim::Constant[value=1]()\n"
        "  %v13 : (Tensor, bool) = prim::TupleConstruct(%v9, %v12)\n"
        "  return (%v13)\n");
  const IValue x(filled(DType::Float32, {5}, 0.7f));
  for (bool d : {false, true}) {
    const std::string why = same_outputs(before, g, {x, IValue(false), IValue(d)});
    CHECK_MESSAGE(why.empty(), why);
  }
}

TEST_CASE("simplify-arithmetic: identities where dtype, shape and aliasing provably stay") {
  const std::string text =
      "graph(%x : Tensor, %w : Tensor, %b : Tensor, %c0 : Tensor, %c1 : Tensor, %c2 : Tensor):\n" + kConvHead +
      "  %zero : int = prim::Constant[value=0]()\n"
      "  %fone : float = prim::Constant[value=1.]()\n"
      "  %fzero : float = prim::Constant[value=0.]()\n"
      "  %alpha : float = prim::Constant[value=2.5]()\n"
      "  %long : int = prim::Constant[value=4]()\n"
      "  %false : bool = prim::Constant[value=0]()\n"
      "  %none : NoneType = prim::Constant()\n"
      "  %a : Tensor = aten::mul(%y, %fone)\n"        // float * 1.0: gone
      "  %b2 : Tensor = aten::div(%a, %one)\n"        // float / 1: gone
      "  %c : Tensor = aten::add(%b2, %zero, %one)\n" // + 0: gone
      "  %d : Tensor = aten::sub(%c, %fzero, %alpha)\n"  // - 0.0 * 2.5: gone
      "  %e : Tensor = aten::mul(%d, %c0)\n"          // * a zero-dim float64 1: gone (rank >= 3)
      "  %f : Tensor = aten::mul(%e, %c1)\n"          // * ones(1, 1) float32: gone
      "  %g : Tensor = aten::mul(%f, %c2)\n"          // * tensor([2.]): stays
      "  %h : Tensor = aten::mul(%x, %fone)\n"        // x's dtype unknown: stays
      "  %l : Tensor = aten::to(%x, %long, %false, %false, %none)\n"
      "  %m : Tensor = aten::mul(%l, %fone)\n"        // int64 * 1.0 is float: stays
      "  %n : Tensor = aten::div(%l, %one)\n"         // int64 / 1 is float: stays
      "  %k : Tensor = aten::mul(%g, %one)\n"         // written below: stays
      "  %k2 : Tensor = aten::add_(%k, %one, %one)\n"
      "  %o : (Tensor, Tensor, Tensor, Tensor, Tensor) = prim::TupleConstruct(%k2, %h, %m, %n, %g)\n"
      "  return (%o)\n";
  auto consts = conv_constants();
  consts.emplace_back("c0", filled(DType::Float64, {}, 0, 1.0f));
  consts.emplace_back("c1", filled(DType::Float32, {1, 1}, 0, 1.0f));
  consts.emplace_back("c2", filled(DType::Float32, {1}, 0, 2.0f));
  auto before = make(text, consts);
  auto g = make(text, consts);
  // One identity of a chain per run (values merged once are not touched again: the alias
  // analysis is not updated), so run it as the pipeline does, until nothing changes.
  CHECK(run_pass("simplify-arithmetic", *g));
  size_t rounds = 1;
  while (run_pass("simplify-arithmetic", *g)) ++rounds;
  CHECK(rounds > 1);
  const std::string got = canonical(*g);
  CHECK(got.find("aten::div(%v") != std::string::npos);  // the integer one
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = got.find(what); at != std::string::npos; at = got.find(what, at + 1)) ++n;
    return n;
  };
  CHECK(count("aten::mul(") == 4);  // g, h, m, k
  CHECK(count("aten::div(") == 1);
  CHECK(count("aten::add(") == 0);
  CHECK(count("aten::sub(") == 0);
  // g now reads the conv's output directly.
  CHECK(got.find("aten::mul(%v9, %v5)") != std::string::npos);
  const std::string why = same_outputs(before, g, {image()});
  CHECK_MESSAGE(why.empty(), why);
}

TEST_CASE("remove-no-op-conversions: to, contiguous and flatten that return their input") {
  const std::string text =
      "graph(%x : Tensor, %w : Tensor, %b : Tensor):\n" + kConvHead +
      "  %zero : int = prim::Constant[value=0]()\n"
      "  %minus1 : int = prim::Constant[value=-1]()\n"
      "  %float : int = prim::Constant[value=6]()\n"
      "  %double : int = prim::Constant[value=7]()\n"
      "  %false : bool = prim::Constant[value=0]()\n"
      "  %true : bool = prim::Constant[value=1]()\n"
      "  %none : NoneType = prim::Constant()\n"
      "  %a : Tensor = aten::to(%y, %float, %false, %false, %none)\n"   // float32 already: gone
      "  %c : Tensor = aten::to(%a, %float, %false, %true, %none)\n"    // copy=True: stays
      "  %d : Tensor = aten::to(%a, %double, %false, %false, %none)\n"  // a conversion: stays
      "  %t : Tensor = aten::transpose(%a, %zero, %one)\n"
      "  %k : Tensor = aten::contiguous(%t, %zero)\n"                   // not known contiguous: stays
      "  %k2 : Tensor = aten::contiguous(%k, %zero)\n"                  // contiguous already: gone
      "  %f : Tensor = aten::flatten(%k2, %one, %minus1)\n"             // 2-D
      "  %f2 : Tensor = aten::flatten(%f, %one, %minus1)\n"             // one dim of a 2-D: gone
      "  %f3 : Tensor = aten::flatten(%f2, %zero, %minus1)\n"           // two dims: stays
      "  %o : (Tensor, Tensor, Tensor) = prim::TupleConstruct(%c, %d, %f3)\n"
      "  return (%o)\n";
  auto before = make(text, conv_constants());
  auto g = make(text, conv_constants());
  CHECK(run_pass("remove-no-op-conversions", *g));
  const std::string got = canonical(*g);
  CHECK(got ==
        "graph(%v0 : Tensor):\n"
        "  %v1 : Float(4, 3, 3, 3, requires_grad=0, device=cpu) = <tensor>\n"
        "  %v2 : Float(4, requires_grad=0, device=cpu) = <tensor>\n"
        "  %v3 : int = prim::Constant[value=1]()\n"
        "  %v4 : int[] = prim::Constant[value=[1, 1]]()\n"
        "  %v5 : int[] = prim::Constant[value=[0, 0]]()\n"
        "  %v6 : Tensor = aten::conv2d(%v0, %v1, %v2, %v4, %v5, %v4, %v3)\n"
        "  %v7 : int = prim::Constant[value=0]()\n"
        "  %v8 : int = prim::Constant[value=-1]()\n"
        "  %v9 : int = prim::Constant[value=6]()\n"
        "  %v10 : int = prim::Constant[value=7]()\n"
        "  %v11 : bool = prim::Constant[value=0]()\n"
        "  %v12 : bool = prim::Constant[value=1]()\n"
        "  %v13 : NoneType = prim::Constant()\n"
        "  %v14 : Tensor = aten::to(%v6, %v9, %v11, %v12, %v13)\n"
        "  %v15 : Tensor = aten::to(%v6, %v10, %v11, %v11, %v13)\n"
        "  %v16 : Tensor = aten::transpose(%v6, %v7, %v3)\n"
        "  %v17 : Tensor = aten::contiguous(%v16, %v7)\n"
        "  %v18 : Tensor = aten::flatten(%v17, %v3, %v8)\n"
        "  %v19 : Tensor = aten::flatten(%v18, %v7, %v8)\n"
        "  %v20 : (Tensor, Tensor, Tensor) = prim::TupleConstruct(%v14, %v15, %v19)\n"
        "  return (%v20)\n");
  const std::string why = same_outputs(before, g, {image()});
  CHECK_MESSAGE(why.empty(), why);
}

TEST_CASE("simplify-from-facts: a scripted module's input checks go, its outputs stay") {
  // What scripted BatchNorm2d and adaptive_avg_pool2d check, after a conv: rank 4 and rank > 2.
  const std::string text =
      "graph(%x : Tensor, %w : Tensor, %b : Tensor):\n" + kConvHead +
      "  %two : int = prim::Constant[value=2]()\n"
      "  %four : int = prim::Constant[value=4]()\n"
      "  %msg : str = prim::Constant[value=\"expected 4D input\"]()\n"
      "  %cls : str = prim::Constant[value=\"builtins.ValueError\"]()\n"
      "  %d : int = aten::dim(%y)\n"
      "  %bad : bool = aten::ne(%d, %four)\n"
      "   = prim::If(%bad)\n"
      "    block0():\n"
      "       = prim::RaiseException(%msg, %cls)\n"
      "      -> ()\n"
      "    block1():\n"
      "      -> ()\n"
      "  %r : Tensor = aten::relu(%y)\n"
      "  %d2 : int = aten::dim(%r)\n"
      "  %bad2 : bool = aten::ne(%d2, %four)\n"
      "   = prim::If(%bad2)\n"
      "    block0():\n"
      "       = prim::RaiseException(%msg, %cls)\n"
      "      -> ()\n"
      "    block1():\n"
      "      -> ()\n"
      "  %sz : int[] = aten::size(%r)\n"
      "  %n : int = aten::len(%sz)\n"
      "  %ok : bool = aten::gt(%n, %two)\n"
      "   = prim::If(%ok)\n"
      "    block0():\n"
      "      -> ()\n"
      "    block1():\n"
      "       = prim::RaiseException(%msg, %cls)\n"
      "      -> ()\n"
      "  %m : Tensor = aten::mul(%r, %one)\n"
      "  return (%m)\n";
  auto before = make(text, conv_constants());
  auto g = make(text, conv_constants());
  CHECK(run_pipeline("simplify-from-facts", *g, evaluating_pass_context()));
  find_pass("dce")->run(*g);
  const std::string got = canonical(*g);
  // The first `dim != 4` stays: the conv's output may be 3-D (an unbatched input), on which it
  // raises. Past it the conv's output is 4-D, and so is the relu of it: the second check and the
  // rank > 2 one go, and the x * 1.
  CHECK(got.find("aten::gt") == std::string::npos);
  CHECK(got.find("aten::len") == std::string::npos);
  CHECK(got.find("aten::mul") == std::string::npos);
  CHECK(got.find("aten::ne(") != std::string::npos);
  CHECK(got.find("aten::ne(") == got.rfind("aten::ne("));
  CHECK(got.find("prim::RaiseException") == got.rfind("prim::RaiseException"));
  const std::string why = same_outputs(before, g, {image()});
  CHECK_MESSAGE(why.empty(), why);
}

TEST_CASE("constant-propagation counts the nodes it folds, when asked") {
  const std::string text =
      "graph(%x : Tensor, %w : Tensor):\n"
      "  %one : int = prim::Constant[value=1]()\n"
      "  %t : Tensor = aten::t(%w)\n"
      "  %s : Tensor = aten::add(%t, %t, %one)\n"
      "  %y : Tensor = aten::matmul(%x, %s)\n"
      "  return (%y)\n";
  auto g = make(text, {{"w", filled(DType::Float32, {3, 2}, 0.5f)}});
  PassContext ctx = evaluating_pass_context();
  PassStats stats;
  ctx.stats = &stats;
  CHECK(find_pass("constant-propagation")->run(*g, ctx));
  CHECK(stats.constants_folded == 2);  // t and add; the matmul reads the input
  CHECK(canonical(*g).find("aten::matmul") != std::string::npos);
  // Without stats nothing is counted, and nothing breaks.
  auto h = make(text, {{"w", filled(DType::Float32, {3, 2}, 0.5f)}});
  CHECK(run_pass("constant-propagation", *h));
}

TEST_CASE("simplify-arithmetic: a one-element constant is read at its storage offset") {
  // Storage [1., 3., 1.]: the view from offset 1 is 3 (kept), the one from offset 0 is 1 (an
  // identity). A read that added the offset twice would take the 1 at offset 2 for the first and
  // drop a multiplication by 3.
  const std::string text =
      "graph(%x : Tensor, %w : Tensor, %b : Tensor, %c0 : Tensor, %c1 : Tensor):\n" + kConvHead +
      "  %a : Tensor = aten::mul(%y, %c0)\n"
      "  %d : Tensor = aten::mul(%a, %c1)\n"
      "  return (%d)\n";
  Tensor pair = filled(DType::Float32, {3}, 0, 1.0f);
  static_cast<float*>(pair.mutable_data())[1] = 3.0f;
  auto consts = conv_constants();
  consts.emplace_back("c0", Tensor::view_of(pair.storage(), DType::Float32, 1, {1}, {1}, "test"));
  consts.emplace_back("c1", Tensor::view_of(pair.storage(), DType::Float32, 0, {1}, {1}, "test"));
  auto before = make(text, consts);
  auto g = make(text, consts);
  while (run_pass("simplify-arithmetic", *g)) {
  }
  const std::string got = canonical(*g);
  size_t muls = 0;
  for (size_t at = got.find("aten::mul("); at != std::string::npos; at = got.find("aten::mul(", at + 1)) ++muls;
  CHECK(muls == 1);  // * c0 (3) kept, * c1 (1) gone
  const std::string why = same_outputs(before, g, {image()});
  CHECK_MESSAGE(why.empty(), why);
}
