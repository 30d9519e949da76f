// The passes freezing runs, against PyTorch 1.13's: testdata/gen/make_freeze_goldens.py ran torch's
// own passes on small graphs written for one behaviour each (testdata/freeze_passes/NAME.in.txt,
// with tensor constants in NAME.in.npz) and saved what torch printed after each pass
// (NAME.PASS.out.txt) and the tensor constants of that graph (NAME.PASS.out.npz). jitctl runs the
// same pass, with the interpreter's kernels to fold tensors, and must print the same graph in
// compat.py's canonical form -- tensor constants' values and strides aside, which are compared as
// numbers (rtol 1e-5): a folded weight's printed digits, and the layout a kernel picks for its
// result, are not what these passes decide.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "lib/archive/npy.h"
#include "lib/frontend/schema_matching.h"
#include "lib/ir/constants.h"
#include "lib/ir/graph_parser.h"
#include "lib/ir/graph_printer.h"
#include "lib/runtime/interpreter.h"
#include "lib/runtime/node_evaluator.h"
#include "passes/registry.h"
#include "tests/support/canonical_graph.h"
#include "tests/support/testdata_path.h"

using namespace jitctl;
namespace fs = std::filesystem;

namespace {

fs::path dir() { return test::testdata_dir() / "freeze_passes"; }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string without_comment_lines(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line))
    if (!line.starts_with("#")) out += line + "\n";
  return out;
}

// Canonical text with every tensor constant's value and strides masked.
std::string comparable(const std::string& graph_text) {
  std::istringstream in(test::canonical_graph(graph_text));
  std::string line, out;
  while (std::getline(in, line)) {
    const size_t constant = line.find(" = prim::Constant[value=");
    if (constant != std::string::npos && line.find("strides=[") != std::string::npos) {
      std::string head = line.substr(0, constant);
      const size_t s = head.find("strides=[");
      head.erase(s, head.find(']', s) + 3 - s);  // "strides=[...], "
      line = head + " = prim::Constant[value=<tensor>]()";
    }
    out += line + "\n";
  }
  return out;
}

std::vector<Tensor> tensor_constants(const Block* b) {
  std::vector<Tensor> out;
  for (const Node* n : b->nodes()) {
    if (n->kind() == prim::Constant && n->output()->type()->kind() == TypeKind::Tensor) out.push_back(n->t(attr::value));
    for (const Block* sub : n->blocks()) {
      auto inner = tensor_constants(sub);
      out.insert(out.end(), inner.begin(), inner.end());
    }
  }
  return out;
}

double element(const Tensor& t, int64_t i) {
  int64_t offset = 0;
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    const int64_t size = t.sizes()[static_cast<size_t>(d)];
    offset += (i % size) * t.strides()[static_cast<size_t>(d)];
    i /= size;
  }
  const char* p = static_cast<const char*>(t.data()) + offset * static_cast<int64_t>(element_size(t.dtype()));
  if (t.dtype() == DType::Float64) {
    double v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  float v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// "" when the tensors agree in dtype, shape and values.
std::string differs(const Tensor& got, const Tensor& want) {
  if (got.dtype() != want.dtype()) return "dtype differs";
  if (got.sizes() != want.sizes()) return "shape differs";
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double g = element(got, i), w = element(want, i);
    if (std::fabs(g - w) > 1e-6 + 1e-5 * std::fabs(w)) return fmt::format("element {}: {} vs torch's {}", i, g, w);
  }
  return "";
}

// `t`'s elements in a new tensor that says it is on `device` (the kernels ignore the device).
Tensor placed_on(const Tensor& t, Device device) {
  Tensor out = Tensor::empty(t.dtype(), t.sizes(), device);
  for (int64_t i = 0; i < t.numel(); ++i) {
    const float v = static_cast<float>(element(t, i));
    std::memcpy(static_cast<char*>(out.mutable_data()) + i * static_cast<int64_t>(sizeof v), &v, sizeof v);
  }
  return out;
}

// NAME.in.txt with its %const_K inputs turned into constants, as the generator did in torch.
// `text` with its %const_K inputs turned into constants of `consts` (const_0, const_1, ...), in K
// order before the first node, as the generators did in torch; on `device` when given.
std::shared_ptr<Graph> with_constants(const std::string& text, const std::vector<std::pair<std::string, Tensor>>& consts,
                                      std::optional<Device> device = std::nullopt) {
  auto g = parse_graph(text);
  attach_builtin_schemas(g->block());
  {
    WithInsertPoint guard(*g->nodes().begin());
    for (size_t k = 0; k < consts.size(); ++k) {
      const std::string key = fmt::format("const_{}", k);
      auto it = std::find_if(consts.begin(), consts.end(), [&](const auto& c) { return c.first == key; });
      REQUIRE(it != consts.end());
      Value* c = g->insert_constant(IValue(device ? placed_on(it->second, *device) : it->second));
      for (Value* in : g->inputs())
        if (in->debug_name() == key) in->replace_all_uses_with(c);
    }
  }
  for (size_t i = g->inputs().size(); i-- > 0;)
    if (g->inputs()[i]->debug_name().starts_with("const_")) g->erase_input(i);
  return g;
}

// NAME.in.txt with its tensor constants.
std::shared_ptr<Graph> load_case(const std::string& name, std::optional<Device> device = std::nullopt) {
  return with_constants(without_comment_lines(slurp(dir() / (name + ".in.txt"))),
                        load_npz((dir() / (name + ".in.npz")).string()), device);
}

}  // namespace

TEST_CASE("freeze passes: synthetic graphs match torch") {
  REQUIRE(fs::is_directory(dir()));
  size_t compared = 0;
  for (const auto& e : fs::directory_iterator(dir())) {
    const std::string file = e.path().filename().string();
    if (!file.ends_with(".out.txt")) continue;
    // NAME.PASS.out.txt
    const std::string stem = file.substr(0, file.size() - 8);
    const size_t dot = stem.find('.');
    const std::string name = stem.substr(0, dot), pass = stem.substr(dot + 1);
    CAPTURE(name);
    CAPTURE(pass);
    const PassInfo* p = find_pass(pass);
    REQUIRE(p != nullptr);
    auto g = load_case(name);
    p->run(*g, evaluating_pass_context());
    const std::string got = comparable(graph_to_string(*g)), want = comparable(slurp(e.path()));
    CHECK_MESSAGE(got == want, "jitctl:\n", got, "\ntorch:\n", want);
    const auto ours = tensor_constants(g->block());
    const auto theirs = load_npz((dir() / (stem + ".out.npz")).string());
    REQUIRE(ours.size() == theirs.size());
    for (size_t i = 0; i < ours.size(); ++i) {
      CAPTURE(i);
      const std::string why = differs(ours[i], theirs[i].second);
      CHECK_MESSAGE(why.empty(), why);
    }
    ++compared;
  }
  CHECK(compared >= 20);
}

TEST_CASE("freeze passes: without a way to run operators, folding passes fold nothing") {
  auto g = load_case("conv_bn");
  const std::string before = graph_to_string(*g);
  CHECK_FALSE(find_pass("fold-frozen-conv-bn")->run(*g));
  CHECK(graph_to_string(*g) == before);
}

TEST_CASE("freeze passes: a REPEAT pipeline runs until nothing changes, an IF_FIRST one only after a change") {
  // fold-frozen-conv repeats its three folds: the first round folds conv -> mul -> div (one walk
  // of the mul/div fold takes both), the second changes nothing and ends it.
  auto g = load_case("conv_mul_div");
  PassContext ctx = evaluating_pass_context();
  std::vector<std::string> ran;
  ctx.after_each = [&](std::string_view pass, const Graph&) { ran.emplace_back(pass); };
  CHECK(run_pipeline("fold-frozen-conv", *g, ctx));
  CHECK(ran == std::vector<std::string>{"fold-frozen-conv-bn", "fold-frozen-conv-add-sub", "fold-frozen-conv-mul-div",
                                        "fold-frozen-conv-bn", "fold-frozen-conv-add-sub", "fold-frozen-conv-mul-div"});
  CHECK(comparable(graph_to_string(*g)) ==
        comparable(slurp(dir() / "conv_mul_div.fold-frozen-conv-mul-div.out.txt")));
  // unroll-and-simplify: nothing to unroll, so neither peephole nor propagation runs.
  auto h = load_case("cse_basic");
  ran.clear();
  CHECK_FALSE(run_pipeline("unroll-and-simplify", *h, ctx));
  CHECK(ran == std::vector<std::string>{"unroll-constant-loops"});
}

TEST_CASE("freeze passes: fold-conv-bn-past-shape-reads folds past a rank check and computes the same") {
  // conv_bn with the rank check scripted BatchNorm2d makes: the conv's output is also read by
  // aten::dim. PyTorch's fold gives up; jitctl's optimize variant folds, since the folded conv's
  // output has the same shape. Checked by running both graphs in the interpreter.
  const std::string text = without_comment_lines(slurp(dir() / "conv_bn.in.txt"));
  const std::string checked = [&] {
    std::string t = text;
    const std::string bn = "  %z : Tensor = aten::batch_norm";
    t.replace(t.find(bn), 0,
              "  %four : int = prim::Constant[value=4]()\n  %rank : int = aten::dim(%y)\n"
              "  %bad : bool = aten::ne(%rank, %four)\n"
              "  %msg : str = prim::Constant[value=\"expected 4D input\"]()\n"
              "  %cls : str = prim::Constant[value=\"builtins.ValueError\"]()\n"
              "   = prim::If(%bad)\n    block0():\n       = prim::RaiseException(%msg, %cls)\n      -> ()\n"
              "    block1():\n      -> ()\n");
    return t;
  }();
  auto make = [&] {
    auto g = parse_graph(checked);
    attach_builtin_schemas(g->block());
    const auto consts = load_npz((dir() / "conv_bn.in.npz").string());
    WithInsertPoint guard(*g->nodes().begin());
    for (const auto& [key, t] : consts) {
      Value* c = g->insert_constant(IValue(t));
      for (Value* in : g->inputs())
        if (in->debug_name() == key) in->replace_all_uses_with(c);
    }
    for (size_t i = g->inputs().size(); i-- > 0;)
      if (g->inputs()[i]->debug_name().starts_with("const_")) g->erase_input(i);
    return g;
  };
  auto original = make();
  auto torch_way = make();
  CHECK_FALSE(find_pass("fold-frozen-conv-bn")->run(*torch_way, evaluating_pass_context()));
  auto folded = make();
  CHECK(find_pass("fold-conv-bn-past-shape-reads")->run(*folded, evaluating_pass_context()));
  const std::string text_after = graph_to_string(*folded);
  CHECK(text_after.find("aten::batch_norm") == std::string::npos);
  CHECK(text_after.find("aten::dim") != std::string::npos);  // the check stays

  Tensor x = Tensor::empty(DType::Float32, {2, 3, 5, 5});
  auto* p = static_cast<float*>(x.mutable_data());
  for (int64_t i = 0; i < x.numel(); ++i) p[i] = std::sin(0.37f * static_cast<float>(i));
  const IValue want = plan_graph(original)({IValue(x)});
  const IValue got = plan_graph(folded)({IValue(x)});
  const std::string why = differs(got.to_tensor(), want.to_tensor());
  CHECK_MESSAGE(why.empty(), why);
}

TEST_CASE("freeze passes: fold-frozen-linear-bn folds only where batch_norm's channels are the linear's features") {
  // linear_bn_flatten (torch 2.x's fold is the golden above) with the flatten taken away: the
  // linear's input may be 3-D, where batch_norm normalizes dim 1, not the out-features. PyTorch
  // folds anyway; jitctl must not. Nor when the linear's output has another (value) use.
  const std::string text = without_comment_lines(slurp(dir() / "linear_bn_flatten.in.txt"));
  auto make = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    auto g = parse_graph(t);
    attach_builtin_schemas(g->block());
    const auto consts = load_npz((dir() / "linear_bn_flatten.in.npz").string());
    WithInsertPoint guard(*g->nodes().begin());
    for (const auto& [key, c] : consts) {
      Value* v = g->insert_constant(IValue(c));
      for (Value* in : g->inputs())
        if (in->debug_name() == key) in->replace_all_uses_with(v);
    }
    for (size_t i = g->inputs().size(); i-- > 0;)
      if (g->inputs()[i]->debug_name().starts_with("const_")) g->erase_input(i);
    return g;
  };
  const auto ctx = evaluating_pass_context();
  // Rank unknown: not folded.
  auto rank_unknown = make("aten::flatten(%x, %one, %minus1)", "aten::relu(%x)");
  CHECK_FALSE(find_pass("fold-frozen-linear-bn")->run(*rank_unknown, ctx));
  CHECK(graph_to_string(*rank_unknown).find("aten::batch_norm") != std::string::npos);
  // Another use of the linear's output: not folded.
  auto other_use = make("  return (%z)", "  %o : (Tensor, Tensor) = prim::TupleConstruct(%z, %y)\n  return (%o)");
  CHECK_FALSE(find_pass("fold-frozen-linear-bn")->run(*other_use, ctx));
  // A 2-D input made by view(x.size(0), -1) folds and computes what it did.
  const std::string viewed =
      "%n : int = aten::size(%x, %minus1)\n  %sizes : int[] = prim::ListConstruct(%n, %minus1)\n"
      "  %flat : Tensor = aten::view(%x, %sizes)";
  auto original = make("%flat : Tensor = aten::flatten(%x, %one, %minus1)", viewed);
  auto folded = make("%flat : Tensor = aten::flatten(%x, %one, %minus1)", viewed);
  CHECK(find_pass("fold-frozen-linear-bn")->run(*folded, ctx));
  CHECK(graph_to_string(*folded).find("aten::batch_norm") == std::string::npos);
  Tensor x = Tensor::empty(DType::Float32, {3, 2, 3});  // viewed as [size(x, -1), -1] = [3, 6]
  auto* p = static_cast<float*>(x.mutable_data());
  for (int64_t i = 0; i < x.numel(); ++i) p[i] = std::cos(0.29f * static_cast<float>(i));
  const IValue want = plan_graph(original)({IValue(x)});
  const IValue got = plan_graph(folded)({IValue(x)});
  const std::string why = differs(got.to_tensor(), want.to_tensor());
  CHECK_MESSAGE(why.empty(), why);
}

TEST_CASE("freeze passes: frozen-concat-linear merges linears of CUDA weights as PyTorch's FrozenConcatLinear") {
  // concat_linear_cpu (torch left it alone: CPU weights) with its weights on CUDA. Debian's torch
  // has no CUDA, so the expected graph is the pass's output form in PyTorch 1.13's source: the
  // concatenated weight and bias before the first linear, then -1, 1, 0 and each slice's end, the
  // merged linear, and the slices, each inserted right after the linear (so the last comes first).
  const Device cuda{Device::Type::CUDA, 0};
  auto g = load_case("concat_linear_cpu", cuda);
  auto original = load_case("concat_linear_cpu");
  const auto ctx = evaluating_pass_context();
  CHECK(find_pass("frozen-concat-linear")->run(*g, ctx));
  const std::string want =
      "graph(%v0 : Tensor):\n"
      "  %v1 : Float(4, 3, requires_grad=0, device=cuda:0) = prim::Constant[value=<tensor>]()\n"
      "  %v2 : Float(4, requires_grad=0, device=cuda:0) = prim::Constant[value=<tensor>]()\n"
      "  %v3 : Float(2, 3, requires_grad=0, device=cuda:0) = prim::Constant[value=<tensor>]()\n"
      "  %v4 : Float(2, requires_grad=0, device=cuda:0) = prim::Constant[value=<tensor>]()\n"
      "  %v5 : Float(5, 3, requires_grad=0, device=cuda:0) = prim::Constant[value=<tensor>]()\n"
      "  %v6 : Float(5, requires_grad=0, device=cuda:0) = prim::Constant[value=<tensor>]()\n"
      "  %v7 : Float(11, 3, requires_grad=0, device=cuda:0) = prim::Constant[value=<tensor>]()\n"
      "  %v8 : Float(11, requires_grad=0, device=cuda:0) = prim::Constant[value=<tensor>]()\n"
      "  %v9 : int = prim::Constant[value=-1]()\n"
      "  %v10 : int = prim::Constant[value=1]()\n"
      "  %v11 : int = prim::Constant[value=0]()\n"
      "  %v12 : int = prim::Constant[value=4]()\n"
      "  %v13 : int = prim::Constant[value=6]()\n"
      "  %v14 : int = prim::Constant[value=11]()\n"
      "  %v15 : Tensor = aten::linear(%v0, %v7, %v8)\n"
      "  %v16 : Tensor = aten::slice(%v15, %v9, %v13, %v14, %v10)\n"
      "  %v17 : Tensor = aten::slice(%v15, %v9, %v12, %v13, %v10)\n"
      "  %v18 : Tensor = aten::slice(%v15, %v9, %v11, %v12, %v10)\n"
      "  %v19 : (Tensor, Tensor, Tensor) = prim::TupleConstruct(%v18, %v17, %v16)\n"
      "  return (%v19)\n";
  CHECK(comparable(graph_to_string(*g)) == want);
  // The merged weight and bias are the old ones one after the other, and stay on CUDA.
  const auto consts = tensor_constants(g->block());
  REQUIRE(consts.size() == 8);
  CHECK(consts[6].device() == cuda);
  for (int64_t i = 0; i < 33; ++i) {
    const Tensor& part = i < 12 ? consts[0] : (i < 18 ? consts[2] : consts[4]);
    CHECK(element(consts[6], i) == element(part, i < 12 ? i : (i < 18 ? i - 12 : i - 18)));
  }
  // The interpreter's kernels run on the host whatever the device says: the outputs are the
  // unmerged graph's.
  Tensor x = Tensor::empty(DType::Float32, {2, 3});
  auto* p = static_cast<float*>(x.mutable_data());
  for (int64_t i = 0; i < x.numel(); ++i) p[i] = std::sin(0.71f * static_cast<float>(i));
  const IValue want_out = plan_graph(original)({IValue(x)});
  const IValue got_out = plan_graph(g)({IValue(x)});
  for (size_t k = 0; k < 3; ++k) {
    const std::string why = differs(got_out.to_tuple()->items[k].to_tensor(), want_out.to_tuple()->items[k].to_tensor());
    CHECK_MESSAGE(why.empty(), why);
  }
}

TEST_CASE("freeze passes: frozen-concat-linear leaves linears apart when the input is written between them") {
  const Device cuda{Device::Type::CUDA, 0};
  const auto consts = load_npz((dir() / "concat_linear_cpu.in.npz").string());
  auto graph = [&](const std::string& between) {
    return with_constants(
        "graph(%x : Tensor, %const_0 : Tensor, %const_1 : Tensor, %const_2 : Tensor, %const_3 : Tensor, %const_4 : Tensor, "
        "%const_5 : Tensor):\n"
        "  %one : int = prim::Constant[value=1]()\n"
        "  %a : Tensor = aten::linear(%x, %const_0, %const_1)\n" +
            between +
            "  %c : Tensor = aten::linear(%x, %const_2, %const_3)\n"
            "  %d : Tensor = aten::linear(%x, %const_4, %const_5)\n"
            "  return (%a, %c, %d)\n",
        consts, cuda);
  };
  const auto ctx = evaluating_pass_context();
  auto linears = [](const Graph& g) {
    const std::string text = graph_to_string(g);
    size_t n = 0;
    for (size_t at = text.find("aten::linear"); at != std::string::npos; at = text.find("aten::linear", at + 1)) ++n;
    return n;
  };
  // The first linear cannot move past the write; the two after it merge.
  auto written = graph("  %x2 : Tensor = aten::add_(%x, %one, %one)\n");
  CHECK(find_pass("frozen-concat-linear")->run(*written, ctx));
  CHECK(linears(*written) == 2);
  auto read = graph("  %x2 : Tensor = aten::add(%x, %one, %one)\n");
  CHECK(find_pass("frozen-concat-linear")->run(*read, ctx));
  CHECK(linears(*read) == 1);
}
