// The Python printer against PyTorch 1.13: each graph below went through torch._C.parse_ir and
// torch._C._create_function_from_graph("f", g).code (/usr/bin/python3, torch 1.13.1); the expected
// text is what that printed. Node outputs are numbered, not named, because PyTorch's graph parser
// names only graph and block inputs, and ours names every value it reads a name for.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "lib/serialization/code_files.h"
#include "lib/ir/graph_parser.h"
#include "lib/ir/python_printer.h"
#include "lib/ir/type_text.h"

using namespace jitctl;

namespace {

// What `_create_function_from_graph(...).code` prints: a free function named f whose arguments
// are named after the graph inputs and typed by them.
std::string function_code(std::string_view ir, std::vector<IValue>* constants_out = nullptr) {
  auto g = parse_graph(ir);
  PrintedSignature sig;
  sig.name = "f";
  for (size_t i = 0; i < g->inputs().size(); ++i) {
    const Value* v = g->inputs()[i];
    sig.arguments.push_back({v->has_debug_name() ? v->debug_name_base() : "argument_" + std::to_string(i), v->type(),
                             std::nullopt, std::nullopt});
  }
  sig.return_type = g->outputs().at(0)->type();
  std::vector<IValue> constants;
  PythonPrinter::Hooks hooks;
  hooks.call_arguments = operator_call_arguments;
  PythonPrinter p(constants, hooks);
  p.print_function(sig, *g, /*is_method=*/false);
  if (constants_out) *constants_out = constants;
  return p.str();
}

}  // namespace

TEST_CASE("python printer: inline chain and literals") {
  const char* ir = R"(
graph(%x : Tensor, %n : int):
  %100 : int = prim::Constant[value=1]()
  %101 : float = prim::Constant[value=1.0000000000000001e-05]()
  %102 : str = prim::Constant[value="a\"b\n"]()
  %103 : Tensor = aten::add(%x, %x, %100)
  %104 : Tensor = aten::mul(%103, %101)
  %105 : Tensor = aten::relu(%104)
  %106 : (Tensor, str) = prim::TupleConstruct(%105, %102)
  return (%106)
)";
  const char* want = R"(def f(x: Tensor,
    n: int) -> Tuple[Tensor, str]:
  _0 = torch.mul(torch.add(x, x), 1.0000000000000001e-05)
  return (torch.relu(_0), "a\"b\n")
)";
  CHECK(function_code(ir) == want);
}

TEST_CASE("python printer: float forms") {
  const char* ir = R"(
graph(%x : Tensor):
  %100 : float = prim::Constant[value=2.]()
  %101 : float = prim::Constant[value=0.10000000000000001]()
  %102 : float = prim::Constant[value=-0.]()
  %103 : float = prim::Constant[value=1e+20]()
  %104 : float[] = prim::ListConstruct(%100, %101, %102, %103)
  return (%104)
)";
  const char* want = R"(def f(x: Tensor) -> List[float]:
  return [2., 0.10000000000000001, -0., 1e+20]
)";
  CHECK(function_code(ir) == want);
}

TEST_CASE("python printer: named values and uniquing") {
  const char* ir = R"(
graph(%x.1 : Tensor):
  %100 : int = prim::Constant[value=1]()
  %101 : Tensor = aten::relu(%x.1)
  %102 : Tensor = aten::sigmoid(%101)
  %103 : Tensor = aten::add(%102, %101, %100)
  %104 : Tensor = aten::neg(%103)
  %105 : Tensor = aten::neg(%103)
  %106 : Tensor = aten::mul(%104, %105)
  return (%106)
)";
  const char* want = R"(def f(x: Tensor) -> Tensor:
  _0 = torch.relu(x)
  _1 = torch.add(torch.sigmoid(_0), _0)
  _2 = torch.mul(torch.neg(_1), torch.neg(_1))
  return _2
)";
  CHECK(function_code(ir) == want);
}

TEST_CASE("python printer: if with outputs and optional") {
  const char* ir = R"(
graph(%x : Tensor, %b : bool):
  %100 : NoneType = prim::Constant()
  %101 : Tensor, %102 : Tensor? = prim::If(%b)
    block0():
      %103 : Tensor = aten::relu(%x)
      -> (%103, %x)
    block1():
      -> (%x, %100)
  %104 : (Tensor, Tensor?) = prim::TupleConstruct(%101, %102)
  return (%104)
)";
  const char* want = R"(def f(x: Tensor,
    b: bool) -> Tuple[Tensor, Optional[Tensor]]:
  if b:
    _0, _1 = torch.relu(x), x
  else:
    _0, _1 = x, None
  return (_0, _1)
)";
  CHECK(function_code(ir) == want);
}

TEST_CASE("python printer: if single optional output annotated") {
  const char* ir = R"(
graph(%x : Tensor, %b : bool):
  %100 : NoneType = prim::Constant()
  %101 : Tensor? = prim::If(%b)
    block0():
      %102 : Tensor = aten::relu(%x)
      -> (%102)
    block1():
      -> (%100)
  return (%101)
)";
  const char* want = R"(def f(x: Tensor,
    b: bool) -> Optional[Tensor]:
  if b:
    _0 : Optional[Tensor] = torch.relu(x)
  else:
    _0 = None
  return _0
)";
  CHECK(function_code(ir) == want);
}

TEST_CASE("python printer: for loop") {
  const char* ir = R"(
graph(%x : Tensor, %n : int):
  %100 : bool = prim::Constant[value=1]()
  %101 : int = prim::Constant[value=1]()
  %102 : Tensor = prim::Loop(%n, %100, %x)
    block0(%i : int, %a : Tensor):
      %103 : Tensor = aten::add(%a, %x, %101)
      %104 : Tensor = aten::mul(%103, %i)
      -> (%100, %104)
  return (%102)
)";
  const char* want = R"(def f(x: Tensor,
    n: int) -> Tensor:
  _0 = x
  for i in range(n):
    _0 = torch.mul(torch.add(_0, x), i)
  return _0
)";
  CHECK(function_code(ir) == want);
}

TEST_CASE("python printer: while loop") {
  const char* ir = R"(
graph(%x : Tensor, %n : int):
  %100 : int = prim::Constant[value=9223372036854775807]()
  %101 : int = prim::Constant[value=0]()
  %102 : int = prim::Constant[value=1]()
  %103 : bool = aten::gt(%n, %101)
  %104 : int, %105 : Tensor = prim::Loop(%100, %103, %101, %x)
    block0(%i : int, %k.1 : int, %y.1 : Tensor):
      %106 : int = aten::add(%k.1, %102)
      %107 : Tensor = aten::mul(%y.1, %106)
      %108 : bool = aten::lt(%106, %n)
      -> (%108, %106, %107)
  %109 : (int, Tensor) = prim::TupleConstruct(%104, %105)
  return (%109)
)";
  const char* want = R"(def f(x: Tensor,
    n: int) -> Tuple[int, Tensor]:
  _0 = 0
  _1 = x
  i = torch.gt(n, 0)
  while i:
    _2 = torch.add(_0, 1)
    _3 = torch.mul(_1, _2)
    i, _0, _1 = torch.lt(_2, n), _2, _3
  return (_0, _1)
)";
  CHECK(function_code(ir) == want);
}

TEST_CASE("python printer: long line split") {
  const char* ir = R"(
graph(%input_tensor_with_long_name : Tensor, %another_long_argument_name : Tensor):
  %100 : int = prim::Constant[value=1]()
  %101 : Tensor = aten::add(%input_tensor_with_long_name, %another_long_argument_name, %100)
  %102 : Tensor = aten::sub(%another_long_argument_name, %input_tensor_with_long_name, %100)
  %103 : Tensor = aten::mul(%101, %102)
  %104 : Tensor = aten::div(%103, %input_tensor_with_long_name)
  return (%104)
)";
  const char* want = R"(def f(input_tensor_with_long_name: Tensor,
    another_long_argument_name: Tensor) -> Tensor:
  _0 = torch.add(input_tensor_with_long_name, another_long_argument_name)
  _1 = torch.sub(another_long_argument_name, input_tensor_with_long_name)
  _2 = torch.div(torch.mul(_0, _1), input_tensor_with_long_name)
  return _2
)";
  CHECK(function_code(ir) == want);
}

TEST_CASE("python printer: long string constant") {
  const char* ir = R"(
graph(%x : Tensor):
  %100 : str = prim::Constant[value="a string constant that is long enough to get a name"]()
  %101 : (Tensor, str) = prim::TupleConstruct(%x, %100)
  return (%101)
)";
  const char* want = R"(def f(x: Tensor) -> Tuple[Tensor, str]:
  _0 = "a string constant that is long enough to get a name"
  return (x, _0)
)";
  CHECK(function_code(ir) == want);
}

TEST_CASE("python printer: lists dicts annotate") {
  const char* ir = R"(
graph(%x : Tensor, %k : str):
  %100 : NoneType = prim::Constant()
  %101 : int[] = prim::ListConstruct()
  %102 : Tensor?[] = prim::ListConstruct(%x, %100)
  %103 : Tensor[] = prim::ListConstruct(%x, %x)
  %104 : Dict(str, Tensor) = prim::DictConstruct(%k, %x)
  %105 : Dict(str, int) = prim::DictConstruct()
  %106 : (int[], Tensor?[], Tensor[], Dict(str, Tensor), Dict(str, int)) = prim::TupleConstruct(%101, %102, %103, %104, %105)
  return (%106)
)";
  const char* want = R"(def f(x: Tensor,
    k: str) -> Tuple[List[int], List[Optional[Tensor]], List[Tensor], Dict[str, Tensor], Dict[str, int]]:
  _0 = annotate(List[int], [])
  _1 = annotate(List[Optional[Tensor]], [x, None])
  _2 = (_0, _1, [x, x], {k: x}, annotate(Dict[str, int], {}))
  return _2
)";
  CHECK(function_code(ir) == want);
}

TEST_CASE("python printer: unpack index casts") {
  const char* ir = R"(
graph(%t : (Tensor, int), %l : int[], %o : Tensor?):
  %100 : int = prim::Constant[value=0]()
  %101 : Tensor, %102 : int = prim::TupleUnpack(%t)
  %103 : int, %104 : int = prim::ListUnpack(%l)
  %105 : int = aten::__getitem__(%l, %100)
  %106 : Tensor = prim::unchecked_cast(%o)
  %107 : int = prim::Uninitialized()
  %108 : int = aten::add(%102, %103)
  %109 : int = aten::add(%108, %104)
  %110 : int = aten::add(%109, %105)
  %111 : int = aten::add(%110, %107)
  %112 : (Tensor, Tensor, int) = prim::TupleConstruct(%101, %106, %111)
  return (%112)
)";
  const char* want = R"(def f(t: Tuple[Tensor, int],
    l: List[int],
    o: Optional[Tensor]) -> Tuple[Tensor, Tensor, int]:
  _0, _1, = t
  _2, _3, = l
  _4 = l[0]
  _5 = unchecked_cast(Tensor, o)
  _6 = uninitialized(int)
  _7 = torch.add(torch.add(torch.add(_1, _2), _3), _4)
  return (_0, _5, torch.add(_7, _6))
)";
  CHECK(function_code(ir) == want);
}

TEST_CASE("python printer: tensor and non ascii constants") {
  const char* ir = R"(
graph(%x : Tensor):
  %100 : Long(requires_grad=0, device=cpu) = prim::Constant[value={2}]()
  %101 : str = prim::Constant[value="\303\274"]()
  %102 : Tensor = aten::mul(%x, %100)
  %103 : (Tensor, str) = prim::TupleConstruct(%102, %101)
  return (%103)
)";
  const char* want = R"(def f(x: Tensor) -> Tuple[Tensor, str]:
  _0 = (torch.mul(x, CONSTANTS.c0), CONSTANTS.c1)
  return _0
)";
  std::vector<IValue> constants;
  CHECK(function_code(ir, &constants) == want);
  REQUIRE(constants.size() == 2);
  CHECK(constants[0].is_tensor());
  CHECK(constants[1].to_string() == "\xc3\xbc");
}

TEST_CASE("python printer: keyword only and defaults") {
  const char* ir = R"(
graph(%x : Tensor):
  %100 : NoneType = prim::Constant()
  %101 : bool = prim::Constant[value=0]()
  %102 : int = prim::Constant[value=6]()
  %103 : int[] = prim::ListConstruct()
  %104 : Tensor = aten::zeros_like(%x, %102, %100, %100, %100, %100)
  %105 : Tensor = aten::sum(%104, %100)
  %106 : Tensor = aten::to(%105, %102, %101, %101, %100)
  return (%106)
)";
  const char* want = R"(def f(x: Tensor) -> Tensor:
  _0 = annotate(List[int], [])
  _1 = torch.sum(torch.zeros_like(x, dtype=6))
  return torch.to(_1, 6)
)";
  CHECK(function_code(ir) == want);
}
// Classes and other named types, as torch.jit.save writes them into code/__torch__.py. The
// expected text is from archives torch 1.13.1 saved (a scripted module with a parameter, a buffer
// and a Final constant; an Enum, a NamedTuple and a module interface).
TEST_CASE("python printer: a module class with parameters, buffers and a Final constant") {
  auto cls = ClassType::create("__torch__.Small", /*is_module=*/true);
  cls->add_attribute("w", TensorType::get(), ClassType::AttributeKind::Parameter);
  cls->add_attribute("b", TensorType::get(), ClassType::AttributeKind::Buffer);
  cls->add_attribute("training", BoolType::get());
  cls->add_attribute("_is_full_backward_hook", NoneType::get());
  cls->add_constant("k", IValue(int64_t{3}));
  TypeTextContext types;
  types.resolve = [&](TypeTextContext::NameKind, const std::string& name) -> TypePtr {
    return name == "__torch__.Small" ? cls : nullptr;
  };
  GraphParseOptions opts;
  opts.types = &types;
  // str(torch.jit.load(...).graph) of that module's forward.
  auto g = parse_graph(R"(graph(%s.1 : __torch__.Small,
      %x.1 : Tensor):
  %11 : int = prim::Constant[value=1]()
  %w.1 : Tensor = prim::GetAttr[name="w"](%s.1)
  %6 : Tensor = aten::mul(%x.1, %w.1) # /tmp/h1/gen4.py:8:15
  %b.1 : Tensor = prim::GetAttr[name="b"](%s.1)
  %12 : Tensor = aten::add(%6, %b.1, %11) # /tmp/h1/gen4.py:8:15
  return (%12)
)",
                       opts);
  PrintedSignature forward{"forward", {{"s", cls, std::nullopt, std::nullopt}, {"x", TensorType::get(), std::nullopt, std::nullopt}},
                           TensorType::get()};
  std::vector<IValue> constants;
  std::vector<std::string> deps;
  PythonPrinter::Hooks hooks;
  hooks.call_arguments = operator_call_arguments;
  hooks.on_dependency = [&](const TypePtr& t) { deps.push_back(t->annotation_str()); };
  PythonPrinter p(constants, hooks);
  p.print_class(*cls, {{forward, g}});
  CHECK(p.str() == R"(class Small(Module):
  __parameters__ = ["w", ]
  __buffers__ = ["b", ]
  w : Tensor
  b : Tensor
  training : bool
  _is_full_backward_hook : NoneType
  k : Final[int] = 3
  def forward(s: __torch__.Small,
    x: Tensor) -> Tensor:
    w = s.w
    _0 = torch.mul(x, w)
    b = s.b
    return torch.add(_0, b)
)");
  CHECK(!deps.empty());
  CHECK(deps[0] == "__torch__.Small");
  // Each line of the method's body came from a node; the lines of the two `aten::` calls from the
  // source position their nodes carry.
  bool has_source = false;
  for (const auto& r : p.ranges()) has_source |= r.source && r.source->line == 8 && r.source->col == 15;
  CHECK(has_source);
  cls->release();
}

TEST_CASE("python printer: enums, NamedTuples and module interfaces") {
  std::vector<IValue> constants;
  PythonPrinter p(constants, {});
  p.print_enum(EnumType::create("__torch__.Scale", FloatType::get(), {{"A", IValue(1.5)}, {"B", IValue(2.0)}})
                   ->expect<EnumType>());
  p.print_enum(EnumType::create("__torch__.Name", StringType::get(), {{"X", IValue("ex")}})->expect<EnumType>());
  p.print_named_tuple(
      TupleType::create_named("__torch__.P", {"a", "b"}, {TensorType::get(), IntType::get()})->expect<TupleType>());
  auto op = InterfaceType::create("__torch__.Op", /*is_module=*/true);
  op->add_method({"forward", {{"self", AnyType::get()}, {"x", TensorType::get()}}, {{"", TensorType::get()}}});
  p.print_interface(*op);
  CHECK(p.str() == R"(class Scale(Enum):
  A = 1.5
  B = 2.
class Name(Enum):
  X = "ex"
class P(NamedTuple):
  a : Tensor
  b : int
class Op(ModuleInterface):
  def forward(self, x: Tensor) -> Tensor:
    pass
)");
}
