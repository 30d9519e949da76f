#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>

#include "lib/archive/archive.h"
#include "lib/core/error.h"
#include "lib/frontend/parser.h"
#include "tests/support/testdata_path.h"
#include "tests/support/error_of.h"

using namespace jitctl;
using jitctl::test::error_of;
namespace fs = std::filesystem;

namespace {

ParseOptions opts() {
  ParseOptions o;
  o.file = "t.py";
  return o;
}

// The dump of a whole file, without the trailing newline.
std::string P(std::string_view src) {
  auto s = dump(parse_source(src, opts()));
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

std::string E(std::string_view src) { return dump(*parse_expression(src, opts())); }

std::string parse_error(std::string_view src) {
  return error_of([&] { parse_source(src, opts()); });
}

std::string repeat(std::string_view s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

// Parses tokens lexed with a bracket/indent limit far above the parser's, so that the parser's
// own guard (not the lexer's) must stop the input.
std::string parser_error(const std::string& src) {
  LexOptions lo;
  lo.file = "t.py";
  lo.max_nesting = 1'000'000;
  const auto tokens = lex(src, lo);
  return error_of([&] { parse_tokens(tokens, opts()); });
}

uint32_t max_height(const ParsedFile& f) {
  uint32_t h = 0;
  std::function<void(const Stmt&)> walk = [&](const Stmt& s) {
    for (const auto* e : {&s.value, &s.annotation, &s.message})
      if (*e) h = std::max(h, (*e)->height);
    for (const auto& t : s.targets)
      if (t) h = std::max(h, t->height);
    for (const auto& b : s.body) walk(*b);
    for (const auto& b : s.orelse) walk(*b);
    if (s.def)
      for (const auto& b : s.def->body) walk(*b);
    if (s.cls)
      for (const auto& b : s.cls->body) walk(*b);
  };
  for (const auto& s : f.body) walk(*s);
  return h;
}

}  // namespace

TEST_CASE("parser: operator precedence and associativity") {
  CHECK(E("1 + 2 * 3") == "(+ 1 (* 2 3))");
  CHECK(E("(1 + 2) * 3") == "(* (+ 1 2) 3)");
  CHECK(E("a - b - c") == "(- (- a b) c)");
  CHECK(E("a / b // c % d @ e") == "(@ (% (// (/ a b) c) d) e)");
  CHECK(E("-2 ** 2") == "(- (** 2 2))");
  CHECK(E("2 ** -1") == "(** 2 (- 1))");
  CHECK(E("a ** b ** c") == "(** a (** b c))");
  CHECK(E("-x ** -y") == "(- (** x (- y)))");
  CHECK(E("-a * b") == "(* (- a) b)");
  CHECK(E("~x + +y") == "(+ (~ x) (+ y))");
  CHECK(E("- - x") == "(- (- x))");
  CHECK(E("a | b ^ c & d << 1 + 2") == "(| a (^ b (& c (<< d (+ 1 2)))))");
  CHECK(E("a >> 1 << 2") == "(<< (>> a 1) 2)");
  CHECK(E("not a and b or c") == "(or (and (not a) b) c)");
  CHECK(E("a or b and c") == "(or a (and b c))");
  CHECK(E("a and b and c") == "(and (and a b) c)");
  CHECK(E("not a == b") == "(not (== a b))");
  CHECK(E("not not a") == "(not (not a))");
  CHECK(E("a + 1 < b * 2") == "(< (+ a 1) (* b 2))");
  CHECK(E("a < b < c") == "(cmp a < b < c)");
  CHECK(E("a < b <= c != d") == "(cmp a < b <= c != d)");
  CHECK(E("a is not None") == "(is-not a None)");
  CHECK(E("a is None") == "(is a None)");
  CHECK(E("x not in y") == "(not-in x y)");
  CHECK(E("x in y and not x in z") == "(and (in x y) (not (in x z)))");
  CHECK(E("a if c else b") == "(ifexp c a b)");
  CHECK(E("a if c else b if d else e") == "(ifexp c a (ifexp d b e))");
  CHECK(E("(a if c else b) if d else e") == "(ifexp d (ifexp c a b) e)");
  CHECK(E("x + 1 if a or b else -y") == "(ifexp (or a b) (+ x 1) (- y))");
  CHECK(E("-a.b(c)[0]") == "(- (index (call (. a b) c) 0))");
  CHECK(E("a.b.c") == "(. (. a b) c)");
  CHECK(E("f(x)(y)") == "(call (call f x) y)");
  CHECK(E("1, 2") == "(tuple 1 2)");
  CHECK_MESSAGE(error_of([] { parse_expression("a == not b", opts()); }).find("expected an expression but found 'not'") !=
                    std::string::npos,
                "`not` binds looser than comparisons");
}

TEST_CASE("parser: number literals") {
  auto num = [](std::string_view s) { return parse_expression(s, opts()); };
  CHECK(num("0x1F")->int_value == 31);
  CHECK(num("0X1f")->kind == ExprKind::Int);
  CHECK(num("0o17")->int_value == 15);
  CHECK(num("0b101")->int_value == 5);
  CHECK(num("1_000")->int_value == 1000);
  CHECK(num("0")->int_value == 0);
  CHECK(num("00")->int_value == 0);
  CHECK(num("9223372036854775807")->int_value == 9223372036854775807ull);
  CHECK(num("9223372036854775808")->int_value == 9223372036854775808ull);
  auto f = num("1e-5");
  CHECK(f->kind == ExprKind::Float);
  CHECK(f->float_value == 1e-5);
  CHECK(f->text == "1e-5");
  CHECK(num("1.0000000000000001e-05")->float_value == 1.0000000000000001e-05);
  CHECK(num("2.5E+3")->float_value == 2500.0);
  CHECK(num("0e0")->float_value == 0.0);
  CHECK(num(".5")->float_value == 0.5);
  CHECK(num("1.e5")->float_value == 1e5);
  CHECK(num("3E2")->float_value == 300.0);
  CHECK(E("1.") == "1.0");
  CHECK(E("0.10000000000000001") == "0.1");
  CHECK(num("1e400")->float_value == HUGE_VAL);
  CHECK(E("inf") == "inf");
  CHECK(E("-nan") == "(- nan)");
  CHECK(E("[1., 2.]") == "(list 1.0 2.0)");
  CHECK(error_of([&] { num("18446744073709551616"); }).find("too large") != std::string::npos);
  CHECK(error_of([&] { num("0777"); }) == "t.py:1:1: invalid number literal '0777'");
  CHECK(error_of([&] { num("1j"); }) == "t.py:1:1: complex literals are not supported");
  CHECK(error_of([&] { num("12abc"); }) == "t.py:1:1: invalid number literal '12abc'");
  CHECK(error_of([&] { num("0x"); }) == "t.py:1:1: invalid number literal '0x'");
  CHECK(error_of([&] { num("1__0"); }) == "t.py:1:1: invalid number literal '1__0'");
}

TEST_CASE("parser: string literals and escapes") {
  auto str = [](std::string_view s) {
    auto e = parse_expression(s, opts());
    REQUIRE(e->kind == ExprKind::String);
    return e->text;
  };
  CHECK(str(R"("a\nb\tc")") == "a\nb\tc");
  CHECK(str(R"('\\ \' \"')") == "\\ ' \"");
  CHECK(str(R"("\a\b\f\v\r")") == "\a\b\f\v\r");
  CHECK(str(R"("\x41\x7a")") == "Az");
  CHECK(str(R"("\101\60\0")") == std::string("A0\0", 3));
  CHECK(str(R"("\377")") == "\xff");
  CHECK(str(R"("\xff")") == "\xff");  // one byte, as TorchScript strings are bytes
  CHECK(str(R"("\u00e9\U0001F600")") == "\xc3\xa9\xf0\x9f\x98\x80");
  CHECK(str(R"("\q")") == "\\q");  // unknown escapes stay, as in Python
  CHECK(str(R"(r"a\nb\'")") == "a\\nb\\'");
  CHECK(str(R"(R'\x')") == "\\x");
  CHECK(str(R"(u"x")") == "x");
  CHECK(str(R"("a" 'b' """c""")") == "abc");
  CHECK(str("\"\"\"line1\nline2\\\nline3\"\"\"") == "line1\nline2line3");
  CHECK(str("''") == "");
  CHECK(str("\"\"\"\"\"\"") == "");
  CHECK(str("\"don\\'t match\"") == "don't match");
  // PyTorch's printer writes a non-ASCII byte as a malformed octal escape ("\0)+" for 0xc3);
  // Python reads that as \0 followed by text, and so does this parser.
  CHECK(str(R"("\0)+")") == std::string("\0)+", 3));
  CHECK(E(R"("q\"\n")") == R"("q\"\n")");
  CHECK(parse_error(R"(x = "ab\x4")" "\n") == "t.py:1:8: malformed \\x escape: expected two hex digits");
  CHECK(error_of([&] { str("\"\"\"a\nbc\\u12\"\"\""); }) == "t.py:2:3: malformed \\u escape: expected 4 hex digits");
  CHECK(error_of([&] { str(R"("\777")"); }) == "t.py:1:2: octal escape above \\377");
  CHECK(error_of([&] { str(R"("\ud800")"); }).find("not a Unicode scalar value") != std::string::npos);
  CHECK(error_of([&] { str(R"(b"x")"); }) == "t.py:1:1: bytes literals are not supported");
  std::string out, err;
  CHECK(decode_string_literal(R"('a\tb')", out, err));
  CHECK(out == "a\tb");
  CHECK_FALSE(decode_string_literal(R"('\N{DASH}')", out, err));
  CHECK(err == "\\N{...} escapes are not supported");
}

TEST_CASE("parser: subscripts and slices") {
  CHECK(E("a[0]") == "(index a 0)");
  CHECK(E("a[-1]") == "(index a (- 1))");
  CHECK(E("a[1:2:3]") == "(index a (slice 1 2 3))");
  CHECK(E("a[1:]") == "(index a (slice 1 _ _))");
  CHECK(E("a[:2]") == "(index a (slice _ 2 _))");
  CHECK(E("a[::2]") == "(index a (slice _ _ 2))");
  CHECK(E("a[::]") == "(index a (slice _ _ _))");
  CHECK(E("a[:, 0]") == "(index a (slice _ _ _) 0)");
  CHECK(E("a[..., 1:-1]") == "(index a ... (slice 1 (- 1) _))");
  CHECK(E("a[...]") == "(index a ...)");
  CHECK(E("a[i, j]") == "(index a i j)");
  CHECK(E("a[(i, j)]") == "(index a (tuple i j))");
  CHECK(E("a[x,]") == "(index a (tuple x))");
  CHECK(E("(box)[0]") == "(index box 0)");
  CHECK(E("Dict[str, List[Tensor]]") == "(index Dict str (index List Tensor))");
  CHECK(E("Tuple[()]") == "(index Tuple (tuple))");
  auto e = parse_expression("a[:, 0]", opts());
  REQUIRE(e->children[1]->kind == ExprKind::Slice);
  CHECK(e->children[1]->children.size() == 3);
  CHECK(e->children[1]->children[0] == nullptr);
  CHECK(error_of([] { parse_expression("a[]", opts()); }) == "t.py:1:3: expected an index");
}

TEST_CASE("parser: displays, calls and comprehensions") {
  CHECK(E("()") == "(tuple)");
  CHECK(E("(1,)") == "(tuple 1)");
  CHECK(E("(1, 2, )") == "(tuple 1 2)");
  CHECK(E("[]") == "(list)");
  CHECK(E("[\"weight\", \"bias\", ]") == "(list \"weight\" \"bias\")");
  CHECK(E("{}") == "(dict)");
  CHECK(E("{\"last\": h2, \"first\": _6}") == "(dict \"last\" h2 \"first\" _6)");
  CHECK(E("[x * 2 for x in xs if x > 0 if x < 9]") == "(listcomp (* x 2) (for x xs (> x 0) (< x 9)))");
  CHECK(E("[a for a, b in zip(x, y)]") == "(listcomp a (for (tuple a b) (call zip x y)))");
  CHECK(E("[x for x in xs for y in x]") == "(listcomp x (for x xs) (for y x))");
  CHECK(E("{k: v for k, v in items}") == "(dictcomp k v (for (tuple k v) items))");
  CHECK(E("[a if c else b for a in xs]") == "(listcomp (ifexp c a b) (for a xs))");
  CHECK(E("torch.add(x, y, alpha=1)") == "(call (. torch add) x y (kw alpha 1))");
  CHECK(E("(lin).forward(h, )") == "(call (. lin forward) h)");
  CHECK(E("f()") == "(call f)");
  CHECK(E("f(*args, k=None)") == "(call f (* args) (kw k None))");
  CHECK(E("annotate(List[int], [])") == "(call annotate (index List int) (list))");
  CHECK(E("__torch__.foo.Bar.__new__(__torch__.foo.Bar)") ==
        "(call (. (. (. __torch__ foo) Bar) __new__) (. (. __torch__ foo) Bar))");
  CHECK(E("getattr(self, \"0\")") == "(call getattr self \"0\")");
  CHECK(E("CONSTANTS.c0") == "(. CONSTANTS c0)");
  CHECK(E("True if None else False") == "(ifexp None True False)");
  CHECK(error_of([] { parse_expression("f(a=1, b)", opts()); }) == "t.py:1:8: positional argument follows keyword argument");
  CHECK(error_of([] { parse_expression("{1, 2}", opts()); }) == "t.py:1:3: set literals are not supported");
  CHECK(error_of([] { parse_expression("f(x for x in y)", opts()); }) == "t.py:1:5: generator expressions are not supported");
  CHECK(error_of([] { parse_expression("lambda x: x", opts()); }) == "t.py:1:1: lambda is not supported");
  CHECK(error_of([] { parse_expression("a b", opts()); }) == "t.py:1:3: unexpected 'b' after the expression");
}

TEST_CASE("parser: assignments") {
  CHECK(P("x = 1\n") == "(= x 1)");
  CHECK(P("_3, h2, k = _4, h3, k0\n") == "(= (tuple _3 h2 k) (tuple _4 h3 k0))");
  CHECK(P("(a, b), c = f()\n") == "(= (tuple (tuple a b) c) (call f))");
  CHECK(P("[a, b] = x\n") == "(= (list a b) x)");
  CHECK(P("self.total = _5\n") == "(= (. self total) _5)");
  CHECK(P("__annotations__[\"0\"] = __torch__.A\n") == "(= (index __annotations__ \"0\") (. __torch__ A))");
  CHECK(P("a = b = 1\n") == "(= a b 1)");
  CHECK(P("x : int = 1\n") == "(: x int 1)");
  CHECK(P("weight : Tensor\n") == "(: weight Tensor)");
  CHECK(P("shape : Final[Tuple[int, int]] = (2, 6)\n") == "(: shape (index Final (index Tuple int int)) (tuple 2 6))");
  CHECK(P("x += 1\n") == "(+= x 1)");
  CHECK(P("x //= 2\nx **= 2\nx @= m\nx >>= 1\n") == "(//= x 2)\n(**= x 2)\n(@= x m)\n(>>= x 1)");
  CHECK(P("op_version_set = 1\n") == "(= op_version_set 1)");
  CHECK(P("x = 1; y = 2;\n") == "(= x 1)\n(= y 2)");
  CHECK(P("f(x)\n") == "(expr (call f x))");
  CHECK(P("\"docstring\"\n") == "(expr \"docstring\")");
  CHECK(P("") == "");
  CHECK(P("# only a comment\n\n") == "");
  CHECK(P("x = 1") == "(= x 1)");  // no final newline
  CHECK(P("x = 1\r\ny = 2\r\n") == "(= x 1)\n(= y 2)");
  CHECK(parse_error("f() = 1\n") == "t.py:1:1: cannot assign to this expression");
  CHECK(parse_error("a + b += 1\n") == "t.py:1:1: cannot use '+=' on this target");
  CHECK(parse_error("(a, b) : int = 1\n") == "t.py:1:1: only a name, attribute or subscript can be annotated");
  CHECK(parse_error("x = 1 2\n") == "t.py:1:7: expected the end of the line but found number 2");
}

TEST_CASE("parser: control flow") {
  CHECK(P("if a:\n  pass\nelif b:\n  x = 1\nelse:\n  return\n") ==
        "(if a (body pass) (else (if b (body (= x 1)) (else (return)))))");
  CHECK(P("if a: return 1\n") == "(if a (body (return 1)))");
  CHECK(P("if a:\n  if b:\n    pass\n  else:\n    pass\n") == "(if a (body (if b (body pass) (else pass))))");
  CHECK(P("for i in range(n):\n  continue\n") == "(for i (call range n) (body continue))");
  CHECK(P("for a, b in xs:\n  break\nelse:\n  pass\n") == "(for (tuple a b) xs (body break) (else pass))");
  CHECK(P("while _3:\n  _3, h2 = _4, h3\n") == "(while _3 (body (= (tuple _3 h2) (tuple _4 h3))))");
  CHECK(P("return a, b\n") == "(return (tuple a b))");
  CHECK(P("return (h2, outs, d)\n") == "(return (tuple h2 outs d))");
  CHECK(P("raise  __torch__.torch.jit.Error(\"boom\")\n") ==
        "(raise (call (. (. (. __torch__ torch) jit) Error) \"boom\"))");
  CHECK(P("raise\n") == "(raise)");
  CHECK(P("assert x\nassert x > 0, \"msg\"\n") == "(assert x)\n(assert (> x 0) \"msg\")");
  CHECK(P("with ctx as x, other:\n  pass\n") == "(with (as ctx x) (as other _) (body pass))");
  CHECK(P("del a[0], b\n") == "(del (index a 0) b)");
  CHECK(P("global g, h\n") == "(global g h)");
  CHECK(P("import __torch__.foo, bar\n") == "(import __torch__.foo bar)");
  CHECK(P("if x:\n\n  # comment\n  y = 1\n\n\nz = 2\n") == "(if x (body (= y 1)))\n(= z 2)");
  CHECK(parse_error("if x\n  pass\n") == "t.py:1:5: expected ':' but found the end of the line");
  CHECK(parse_error("if x:\npass\n") == "t.py:2:1: expected an indented block but found 'pass'");
  CHECK(parse_error("x = 1\n  y = 2\n") == "t.py:2:3: unexpected indent");
  CHECK(parse_error("else:\n  pass\n") == "t.py:1:1: 'else' without a matching 'if'");
  CHECK(parse_error("for x of y:\n  pass\n") == "t.py:1:7: expected 'in' but found 'of'");
  CHECK(parse_error("for f() in y:\n  pass\n") == "t.py:1:5: cannot assign to this expression");
  CHECK(parse_error("x = (1 + )\n") == "t.py:1:10: expected an expression but found ')'");
  CHECK(parse_error("try:\n  pass\n") == "t.py:1:1: 'try' is not supported in TorchScript source");
  CHECK(parse_error("raise E from e\n") == "t.py:1:9: 'raise ... from' is not supported");
  CHECK(parse_error("x = [1,\n  2,\n  3 4]\n") == "t.py:3:5: expected ']' but found number 4");
}

TEST_CASE("parser: functions and classes") {
  CHECK(P("def f(x: Tensor, k: int=1) -> Tensor:\n  return x\n") ==
        "(def f (params (x Tensor) (k int 1)) Tensor (body (return x)))");
  CHECK(P("@staticmethod\n@torch.jit.export\ndef g(*, y: float = 2.) -> None:\n  pass\n") ==
        "(def g (decorators staticmethod (. (. torch jit) export)) (params (y kwonly float 2.0)) None (body pass))");
  CHECK(P("def h(self, *args, **kwargs):\n  pass\n") == "(def h (params (self _) (*args _) (**kwargs _)) _ (body pass))");
  CHECK(P("def forward(self, x: Tensor) -> Tensor:\n  pass\n") ==
        "(def forward (params (self _) (x Tensor)) Tensor (body pass))");
  CHECK(P("class E(Enum):\n  A = 1\n  B = \"b\"\n") == "(class E (bases Enum) (body (= A 1) (= B \"b\")))");
  CHECK(P("class A:\n  x : int\n") == "(class A (bases) (body (: x int)))");
  CHECK(P("@torch.jit.script\nclass A(object): pass\n") == "(class A (decorators (. (. torch jit) script)) (bases object) (body pass))");
  CHECK(P("def f(x): return x\n") == "(def f (params (x _)) _ (body (return x)))");
  CHECK(P("def f():\n  def __forked_function():\n    return g(x, )\n  fa = fork(__forked_function)\n") ==
        "(def f (params) _ (body (def __forked_function (params) _ (body (return (call g x)))) (= fa (call fork "
        "__forked_function))))");

  const char* linear =
      "class Linear(Module):\n"
      "  __parameters__ = [\"weight\", \"bias\", ]\n"
      "  __buffers__ = []\n"
      "  weight : Tensor\n"
      "  _is_full_backward_hook : Optional[bool]\n"
      "  in_features : Final[int] = 8\n"
      "  def forward(self: __torch__.torch.nn.modules.linear.___torch_mangle_13.Linear,\n"
      "    input: Tensor) -> Tensor:\n"
      "    weight = self.weight\n"
      "    return torch.linear(input, weight, )\n";
  CHECK(P(linear) ==
        "(class Linear (bases Module) (body "
        "(= __parameters__ (list \"weight\" \"bias\")) "
        "(= __buffers__ (list)) "
        "(: weight Tensor) "
        "(: _is_full_backward_hook (index Optional bool)) "
        "(: in_features (index Final int) 8) "
        "(def forward (params (self (. (. (. (. (. (. __torch__ torch) nn) modules) linear) ___torch_mangle_13) Linear)) "
        "(input Tensor)) Tensor (body (= weight (. self weight)) (return (call (. torch linear) input weight))))))");

  auto f = parse_source(linear, opts());
  const auto& cls = *f.body[0]->cls;
  CHECK(cls.name == "Linear");
  CHECK(cls.body.size() == 6);
  const auto& def = *cls.body[5]->def;
  CHECK(def.name == "forward");
  CHECK(def.params.size() == 2);
  CHECK(def.params[1].range.line == 8);
  CHECK(def.params[1].range.col == 5);
  CHECK(def.range.line == 7);
  CHECK(def.range.col == 3);

  CHECK(parse_error("def f(x, x):\n  pass\n") == "t.py:1:10: duplicate parameter 'x'");
  CHECK(parse_error("def f(x)\n  pass\n") == "t.py:1:9: expected ':' but found the end of the line");
  CHECK(parse_error("def (x):\n  pass\n") == "t.py:1:5: expected a function name but found '('");
  CHECK(parse_error("@dec\nx = 1\n") == "t.py:2:1: expected 'def' or 'class' after a decorator but found 'x'");
  CHECK(parse_error("class A(metaclass=M):\n  pass\n") == "t.py:1:9: class keyword arguments are not supported");
}

TEST_CASE("parser: source ranges") {
  const std::string src = "x = 1\nif y:\n  z = foo(1,\n     2) + w.a\n";
  auto f = parse_source(src, opts());
  const auto& assign = *f.body[1]->body[0];
  CHECK(assign.range.line == 3);
  CHECK(assign.range.col == 3);
  CHECK(src.substr(assign.range.start, assign.range.end - assign.range.start) == "z = foo(1,\n     2) + w.a");
  const auto& plus = *assign.value;
  CHECK(plus.kind == ExprKind::Binary);
  const auto& call = *plus.children[0];
  CHECK(src.substr(call.range.start, call.range.end - call.range.start) == "foo(1,\n     2)");
  CHECK(call.range.line == 3);
  CHECK(call.range.col == 7);
  const auto& two = *call.children[2];
  CHECK(two.range.line == 4);
  CHECK(two.range.col == 6);
  const auto& attr = *plus.children[1];
  CHECK(src.substr(attr.range.start, attr.range.end - attr.range.start) == "w.a");
  const auto& iff = *f.body[1];
  CHECK(src.substr(iff.range.start, iff.range.end - iff.range.start) == src.substr(6, src.size() - 7));
  CHECK(f.file == "t.py");
}

TEST_CASE("parser: hostile nesting gives a clean error, never a stack overflow") {
  const std::string depth_msg = "expression nests deeper than 256";
  auto mentions = [](const std::string& err, const std::string& what) {
    INFO(err);
    CHECK(err.find(what) != std::string::npos);
  };
  // Prefix operators: each one recurses.
  mentions(parse_error("x = " + repeat("- ", 50'000) + "y\n"), depth_msg);
  mentions(parse_error("x = " + repeat("not ", 100'000) + "y\n"), depth_msg);
  mentions(parse_error("x = " + repeat("~+", 50'000) + "y\n"), depth_msg);
  // Right-associative power.
  mentions(parse_error("x = a" + repeat("**a", 100'000) + "\n"), depth_msg);
  // Brackets: the lexer stops them first; with its limit lifted the parser's guard does.
  mentions(parse_error("x = " + repeat("(", 100'000) + "y" + repeat(")", 100'000) + "\n"), "brackets nest deeper than 256");
  mentions(parser_error("x = " + repeat("(", 100'000) + "y" + repeat(")", 100'000) + "\n"), depth_msg);
  mentions(parser_error("x = " + repeat("[", 100'000) + repeat("]", 100'000) + "\n"), depth_msg);
  mentions(parser_error("x = " + repeat("{1: ", 100'000) + "2" + repeat("}", 100'000) + "\n"), depth_msg);
  mentions(parser_error("x = " + repeat("f(", 100'000) + repeat(")", 100'000) + "\n"), depth_msg);
  mentions(parser_error("x = " + repeat("a[", 100'000) + "0" + repeat("]", 100'000) + "\n"), depth_msg);
  // Long left-associative chains are loops, but the tree they build is still bounded.
  mentions(parse_error("x = a" + repeat(".b", 100'000) + "\n"), depth_msg);
  mentions(parse_error("x = f" + repeat("(x)", 100'000) + "\n"), depth_msg);
  mentions(parse_error("x = a" + repeat("[0]", 100'000) + "\n"), depth_msg);
  mentions(parse_error("x = a" + repeat(" + a", 100'000) + "\n"), depth_msg);
  mentions(parse_error("x = a" + repeat(" and a", 100'000) + "\n"), depth_msg);
  mentions(parse_error("x = " + repeat("a if c else ", 100'000) + "a\n"), depth_msg);
  mentions(parse_error(fmt::format("a{} = 1\n", repeat(".b", 100'000))), depth_msg);
  // A comparison chain is one flat node: long but shallow, so it parses.
  CHECK(parse_source("x = a" + repeat(" < a", 100'000) + "\n", opts()).body.size() == 1);
  // Blocks: the lexer bounds indentation; with its limit lifted the parser counts blocks too.
  std::string blocks;
  for (size_t i = 0; i < 1000; ++i) blocks += std::string(i, ' ') + "if x:\n";
  blocks += std::string(1000, ' ') + "pass\n";
  mentions(parse_error(blocks), "blocks nest deeper than 256");
  mentions(parser_error(blocks), "blocks nest deeper than 256");
  mentions(parse_error("if x:\n  pass\n" + repeat("elif x:\n  pass\n", 100'000)), "blocks nest deeper than 256");
  // Just under the limits parses, and the tree respects the bound.
  auto ok = parse_source("x = " + repeat("-", 250) + "y\n", opts());
  CHECK(max_height(ok) <= 256);
  auto chain = parse_source("x = a" + repeat(".b", 250) + "\n", opts());
  CHECK(max_height(chain) == 251);
  std::string deep_ok;
  for (size_t i = 0; i < 200; ++i) deep_ok += std::string(i, ' ') + "if x:\n";
  deep_ok += std::string(200, ' ') + "y = " + repeat("(", 200) + "1" + repeat(")", 200) + "\n";
  CHECK(parse_source(deep_ok, opts()).body.size() == 1);
  // The bound is an option.
  ParseOptions small = opts();
  small.max_depth = 8;
  CHECK(error_of([&] { parse_source("x = a.b.c.d.e.f.g.h.i\n", small); }) == "t.py:1:21: expression nests deeper than 8");
  CHECK(error_of([&] { parse_source("x = ---------y\n", small); }) == "t.py:1:13: expression nests deeper than 8");
}

TEST_CASE("parser: every code file of the test corpus parses") {
  const fs::path root = jitctl::test::testdata_dir();
  REQUIRE_MESSAGE(!root.empty(), "testdata not found");
  std::vector<fs::path> archives;
  for (const char* sub : {"models", "models_torch2"}) {
    REQUIRE(fs::is_directory(root / sub));
    for (const auto& entry : fs::directory_iterator(root / sub))
      if (entry.path().extension() == ".pt") archives.push_back(entry.path());
  }
  std::sort(archives.begin(), archives.end());

  // Read everything first so that the timing is the parser's alone.
  std::vector<std::pair<std::string, std::string>> files;  // where, source
  size_t bytes = 0;
  for (const auto& path : archives) {
    auto archive = Archive::open(path.string());
    for (const auto& record : archive->list("code/")) {
      if (record.size() < 3 || record.substr(record.size() - 3) != ".py") continue;
      files.emplace_back(archive->where(record), archive->read(record));
      bytes += files.back().second.size();
    }
  }
  CHECK(files.size() > 100);

  size_t statements = 0, classes = 0, defs = 0;
  uint32_t tallest = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (const auto& [where, source] : files) {
    ParseOptions o;
    o.file = where;
    std::string err;
    try {
      auto f = parse_source(source, o);
      statements += f.body.size();
      for (const auto& s : f.body) {
        classes += s->kind == StmtKind::Class;
        defs += s->kind == StmtKind::Def;
      }
      tallest = std::max(tallest, max_height(f));
    } catch (const Error& e) {
      err = e.what();
    }
    CHECK_MESSAGE(err.empty(), err);
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  CHECK(classes > 100);
  CHECK(defs > 0);
  MESSAGE(fmt::format("parsed {} code files ({} KiB, {} archives; {} top-level statements, tallest expression {}) in {:.1f} ms",
                      files.size(), bytes / 1024, archives.size(), statements, tallest, ms));
}
