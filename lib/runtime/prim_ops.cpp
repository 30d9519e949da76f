#include "lib/runtime/prim_ops.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_map>

#include "lib/core/error.h"
#include "lib/core/future.h"
#include "lib/core/string_literal.h"

namespace jitctl {
namespace {

void list_construct(Stack& s) {
  auto l = std::make_shared<ListData>();
  l->items = std::move(s);
  s.clear();
  s.emplace_back(std::move(l));
}

void tuple_construct(Stack& s) {
  auto t = std::make_shared<TupleData>();
  t->items = std::move(s);
  s.clear();
  s.emplace_back(std::move(t));
}

// Unpacking: the interpreter checks the count against the node's outputs.
void list_unpack(Stack& s) {
  IValue v = std::move(s.back());
  s.clear();
  const auto& items = v.to_list()->items;
  s.assign(items.begin(), items.end());
}

void tuple_unpack(Stack& s) {
  IValue v = std::move(s.back());
  s.clear();
  const auto& items = v.to_tuple()->items;
  s.assign(items.begin(), items.end());
}

void tuple_index(Stack& s) {
  int64_t i = s[1].to_int();
  IValue t = std::move(s[0]);
  s.clear();
  const auto& items = t.to_tuple()->items;
  const int64_t n = static_cast<int64_t>(items.size());
  if (i < 0) i += n;
  if (i < 0 || i >= n) throw InvalidInput("tuple index out of range");
  s.push_back(items[static_cast<size_t>(i)]);
}

void dict_construct(Stack& s) {
  auto d = std::make_shared<DictData>();
  for (size_t i = 0; i + 1 < s.size(); i += 2) d->set(std::move(s[i]), std::move(s[i + 1]));
  s.clear();
  s.emplace_back(std::move(d));
}

// prim::NumToTensor: a 0-dim tensor of the number's type (int64, float64, bool).
void num_to_tensor(Stack& s) {
  IValue v = std::move(s[0]);
  s.clear();
  Tensor t;
  switch (v.kind()) {
    case IValue::Kind::Int: {
      t = Tensor::empty(DType::Int64, {});
      int64_t x = v.to_int();
      std::memcpy(t.mutable_data(), &x, sizeof x);
      break;
    }
    case IValue::Kind::Double: {
      t = Tensor::empty(DType::Float64, {});
      double x = v.to_double();
      std::memcpy(t.mutable_data(), &x, sizeof x);
      break;
    }
    case IValue::Kind::Bool: {
      t = Tensor::empty(DType::Bool, {});
      bool x = v.to_bool();
      std::memcpy(t.mutable_data(), &x, sizeof x);
      break;
    }
    default: throw Unsupported(fmt::format("prim::NumToTensor of a {}", kind_name(v.kind())));
  }
  s.emplace_back(std::move(t));
}

void device(Stack& s) {
  Device d = s[0].to_tensor().device();
  s.clear();
  s.emplace_back(d);
}

// Device.type ("cpu", "cuda"): nn.MultiheadAttention's 2.x fast-path checks read it.
void device_type(Stack& s) {
  std::string t = s[0].to_device().str();
  t = t.substr(0, t.find(':'));
  s.clear();
  s.emplace_back(t);
}

// The ScalarType code: DType's order is c10's ScalarType order.
void dtype(Stack& s) {
  int64_t code = static_cast<int64_t>(s[0].to_tensor().dtype());
  s.clear();
  s.emplace_back(code);
}

void is_cuda(Stack& s) {
  bool r = s[0].to_tensor().device().type == Device::Type::CUDA;
  s.clear();
  s.emplace_back(r);
}

void requires_grad(Stack& s) {
  bool r = s[0].to_tensor().requires_grad();
  s.clear();
  s.emplace_back(r);
}

void always_false(Stack& s) {
  s.clear();
  s.emplace_back(false);
}

void identity(Stack&) {}

void is(Stack& s) {
  bool r = s[0].identical(s[1]);
  s.clear();
  s.emplace_back(r);
}

void is_not(Stack& s) {
  bool r = !s[0].identical(s[1]);
  s.clear();
  s.emplace_back(r);
}

void wait(Stack& s) {
  auto f = s[0].to_future();
  s.clear();
  s.push_back(f->wait());
}

// aten::warn: PyTorch prints a UserWarning through Python's warnings module.
void warn(Stack& s) {
  std::string msg = s[0].to_string();
  s.clear();
  fmt::print(stderr, "UserWarning: {}\n", printable_text(msg));  // the model's text, escaped
}

// print(a, b): each value as str() makes it, separated by spaces, on stdout.
void print(Stack& s) {
  static const KernelFn str = find_kernel("aten::str");
  if (!str) throw Unsupported("print(): no kernel for aten::str");
  std::string line;
  for (size_t i = 0; i < s.size(); ++i) {
    Stack one{std::move(s[i])};
    str(one);
    if (i) line += ' ';
    line += one.at(0).to_string();
  }
  s.clear();
  fmt::print("{}\n", line);
}

// Python's min/max over ints, floats or a mix (a mix compares, and returns, as float).
template <bool Max>
IValue pick(const IValue& a, const IValue& b) {
  if (a.is(IValue::Kind::Int) && b.is(IValue::Kind::Int))
    return Max ? std::max(a.to_int(), b.to_int()) : std::min(a.to_int(), b.to_int());
  const double x = a.to_double(), y = b.to_double();
  return Max ? std::max(x, y) : std::min(x, y);
}

template <bool Max>
void min_max(Stack& s) {
  IValue r;
  if (s.size() == 2) {
    r = pick<Max>(s[0], s[1]);
  } else {
    const auto& items = s[0].to_list()->items;
    if (items.empty()) throw InvalidInput(fmt::format("{}() arg is an empty sequence", Max ? "max" : "min"));
    r = items[0];
    for (size_t i = 1; i < items.size(); ++i) r = pick<Max>(r, items[i]);
  }
  s.clear();
  s.push_back(std::move(r));
}

const std::unordered_map<std::string_view, KernelFn>& table() {
  static const std::unordered_map<std::string_view, KernelFn> t = {
      {"prim::ListConstruct", list_construct},
      {"prim::TupleConstruct", tuple_construct},
      {"prim::ListUnpack", list_unpack},
      {"prim::TupleUnpack", tuple_unpack},
      {"prim::TupleIndex", tuple_index},
      {"prim::DictConstruct", dict_construct},
      {"prim::NumToTensor", num_to_tensor},
      {"prim::NumToTensor.Scalar", num_to_tensor},
      {"prim::NumToTensor.bool", num_to_tensor},
      {"prim::device", device},
      {"prim::dtype", dtype},
      {"prim::type", device_type},
      {"prim::is_cuda", is_cuda},
      {"prim::is_nested", always_false},
      {"prim::is_sparse", always_false},
      {"prim::is_quantized", always_false},
      {"prim::is_mkldnn", always_false},
      {"prim::requires_grad", requires_grad},
      {"prim::data", identity},
      {"aten::__is__", is},
      {"aten::__isnot__", is_not},
      {"aten::wait", wait},
      {"aten::warn", warn},
      {"prim::Print", print},
      // jitctl runs inference only: no autograd, no autocast (m(*inputs) under torch.no_grad()).
      {"aten::is_grad_enabled", always_false},
      {"aten::is_autocast_enabled", always_false},
      {"aten::is_autocast_cpu_enabled", always_false},
      {"prim::min.int", min_max<false>},
      {"prim::min.float", min_max<false>},
      {"prim::min.int_float", min_max<false>},
      {"prim::min.float_int", min_max<false>},
      {"prim::min", min_max<false>},
      {"prim::min.self_int", min_max<false>},
      {"prim::min.self_float", min_max<false>},
      {"prim::max.int", min_max<true>},
      {"prim::max.float", min_max<true>},
      {"prim::max.int_float", min_max<true>},
      {"prim::max.float_int", min_max<true>},
      {"prim::max", min_max<true>},
      {"prim::max.self_int", min_max<true>},
      {"prim::max.self_float", min_max<true>},
  };
  return t;
}

}  // namespace

KernelFn find_prim_op(std::string_view name) {
  auto it = table().find(name);
  return it == table().end() ? nullptr : it->second;
}

}  // namespace jitctl
