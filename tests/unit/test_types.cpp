// The type system and type expressions. Every expected string below is what PyTorch 1.13 printed
// (Debian's python3-torch): Type::str() as it appears in `str(fn.schema)`, graph_str() as
// `type.str()` / `str(graph)`, annotation_str() as `type.annotation_str` / `.code`.
#include <doctest/doctest.h>

#include <iterator>
#include <map>
#include <vector>

#include "lib/core/error.h"
#include "lib/core/types.h"
#include "lib/frontend/type_parser.h"
#include "tests/support/error_of.h"

using namespace jitctl;
using jitctl::test::error_of;

namespace {

struct Spelling {
  const char* code;        // as a code file writes it (the input)
  const char* str;         // Type::str()
  const char* graph;       // graph_str()
  const char* annotation;  // annotation_str()
};

// torch.jit.CompilationUnit(f"def f(x: {code}):\n    return x\n"), i.e. PyTorch's C++ type
// parser, the one that reads archives.
const Spelling kSpellings[] = {
    {"Tensor", "Tensor", "Tensor", "Tensor"},
    {"int", "int", "int", "int"},
    {"float", "float", "float", "float"},
    {"complex", "complex", "complex", "complex"},
    {"bool", "bool", "bool", "bool"},
    {"str", "str", "str", "str"},
    {"NoneType", "NoneType", "NoneType", "NoneType"},
    {"None", "NoneType", "NoneType", "NoneType"},
    {"Device", "Device", "Device", "Device"},
    {"Any", "Any", "Any", "Any"},
    {"number", "Scalar", "Scalar", "number"},
    {"Stream", "Stream", "Stream", "Stream"},
    {"Capsule", "Capsule", "Capsule", "Capsule"},
    {"list", "list", "list", "list"},
    {"tuple", "tuple", "tuple", "tuple"},
    {"List[int]", "int[]", "int[]", "List[int]"},
    {"List[Tensor]", "Tensor[]", "Tensor[]", "List[Tensor]"},
    {"List[List[int]]", "int[][]", "int[][]", "List[List[int]]"},
    {"List[Optional[int]]", "int?[]", "int?[]", "List[Optional[int]]"},
    {"List[Optional[Tensor]]", "Tensor?[]", "Tensor?[]", "List[Optional[Tensor]]"},
    {"Optional[Tensor]", "Tensor?", "Tensor?", "Optional[Tensor]"},
    {"Optional[int]", "int?", "int?", "Optional[int]"},
    {"Optional[List[int]]", "int[]?", "int[]?", "Optional[List[int]]"},
    {"Optional[Optional[int]]", "int?", "int?", "Optional[int]"},
    {"Optional[Tuple[int, str]]", "(int, str)?", "(int, str)?", "Optional[Tuple[int, str]]"},
    {"Dict[str, Tensor]", "Dict(str, Tensor)", "Dict(str, Tensor)", "Dict[str, Tensor]"},
    {"Dict[int, List[str]]", "Dict(int, str[])", "Dict(int, str[])", "Dict[int, List[str]]"},
    {"Dict[str, Optional[int]]", "Dict(str, int?)", "Dict(str, int?)", "Dict[str, Optional[int]]"},
    {"Dict[Tensor, int]", "Dict(Tensor, int)", "Dict(Tensor, int)", "Dict[Tensor, int]"},
    {"Dict[float, Dict[str, int]]", "Dict(float, Dict(str, int))", "Dict(float, Dict(str, int))", "Dict[float, Dict[str, int]]"},
    {"Dict[bool, complex]", "Dict(bool, complex)", "Dict(bool, complex)", "Dict[bool, complex]"},
    {"Dict[Device, int]", "Dict(Device, int)", "Dict(Device, int)", "Dict[Device, int]"},
    {"Dict[Any, int]", "Dict(Any, int)", "Dict(Any, int)", "Dict[Any, int]"},
    {"Tuple[Tensor, int]", "(Tensor, int)", "(Tensor, int)", "Tuple[Tensor, int]"},
    {"Tuple[()]", "()", "()", "Tuple[()]"},
    {"Tuple[int]", "(int)", "(int)", "Tuple[int]"},
    {"Tuple[Tuple[int, float], List[str]]", "((int, float), str[])", "((int, float), str[])", "Tuple[Tuple[int, float], List[str]]"},
    {"List[Tuple[int, float]]", "(int, float)[]", "(int, float)[]", "List[Tuple[int, float]]"},
    {"Union[Tensor, int]", "Union(Tensor, int)", "Union(Tensor, int)", "Union[Tensor, int]"},
    {"Union[float, int]", "Union(float, int)", "Union(float, int)", "Union[float, int]"},
    {"Union[int, NoneType, str]", "Union(int, NoneType, str)", "Union(int, NoneType, str)", "Union[int, NoneType, str]"},
    {"Union[int, float, complex]", "Union(Scalar)", "Union(Scalar)", "Union[number]"},
    {"Union[Tensor, Optional[Tensor]]", "Tensor?", "Tensor?", "Optional[Tensor]"},
    {"Union[List[float], List[int]]", "Union(float[], int[])", "Union(float[], int[])", "Union[List[float], List[int]]"},
    {"Union[float, int, str, bool]", "Union(float, int, str, bool)", "Union(float, int, str, bool)", "Union[float, int, str, bool]"},
    {"Union[Tuple[int, int], float, NoneType, str]", "Union((int, int), float, NoneType, str)", "Union((int, int), float, NoneType, str)", "Union[Tuple[int, int], float, NoneType, str]"},
    {"Union[Tensor, int, NoneType]", "Union(Tensor, int, NoneType)", "Union(Tensor, int, NoneType)", "Union[Tensor, int, NoneType]"},
    {"Union[int, None]", "int?", "int?", "Optional[int]"},
    {"Optional[number]", "Scalar?", "Scalar?", "Optional[number]"},
    {"Union[number, None]", "Scalar?", "Scalar?", "Optional[number]"},
    {"Union[int, float, complex, None]", "Scalar?", "Scalar?", "Optional[number]"},
    {"Optional[Union[int, str]]", "Union(int, str)?", "Union(int, str)?", "Optional[Union[int, str]]"},
    {"Union[int, number]", "Union(Scalar)", "Union(Scalar)", "Union[number]"},
    {"Union[bool, Tensor]", "Union(Tensor, bool)", "Union(Tensor, bool)", "Union[Tensor, bool]"},
    {"Union[List[int], Tuple[int, int], int]", "Union((int, int), int[], int)", "Union((int, int), int[], int)", "Union[Tuple[int, int], List[int], int]"},
    {"Union[Dict[str, int], Dict[str, float]]", "Union(Dict(str, float), Dict(str, int))", "Union(Dict(str, float), Dict(str, int))", "Union[Dict[str, float], Dict[str, int]]"},
    {"Future[int]", "Future(int)", "Future[int]", "Future[int]"},
    {"Future[Tensor]", "Future(Tensor)", "Future[Tensor]", "Future[Tensor]"},
    {"Optional[Future[int]]", "Future(int)?", "Future[int]?", "Optional[Future[int]]"},
    {"List[Future[int]]", "Future(int)[]", "Future[int][]", "List[Future[int]]"},
    {"Tuple[Future[int], int]", "(Future(int), int)", "(Future[int], int)", "Tuple[Future[int], int]"},
    {"Union[Future[int], Dict[str, Future[int]]]", "Union(Dict(str, Future(int)), Future(int))", "Union(Dict(str, Future(int)), Future(int))", "Union[Dict[str, Future[int]], Future[int]]"},
    {"Dict[str, Future[int]]", "Dict(str, Future(int))", "Dict(str, Future(int))", "Dict[str, Future[int]]"},
    {"RRef[int]", "RRef(int)", "RRef[int]", "RRef[int]"},
    {"List[RRef[Tensor]]", "RRef(Tensor)[]", "RRef[Tensor][]", "List[RRef[Tensor]]"},
    {"Optional[Device]", "Device?", "Device?", "Optional[Device]"},
    {"List[bool]", "bool[]", "bool[]", "List[bool]"},
    {"List[float]", "float[]", "float[]", "List[float]"},
    {"List[str]", "str[]", "str[]", "List[str]"},
    {"List[complex]", "complex[]", "complex[]", "List[complex]"},
    {"Optional[str]", "str?", "str?", "Optional[str]"},
    {"torch.Tensor", "Tensor", "Tensor", "Tensor"},
    {"torch.LongTensor", "Tensor", "Tensor", "Tensor"},
    {"LongTensor", "Tensor", "Tensor", "Tensor"},
    {"list[int]", "int[]", "int[]", "List[int]"},
    {"dict[str, int]", "Dict(str, int)", "Dict(str, int)", "Dict[str, int]"},
    {"tuple[int, str]", "(int, str)", "(int, str)", "Tuple[int, str]"},
    {"torch.jit.Future[int]", "Future(int)", "Future[int]", "Future[int]"},
    {"Optional[Union[Tensor, List[Tensor]]]", "Union(Tensor, Tensor[])?", "Union(Tensor, Tensor[])?", "Optional[Union[Tensor, List[Tensor]]]"},
    {"Union[Optional[int], Optional[str]]", "Union(int, NoneType, str)", "Union(int, NoneType, str)", "Union[int, NoneType, str]"},
    {"Union[Tuple[int], Tuple[float]]", "Union((float), (int))", "Union((float), (int))", "Union[Tuple[float], Tuple[int]]"},
    {"List[Union[int, str]]", "Union(int, str)[]", "Union(int, str)[]", "List[Union[int, str]]"},
    {"Union[Tensor, NoneType, List[Tensor]]", "Union(Tensor, Tensor[], NoneType)", "Union(Tensor, Tensor[], NoneType)", "Union[Tensor, List[Tensor], NoneType]"},
    {"__torch__.torch.classes.quantized.Conv2dPackedParamsBase", "__torch__.torch.classes.quantized.Conv2dPackedParamsBase", "__torch__.torch.classes.quantized.Conv2dPackedParamsBase", "__torch__.torch.classes.quantized.Conv2dPackedParamsBase"},
    {"Optional[__torch__.torch.classes.quantized.LinearPackedParamsBase]", "__torch__.torch.classes.quantized.LinearPackedParamsBase?", "__torch__.torch.classes.quantized.LinearPackedParamsBase?", "Optional[__torch__.torch.classes.quantized.LinearPackedParamsBase]"},
};

// Unions holding `number` next to other types: c10's unionStr puts its separators by the member's
// index rather than by what it printed, and PyTorch really prints these (code it cannot read back).
const Spelling kMisprints[] = {
    {"Union[str, number]", "Union(, str, Scalar)", "Union(, str, Scalar)", "Union[, str, number]"},
    {"Union[Tensor, number]", "Union(TensorScalar)", "Union(TensorScalar)", "Union[Tensornumber]"},
    {"Union[number, List[int]]", "Union(int[]Scalar)", "Union(int[]Scalar)", "Union[List[int]number]"},
    {"Union[Tensor, str, number]", "Union(Tensor, str, Scalar)", "Union(Tensor, str, Scalar)", "Union[Tensor, str, number]"},
    {"Union[Tensor, number, None]", "Union(Tensor, NoneType, Scalar)", "Union(Tensor, NoneType, Scalar)", "Union[Tensor, NoneType, number]"},
};

// The user-defined types of the torch script that produced the strings in "named types":
//   class Pt(NamedTuple): x: torch.Tensor; y: int = 3; z: float = 2.5
//   class Color(Enum): RED = 1
//   @torch.jit.script class Foo; @torch.jit.interface class Iface: def f(self, x: int) -> int
struct UserTypes {
  TypePtr pt = TupleType::create_named("__torch__.Pt", {"x", "y", "z"},
                                       {TensorType::get(), IntType::get(), FloatType::get()},
                                       {std::nullopt, IValue(int64_t{3}), IValue(2.5)});
  TypePtr color = EnumType::create("__torch__.Color", IntType::get(), {{"RED", IValue(int64_t{1})}});
  std::shared_ptr<ClassType> foo = ClassType::create("__torch__.Foo", false);
  std::shared_ptr<InterfaceType> iface = InterfaceType::create("__torch__.Iface", false);

  TypeParseContext context() const {
    TypeParseContext ctx;
    ctx.file = "code/__torch__.py";
    ctx.resolve = [this](const std::string& name) -> TypePtr {
      if (name == "__torch__.Pt") return pt;
      if (name == "__torch__.Color") return color;
      if (name == "__torch__.Foo") return foo;
      if (name == "__torch__.Iface") return iface;
      return nullptr;
    };
    return ctx;
  }
};

TypePtr T(const char* code) {
  static const UserTypes users;
  return parse_type(code, users.context());
}

TypePtr refined(TensorType::Refinement r) { return TensorType::create(std::move(r)); }

}  // namespace

TEST_CASE("types: the three spellings of every type match PyTorch 1.13") {
  std::vector<Spelling> all(std::begin(kSpellings), std::end(kSpellings));
  all.insert(all.end(), std::begin(kMisprints), std::end(kMisprints));
  for (const Spelling& s : all) {
    CAPTURE(s.code);
    const TypePtr t = T(s.code);
    CHECK(t->str() == s.str);
    CHECK(t->graph_str() == s.graph);
    CHECK(t->annotation_str() == s.annotation);
  }
}

TEST_CASE("types: named types print as torch prints them") {
  const UserTypes u;
  const auto ctx = u.context();
  struct Row {
    const char* code;
    const char* str;
    const char* graph;
    const char* annotation;
  };
  // From @torch.jit.script functions over those classes: str(f.schema), type.str(), annotation_str.
  const Row rows[] = {
      {"__torch__.Pt", "__torch__.Pt", "NamedTuple(x : Tensor, y : int = 3, z : float = 2.5)", "__torch__.Pt"},
      {"List[__torch__.Pt]", "__torch__.Pt[]", "NamedTuple(x : Tensor, y : int = 3, z : float = 2.5)[]", "List[__torch__.Pt]"},
      {"Optional[__torch__.Pt]", "__torch__.Pt?", "NamedTuple(x : Tensor, y : int = 3, z : float = 2.5)?", "Optional[__torch__.Pt]"},
      {"Union[__torch__.Pt, int]", "Union(__torch__.Pt, int)", "Union(__torch__.Pt, int)", "Union[__torch__.Pt, int]"},
      {"__torch__.Color", "Enum<__torch__.Color>", "Enum<__torch__.Color>", "__torch__.Color"},
      {"List[__torch__.Color]", "Enum<__torch__.Color>[]", "Enum<__torch__.Color>[]", "List[__torch__.Color]"},
      {"__torch__.Foo", "__torch__.Foo", "__torch__.Foo", "__torch__.Foo"},
      {"Optional[__torch__.Foo]", "__torch__.Foo?", "__torch__.Foo?", "Optional[__torch__.Foo]"},
      {"Dict[str, __torch__.Foo]", "Dict(str, __torch__.Foo)", "Dict(str, __torch__.Foo)", "Dict[str, __torch__.Foo]"},
      {"__torch__.Iface", "InterfaceType<Iface>", "InterfaceType<Iface>", "__torch__.Iface"},
      {"Optional[__torch__.Iface]", "InterfaceType<Iface>?", "InterfaceType<Iface>?", "Optional[__torch__.Iface]"},
  };
  for (const Row& r : rows) {
    CAPTURE(r.code);
    const TypePtr t = parse_type(r.code, ctx);
    CHECK(t->str() == r.str);
    CHECK(t->graph_str() == r.graph);
    CHECK(t->annotation_str() == r.annotation);
  }
  // From str(graph): `%k.1 : NamedTuple(x : Tensor, y : int = 3, z : float = 2.5)` and a
  // NamedTuple without defaults, `NamedTuple(x : Tensor, y : int)`.
  const TypePtr plain = TupleType::create_named("__torch__.Q", {"x", "y"}, {TensorType::get(), IntType::get()});
  CHECK(plain->graph_str() == "NamedTuple(x : Tensor, y : int)");
  CHECK(plain->str() == "__torch__.Q");
  // Defaults print as IValue's operator<< does: strings bare, -0.0 as "0.".
  auto tup = std::make_shared<TupleData>();
  tup->items = {IValue(int64_t{1}), IValue("s")};
  const TypePtr defaults = TupleType::create_named(
      "__torch__.P", {"a", "b", "c", "d", "e", "f"},
      {StringType::get(), OptionalType::create(IntType::get()), BoolType::get(), FloatType::get(),
       TupleType::create({IntType::get(), StringType::get()}), FloatType::get()},
      {IValue("x'y"), IValue(), IValue(true), IValue(-0.0), IValue(tup), IValue(1e-5)});
  CHECK(defaults->graph_str() ==
        "NamedTuple(a : str = x'y, b : int? = None, c : bool = True, d : float = 0., e : (int, str) = (1, s), "
        "f : float = 1.0000000000000001e-05)");
  // Types the graph printer writes without a code spelling.
  CHECK(FunctionType::create("__torch__.f")->graph_str() == "Function");
  CHECK(FunctionType::create("__torch__.f")->annotation_str() == "__torch__.f");
}

TEST_CASE("types: refined tensors in graphs") {
  using D = TensorType::Dims;
  const Device cpu{}, cuda0{Device::Type::CUDA, 0};
  // torch._C.TensorType.create_from_tensor(...) / .get().with_dtype/with_sizes/with_device, .str(),
  // and parse_ir round trips.
  CHECK(refined({.dtype = DType::Float32, .device = cpu, .sizes = D{3, 2}, .strides = D{1, 3}, .requires_grad = false})
            ->graph_str() == "Float(3, 2, strides=[1, 3], requires_grad=0, device=cpu)");
  CHECK(refined({.dtype = DType::Int64, .device = cpu, .sizes = D{}, .strides = D{}, .requires_grad = false})
            ->graph_str() == "Long(requires_grad=0, device=cpu)");
  CHECK(refined({.dtype = DType::Bool, .device = cpu, .sizes = D{2}, .strides = D{1}, .requires_grad = false})
            ->graph_str() == "Bool(2, strides=[1], requires_grad=0, device=cpu)");
  CHECK(refined({.dtype = DType::Float32, .device = cpu, .sizes = D{2}, .strides = D{1}, .requires_grad = true})
            ->graph_str() == "Float(2, strides=[1], requires_grad=1, device=cpu)");
  CHECK(refined({.dtype = DType::Float16, .device = cpu, .sizes = D{0}, .strides = D{1}, .requires_grad = false})
            ->graph_str() == "Half(0, strides=[1], requires_grad=0, device=cpu)");
  CHECK(refined({.dtype = DType::Float16, .device = cpu, .sizes = D{std::nullopt, 3}, .strides = D{3, 1}, .requires_grad = false})
            ->graph_str() == "Half(*, 3, strides=[3, 1], requires_grad=0, device=cpu)");
  CHECK(refined({.sizes = D{2, std::nullopt}})->graph_str() == "Tensor(2, *)");
  CHECK(refined({.sizes = D{}})->graph_str() == "Tensor()");
  CHECK(refined({.dtype = DType::Float64})->graph_str() == "DoubleTensor");
  CHECK(refined({.dtype = DType::Float64, .sizes = D{}})->graph_str() == "Double()");
  CHECK(refined({.dtype = DType::Float64, .sizes = D{4}})->graph_str() == "Double(4)");
  // parse_ir reads `Long(requires_grad=1, device=cuda:0)` as a 0-dim tensor.
  CHECK(refined({.dtype = DType::Int64, .device = cuda0, .sizes = D{}, .requires_grad = true})->graph_str() ==
        "Long(requires_grad=1, device=cuda:0)");
  CHECK(refined({.dtype = DType::Float64, .sizes = D{std::nullopt, 3}})->graph_str() == "Double(*, 3)");
  CHECK(refined({.dtype = DType::Float32, .device = cpu, .sizes = D{}})->graph_str() == "Float(device=cpu)");
  // Rank unknown: c10 prints the fields after the "Tensor" suffix.
  CHECK(refined({.dtype = DType::Float32, .device = cpu, .requires_grad = false})->graph_str() ==
        "FloatTensor(requires_grad=0, device=cpu)");
  CHECK(refined({.device = cuda0})->graph_str() == "Tensor(device=cuda:0)");
  CHECK(refined({.dtype = DType::Int32, .device = cpu})->graph_str() == "IntTensor(device=cpu)");
  CHECK(refined({.sizes = D{std::nullopt, std::nullopt}})->graph_str() == "Tensor(*, *)");
  // Strides of another rank are not shown.
  CHECK(refined({.dtype = DType::Float32, .device = cpu, .sizes = D{2, 3, 4}, .strides = D{3, 1}, .requires_grad = false})
            ->graph_str() == "Float(2, 3, 4, requires_grad=0, device=cpu)");
  CHECK(ListType::create(refined({.dtype = DType::Float64, .sizes = D{4}}))->graph_str() == "Double(4)[]");
  // Refinements never show in str() or annotations.
  const TypePtr r = refined({.dtype = DType::Float64, .sizes = D{4}});
  CHECK(r->str() == "Tensor");
  CHECK(OptionalType::create(r)->annotation_str() == "Optional[Tensor]");

  const std::map<DType, const char*> names = {
      {DType::UInt8, "ByteTensor"},           {DType::Int8, "CharTensor"},          {DType::Int16, "ShortTensor"},
      {DType::Int32, "IntTensor"},            {DType::Int64, "LongTensor"},         {DType::Float16, "HalfTensor"},
      {DType::Float32, "FloatTensor"},        {DType::Float64, "DoubleTensor"},     {DType::Complex64, "ComplexFloatTensor"},
      {DType::Complex128, "ComplexDoubleTensor"}, {DType::Bool, "BoolTensor"},      {DType::BFloat16, "BFloat16Tensor"},
      {DType::QInt8, "QInt8Tensor"},          {DType::QUInt8, "QUInt8Tensor"},      {DType::QInt32, "QInt32Tensor"},
      {DType::Complex32, "ComplexHalfTensor"},
  };
  for (const auto& [dtype, name] : names) CHECK(refined({.dtype = dtype})->graph_str() == name);

  // A constant from a real tensor: everything known.
  Tensor t = Tensor::empty(DType::Float32, {2, 3});
  const TypePtr from = TensorType::from_tensor(t);
  CHECK(from->graph_str() == "Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)");
  CHECK(from->expect<TensorType>().is_complete());
  CHECK(from->is_subtype_of(TensorType::get()));
  CHECK_FALSE(TensorType::get()->is_subtype_of(from));
}

TEST_CASE("types: schema-only types") {
  CHECK(ScalarTypeType::get()->str() == "ScalarType");
  CHECK(LayoutType::get()->str() == "Layout");
  CHECK(MemoryFormatType::get()->str() == "MemoryFormat");
  CHECK(SymIntType::get()->str() == "SymInt");
  CHECK(SymIntType::get()->annotation_str() == "int");
  CHECK(GeneratorType::get()->str() == "Generator");
  CHECK(StorageType::get()->str() == "Storage");
  CHECK(QSchemeType::get()->str() == "QScheme");
  CHECK(AnyEnumType::get()->str() == "AnyEnumType");
  CHECK(AnyClassType::get()->str() == "AnyClassType");
  CHECK(VarType::create("tVal")->str() == "tVal");
  CHECK(DictType::create(StringType::get(), VarType::create("t"))->str() == "Dict(str, t)");
  CHECK(ListType::create(VarType::create("t"))->has_free_variables());
  CHECK_FALSE(ListType::create(IntType::get())->has_free_variables());
}

TEST_CASE("types: subtyping") {
  auto sub = [](const char* a, const char* b) { return T(a)->is_subtype_of(T(b)); };
  CHECK(sub("int", "number"));
  CHECK(sub("float", "number"));
  CHECK(sub("complex", "number"));
  CHECK_FALSE(sub("bool", "number"));
  CHECK_FALSE(sub("number", "int"));
  CHECK(sub("NoneType", "Optional[int]"));
  CHECK(sub("int", "Optional[int]"));
  CHECK(sub("Tensor", "Optional[Tensor]"));
  CHECK(sub("Optional[int]", "Optional[number]"));
  CHECK_FALSE(sub("Optional[int]", "int"));
  CHECK_FALSE(sub("NoneType", "int"));
  CHECK(sub("int", "Any"));
  CHECK(sub("List[int]", "Any"));
  CHECK_FALSE(sub("List[int]", "List[float]"));
  CHECK_FALSE(sub("List[int]", "List[number]"));  // lists are invariant
  CHECK_FALSE(sub("List[int]", "List[Optional[int]]"));
  CHECK(sub("List[int]", "list"));
  CHECK_FALSE(sub("Dict[str, int]", "Dict[str, number]"));
  CHECK(sub("Tuple[int, NoneType]", "Tuple[number, Optional[str]]"));  // tuples are covariant
  CHECK_FALSE(sub("Tuple[int]", "Tuple[int, int]"));
  CHECK(sub("Tuple[int]", "tuple"));
  CHECK(sub("Future[int]", "Future[number]"));
  CHECK_FALSE(sub("RRef[int]", "RRef[number]"));
  CHECK(sub("int", "Union[int, str]"));
  CHECK(sub("Union[int, str]", "Union[int, str, NoneType]"));
  CHECK_FALSE(sub("Union[int, str]", "int"));
  CHECK(sub("Union[int, float]", "number"));
  CHECK(sub("number", "Union[int, float, complex, str]"));
  CHECK_FALSE(sub("number", "Union[int, float, str]"));
  CHECK(sub("Optional[int]", "Union[int, str, NoneType]"));
  CHECK_FALSE(sub("Optional[int]", "Union[int, str]"));
  CHECK(sub("Union[int, NoneType]", "Optional[number]"));

  // NamedTuples are tuples; a plain tuple is no NamedTuple.
  const TypePtr pt = TupleType::create_named("__torch__.P", {"a"}, {IntType::get()});
  CHECK(pt->is_subtype_of(T("Tuple[int]")));
  CHECK_FALSE(T("Tuple[int]")->is_subtype_of(pt));
  CHECK(pt->is_subtype_of(AnyTupleType::get()));

  const TypePtr e = EnumType::create("__torch__.E", StringType::get(), {});
  CHECK(e->is_subtype_of(AnyEnumType::get()));
  CHECK_FALSE(e->is_subtype_of(StringType::get()));
}

TEST_CASE("types: classes meet interfaces by their methods") {
  auto iface = InterfaceType::create("__torch__.I", /*is_module=*/false);
  iface->add_method({"forward", {{"self", iface}, {"x", TensorType::get()}}, {{"", TensorType::get()}}});
  auto good = ClassType::create("__torch__.Good", /*is_module=*/false);
  good->add_method({"forward", {{"self", good}, {"x", OptionalType::create(TensorType::get())}}, {{"", TensorType::get()}}});
  auto renamed = ClassType::create("__torch__.Renamed", false);
  renamed->add_method({"forward", {{"self", renamed}, {"y", TensorType::get()}}, {{"", TensorType::get()}}});
  auto missing = ClassType::create("__torch__.Missing", false);

  CHECK(good->is_subtype_of(*iface));  // arguments are contravariant: Tensor? accepts Tensor
  CHECK_FALSE(renamed->is_subtype_of(*iface));
  CHECK_FALSE(missing->is_subtype_of(*iface));
  CHECK(good->is_subtype_of(AnyClassType::get()));

  auto module_iface = InterfaceType::create("__torch__.MI", /*is_module=*/true);
  auto module = ClassType::create("__torch__.M", /*is_module=*/true);
  CHECK(module->is_subtype_of(*module_iface));
  CHECK_FALSE(good->is_subtype_of(*module_iface));  // module interfaces take modules only
  CHECK(module->is_module());
  CHECK(module_iface->is_module());

  // Classes compare by name; attributes are added after creation.
  auto cls = ClassType::create("__torch__.C", true);
  CHECK(cls->add_attribute("weight", TensorType::get(), ClassType::AttributeKind::Parameter) == 0);
  CHECK(cls->add_attribute("child", cls) == 1);
  cls->add_constant("k", IValue(int64_t{3}));
  CHECK(cls->find_attribute("child")->equals(*cls));
  CHECK(cls->find_attribute_slot("weight") == 0u);
  CHECK(cls->find_attribute("nope") == nullptr);
  CHECK(cls->find_constant("k")->to_int() == 3);
  CHECK(error_of([&] { cls->add_attribute("k", IntType::get()); }) == "class __torch__.C defines 'k' twice");
  CHECK(ClassType::create("__torch__.C", true)->equals(*cls));
  CHECK_FALSE(ClassType::create("__torch__.D", true)->equals(*cls));

  // Their owner breaks the cycles (`self`, `child`) when done.
  for (auto* c : {good.get(), renamed.get(), cls.get()}) c->release();
  iface->release();
  CHECK(cls->attributes().empty());
}

TEST_CASE("types: equality and canonical forms") {
  CHECK(T("Union[str, int]")->equals(*T("Union[int, str]")));
  CHECK(T("Optional[int]")->equals(*T("Union[NoneType, int]")));
  CHECK(T("Union[int, float, complex]")->equals(*NumberType::get()));  // c10 says so
  CHECK(NumberType::get()->equals(*T("Union[int, float, complex]")));
  CHECK_FALSE(T("List[int]")->equals(*T("List[float]")));
  CHECK(T("Dict[str, List[int]]")->equals(*T("Dict[str, List[int]]")));
  CHECK(T("Tuple[int, str]")->equals(*T("Tuple[int, str]")));
  CHECK_FALSE(TupleType::create_named("__torch__.P", {"a"}, {IntType::get()})->equals(*T("Tuple[int]")));
  CHECK(OptionalType::create(NoneType::get()) == NoneType::get());
  CHECK(UnionType::create({IntType::get(), IntType::get()}) == IntType::get());
  CHECK(T("Union[int, Any]") == AnyType::get());
  CHECK(IntType::get() == T("int"));  // singletons are shared
  CHECK(error_of([] { DictType::create(ListType::create(IntType::get()), IntType::get()); }) ==
        "Cannot create dict for key type 'int[]', only int, float, complex, Tensor, device and string keys are "
        "supported");
}

TEST_CASE("types: unification") {
  auto unify = [](const char* a, const char* b, bool to_union = false) -> std::string {
    auto u = unify_types(T(a), T(b), to_union);
    return u ? (*u)->annotation_str() : "<none>";
  };
  CHECK(unify("int", "NoneType") == "Optional[int]");
  CHECK(unify("NoneType", "Tensor") == "Optional[Tensor]");
  CHECK(unify("int", "number") == "number");
  CHECK(unify("int", "float") == "<none>");
  CHECK(unify("int", "float", true) == "Union[float, int]");
  CHECK(unify("Tuple[int, NoneType]", "Tuple[int, str]") == "Tuple[int, Optional[str]]");
  CHECK(unify("List[int]", "List[float]") == "<none>");
  CHECK(unify("Optional[int]", "int") == "Optional[int]");
  CHECK(unify("Future[int]", "Future[NoneType]") == "Future[Optional[int]]");

  using D = TensorType::Dims;
  const TypePtr a = refined({.dtype = DType::Float32, .sizes = D{2, 3}});
  const TypePtr b = refined({.dtype = DType::Float32, .sizes = D{2, 4}});
  CHECK((*unify_types(a, b))->graph_str() == "Float(2, *)");
  CHECK((*unify_types(ListType::create(a), ListType::create(b)))->graph_str() == "Tensor[]");

  std::string why;
  const std::vector<TypePtr> list = {IntType::get(), NoneType::get(), StringType::get()};
  CHECK_FALSE(unify_type_list(list, &why));
  CHECK(why == "Could not unify type list since element 2 of type str did not match the types before it (Optional[int])");
}

TEST_CASE("types: schema type variables") {
  TypeEnv env;
  const TypePtr t = VarType::create("t");
  CHECK(match_type_variables(ListType::create(t), T("List[Tensor]"), env) == "");
  CHECK(env.at("t")->str() == "Tensor");
  CHECK(try_eval_type_variables(OptionalType::create(t), env)->str() == "Tensor?");
  CHECK(match_type_variables(t, T("int"), env) ==
        "Type variable 't' previously matched to type Tensor is matched to type int");
  CHECK(match_type_variables(ListType::create(t), T("int"), env) == "Cannot match List[t] to int");

  TypeEnv dict_env;
  CHECK(match_type_variables(DictType::create(StringType::get(), VarType::create("tVal")), T("Dict[str, List[int]]"),
                             dict_env) == "");
  CHECK(dict_env.at("tVal")->annotation_str() == "List[int]");
  CHECK(match_type_variables(DictType::create(StringType::get(), t), T("List[int]"), dict_env) ==
        "Cannot match a dict to List[int]");

  // None matches Optional[t] but leaves t unknown.
  TypeEnv none_env;
  CHECK(match_type_variables(OptionalType::create(t), NoneType::get(), none_env) == "");
  CHECK(try_eval_type_variables(t, none_env) == nullptr);
  // A tuple literal of one type passes for a list.
  TypeEnv tuple_env;
  CHECK(match_type_variables(ListType::create(t), T("Tuple[int, int]"), tuple_env) == "");
  CHECK(tuple_env.at("t")->str() == "int");
}

TEST_CASE("types: formatting values as IValue's printer") {
  CHECK(format_double(1.0) == "1.");
  CHECK(format_double(-0.0) == "0.");
  CHECK(format_double(2.5) == "2.5");
  CHECK(format_double(0.1) == "0.10000000000000001");
  CHECK(format_double(1e-5) == "1.0000000000000001e-05");
  CHECK(format_double(1e10) == "10000000000.");
  CHECK(format_double(1e17) == "100000000000000000.");
  CHECK(format_double(9.2233720368547748e18) == "9223372036854774784.");
  CHECK(format_double(9.3e18) == "9.3e+18");
  CHECK(format_double(1e22) == "1e+22");
  CHECK(format_double(1e-300) == "1e-300");
  CHECK(format_double(5e-324) == "4.9406564584124654e-324");
  CHECK(format_double(1.0 / 0.0) == "inf");
  CHECK(format_double(-1.0 / 0.0) == "-inf");
  CHECK(format_ivalue(IValue(std::complex<double>(1, 2))) == "1.+2.j");
  CHECK(format_ivalue(IValue(true)) == "True");
  CHECK(format_ivalue(IValue()) == "None");
}

TEST_CASE("type expressions: parsing errors") {
  auto err = [](const char* code) { return error_of([&] { T(code); }); };
  CHECK(err("Foo") == "code/__torch__.py:1:1: Unknown type name 'Foo'");
  CHECK(err("List[Foo]") == "code/__torch__.py:1:6: Unknown type name 'Foo'");
  CHECK(err("__torch__.Nope") == "code/__torch__.py:1:1: Unknown type name '__torch__.Nope'");
  CHECK(err("Final[int]") == "code/__torch__.py:1:1: Unknown type constructor Final");
  CHECK(err("Optional[int, str]") == "code/__torch__.py:1:1: expected exactly one element type but found 2");
  CHECK(err("List[int, str]") == "code/__torch__.py:1:1: expected exactly one element type but found 2");
  CHECK(err("Dict[int]") == "code/__torch__.py:1:1: expected exactly 2 element types but found 1");
  CHECK(err("Dict[List[int], int]") ==
        "code/__torch__.py:1:1: Cannot create dict for key type 'int[]', only int, float, complex, Tensor, device "
        "and string keys are supported");
  CHECK(err("Tuple[(int, str)]") == "code/__torch__.py:1:7: Tuple literal in Tuple type annotation must not have any elements!");
  CHECK(err("foo()") == "code/__torch__.py:1:1: Expression of type call cannot be used in a type expression");
  CHECK(err("3") == "code/__torch__.py:1:1: Expression of type number cannot be used in a type expression");
  CHECK(err("f()[int]") == "code/__torch__.py:1:1: Subscripted type must be a type identifier");
  CHECK_FALSE(err("List[").empty());  // the parser's own syntax error
}

TEST_CASE("type expressions: Final, strings and round trips") {
  const UserTypes u;
  const auto ctx = u.context();
  const Annotation fin = parse_annotation("Final[int]", ctx);
  CHECK(fin.is_final);
  CHECK(fin.type == IntType::get());
  const Annotation plain = parse_annotation("List[int]", ctx);
  CHECK_FALSE(plain.is_final);
  CHECK(plain.type->str() == "int[]");
  CHECK(parse_type("\"__torch__.Foo\"", ctx)->equals(*u.foo));  // a forward reference
  CHECK(parse_type("'torch.classes.quantized.Conv2dPackedParamsBase'", ctx)->str() ==
        "__torch__.torch.classes.quantized.Conv2dPackedParamsBase");
  // Custom classes are one object per name.
  CHECK(T("__torch__.torch.classes.xnnpack.LinearOpContext") == T("__torch__.torch.classes.xnnpack.LinearOpContext"));

  // What PyTorch's printer writes parses back to the same spelling.
  for (const Spelling& s : kSpellings) {
    const std::string ann = s.annotation;
    CAPTURE(ann);
    CHECK(T(ann.c_str())->annotation_str() == ann);
    CHECK(T(ann.c_str())->equals(*T(s.code)));
  }

  // Deep nesting stays within the parser's bound and the reader's recursion.
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += "List[";
  deep += "int";
  for (int i = 0; i < 100; ++i) deep += "]";
  CHECK(T(deep.c_str())->annotation_str() == deep);
}
