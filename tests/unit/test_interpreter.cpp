// The interpreter against PyTorch: IR graphs (control flow, lists, tuples, dicts, optionals,
// exceptions) run on the inputs of testdata/interpreter/cases.json and compared with what
// torch 1.13 returned for them (testdata/interpreter/gen_cases.py writes both); a scripted module
// whose attributes change between calls (stateful.pt), with calls through an interface.
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "lib/core/error.h"
#include "lib/ir/graph_parser.h"
#include "lib/runtime/interpreter.h"
#include "tests/support/testdata_path.h"

using namespace jitctl;
using json = nlohmann::json;

namespace {

json read_json(const std::string& name) {
  std::ifstream f(test::testdata_dir() / "interpreter" / name);
  REQUIRE(f.good());
  return json::parse(f);
}

std::optional<DType> dtype_named(const std::string& s) { return dtype_from_name(s); }

// gen_cases.py's encoding: {"tuple": [...]}, {"dict": [[k, v]...]}, {"float": x},
// {"tensor": {"dtype", "shape", "data"}}, lists, ints, bools, strings, null.
IValue decode(const json& j) {
  if (j.is_null()) return IValue();
  if (j.is_boolean()) return IValue(j.get<bool>());
  if (j.is_number_integer()) return IValue(j.get<int64_t>());
  if (j.is_number_float()) return IValue(j.get<double>());
  if (j.is_string()) return IValue(j.get<std::string>());
  if (j.is_array()) {
    auto l = std::make_shared<ListData>();
    for (const auto& x : j) l->items.push_back(decode(x));
    return IValue(l);
  }
  if (j.contains("float")) return IValue(j["float"].get<double>());
  if (j.contains("tuple")) {
    auto t = std::make_shared<TupleData>();
    for (const auto& x : j["tuple"]) t->items.push_back(decode(x));
    return IValue(t);
  }
  if (j.contains("dict")) {
    auto d = std::make_shared<DictData>();
    for (const auto& kv : j["dict"]) d->set(decode(kv[0]), decode(kv[1]));
    return IValue(d);
  }
  FAIL("cannot decode " << j.dump());
  return IValue();
}

double element(const Tensor& t, int64_t i) {
  const char* p = static_cast<const char*>(t.data()) + i * static_cast<int64_t>(element_size(t.dtype()));
  switch (t.dtype()) {
    case DType::Float32: { float v; std::memcpy(&v, p, sizeof v); return v; }
    case DType::Float64: { double v; std::memcpy(&v, p, sizeof v); return v; }
    case DType::Int64: { int64_t v; std::memcpy(&v, p, sizeof v); return static_cast<double>(v); }
    case DType::Int32: { int32_t v; std::memcpy(&v, p, sizeof v); return v; }
    case DType::Bool: return *p ? 1.0 : 0.0;
    default: return std::nan("");
  }
}

// "" when `v` is what PyTorch returned, else where it differs.
std::string differs(const IValue& v, const json& want, const std::string& path = "out") {
  auto bad = [&](const std::string& why) { return path + ": " + why + " (want " + want.dump() + ")"; };
  if (want.is_null()) return v.is_none() ? "" : bad(std::string("got a ") + kind_name(v.kind()));
  if (want.is_boolean()) return v.is(IValue::Kind::Bool) && v.to_bool() == want.get<bool>() ? "" : bad("bool");
  if (want.is_number_integer())
    return v.is(IValue::Kind::Int) && v.to_int() == want.get<int64_t>() ? "" : bad("int");
  if (want.is_string()) return v.is(IValue::Kind::String) && v.to_string() == want.get<std::string>() ? "" : bad("str");
  if (want.is_array()) {
    if (!v.is(IValue::Kind::List)) return bad("not a list");
    const auto& items = v.to_list()->items;
    if (items.size() != want.size()) return bad("length");
    for (size_t i = 0; i < items.size(); ++i)
      if (auto d = differs(items[i], want[i], path + "[" + std::to_string(i) + "]"); !d.empty()) return d;
    return "";
  }
  if (want.contains("float")) return v.is(IValue::Kind::Double) && v.to_double() == want["float"].get<double>() ? "" : bad("float");
  if (want.contains("tuple")) {
    if (!v.is(IValue::Kind::Tuple)) return bad("not a tuple");
    const auto& items = v.to_tuple()->items;
    if (items.size() != want["tuple"].size()) return bad("length");
    for (size_t i = 0; i < items.size(); ++i)
      if (auto d = differs(items[i], want["tuple"][i], path + "[" + std::to_string(i) + "]"); !d.empty()) return d;
    return "";
  }
  if (want.contains("dict")) {
    if (!v.is(IValue::Kind::Dict)) return bad("not a dict");
    const auto& items = v.to_dict()->items;
    if (items.size() != want["dict"].size()) return bad("size");
    for (size_t i = 0; i < items.size(); ++i) {
      if (auto d = differs(items[i].first, want["dict"][i][0], path + ".key"); !d.empty()) return d;
      if (auto d = differs(items[i].second, want["dict"][i][1], path + ".value"); !d.empty()) return d;
    }
    return "";
  }
  if (want.contains("tensor")) {
    if (!v.is_tensor()) return bad("not a tensor");
    const Tensor& t = v.to_tensor();
    const json& w = want["tensor"];
    if (dtype_named(w["dtype"].get<std::string>()) != t.dtype()) return bad("dtype");
    if (t.sizes() != w["shape"].get<std::vector<int64_t>>()) return bad("shape");
    const auto& data = w["data"];
    for (int64_t i = 0; i < t.numel(); ++i)
      if (element(t, i) != data[static_cast<size_t>(i)].get<double>()) return bad("element " + std::to_string(i));
    return "";
  }
  return bad("unknown expectation");
}

}  // namespace

TEST_CASE("interpreter: IR graphs give what PyTorch gives") {
  const json cases = read_json("cases.json");
  REQUIRE(cases.size() >= 10);
  for (const auto& [name, c] : cases.items()) {
    CAPTURE(name);
    Method m = plan_graph(parse_graph(c["graph"].get<std::string>()));
    for (const auto& run : c["runs"]) {
      CAPTURE(run["inputs"].dump());
      std::vector<IValue> args;
      for (const auto& a : run["inputs"]) args.push_back(decode(a));
      if (run.contains("error")) {
        // PyTorch's message ends with "<python class>: <message>"; ours starts with that line.
        const std::string want = run["error"].get<std::string>();
        try {
          m(args);
          FAIL("no exception, expected " << want);
        } catch (const RaisedException& e) {
          CHECK(std::string(e.what()).substr(0, want.size()) == want);
          CHECK(e.code() == ExitCode::InvalidInput);
        }
      } else {
        CHECK(differs(m(args), run["output"]) == "");
      }
    }
  }
}

TEST_CASE("interpreter: a method can run again, from several registers, after a move") {
  // The same compiled graph twice: values moved out of registers in the first run must not be
  // missing from the second (constants are never moved).
  Method m = plan_graph(parse_graph(R"(graph(%a : int):
  %c : int[] = prim::Constant[value=[1, 2]]()
  %l : int[] = aten::list(%c)
  %_ : int[] = aten::append(%l, %a)
  %n : int = aten::len(%l)
  %k : int = aten::len(%c)
  %out : (int, int) = prim::TupleConstruct(%n, %k)
  return (%out)
)"));
  for (int i = 0; i < 2; ++i) CHECK(differs(m({IValue(7)}), json{{"tuple", {3, 2}}}) == "");
}

TEST_CASE("interpreter: a list of constants is built once only where no reader can change or keep it") {
  // %l is appended to (a written argument) and %r is returned: both must be new lists on every
  // call. %k is only read by aten::len and may be a shared constant.
  Method m = plan_graph(parse_graph(R"(graph(%a : int):
  %1 : int = prim::Constant[value=1]()
  %2 : int = prim::Constant[value=2]()
  %l : int[] = prim::ListConstruct(%1, %2)
  %_ : int[] = aten::append(%l, %a)
  %n : int = aten::len(%l)
  %k : int[] = prim::ListConstruct(%1, %2)
  %nk : int = aten::len(%k)
  %r : int[] = prim::ListConstruct(%1, %2)
  %out : (int, int, int[]) = prim::TupleConstruct(%n, %nk, %r)
  return (%out)
)"));
  for (int i = 0; i < 3; ++i) {
    const IValue out = m({IValue(7)});
    CHECK(differs(out, json{{"tuple", {3, 2, {1, 2}}}}) == "");
    out.to_tuple()->items.at(2).to_list()->items.push_back(IValue(int64_t{99}));  // the caller keeps and changes it
  }
}

TEST_CASE("interpreter: module attributes change between calls; interface calls dispatch on the class") {
  const json want = read_json("stateful.json");
  Runtime rt = Runtime::load((test::testdata_dir() / "interpreter" / "stateful.pt").string());
  CHECK(rt.missing_ops("forward").empty());
  Method forward = rt.method("forward");
  CHECK(forward.num_inputs() == 2);
  for (size_t i = 0; i < want["calls"].size(); ++i) {
    CAPTURE(i);
    const auto& call = want["calls"][i];
    CHECK(differs(forward({decode(call[0]), decode(call[1])}), want["outputs"][i]) == "");
  }
}

TEST_CASE("interpreter: errors") {
  Method m = plan_graph(parse_graph(R"(graph(%a : int):
  %r : int = aten::add(%a, %a)
  return (%r)
)"));
  CHECK_THROWS_AS(m({}), InvalidInput);
  CHECK_THROWS_AS(m({IValue(1), IValue(2)}), InvalidInput);

  // An operator without an implementation is named when the graph runs.
  Method unknown = plan_graph(parse_graph(R"(graph(%a : int):
  %r : int = aten::no_such_op(%a)
  return (%r)
)"));
  try {
    unknown({IValue(1)});
    FAIL("no exception");
  } catch (const Unsupported& e) {
    CHECK(std::string(e.what()).find("aten::no_such_op") != std::string::npos);
  }

  Runtime rt = Runtime::load((test::testdata_dir() / "interpreter" / "stateful.pt").string());
  CHECK_THROWS_AS(rt.method("no_such_method"), InvalidInput);
}
