#include "lib/core/ivalue.h"

#include <fmt/format.h>

#include "lib/core/error.h"
#include "lib/core/ivalue_equality.h"
#include "lib/core/run_limits.h"

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
    case Kind::List: return to_list() == o.to_list();
    default: return ivalues_equal(*this, o);
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
    if (ivalues_equal(items[it->second].first, key)) return &items[it->second].second;
  return nullptr;
}

void DictData::set(IValue key, IValue value) {
  const size_t h = key_hash(key);
  auto [lo, hi] = index_.equal_range(h);
  for (auto it = lo; it != hi; ++it)
    if (ivalues_equal(items[it->second].first, key)) {
      items[it->second].second = std::move(value);
      return;
    }
  index_.emplace(h, items.size());
  items.emplace_back(std::move(key), std::move(value));
}

thread_local int ValueDepthGuard::depth_ = 0;

ValueDepthGuard::ValueDepthGuard(const char* what) {
  if (depth_ >= kMaxValueDepth)
    throw InvalidInput(with_limits_subject(
        fmt::format("{} a value that nests more than {} levels deep (lists in lists...)", what, kMaxValueDepth)));
  ++depth_;
}

namespace {

// Destroying a container destroys its items, which may be containers: a list nested a million
// deep would take a million native frames. Past kFlatBelow levels of that, an item that is itself
// a container is moved to a per-thread queue instead, which the outermost destructor empties
// (each value taken from it may queue its own deep items), so the stack depth stays bounded.
constexpr int kFlatBelow = 64;
thread_local int destroying = 0;
thread_local std::vector<IValue> deferred;

bool holds_items(const IValue& v) {
  using K = IValue::Kind;
  return v.is(K::Tuple) || v.is(K::List) || v.is(K::Dict) || v.is(K::Object) || v.is(K::Future);
}

template <class Release>
void destroy_flat(Release&& release) {
  if (destroying >= kFlatBelow) {
    release([](IValue& v) {
      if (holds_items(v)) deferred.push_back(std::move(v));
    });
    return;
  }
  ++destroying;
  release([](IValue&) {});
  if (destroying == 1) {
    while (!deferred.empty()) {
      IValue v = std::move(deferred.back());
      deferred.pop_back();
    }
  }
  --destroying;
}

}  // namespace

TupleData::~TupleData() {
  destroy_flat([this](auto&& defer) {
    for (auto& v : items) defer(v);
    items.clear();
  });
}

ListData::~ListData() {
  destroy_flat([this](auto&& defer) {
    for (auto& v : items) defer(v);
    items.clear();
  });
}

DictData::~DictData() {
  destroy_flat([this](auto&& defer) {
    for (auto& [k, v] : items) defer(k), defer(v);
    items.clear();
  });
}

ObjectData::~ObjectData() {
  destroy_flat([this](auto&& defer) {
    for (auto& a : attrs) defer(a.second);
    if (setstate_arg) defer(*setstate_arg);
    attrs.clear();
    setstate_arg.reset();
  });
}

const IValue* ObjectData::attr(const std::string& name) const {
  for (const auto& [k, v] : attrs)
    if (k == name) return &v;
  return nullptr;
}

}  // namespace jitctl
