// Non-tensor kernels (scalars, lists, dicts, strings, tensor metadata) against PyTorch 1.13:
// testdata/kernels_scalar/cases.json, written by testdata/gen/make_scalar_goldens.py, holds each
// op's arguments in schema order and what TorchScript returned or raised.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "kernels/registry.h"
#include "lib/core/error.h"
#include "lib/core/ivalue.h"
#include "lib/core/tensor.h"
#include "tests/support/error_of.h"
#include "tests/support/testdata_path.h"

namespace jitctl {
namespace {

using nlohmann::json;

IValue decode(const json& j);

Tensor decode_tensor(const json& j) {
  const auto dtype = dtype_from_name(j.at("dtype").get<std::string>());
  REQUIRE(dtype.has_value());
  Tensor t = Tensor::empty(*dtype, j.at("shape").get<std::vector<int64_t>>());
  const auto& data = j.at("data");
  for (size_t i = 0; i < data.size(); ++i) {
    const IValue v = decode(data[i]);
    const double d = v.is(IValue::Kind::Bool) ? (v.to_bool() ? 1.0 : 0.0) : v.to_double();
    switch (*dtype) {
      case DType::Float32: static_cast<float*>(t.mutable_data())[i] = static_cast<float>(d); break;
      case DType::Float64: static_cast<double*>(t.mutable_data())[i] = d; break;
      case DType::Int64: static_cast<int64_t*>(t.mutable_data())[i] = v.to_int(); break;
      case DType::Bool: static_cast<bool*>(t.mutable_data())[i] = v.to_bool(); break;
      default: FAIL("dtype not used by the cases");
    }
  }
  return t;
}

IValue decode(const json& j) {
  if (j.is_null()) return {};
  if (j.is_boolean()) return IValue(j.get<bool>());
  if (j.is_number_integer()) return IValue(j.get<int64_t>());
  if (j.is_string()) return IValue(j.get<std::string>());
  if (j.contains("f")) return IValue(std::strtod(j["f"].get<std::string>().c_str(), nullptr));
  if (j.contains("list")) {
    auto l = std::make_shared<ListData>();
    for (const auto& x : j["list"]) l->items.push_back(decode(x));
    return IValue(std::move(l));
  }
  if (j.contains("tuple")) {
    auto t = std::make_shared<TupleData>();
    for (const auto& x : j["tuple"]) t->items.push_back(decode(x));
    return IValue(std::move(t));
  }
  if (j.contains("dict")) {
    auto d = std::make_shared<DictData>();
    for (const auto& kv : j["dict"]) d->set(decode(kv[0]), decode(kv[1]));
    return IValue(std::move(d));
  }
  if (j.contains("device")) return IValue(*Device::parse(j["device"].get<std::string>()));
  if (j.contains("tensor")) return IValue(decode_tensor(j["tensor"]));
  FAIL("unknown value encoding: " << j.dump());
  return {};
}

bool same_double(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (a == b) return std::signbit(a) == std::signbit(b);
  return std::fabs(a - b) <= 1e-15 * std::fabs(b);  // libm may differ from PyTorch's in the last bit
}

double element(const Tensor& t, size_t i) {
  switch (t.dtype()) {
    case DType::Float32: return static_cast<const float*>(t.data())[i];
    case DType::Float64: return static_cast<const double*>(t.data())[i];
    case DType::Int64: return static_cast<double>(static_cast<const int64_t*>(t.data())[i]);
    case DType::Bool: return static_cast<const bool*>(t.data())[i];
    default: return NAN;
  }
}

// The same TorchScript value: same kinds (an int is not a float), same contents.
bool same_value(const IValue& a, const IValue& b) {
  using K = IValue::Kind;
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case K::None: return true;
    case K::Bool: return a.to_bool() == b.to_bool();
    case K::Int: return a.to_int() == b.to_int();
    case K::Double: return same_double(a.to_double(), b.to_double());
    case K::String: return a.to_string() == b.to_string();
    case K::Device: return a.to_device() == b.to_device();
    case K::List:
    case K::Tuple: {
      const auto& x = a.is(K::List) ? a.to_list()->items : a.to_tuple()->items;
      const auto& y = b.is(K::List) ? b.to_list()->items : b.to_tuple()->items;
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (!same_value(x[i], y[i])) return false;
      return true;
    }
    case K::Dict: {
      const auto& x = a.to_dict()->items;
      const auto& y = b.to_dict()->items;
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (!same_value(x[i].first, y[i].first) || !same_value(x[i].second, y[i].second)) return false;
      return true;
    }
    case K::Tensor: {
      const Tensor& x = a.to_tensor();
      const Tensor& y = b.to_tensor();
      if (x.dtype() != y.dtype() || x.sizes() != y.sizes()) return false;
      for (size_t i = 0; i < static_cast<size_t>(x.numel()); ++i)
        if (!same_double(element(x, i), element(y, i))) return false;
      return true;
    }
    default: return false;
  }
}

std::string show(const IValue& v) {
  using K = IValue::Kind;
  switch (v.kind()) {
    case K::None: return "None";
    case K::Bool: return v.to_bool() ? "True" : "False";
    case K::Int: return std::to_string(v.to_int());
    case K::Double: {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g(float)", v.to_double());
      return buf;
    }
    case K::String: return "'" + v.to_string() + "'";
    case K::List:
    case K::Tuple: {
      const auto& items = v.is(K::List) ? v.to_list()->items : v.to_tuple()->items;
      std::string out = v.is(K::List) ? "[" : "(";
      for (const auto& x : items) out += show(x) + ", ";
      return out + (v.is(K::List) ? "]" : ")");
    }
    case K::Dict: {
      std::string out = "{";
      for (const auto& [k, x] : v.to_dict()->items) out += show(k) + ": " + show(x) + ", ";
      return out + "}";
    }
    case K::Tensor: return "Tensor" + shape_string(v.to_tensor().sizes());
    default: return kind_name(v.kind());
  }
}

json load_cases() {
  const auto path = test::testdata_dir() / "kernels_scalar" / "cases.json";
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path.string());
  return json::parse(in).at("cases");
}

}  // namespace

TEST_CASE("non-tensor kernels match PyTorch on every recorded case") {
  const json cases = load_cases();
  REQUIRE(cases.size() > 500);
  for (const auto& c : cases) {
    const std::string op = c.at("op");
    Stack stack;
    for (const auto& a : c.at("args")) stack.push_back(decode(a));
    const IValue first = stack.empty() ? IValue() : stack[0];  // shared with a mutating op
    INFO(op << " " << c.at("args").dump());
    const KernelFn fn = find_kernel(op);
    REQUIRE_MESSAGE(static_cast<bool>(fn), "no kernel for " << op);
    if (c.contains("error")) {
      CHECK(test::error_of([&] { fn(stack); }) == c["error"].get<std::string>());
      continue;
    }
    try {
      fn(stack);
    } catch (const std::exception& e) {
      FAIL_CHECK("threw: " << std::string(e.what()));
      continue;
    }
    if (c.value("void", false)) {
      CHECK(stack.empty());
    } else if (c.contains("result")) {
      REQUIRE(stack.size() == 1);
      const IValue expected = decode(c.at("result"));
      CHECK_MESSAGE(same_value(stack[0], expected), "got " << show(stack[0]) << ", PyTorch " << show(expected));
    }
    if (c.contains("after")) {
      const IValue after = decode(c["after"]);
      CHECK_MESSAGE(same_value(first, after), "argument afterwards " << show(first) << ", PyTorch " << show(after));
    }
  }
}

TEST_CASE("list kernels change the list the program holds, not a copy") {
  auto list = std::make_shared<ListData>();
  IValue held(list);
  Stack s{held, IValue(int64_t{7})};
  find_kernel("aten::append.t")(s);
  REQUIRE(s.size() == 1);
  CHECK(s[0].to_list() == list);
  CHECK(list->items.size() == 1);
}

TEST_CASE("dict removal keeps lookups working for the keys that remain") {
  auto d = std::make_shared<DictData>();
  for (int64_t k = 0; k < 5; ++k) d->set(IValue(k), IValue(k * 10));
  Stack s{IValue(d), IValue(int64_t{2})};
  find_kernel("aten::pop.Dict_int")(s);
  CHECK(s.at(0).to_int() == 20);
  Stack g{IValue(d), IValue(int64_t{4})};
  find_kernel("aten::__getitem__.Dict_int")(g);
  CHECK(g.at(0).to_int() == 40);
  CHECK(d->items.size() == 4);
}

}  // namespace jitctl
