// Inputs and outputs of `jitctl run` against files numpy and PyTorch wrote
// (testdata/gen/make_io_goldens.py -> testdata/io), input specs, thread settings and the inter-op
// pool.
#include <doctest/doctest.h>
#include <sched.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <omp.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "lib/archive/npy.h"
#include "lib/core/error.h"
#include "lib/ops/schema.h"
#include "lib/runtime/arguments.h"
#include "lib/runtime/input_spec.h"
#include "lib/runtime/inputs.h"
#include "lib/runtime/interop_pool.h"
#include "lib/runtime/outputs.h"
#include "lib/runtime/threads.h"
#include "tests/support/error_of.h"
#include "tests/support/testdata_path.h"

using namespace jitctl;
using jitctl::test::error_of;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path io_dir() { return jitctl::test::testdata_dir() / "io"; }

const json& expected() {
  static const json j = [] {
    std::ifstream f(io_dir() / "expected.json");
    return json::parse(f);
  }();
  return j;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("jitctl_test_runtime_io_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

double half_to_double(uint16_t h) {
  const int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  const double sign = (h & 0x8000) ? -1 : 1;
  if (exp == 0) return sign * std::ldexp(mant, -24);
  if (exp == 31) return mant ? NAN : sign * INFINITY;
  return sign * std::ldexp(1024 + mant, exp - 25);
}

// Element i of a contiguous tensor as (real, imag).
std::pair<double, double> element(const Tensor& t, int64_t i) {
  const auto* p = static_cast<const uint8_t*>(t.data()) + i * static_cast<int64_t>(element_size(t.dtype()));
  auto get = [&](auto v) {
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  switch (t.dtype()) {
    case DType::Bool: return {get(bool()), 0};
    case DType::UInt8: return {get(uint8_t()), 0};
    case DType::Int8: return {get(int8_t()), 0};
    case DType::Int16: return {get(int16_t()), 0};
    case DType::Int32: return {get(int32_t()), 0};
    case DType::Int64: return {static_cast<double>(get(int64_t())), 0};
    case DType::Float16: return {half_to_double(get(uint16_t())), 0};
    case DType::Float32: return {get(float()), 0};
    case DType::Float64: return {get(double()), 0};
    case DType::Complex64: { float c[2]; std::memcpy(c, p, 8); return {c[0], c[1]}; }
    case DType::Complex128: { double c[2]; std::memcpy(c, p, 16); return {c[0], c[1]}; }
    default: throw std::logic_error("unexpected dtype in test");
  }
}

void check_tensor(const Tensor& t, const json& e, const std::string& what) {
  INFO(what);
  REQUIRE(t.defined());
  CHECK(std::string(dtype_name(t.dtype())) == e["dtype"].get<std::string>());
  CHECK(t.sizes() == e["shape"].get<std::vector<int64_t>>());
  REQUIRE(t.is_contiguous());
  const auto& vals = e["values"];
  REQUIRE(t.numel() == static_cast<int64_t>(vals.size()));
  for (int64_t i = 0; i < t.numel(); ++i) {
    const auto [re, im] = element(t, i);
    const json& v = vals[static_cast<size_t>(i)];
    if (v.is_array()) {
      CHECK(re == v[0].get<double>());
      CHECK(im == v[1].get<double>());
    } else if (v.is_boolean()) {
      CHECK(re == (v.get<bool>() ? 1.0 : 0.0));
    } else {
      CHECK(re == v.get<double>());
    }
  }
}

// The exit code and message a bad file gets.
std::pair<int, std::string> failure_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return {static_cast<int>(e.code()), e.what()};
  }
  return {0, ""};
}

}  // namespace

TEST_CASE("npy files numpy wrote load with their dtype, shape and values, and write back byte for byte") {
  int files = 0;
  for (const auto& [name, e] : expected()["good"].items()) {
    if (name.rfind("npy/", 0) != 0) continue;
    ++files;
    const fs::path path = io_dir() / name;
    const Tensor t = load_npy(path.string());
    check_tensor(t, e, name);
    if (e["same_bytes_when_written"].get<bool>()) {
      INFO(name);
      CHECK(npy_bytes(t) == slurp(path));
    }
  }
  CHECK(files >= 20);
}

TEST_CASE("malformed npy files exit 2 and unsupported dtypes exit 3, naming the file and the problem") {
  int files = 0;
  for (const auto& [name, e] : expected()["bad"].items()) {
    ++files;
    const std::string path = (io_dir() / name).string();
    const auto [code, message] = failure_of([&] { load_inputs(path); });
    INFO(name, ": ", message);
    CHECK(code == e["exit_code"].get<int>());
    CHECK(message.find(path) == 0);
    CHECK(message.find(e["message"].get<std::string>()) != std::string::npos);
    CHECK(message.find('\n') == std::string::npos);
  }
  CHECK(files >= 15);
}

TEST_CASE("npz inputs are the arguments by number, stored or deflated") {
  for (const char* name : {"npz/stored.npz", "npz/deflated.npz", "npz/numpy_default_names.npz"}) {
    const auto& e = expected()["good"][name];
    const auto args = load_inputs((io_dir() / name).string());
    REQUIRE(args.size() == e.size());
    for (size_t i = 0; i < args.size(); ++i) check_tensor(args[i].to_tensor(), e[i], std::string(name) + " arg" + std::to_string(i));
  }
  CHECK(error_of([] { load_inputs((io_dir() / "npz/keyword_names.npz").string()); }).find("member 'x' is not a positional argument") !=
        std::string::npos);
  CHECK(error_of([] { load_inputs((io_dir() / "npz/gap.npz").string()); }).find("argument 1 is missing") != std::string::npos);
}

TEST_CASE("torch.save inputs: a tuple gives its items, anything else is one argument") {
  const auto mixed = load_inputs((io_dir() / "pt/mixed_tuple.pt").string());
  const auto& e = expected()["good"]["pt/mixed_tuple.pt"];
  REQUIRE(mixed.size() == e["count"].get<size_t>());
  check_tensor(mixed[0].to_tensor(), e["arg0"], "mixed_tuple arg0");
  CHECK(mixed[1].to_int() == 3);
  CHECK(mixed[2].to_double() == 2.5);
  CHECK(mixed[3].to_bool());
  CHECK(mixed[4].to_string() == "hello");
  CHECK(mixed[5].is_none());
  CHECK(mixed[6].to_list()->items.size() == 3);
  CHECK(mixed[7].to_dict()->items.size() == 1);

  const auto single = load_inputs((io_dir() / "pt/single_tensor.pt").string());
  REQUIRE(single.size() == 1);
  check_tensor(single[0].to_tensor(), expected()["good"]["pt/single_tensor.pt"]["arg0"], "single_tensor");
  const auto list = load_inputs((io_dir() / "pt/list.pt").string());
  REQUIRE(list.size() == 1);
  CHECK(list[0].is(IValue::Kind::List));

  CHECK(error_of([] { load_inputs("/nonexistent/in.pt"); }) == "/nonexistent/in.pt: cannot open: No such file or directory");
}

TEST_CASE("input specs: tensors") {
  using K = SpecValue::Kind;
  const auto specs = parse_input_spec("float32[1,3,224,224]");
  REQUIRE(specs.size() == 1);
  CHECK(specs[0].kind == K::Tensor);
  CHECK(specs[0].dtype == DType::Float32);
  CHECK(specs[0].shape == std::vector<int64_t>{1, 3, 224, 224});

  const auto two = parse_input_spec(" int64[ 8 ] , bool[]");
  REQUIRE(two.size() == 2);
  CHECK(two[0].dtype == DType::Int64);
  CHECK(two[0].shape == std::vector<int64_t>{8});
  CHECK(two[1].dtype == DType::Bool);
  CHECK(two[1].shape.empty());
  CHECK(parse_input_spec("float64[0,2]")[0].shape == std::vector<int64_t>{0, 2});
  CHECK(parse_input_spec("uint8[2]")[0].dtype == DType::UInt8);
  CHECK(parse_input_spec("int32[2]")[0].dtype == DType::Int32);

  for (const char* bad : {"float32", "float32[1,3", "floaty[2]", "float32[-1]", "float32[1,,2]", "float32[a]", "float32[2]]",
                          "", "float32[1]x", "float32[1099511627776,2]", "float32[1,]"}) {
    const auto [code, message] = failure_of([&] { parse_input_spec(bad); });
    INFO(bad, ": ", message);
    CHECK(code == 2);
    CHECK(message.find(fmt::format("--input-spec '{}'", bad)) == 0);
  }
  CHECK(failure_of([] { parse_input_spec("complex64[2]"); }).first == 3);
  // Messages say where and what was expected.
  CHECK(error_of([] { parse_input_spec("(float32[2,2],"); }).find("at the end") != std::string::npos);
  CHECK(error_of([] { parse_input_spec("float32"); }).find("'float32' needs a shape") != std::string::npos);
  CHECK(error_of([] { parse_input_spec("foo"); }).find("'foo' is not a value at column 1") != std::string::npos);
}

TEST_CASE("input specs: numbers, bools, None, strings and containers, as Python writes them") {
  using K = SpecValue::Kind;
  const auto v = parse_input_spec("3, -7, 2.5, 1e-3, -inf, true, False, none, None, \"a\\\"b\", 'c\\'d', '\\u00e9\\n'");
  REQUIRE(v.size() == 12);
  CHECK((v[0].kind == K::Int && v[0].i == 3));
  CHECK((v[1].kind == K::Int && v[1].i == -7));
  CHECK((v[2].kind == K::Float && v[2].f == 2.5));
  CHECK((v[3].kind == K::Float && v[3].f == 1e-3));
  CHECK((v[4].kind == K::Float && std::isinf(v[4].f) && v[4].f < 0));
  CHECK((v[5].kind == K::Bool && v[5].b));
  CHECK((v[6].kind == K::Bool && !v[6].b));
  CHECK(v[7].kind == K::None);
  CHECK(v[8].kind == K::None);
  CHECK((v[9].kind == K::String && v[9].s == "a\"b"));
  CHECK((v[10].kind == K::String && v[10].s == "c'd"));
  CHECK((v[11].kind == K::String && v[11].s == "\xc3\xa9\n"));

  const auto c = parse_input_spec("(float32[2,2], int64[3]), (1,), (2), [], [1, [2, 3]], {\"a\": float32[2], 'b': 1,}, ()");
  REQUIRE(c.size() == 7);
  CHECK((c[0].kind == K::Tuple && c[0].items.size() == 2 && c[0].items[1].dtype == DType::Int64));
  CHECK((c[1].kind == K::Tuple && c[1].items.size() == 1));
  CHECK((c[2].kind == K::Int && c[2].i == 2));  // (x) is x, as in Python
  CHECK((c[3].kind == K::List && c[3].items.empty()));
  CHECK((c[4].kind == K::List && c[4].items[1].kind == K::List && c[4].items[1].items.size() == 2));
  CHECK((c[5].kind == K::Dict && c[5].items.size() == 4 && c[5].items[0].s == "a" && c[5].items[1].kind == K::Tensor));
  CHECK((c[6].kind == K::Tuple && c[6].items.empty()));

  for (const char* bad : {"99999999999999999999", "1e999", "'open", "[1, 2", "{1: }", "{[1]: 2}", "(1 2)", "1.2.3", "3x", "\"\\q\"",
                          "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
                          "1,", "'\\ud800'"}) {
    const auto [code, message] = failure_of([&] { parse_input_spec(bad); });
    INFO(bad, ": ", message);
    CHECK(code == 2);
    CHECK(message.find("--input-spec '") == 0);
  }
}

TEST_CASE("input specs meet the schema: Python's conversions, and errors that name the argument") {
  const FunctionSchema s = parse_schema(
      "forward(Tensor x, float alpha, int[] dims, (int, str) pair, Dict(str, Tensor) d, str? name=None) -> Tensor");
  auto args = spec_inputs({"float32[2,3]", "2", "(1, 2)", "[3, 'q']", "{}"}, 0);
  args = check_arguments(s, std::move(args));
  REQUIRE(args.size() == 5);
  CHECK(args[1].is(IValue::Kind::Double));  // an int where a float is expected
  CHECK(args[1].to_double() == 2.0);
  CHECK(args[2].is(IValue::Kind::List));    // a tuple where a list is expected
  CHECK(args[2].to_list()->elem_type == "int");
  CHECK(args[3].is(IValue::Kind::Tuple));   // a list where a tuple is expected
  CHECK(args[4].to_dict()->value_type == "Tensor");  // {} takes the argument's types

  CHECK(error_of([&] { check_arguments(s, spec_inputs({"float32[2]", "'x'", "[1]", "(1, 'a')", "{}"}, 0)); }) ==
        "forward() argument 'alpha' (2nd argument) must be float, not str (str 'x') (as --input-spec, e.g. 0.5)");
  CHECK(error_of([&] { check_arguments(s, spec_inputs({"float32[2]", "1.0", "[1, 2.5]", "(1, 'a')", "{}"}, 0)); })
            .find("argument 'dims' (3rd argument) must be List[int], not list of 2: element [1] is float") != std::string::npos);
  CHECK(error_of([&] { check_arguments(s, spec_inputs({"float32[2]"}, 0)); })
            .find("forward() takes 5 to 6 arguments, the inputs give 1; 'alpha' (float) is missing") == 0);
  CHECK(error_of([&] { check_arguments(s, spec_inputs({"float32[2]", "1.0", "[]", "(1, 2, 3)", "{}"}, 0)); })
            .find("must be Tuple[int, str], not tuple of 3: a tuple with 3 element(s), not 2") != std::string::npos);

  CHECK(example_spec(parse_schema_type("Dict(str, Tensor)")) == "{\"key\": float32[2,3]}");
  CHECK(example_spec(parse_schema_type("(int, float)[]")) == "[(2, 0.5), (2, 0.5)]");
  CHECK(example_spec(parse_schema_type("str?")) == "\"text\"");
}

TEST_CASE("random inputs are seeded: same seed, same values; floats normal, ints small") {
  const auto a = spec_inputs({"float32[1000]", "int64[1000]"}, 7);
  // Tensors are numbered across the command line: the second one is drawn with seed + 1 whatever
  // values come between.
  const auto mixed = spec_inputs({"3, float32[1000]", "(none, int64[1000])"}, 7);
  const auto b = spec_inputs({"float32[1000]", "int64[1000]"}, 7);
  const auto c = spec_inputs({"float32[1000]"}, 8);
  REQUIRE(a.size() == 2);
  const Tensor& fa = a[0].to_tensor();
  CHECK(std::memcmp(fa.data(), b[0].to_tensor().data(), fa.nbytes()) == 0);
  CHECK(std::memcmp(a[1].to_tensor().data(), b[1].to_tensor().data(), a[1].to_tensor().nbytes()) == 0);
  CHECK(std::memcmp(fa.data(), c[0].to_tensor().data(), fa.nbytes()) != 0);
  CHECK(std::memcmp(fa.data(), mixed[1].to_tensor().data(), fa.nbytes()) == 0);
  CHECK(std::memcmp(a[1].to_tensor().data(), mixed[2].to_tuple()->items[1].to_tensor().data(), a[1].to_tensor().nbytes()) == 0);
  double sum = 0, sq = 0;
  for (int i = 0; i < 1000; ++i) {
    const double v = static_cast<const float*>(fa.data())[i];
    sum += v;
    sq += v * v;
  }
  CHECK(std::abs(sum / 1000) < 0.15);
  CHECK(std::abs(sq / 1000 - 1) < 0.2);
  const auto* ints = static_cast<const int64_t*>(a[1].to_tensor().data());
  for (int i = 0; i < 1000; ++i) CHECK((ints[i] >= 0 && ints[i] < 10));
  CHECK(error_of([] { resolve_inputs("x.pt", {"float32[1]"}, 0); }).find("not both") != std::string::npos);
  CHECK(resolve_inputs("", {}, 0).empty());
}

TEST_CASE("outputs: npz leaves named by their place (arg0, arg1.0, dict keys) in numpy's bytes, npy needs one tensor, summary per leaf") {
  TempDir tmp;
  const Tensor f32 = load_npy((io_dir() / "npy/float32.npy").string());
  const Tensor i64 = load_npy((io_dir() / "npy/int64.npy").string());
  auto inner = std::make_shared<TupleData>();
  inner->items = {IValue(i64), IValue(int64_t(5))};
  auto outer = std::make_shared<TupleData>();
  outer->items = {IValue(f32), IValue(inner)};
  const IValue result(outer);

  write_outputs(tmp.file("o.npz"), result);
  const auto arrays = load_npz(tmp.file("o.npz"));
  REQUIRE(arrays.size() == 3);
  CHECK(arrays[0].first == "arg0");
  CHECK(arrays[1].first == "arg1.0");
  CHECK(arrays[2].first == "arg1.1");
  CHECK(npy_bytes(arrays[0].second) == slurp(io_dir() / "npy/float32.npy"));
  CHECK(npy_bytes(arrays[1].second) == slurp(io_dir() / "npy/int64.npy"));
  CHECK(arrays[2].second.dim() == 0);
  // An npz output reads back as --inputs with the same structure.
  const auto back = load_inputs(tmp.file("o.npz"));
  REQUIRE(back.size() == 2);
  REQUIRE(back[1].is(IValue::Kind::Tuple));
  CHECK(back[1].to_tuple()->items.size() == 2);
  CHECK(back[1].to_tuple()->items[1].to_tensor().dim() == 0);

  // A dict result keeps its keys.
  auto dict = std::make_shared<DictData>();
  dict->set(IValue("scores"), IValue(f32));
  dict->set(IValue("a/b"), IValue(i64));
  write_outputs(tmp.file("d.NPZ"), IValue(dict));
  const auto named = load_npz(tmp.file("d.NPZ"));
  REQUIRE(named.size() == 2);
  CHECK(named[0].first == "scores");
  CHECK(named[1].first == "a_b");

  write_outputs(tmp.file("o.npy"), IValue(f32));
  CHECK(slurp(tmp.file("o.npy")) == slurp(io_dir() / "npy/float32.npy"));
  CHECK(failure_of([&] { write_outputs(tmp.file("t.npy"), result); }).first == 2);
  CHECK(failure_of([&] { write_outputs(tmp.file("t.txt"), result); }).first == 2);
  CHECK(failure_of([&] { write_outputs(tmp.file("s.npz"), IValue("text")); }).first == 3);
  CHECK(!fs::exists(tmp.file("t.npy")));
  for (const auto& entry : fs::directory_iterator(tmp.path))  // no temporaries left behind
    CHECK(entry.path().filename().string()[0] != '.');

  // float32.npy holds (arange(6) - 2.5) * 0.75: min -1.875, max 1.875, mean 0.
  CHECK(summarize_outputs(result) ==
        "out[0]: float32 [2, 3] min -1.875 max 1.875 mean 0\n"
        "out[1][0]: int64 [2, 3] min 0 max 10 mean 4.66667\n"
        "out[1][1]: int 5\n");
}

TEST_CASE("intra-op threads: set_num_threads beats MKL_NUM_THREADS beats OMP_NUM_THREADS") {
  const char* old_omp = std::getenv("OMP_NUM_THREADS");
  const char* old_mkl = std::getenv("MKL_NUM_THREADS");
  const std::string saved_omp = old_omp ? old_omp : "", saved_mkl = old_mkl ? old_mkl : "";
  ::unsetenv("OMP_NUM_THREADS");
  ::unsetenv("MKL_NUM_THREADS");
  CHECK(intraop_default_num_threads() == default_num_threads());
  // The default never asks for more threads than the affinity mask and cgroup quota allow.
  cpu_set_t set;
  CPU_ZERO(&set);
  REQUIRE(sched_getaffinity(0, sizeof set, &set) == 0);
  CHECK(usable_cpus() >= 1);
  CHECK(usable_cpus() <= CPU_COUNT(&set));
  CHECK(default_num_threads() <= usable_cpus());
  ::setenv("OMP_NUM_THREADS", "3", 1);
  CHECK(intraop_default_num_threads() == 3);
  ::setenv("MKL_NUM_THREADS", "5", 1);
  CHECK(intraop_default_num_threads() == 5);
  ::setenv("MKL_NUM_THREADS", "zero", 1);  // ignored (with a warning), as PyTorch does
  CHECK(intraop_default_num_threads() == 3);
  if (old_omp) ::setenv("OMP_NUM_THREADS", saved_omp.c_str(), 1); else ::unsetenv("OMP_NUM_THREADS");
  if (old_mkl) ::setenv("MKL_NUM_THREADS", saved_mkl.c_str(), 1); else ::unsetenv("MKL_NUM_THREADS");

  const int before = get_num_threads();
  set_num_threads(3);
  CHECK(get_num_threads() == 3);
  CHECK(omp_get_max_threads() == 3);
  set_num_threads(before);
}

TEST_CASE("inter-op pool: tasks run with the intra-op setting, errors reach the waiter, nested waits finish") {
  const int before = get_num_threads();
  set_num_threads(2);
  set_num_interop_threads(1);
  std::atomic<int> seen{0};
  InteropPool::global().submit([&] { seen = omp_get_max_threads(); }).wait();
  CHECK(seen.load() == 2);
  CHECK(InteropPool::global().size() == 1);

  auto failing = InteropPool::global().submit([] { throw InvalidInput("boom"); });
  CHECK(error_of([&] { failing.wait(); }) == "boom");
  CHECK(failing.ready());

  // One pool thread, and a task waiting on the tasks it forks: they run inline, no deadlock.
  std::atomic<int> sum{0};
  InteropPool::global()
      .submit([&] {
        std::vector<InteropFuture> inner;
        for (int i = 1; i <= 4; ++i) inner.push_back(InteropPool::global().submit([&sum, i] { sum += i; }));
        for (auto& f : inner) f.wait();
      })
      .wait();
  CHECK(sum.load() == 10);

  set_num_interop_threads(2);  // restarts the pool at the new size on the next submit
  InteropPool::global().submit([] {}).wait();
  CHECK(InteropPool::global().size() == 2);
  CHECK(get_num_interop_threads() == 2);
  set_num_threads(before);
}
