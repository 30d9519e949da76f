// Operator schemas: the parser and printer over all of PyTorch 1.13's schemas (the embedded copy of
// testdata/schemas/schemas.txt, which is `str(s)` for every s in torch._C._jit_get_all_schemas()),
// and the registry's lookups.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "lib/core/error.h"
#include "lib/core/string_literal.h"
#include "lib/ops/schema.h"
#include "lib/ops/schema_registry.h"
#include "tests/support/error_of.h"

using namespace jitctl;
using jitctl::test::error_of;

namespace {

std::vector<std::string_view> embedded_lines() {
  std::vector<std::string_view> lines;
  std::string_view text = embedded_schemas_text();
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    lines.push_back(text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
  }
  return lines;
}

const FunctionSchema& get(std::string_view full_name) {
  const FunctionSchema* s = SchemaRegistry::builtin().find(full_name);
  REQUIRE_MESSAGE(s != nullptr, full_name);
  return *s;
}

}  // namespace

TEST_CASE("schemas: every schema of PyTorch 1.13 prints back exactly") {
  const auto lines = embedded_lines();
  REQUIRE(lines.size() == 4165);
  size_t mismatches = 0;
  for (std::string_view line : lines) {
    std::string printed;
    try {
      printed = parse_schema(line).str();
    } catch (const Error& e) {
      printed = std::string("error: ") + e.what();
    }
    if (printed != line) {
      ++mismatches;
      CHECK(printed == line);
    }
  }
  CHECK(mismatches == 0);
  CHECK(SchemaRegistry::builtin().size() == 4165);
}

TEST_CASE("schemas: the registry indexes every line under its operator") {
  const auto& reg = SchemaRegistry::builtin();
  size_t total = 0;
  std::set<std::string_view> seen;
  for (std::string_view name : reg.names()) {
    CHECK(seen.insert(name).second);
    for (const FunctionSchema& s : reg.overloads(name)) {
      CHECK(s.name == name);
      CHECK(reg.find(s.full_name()) == &s);
      ++total;
    }
  }
  CHECK(total == 4165);
  CHECK(reg.overloads("aten::no_such_op").empty());
  CHECK(reg.find("aten::add.no_such_overload") == nullptr);
  CHECK(reg.find("nope") == nullptr);
}

TEST_CASE("schemas: aten::add overloads") {
  const auto& reg = SchemaRegistry::builtin();
  std::set<std::string> overloads;
  for (const FunctionSchema& s : reg.overloads("aten::add")) overloads.insert(s.overload_name);
  CHECK(overloads == std::set<std::string>{"", "Scalar", "Scalar_out", "Tensor", "complex", "complex_float",
                                           "complex_int", "float", "float_complex", "float_int", "int",
                                           "int_complex", "int_float", "out", "str", "t"});

  const FunctionSchema& add = get("aten::add.Tensor");
  CHECK(add.name == "aten::add");
  CHECK(add.overload_name == "Tensor");
  CHECK(add.name_space() == "aten");
  REQUIRE(add.arguments.size() == 3);
  CHECK(add.arguments[0].name == "self");
  CHECK(add.arguments[0].type == TensorType::get());
  CHECK_FALSE(add.arguments[1].kwarg_only);
  CHECK(add.arguments[2].name == "alpha");
  CHECK(add.arguments[2].kwarg_only);
  CHECK(add.arguments[2].type == NumberType::get());
  REQUIRE(add.arguments[2].default_value);
  CHECK(add.arguments[2].default_value->to_int() == 1);
  REQUIRE(add.returns.size() == 1);
  CHECK(add.returns[0].name.empty());
  CHECK(add.argument_index("other") == 1u);
  CHECK_FALSE(add.is_mutable());

  const FunctionSchema& plain = get("aten::add");  // the overload without a name
  CHECK(plain.overload_name.empty());
  CHECK(plain.str() == "aten::add(Scalar a, Scalar b) -> Scalar");
  CHECK(reg.find("aten::add", "t")->str() == "aten::add.t(t[] a, t[] b) -> t[]");
  CHECK(reg.find("aten::add", "t")->arguments[0].type->has_free_variables());
}

TEST_CASE("schemas: aten::conv2d defaults") {
  const FunctionSchema& conv = get("aten::conv2d");
  CHECK(conv.str() ==
        "aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, "
        "int[2] dilation=1, int groups=1) -> Tensor");
  REQUIRE(conv.arguments.size() == 7);
  const Argument& bias = conv.arguments[2];
  CHECK(bias.type->str() == "Tensor?");
  REQUIRE(bias.default_value);
  CHECK(bias.default_value->is_none());
  const Argument& stride = conv.arguments[3];
  CHECK(stride.N == 2);
  CHECK(stride.type->str() == "int[]");
  REQUIRE(stride.default_value);
  const auto& items = stride.default_value->to_list()->items;  // `=1` means [1, 1]
  REQUIRE(items.size() == 2);
  CHECK(items[0].to_int() == 1);
  CHECK(items[1].to_int() == 1);
  CHECK(conv.arguments[4].default_value->to_list()->items[1].to_int() == 0);
  CHECK(conv.arguments[6].default_value->to_int() == 1);

  const FunctionSchema& padding = get("aten::conv2d.padding");
  CHECK(padding.arguments[4].default_value->to_string() == "valid");
}

TEST_CASE("schemas: the compiler's types and the written ones") {
  const FunctionSchema& to = get("aten::to.dtype");
  CHECK(to.arguments[1].type == IntType::get());  // ScalarType is an int to the compiler
  CHECK(to.arguments[1].real_type == ScalarTypeType::get());
  CHECK(to.arguments[4].type->str() == "int?");
  CHECK(to.arguments[4].real_type->str() == "MemoryFormat?");
  const FunctionSchema& view = get("aten::view");
  CHECK(view.arguments[1].type->str() == "int[]");
  CHECK(view.arguments[1].real_type->str() == "SymInt[]");
  const FunctionSchema& strip = get("aten::strip");
  CHECK(strip.arguments[1].default_value->to_string() == " \n\t\f\v");
  const FunctionSchema& items = get("aten::items.str");
  CHECK(items.returns[0].type->str() == "(str, t)[]");  // one return, printed in parentheses
  const FunctionSchema& prepack = get("_quantized::linear_prepack");
  CHECK(prepack.returns[0].type->str() == "__torch__.torch.classes.quantized.LinearPackedParamsBase");
  CHECK(prepack.returns[0].name == "W_prepack");
  CHECK(prepack.returns[0].type == custom_class_type("__torch__.torch.classes.quantized.LinearPackedParamsBase"));
}

TEST_CASE("schemas: alias annotations") {
  const FunctionSchema& copy = get("aten::copy_");
  REQUIRE(copy.arguments[0].alias_info);
  CHECK(copy.arguments[0].alias_info->before_sets == std::vector<std::string>{"a"});
  CHECK(copy.arguments[0].alias_info->is_write);
  CHECK(copy.arguments[0].is_write());
  CHECK_FALSE(copy.arguments[1].alias_info);
  CHECK(copy.is_mutable());
  CHECK(copy.returns[0].alias_info->str() == "(a!)");

  const FunctionSchema& set_item = get("aten::_set_item.t");
  const AliasInfo& el = *set_item.arguments[2].alias_info;
  CHECK(el.before_sets == std::vector<std::string>{"b"});
  CHECK(el.after_sets == std::vector<std::string>{"*"});
  CHECK(el.is_wildcard_after());
  CHECK_FALSE(el.is_write);
  CHECK(el.str() == "(b -> *)");
  CHECK(set_item.arguments[0].alias_info->str() == "(a!)");  // t[](a!): the list itself

  const FunctionSchema& getitem = get("aten::__getitem__.t");
  CHECK(getitem.returns[0].alias_info->is_wildcard_before());

  // Tensor(a!)[]: the elements are written, the list carries no set of its own.
  const FunctionSchema& foreach = get("aten::_foreach_add.List_out");
  const AliasInfo& out = *foreach.arguments[3].alias_info;
  CHECK(out.before_sets.empty());
  CHECK(out.is_write);
  REQUIRE(out.contained.size() == 1);
  CHECK(out.contained[0].str() == "(a!)");
  CHECK(foreach.arguments[3].str() == "Tensor(a!)[] out");

  const FunctionSchema& split = get("aten::split_with_sizes");
  CHECK(split.arguments[0].alias_info->str() == "(a -> *)");
  CHECK(split.returns[0].str() == "Tensor(a)[]");

  const FunctionSchema& ite = get("prim::IfThenElse");
  CHECK(ite.returns[0].alias_info->before_sets == std::vector<std::string>{"b", "a"});
  CHECK(ite.returns[0].str() == "Any(b|a)");
}

TEST_CASE("schemas: prim schemas, varargs and varrets") {
  const auto& reg = SchemaRegistry::builtin();
  const FunctionSchema& unpack = get("prim::TupleUnpack");
  CHECK(unpack.is_varret);
  CHECK(unpack.returns.empty());
  CHECK(unpack.arguments[0].type == AnyType::get());
  const FunctionSchema& broadcast = get("prim::BroadcastMKLDNNTensors");
  CHECK(broadcast.is_vararg);
  CHECK(broadcast.is_varret);
  CHECK(broadcast.arguments.empty());
  const FunctionSchema& format = get("aten::format");
  CHECK(format.is_vararg);
  CHECK(format.arguments.size() == 1);
  CHECK(get("prim::id").arguments[0].type->str() == "AnyClassType?");
  CHECK(get("prim::Uninitialized").returns[0].type == AnyType::get());
  // Nodes without schemas (prim::If, prim::Constant, prim::ListConstruct) are not operators.
  CHECK(reg.overloads("prim::If").empty());
  CHECK(reg.overloads("prim::Constant").empty());
}

TEST_CASE("schemas: defaults print as PyTorch prints them") {
  // str(fn.schema) of scripted functions in torch 1.13.
  const char* lines[] = {
      "f(float a=0., float b=10000000000., float c=1000000000., float d=123456789.5, float e=1e-300, "
      "float g=0.10000000000000001, str? i=\"\\001\\177\\t\", float k=-1.5, float l=10000000000000000.) -> float",
      "f(float a=1e+22, float b=4.9406564584124654e-324, float c=-1.0000000000000001e-05) -> float",
      "f(int[] a=[1, 2], int[2] b=[1, 2], int[3] c=5, bool[2] d=[True, False], float[] e=[1., 2.5]) -> ()",
      "f(Tensor? t=None, Generator? g=None, int? n=None, Scalar s=2.5, Scalar? m=-3) -> ()",
      "f(str a=\"\\\"\\'\\\\\") -> (int a, float b)",
      "f(Tensor(a!) self, *, Tensor(b!) x) -> (Tensor(a!), Tensor(b!), ...)",
      "g() -> ()",
      "ns::h.o(Dict(str, Tensor)(a!) d, Union(int, str) u, Future(t) f, RRef(t) r, (int, str)[] l) -> Future(t)",
  };
  for (const char* line : lines) {
    CAPTURE(line);
    CHECK(parse_schema(line).str() == line);
  }
  // Defaults torch prints in a form its own parser does not read back.
  const FunctionSchema s =
      parse_schema("f(complex z=1.5j, int[2] b=3, float x=1, Scalar y=1.5, Device d=\"cuda:1\") -> ()");
  CHECK(s.arguments[0].default_value->to_complex() == std::complex<double>(0, 1.5));
  CHECK(s.arguments[4].default_value->to_device() == Device{Device::Type::CUDA, 1});
  CHECK(s.str() == "f(complex z=0.+1.5j, int[2] b=3, float x=1., Scalar y=1.5, Device d=cuda:1) -> ()");
  // What torch prints for a non-ASCII default ("é", UTF-8 C3 A9): c10 escapes signed chars.
  CHECK(quote_string("\xc3\xa9") == "\"\\0)+\\/.)\"");
  CHECK(quote_string("a\"b'c\n") == "\"a\\\"b\\'c\\n\"");
}

TEST_CASE("schemas: parse errors") {
  auto err = [](const char* text) { return error_of([&] { parse_schema(text); }); };
  CHECK(err("aten::f(double x) -> Tensor") ==
        "invalid schema at column 9: Use `float` instead of `double` in an operator's schema string (at 'double'): "
        "aten::f(double x) -> Tensor");
  CHECK(err("aten::f(Foo x) -> Tensor").starts_with("invalid schema at column 9: unknown type specifier (at 'Foo')"));
  CHECK(err("aten::f(Tensor x) Tensor").starts_with("invalid schema at column 19: expected '->'"));
  CHECK(err("aten::f(Tensor x, ..., int y) -> Tensor").find("... must be the last element") != std::string::npos);
  CHECK(err("aten::f(int x=1, ...) -> Tensor").find("can't have default value args") != std::string::npos);
  CHECK(err("aten::f(Tensor x) -> Tensor a b").find("unexpected text after the returns") != std::string::npos);
  CHECK(err("aten::f(str x=\"abc) -> ()").find("unterminated string literal") != std::string::npos);
  CHECK(err("aten::f(Tensor x=1) -> ()").find("expected None") != std::string::npos);
  CHECK(err("aten::f(Dict(int[], int) x) -> ()").find("Cannot create dict for key type 'int[]'") != std::string::npos);
  CHECK(err("aten::f(__torch__.foo.X x) -> ()").find("expected 'torch' in a custom class name") != std::string::npos);
  CHECK(err("aten::f(int[x] y) -> ()").find("expected a list size") != std::string::npos);
  CHECK(err("aten::f(Tensor x -> ()").find("expected ')'") != std::string::npos);
}

TEST_CASE("schemas: method signatures for subtyping") {
  const MethodSignature sig = get("aten::add.Tensor").signature();
  CHECK(sig.name == "aten::add");
  REQUIRE(sig.arguments.size() == 3);
  CHECK(sig.arguments[2].name == "alpha");
  CHECK(sig.returns.size() == 1);
}

TEST_CASE("schemas: single types in schema syntax, as graph text writes them") {
  // Value types from str(graph) in testdata/golden (printed by torch 1.13): they read back and
  // print the same.
  const char* graph_types[] = {
      "int?", "str[]", "(int)", "int[]?", "Scalar", "Device", "NoneType", "Tensor[]", "Dict(int, str)",
      "(Tensor, Tensor)?", "(Tensor, Tensor?)", "(Tensor, NoneType)", "(str, str[], Tensor)", "(Tensor, (Tensor, Tensor))",
      "(Dict(str, Tensor), Tensor[], (int, float, str))", "Float(requires_grad=0, device=cpu)",
      "Float(1000, 512, 1, 1, strides=[512, 1, 1, 1], requires_grad=0, device=cpu)",
      "Float(8, 1, 3, 3, strides=[9, 9, 3, 1], requires_grad=0, device=cpu)",
      // and from torch.jit.parse_ir round trips
      "Long(requires_grad=1, device=cuda:0)", "Double(*, 3)", "Float(device=cpu)",
  };
  for (const char* t : graph_types) {
    CAPTURE(t);
    CHECK(parse_schema_type(t, /*refined_tensors=*/true)->graph_str() == t);
  }
  CHECK(parse_schema_type("ScalarType?")->equals(*parse_schema_type("int?")));  // the compiler's type
  CHECK(parse_schema_type("ScalarType?")->str() == "int?");
  CHECK(error_of([] { parse_schema_type("Float(2, 3)"); }).find("unknown type specifier") != std::string::npos);
  CHECK(error_of([] { parse_schema_type("Float(2, 3, strides=[1])", true); })
            .find("Strides info is specified for some but not for all dimensions") != std::string::npos);
  CHECK(error_of([] { parse_schema_type("Float(device=cpu, 2)", true); })
            .find("'device' and 'requires_grad' should come after dimensions") != std::string::npos);
  CHECK(error_of([] { parse_schema_type("Float(device=tpu)", true); }).find("cannot parse device type 'tpu'") !=
        std::string::npos);
  CHECK(error_of([] { parse_schema_type("int int"); }).find("unexpected text after the type") != std::string::npos);
}
