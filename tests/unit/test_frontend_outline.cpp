#include <doctest/doctest.h>

#include "lib/core/error.h"
#include "tests/support/error_of.h"
#include "lib/serialization/class_outline.h"
#include "lib/frontend/lexer.h"

using namespace jitctl;
using jitctl::test::error_of;

namespace {

std::vector<Tok> kinds(const std::vector<Token>& ts) {
  std::vector<Tok> k;
  for (const auto& t : ts) k.push_back(t.kind);
  return k;
}

}  // namespace

TEST_CASE("lexer: indentation, implicit joining, literals") {
  LexOptions o{"f.py"};
  auto ts = lex("def f(x,\n      y):\n  return x ** 2 + 1e-5  # c\n\n  # only a comment\nz = 'a\\'b'\n", o);
  CHECK(kinds(ts) == std::vector<Tok>{Tok::Name, Tok::Name, Tok::Op, Tok::Name, Tok::Op, Tok::Name, Tok::Op, Tok::Op,
                                       Tok::Newline, Tok::Indent, Tok::Name, Tok::Name, Tok::Op, Tok::Number, Tok::Op,
                                       Tok::Number, Tok::Newline, Tok::Dedent, Tok::Name, Tok::Op, Tok::String,
                                       Tok::Newline, Tok::End});
  CHECK(ts[12].text == "**");
  CHECK(ts[15].text == "1e-5");
  CHECK(ts[20].text == "'a\\'b'");
  CHECK(ts[18].line == 6);
  CHECK(ts[13].col == 15);
  auto hex = lex("x = 0x1F + 2.5E+3 + .5\n", o);
  CHECK(hex[2].text == "0x1F");
  CHECK(hex[4].text == "2.5E+3");
  CHECK(hex[6].text == ".5");
  auto triple = lex("s = \"\"\"a\nb\"\"\"\nt = 1\n", o);
  CHECK(triple[4].line == 3);
}

TEST_CASE("lexer errors carry file:line:col") {
  LexOptions o{"code/__torch__.py"};
  CHECK(error_of([&] { lex("x = (1,\n", o); }).find("unclosed '('") != std::string::npos);
  CHECK(error_of([&] { lex("x = 1)\n", o); }).find("code/__torch__.py:1:6: unmatched ')'") != std::string::npos);
  CHECK(error_of([&] { lex("if x:\n    a\n  b\n", o); }).find(":3:3: dedent") != std::string::npos);
  CHECK(error_of([&] { lex("x = \"abc\n", o); }).find("unterminated string") != std::string::npos);
  CHECK(error_of([&] { lex(std::string("x = 1\n\xff\xfe\n"), o); }).find(":2:1: invalid UTF-8") != std::string::npos);
  CHECK(error_of([&] { lex(std::string("x\0y", 3), o); }).find("NUL") != std::string::npos);
  CHECK(error_of([&] { lex("x = $\n", o); }).find("unexpected character '$'") != std::string::npos);
  CHECK(error_of([&] { lex("x = " + std::string(100000, '(') + std::string(100000, ')') + "\n", o); })
            .find("deeper than 256") != std::string::npos);
}

TEST_CASE("class outlines: parameters, buffers, attributes, constants, methods") {
  const std::string src =
      "class Net(Module):\n"
      "  __parameters__ = [\"weight\", \"bias\", ]\n"
      "  __buffers__ = [\"running_mean\", ]\n"
      "  weight : Tensor\n"
      "  bias : Optional[Tensor]\n"
      "  running_mean : Tensor\n"
      "  training : bool\n"
      "  __annotations__[\"0\"] = __torch__.torch.nn.modules.linear.Linear\n"
      "  eps : Final[float] = 1.0000000000000001e-05\n"
      "  def forward(self: __torch__.Net,\n"
      "    x: Tensor) -> Tensor:\n"
      "    return x\n"
      "  def helper(self: __torch__.Net) -> Dict[str, int]:\n"
      "    return {}\n"
      "class Point(NamedTuple):\n"
      "  x : int\n"
      "def free(a: int) -> int:\n"
      "  return a\n";
  CodeOutline out;
  outline_code_file(src, "code/__torch__.py", "m.pt: archive/code/__torch__.py", out);
  const auto* c = out.find("__torch__.Net");
  REQUIRE(c);
  CHECK(c->is_module());
  CHECK(c->parameters == std::vector<std::string>{"weight", "bias"});
  CHECK(c->buffers == std::vector<std::string>{"running_mean"});
  REQUIRE(c->attributes.size() == 5);
  CHECK(c->attributes[1] == std::pair<std::string, std::string>{"bias", "Optional[Tensor]"});
  CHECK(c->attributes[4] == std::pair<std::string, std::string>{"0", "__torch__.torch.nn.modules.linear.Linear"});
  CHECK(c->constants == std::vector<std::pair<std::string, std::string>>{{"eps", "float"}});
  CHECK(c->methods == std::vector<std::string>{"forward", "helper"});
  CHECK(out.find("__torch__.Point")->base == "NamedTuple");
  CHECK(out.functions == std::vector<std::string>{"__torch__.free"});
  CHECK(qualifier_of_record("code/__torch__/torch/nn/modules/conv.py") == "__torch__.torch.nn.modules.conv");
  // __torch__.torch.nn.modules.linear.Linear is not defined in this outline.
  CHECK(error_of([&] { check_type_references(out); }).find("__torch__.torch.nn.modules.linear.Linear") != std::string::npos);
}

TEST_CASE("class outline errors") {
  CodeOutline out;
  auto err = [&](const std::string& src) { return error_of([&] { outline_code_file(src, "code/a.py", "a.py", out); }); };
  CHECK(err("class M(Modu").find("a.py:1:") != std::string::npos);
  CHECK(err("class M(Module):\n  def forwar").find("expected '('") != std::string::npos);
  CHECK(err("class M(Module):\n  __parameters__ = [1]\n").find("quoted attribute name") != std::string::npos);
  CHECK(err("class M(Module):\n  def f(self) -> int:\n").find("indented block") != std::string::npos);
}
