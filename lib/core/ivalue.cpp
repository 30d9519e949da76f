#include "lib/core/ivalue.h"

#include <fmt/format.h>

#include "lib/core/error.h"

namespace jitctl {

const char* kind_name(IValue::Kind k) {
  switch (k) {
    case IValue::Kind::None: return "None";
    case IValue::Kind::Bool: return "bool";
    case IValue::Kind::Int: return "int";
    case IValue::Kind::Double: return "float";
    case IValue::Kind::Complex: return "complex";
    case IValue::Kind::String: return "str";
    case IValue::Kind::Tensor: return "Tensor";
    case IValue::Kind::Storage: return "Storage";
    case IValue::Kind::Tuple: return "tuple";
    case IValue::Kind::List: return "list";
    case IValue::Kind::Dict: return "dict";
    case IValue::Kind::Object: return "object";
    case IValue::Kind::Device: return "Device";
    case IValue::Kind::Global: return "global";
    case IValue::Kind::Future: return "Future";
  }
  return "?";
}

namespace {
[[noreturn]] void mismatch(const char* want, IValue::Kind got) {
  throw InvalidInput(fmt::format("expected {}, got {}", want, kind_name(got)));
}
}  // namespace

#define JITCTL_GET(KIND, ALT, WANT)                       \
  if (auto* p = std::get_if<ALT>(&v_)) return *p;          \
  mismatch(WANT, kind());

bool IValue::to_bool() const { JITCTL_GET(Bool, bool, "bool") }
int64_t IValue::to_int() const { JITCTL_GET(Int, int64_t, "int") }
double IValue::to_double() const {
  if (auto* i = std::get_if<int64_t>(&v_)) return static_cast<double>(*i);
  JITCTL_GET(Double, double, "float")
}
std::complex<double> IValue::to_complex() const { JITCTL_GET(Complex, std::complex<double>, "complex") }
const std::string& IValue::to_string() const {
  if (auto* p = std::get_if<std::shared_ptr<const std::string>>(&v_)) return **p;
  mismatch("str", kind());
}
const Tensor& IValue::to_tensor() const { JITCTL_GET(Tensor, Tensor, "Tensor") }
const std::shared_ptr<Storage>& IValue::to_storage() const { JITCTL_GET(Storage, std::shared_ptr<Storage>, "Storage") }
const std::shared_ptr<TupleData>& IValue::to_tuple() const { JITCTL_GET(Tuple, std::shared_ptr<TupleData>, "tuple") }
const std::shared_ptr<ListData>& IValue::to_list() const { JITCTL_GET(List, std::shared_ptr<ListData>, "list") }
const std::shared_ptr<DictData>& IValue::to_dict() const { JITCTL_GET(Dict, std::shared_ptr<DictData>, "dict") }
const std::shared_ptr<ObjectData>& IValue::to_object() const { JITCTL_GET(Object, std::shared_ptr<ObjectData>, "object") }
Device IValue::to_device() const { JITCTL_GET(Device, Device, "Device") }
const GlobalRef& IValue::to_global() const {
  if (auto* p = std::get_if<std::shared_ptr<const GlobalRef>>(&v_)) return **p;
  mismatch("global", kind());
}
const std::shared_ptr<FutureData>& IValue::to_future() const {
  JITCTL_GET(Future, std::shared_ptr<FutureData>, "Future")
}
#undef JITCTL_GET

bool IValue::identical(const IValue& o) const {
  if (kind() != o.kind()) return false;
  switch (kind()) {
    case Kind::Tensor: return to_tensor().same(o.to_tensor());
    case Kind::String: return to_string() == o.to_string();
    default: return keys_equal(*this, o);
  }
}

bool keys_equal(const IValue& a, const IValue& b) {
  using K = IValue::Kind;
  auto numeric = [](K k) { return k == K::Int || k == K::Double || k == K::Bool; };
  if (numeric(a.kind()) && numeric(b.kind())) {
    auto val = [](const IValue& v) {
      return v.is(K::Bool) ? (v.to_bool() ? 1.0 : 0.0) : v.to_double();
    };
    if (a.is(K::Int) && b.is(K::Int)) return a.to_int() == b.to_int();
    return val(a) == val(b);
  }
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case K::None: return true;
    case K::String: return a.to_string() == b.to_string();
    case K::Complex: return a.to_complex() == b.to_complex();
    case K::Tensor: return a.to_tensor().same(b.to_tensor());
    case K::Device: return a.to_device() == b.to_device();
    case K::Tuple: {
      const auto& x = a.to_tuple()->items;
      const auto& y = b.to_tuple()->items;
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (!keys_equal(x[i], y[i])) return false;
      return true;
    }
    case K::Storage: return a.to_storage() == b.to_storage();
    case K::List: return a.to_list() == b.to_list();
    case K::Dict: return a.to_dict() == b.to_dict();
    case K::Object: return a.to_object() == b.to_object();
    case K::Global: return a.to_global().qualified_name == b.to_global().qualified_name;
    default: return false;
  }
}

size_t key_hash(const IValue& v) {
  using K = IValue::Kind;
  switch (v.kind()) {
    case K::Bool: return std::hash<double>()(v.to_bool() ? 1.0 : 0.0);
    case K::Int: return std::hash<double>()(static_cast<double>(v.to_int()));
    case K::Double: return std::hash<double>()(v.to_double());
    case K::String: return std::hash<std::string>()(v.to_string());
    case K::Tensor: return std::hash<const void*>()(&v.to_tensor().impl());
    case K::Tuple: {
      size_t h = 0x9e3779b9;
      for (const auto& x : v.to_tuple()->items) h = h * 31 + key_hash(x);
      return h;
    }
    default: return 0;
  }
}

const IValue* DictData::find(const IValue& key) const {
  auto [lo, hi] = index_.equal_range(key_hash(key));
  for (auto it = lo; it != hi; ++it)
    if (keys_equal(items[it->second].first, key)) return &items[it->second].second;
  return nullptr;
}

void DictData::set(IValue key, IValue value) {
  const size_t h = key_hash(key);
  auto [lo, hi] = index_.equal_range(h);
  for (auto it = lo; it != hi; ++it)
    if (keys_equal(items[it->second].first, key)) {
      items[it->second].second = std::move(value);
      return;
    }
  index_.emplace(h, items.size());
  items.emplace_back(std::move(key), std::move(value));
}

const IValue* ObjectData::attr(const std::string& name) const {
  for (const auto& [k, v] : attrs)
    if (k == name) return &v;
  return nullptr;
}

}  // namespace jitctl
