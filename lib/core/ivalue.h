#pragma once
// IValue: the dynamically typed value of TorchScript (and of the pickles that store it).
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "lib/core/device.h"
#include "lib/core/tensor.h"

namespace jitctl {

class IValue;
struct TupleData;
struct ListData;
struct DictData;
struct ObjectData;
struct FutureData;  // lib/core/future.h: the result of prim::fork
class ClassType;    // lib/core/types.h

// A class or function named by a pickle's GLOBAL opcode, e.g. "torch._utils._rebuild_tensor_v2".
// Only the unpickler creates these, and only for names on its allow-list.
struct GlobalRef {
  std::string qualified_name;
};

class IValue {
 public:
  enum class Kind : uint8_t {
    None, Bool, Int, Double, Complex, String, Tensor, Storage, Tuple, List, Dict, Object, Device, Global, Future
  };

  IValue() = default;
  IValue(bool v) : v_(v) {}
  IValue(int64_t v) : v_(v) {}
  IValue(int v) : v_(static_cast<int64_t>(v)) {}
  IValue(double v) : v_(v) {}
  IValue(std::complex<double> v) : v_(v) {}
  IValue(std::string v) : v_(std::make_shared<const std::string>(std::move(v))) {}
  IValue(const char* v) : IValue(std::string(v)) {}
  IValue(Tensor v) : v_(std::move(v)) {}
  IValue(std::shared_ptr<Storage> v) : v_(std::move(v)) {}
  IValue(std::shared_ptr<TupleData> v) : v_(std::move(v)) {}
  IValue(std::shared_ptr<ListData> v) : v_(std::move(v)) {}
  IValue(std::shared_ptr<DictData> v) : v_(std::move(v)) {}
  IValue(std::shared_ptr<ObjectData> v) : v_(std::move(v)) {}
  IValue(Device v) : v_(v) {}
  IValue(std::shared_ptr<const GlobalRef> v) : v_(std::move(v)) {}
  IValue(std::shared_ptr<FutureData> v) : v_(std::move(v)) {}

  Kind kind() const { return static_cast<Kind>(v_.index()); }
  bool is(Kind k) const { return kind() == k; }
  bool is_none() const { return is(Kind::None); }
  bool is_tensor() const { return is(Kind::Tensor); }
  bool is_object() const { return is(Kind::Object); }

  // Typed access; throws InvalidInput "expected X, got Y" on a mismatch.
  bool to_bool() const;
  int64_t to_int() const;
  double to_double() const;  // accepts Int too, as Python does
  std::complex<double> to_complex() const;
  const std::string& to_string() const;
  const Tensor& to_tensor() const;
  const std::shared_ptr<Storage>& to_storage() const;
  const std::shared_ptr<TupleData>& to_tuple() const;
  const std::shared_ptr<ListData>& to_list() const;
  const std::shared_ptr<DictData>& to_dict() const;
  const std::shared_ptr<ObjectData>& to_object() const;
  Device to_device() const;
  const GlobalRef& to_global() const;
  const std::shared_ptr<FutureData>& to_future() const;

  // Same object (for heap values) or equal value (for scalars); what Python's `is` means.
  bool identical(const IValue& o) const;

 private:
  std::variant<std::monostate, bool, int64_t, double, std::complex<double>, std::shared_ptr<const std::string>,
               Tensor, std::shared_ptr<Storage>, std::shared_ptr<TupleData>, std::shared_ptr<ListData>,
               std::shared_ptr<DictData>, std::shared_ptr<ObjectData>, Device, std::shared_ptr<const GlobalRef>,
               std::shared_ptr<FutureData>>
      v_;
};

const char* kind_name(IValue::Kind k);

// Containers and objects destroy their items without recursing once they nest deep (ivalue.cpp):
// a model may build a list a million levels deep, and freeing it must not overflow the stack.
struct TupleData {
  std::vector<IValue> items;
  ~TupleData();
};

struct ListData {
  std::vector<IValue> items;
  ~ListData();
  // TorchScript element type when the pickle said it (build_intlist, restore_type_tag); "" if not.
  std::string elem_type;
};

// Insertion-ordered, as Python dicts are. Keys are str, int, float, bool or Tensor.
struct DictData {
  std::vector<std::pair<IValue, IValue>> items;
  std::string key_type, value_type;  // from restore_type_tag, "" if unknown
  ~DictData();
  const IValue* find(const IValue& key) const;  // nullptr when absent
  void set(IValue key, IValue value);

 private:
  std::unordered_multimap<size_t, size_t> index_;  // key hash -> position in items
};

// An instance of a TorchScript class (a module or a @torch.jit.script class).
struct ObjectData {
  std::string type_name;  // qualified: "__torch__.torch.nn.modules.conv.Conv2d"
  std::vector<std::pair<std::string, IValue>> attrs;  // slot order, as the pickle wrote them
  // The argument of BUILD when it was not an attribute dict: the state for the class's
  // __setstate__ (set only for classes that define __getstate__/__setstate__).
  std::shared_ptr<IValue> setstate_arg;
  // Its class, once the runtime has resolved type_name (attrs are then in the class's slot order,
  // so that prim::GetAttr is an index).
  std::shared_ptr<ClassType> cls;
  // A member of a TorchScript Enum (lib/core/enum_value.h): attrs are then exactly
  // ("name", str or None while unknown) and ("value", int/float/str).
  bool is_enum = false;
  ~ObjectData();

  const IValue* attr(const std::string& name) const;
};

// Walks over values recurse into their items, and a model can build values of any depth while it
// runs (a list in a list, a million times over). Every recursive walk over values enters each
// level through a ValueDepthGuard, which throws InvalidInput past kMaxValueDepth levels (counted
// per thread, over all walks in progress). Values read from files nest at most 512 deep
// (the unpickler's limit), so every value a file can hold is walked.
inline constexpr int kMaxValueDepth = 1000;
class ValueDepthGuard {
 public:
  // `what` says what was walking, for the message: "printing", "comparing", "writing".
  explicit ValueDepthGuard(const char* what);
  ~ValueDepthGuard() { --depth_; }
  ValueDepthGuard(const ValueDepthGuard&) = delete;
  ValueDepthGuard& operator=(const ValueDepthGuard&) = delete;

 private:
  static thread_local int depth_;
};

// The hash of a dict key, consistent with ivalues_equal (lib/core/ivalue_equality.h): equal keys
// hash alike (1, 1.0 and True included).
size_t key_hash(const IValue& v);

}  // namespace jitctl
