#pragma once
// The TorchScript type system, as PyTorch 1.13's c10 types: immutable nodes shared through
// TypePtr. ClassType and InterfaceType are the exception: the importer creates them first and fills
// in attributes and methods afterwards, because classes refer to each other.
//
// Three spellings, each exactly as PyTorch 1.13 prints it (tests/unit/test_types.cpp holds the
// strings torch printed):
//   str()            c10's Type::str(): schemas and messages       int[]  Dict(str, Tensor)  Future(int)
//   graph_str()      operator<< used by str(graph)                  Float(2, 3, strides=[3, 1], ...)
//                                                                   Future[int]  NamedTuple(x : Tensor)
//   annotation_str() the Python-code form of `.code`                List[int]  Optional[Tensor]
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lib/core/device.h"
#include "lib/core/dtype.h"
#include "lib/core/ivalue.h"

namespace jitctl {

// Same order as c10's C10_FORALL_TYPES: a Union sorts its members by kind and then by str(), so
// this order decides how `Union(...)` prints.
enum class TypeKind : uint8_t {
  Any, Enum, AnyEnum, Tensor, Storage, Tuple, List, Dict, Number, Float, Complex, Future, RRef,
  Int, None, String, Generator, Quantizer, Bool, Optional, Var, Device, Stream, Function, Class,
  PyObject, Capsule, Interface, QScheme, ScalarType, Layout, MemoryFormat, AnyList, AnyTuple,
  AnyClass, SymInt, SymFloat, Union,
};

// c10's name for the kind ("TensorType", "OptionalType", ...), for messages.
const char* type_kind_name(TypeKind k);

class Type;
using TypePtr = std::shared_ptr<const Type>;

// Lets a code printer spell some types its own way (a class under another name); nullopt keeps
// the default spelling. Consulted for the type itself and for every contained type.
using TypePrinter = std::function<std::optional<std::string>(const Type&)>;

class Type : public std::enable_shared_from_this<Type> {
 public:
  virtual ~Type() = default;
  Type(const Type&) = delete;
  Type& operator=(const Type&) = delete;

  TypeKind kind() const { return kind_; }

  std::string str() const;
  std::string graph_str() const;
  std::string annotation_str(const TypePrinter& printer = nullptr) const;

  // Element types of containers (List, Optional, Dict key and value, Tuple, Union, Future, ...);
  // empty for everything else.
  virtual std::span<const TypePtr> contained() const { return {}; }
  // A copy of this container with other element types (same count): List[int] -> List[float].
  TypePtr with_contained(std::vector<TypePtr> contained) const;
  // Does the type mention a schema type variable (`t`, `tVal`)?
  bool has_free_variables() const { return free_vars_; }

  bool equals(const Type& rhs) const;
  // PyTorch's isSubtypeOf: int <: number, NoneType <: Optional[T], T <: Optional[T], List is
  // invariant, Tuple and Future covariant, everything <: Any.
  bool is_subtype_of(const Type& rhs) const;
  bool is_subtype_of(const TypePtr& rhs) const { return is_subtype_of(*rhs); }
  // Modules, and module interfaces.
  bool is_module() const;

  template <class T>
  const T* cast() const {
    return kind_ == T::kKind ? static_cast<const T*>(this) : nullptr;
  }
  template <class T>
  const T& expect() const {
    if (auto* p = cast<T>()) return *p;
    expect_failed(T::kKind);
  }

 protected:
  explicit Type(TypeKind kind, bool free_vars = false) : kind_(kind), free_vars_(free_vars) {}
  static bool any_free(std::span<const TypePtr> types);

 private:
  [[noreturn]] void expect_failed(TypeKind wanted) const;
  TypeKind kind_;
  bool free_vars_;
};

inline bool operator==(const Type& a, const Type& b) { return a.equals(b); }

// Types without parameters, one instance each: IntType::get(), NoneType::get(), ...
template <TypeKind K>
class SingletonType final : public Type {
 public:
  static constexpr TypeKind kKind = K;
  static const TypePtr& get();

 private:
  SingletonType() : Type(K) {}
};

using AnyType = SingletonType<TypeKind::Any>;
using AnyEnumType = SingletonType<TypeKind::AnyEnum>;  // every enum, in schemas only
using StorageType = SingletonType<TypeKind::Storage>;
using NumberType = SingletonType<TypeKind::Number>;  // "Scalar" in schemas, `number` in code
using FloatType = SingletonType<TypeKind::Float>;
using ComplexType = SingletonType<TypeKind::Complex>;
using IntType = SingletonType<TypeKind::Int>;
using NoneType = SingletonType<TypeKind::None>;
using StringType = SingletonType<TypeKind::String>;
using GeneratorType = SingletonType<TypeKind::Generator>;
using QuantizerType = SingletonType<TypeKind::Quantizer>;
using BoolType = SingletonType<TypeKind::Bool>;
using DeviceObjType = SingletonType<TypeKind::Device>;
using StreamObjType = SingletonType<TypeKind::Stream>;
using PyObjectType = SingletonType<TypeKind::PyObject>;
using CapsuleType = SingletonType<TypeKind::Capsule>;
using QSchemeType = SingletonType<TypeKind::QScheme>;
// Schema-only spellings of what the compiler sees as int (an Argument's real_type; its type is int).
using ScalarTypeType = SingletonType<TypeKind::ScalarType>;
using LayoutType = SingletonType<TypeKind::Layout>;
using MemoryFormatType = SingletonType<TypeKind::MemoryFormat>;
using SymIntType = SingletonType<TypeKind::SymInt>;
using SymFloatType = SingletonType<TypeKind::SymFloat>;
using AnyListType = SingletonType<TypeKind::AnyList>;    // `list`: every List[T]
using AnyTupleType = SingletonType<TypeKind::AnyTuple>;  // `tuple`: every tuple
using AnyClassType = SingletonType<TypeKind::AnyClass>;  // every class, in schemas only

// Tensor, possibly refined with what a trace or a constant knows: dtype, sizes, strides,
// requires_grad, device. Refinements show only in graph_str(): `Float(2, 3, strides=[3, 1],
// requires_grad=0, device=cpu)`.
class TensorType final : public Type {
 public:
  static constexpr TypeKind kKind = TypeKind::Tensor;
  using Dims = std::vector<std::optional<int64_t>>;  // nullopt: that extent is unknown

  struct Refinement {
    std::optional<DType> dtype = std::nullopt;
    std::optional<Device> device = std::nullopt;
    std::optional<Dims> sizes = std::nullopt;    // nullopt: rank unknown
    std::optional<Dims> strides = std::nullopt;  // nullopt: rank unknown
    std::optional<bool> requires_grad = std::nullopt;
    std::optional<bool> undefined = false;  // true for AutogradZero's undefined tensors
    bool operator==(const Refinement&) const = default;
  };

  static const TypePtr& get();  // plain `Tensor`
  static TypePtr create(Refinement r);
  // Everything known, as torch._C.TensorType.create_from_tensor.
  static TypePtr from_tensor(const Tensor& t);

  const Refinement& refinement() const { return r_; }
  bool is_complete() const;  // dtype, device, all sizes and strides known
  // The most specific type both are subtypes of: fields that differ become unknown.
  TypePtr merge(const TensorType& other) const;

 private:
  explicit TensorType(Refinement r) : Type(kKind), r_(std::move(r)) {}
  Refinement r_;
};

// List[T], Optional[T], Future[T], RRef[T]. OptionalType::create canonicalizes as c10 does:
// Optional[Optional[T]] is Optional[T], Optional[Union[int, float, complex]] is Optional[number],
// Optional[Union[A, B, None]] is Optional[Union[A, B]], and Optional[NoneType] is NoneType
// (PyTorch asserts there).
template <TypeKind K>
class ElementType final : public Type {
 public:
  static constexpr TypeKind kKind = K;
  static TypePtr create(TypePtr elem);
  const TypePtr& elem() const { return elem_[0]; }
  std::span<const TypePtr> contained() const override { return elem_; }

 private:
  friend class UnionType;  // builds the Optionals its canonical forms reduce to
  explicit ElementType(TypePtr elem) : Type(K, elem->has_free_variables()), elem_{std::move(elem)} {}
  std::vector<TypePtr> elem_;
};

template <>
TypePtr ElementType<TypeKind::Optional>::create(TypePtr elem);

using ListType = ElementType<TypeKind::List>;
using OptionalType = ElementType<TypeKind::Optional>;
using FutureType = ElementType<TypeKind::Future>;
using RRefType = ElementType<TypeKind::RRef>;

class DictType final : public Type {
 public:
  static constexpr TypeKind kKind = TypeKind::Dict;
  // Keys must be str, int, float, complex, bool, Tensor, Device or Any; anything else throws
  // InvalidInput with PyTorch's message.
  static TypePtr create(TypePtr key, TypePtr value);
  const TypePtr& key() const { return kv_[0]; }
  const TypePtr& value() const { return kv_[1]; }
  std::span<const TypePtr> contained() const override { return kv_; }

 private:
  explicit DictType(std::vector<TypePtr> kv) : Type(kKind, any_free(kv)), kv_(std::move(kv)) {}
  std::vector<TypePtr> kv_;
};

// Tuple[...], and NamedTuple: a tuple with a qualified name, field names and field defaults.
class TupleType final : public Type {
 public:
  static constexpr TypeKind kKind = TypeKind::Tuple;
  static TypePtr create(std::vector<TypePtr> elements);
  // `defaults` is empty, or one entry a field (nullopt: no default).
  static TypePtr create_named(std::string qualified_name, std::vector<std::string> field_names,
                              std::vector<TypePtr> elements,
                              std::vector<std::optional<IValue>> defaults = {});

  std::span<const TypePtr> elements() const { return elements_; }
  std::span<const TypePtr> contained() const override { return elements_; }
  bool is_named() const { return named_; }
  const std::string& qualified_name() const { return name_; }  // "" for a plain tuple
  const std::vector<std::string>& field_names() const { return fields_; }
  const std::vector<std::optional<IValue>>& field_defaults() const { return defaults_; }
  // Same name, fields and defaults as `other`, other elements (with_contained).
  TypePtr with_elements(std::vector<TypePtr> elements) const;

 private:
  explicit TupleType(std::vector<TypePtr> elements)
      : Type(kKind, any_free(elements)), elements_(std::move(elements)) {}
  std::vector<TypePtr> elements_;
  bool named_ = false;
  std::string name_;
  std::vector<std::string> fields_;
  std::vector<std::optional<IValue>> defaults_;
};

// Union[...]. create() canonicalizes as c10's UnionType::create: nested unions and Optionals are
// flattened, `number` becomes int, float and complex, subtypes fold into their supertypes, members
// are sorted by kind and str(); {T, None} becomes Optional[T], {int, float, complex, None}
// Optional[number], and a single remaining type is returned as is (PyTorch asserts there).
class UnionType final : public Type {
 public:
  static constexpr TypeKind kKind = TypeKind::Union;
  static TypePtr create(std::vector<TypePtr> types);
  std::span<const TypePtr> members() const { return types_; }
  std::span<const TypePtr> contained() const override { return types_; }
  // Is `t` a subtype of some member? `number` asks for int, float and complex together.
  bool can_hold(const Type& t) const;

 private:
  explicit UnionType(std::vector<TypePtr> types) : Type(kKind, any_free(types)), types_(std::move(types)) {}
  std::vector<TypePtr> types_;
};

// A schema's type variable: `t`, `tVal`, `t1`.
class VarType final : public Type {
 public:
  static constexpr TypeKind kKind = TypeKind::Var;
  static TypePtr create(std::string name);
  const std::string& name() const { return name_; }

 private:
  explicit VarType(std::string name) : Type(kKind, true), name_(std::move(name)) {}
  std::string name_;
};

// A method's argument and return types, as class and interface subtyping compare them (the
// frontend's FunctionSchema carries the rest).
struct MethodSignature {
  struct Arg {
    std::string name;
    TypePtr type;
  };
  std::string name;
  std::vector<Arg> arguments;  // `self` first
  std::vector<Arg> returns;
};

// Shared by classes and interfaces: "__torch__.foo.Bar".
class NamedTypeBase : public Type {
 public:
  const std::string& qualified_name() const { return name_; }
  std::string base_name() const;  // "Bar"

 protected:
  NamedTypeBase(TypeKind k, std::string name) : Type(k), name_(std::move(name)) {}

 private:
  std::string name_;
};

// A TorchScript class: a module (nn.Module subclass) or a @torch.jit.script class, and torch's
// custom classes (`__torch__.torch.classes.quantized.Conv2dPackedParamsBase`). Mutable after
// creation so that the importer can declare every class before filling any in. Two classes are
// equal when their qualified names are (archives mangle names to keep distinct classes apart).
class ClassType final : public NamedTypeBase {
 public:
  static constexpr TypeKind kKind = TypeKind::Class;
  enum class AttributeKind : uint8_t { Regular, Parameter, Buffer };
  struct Attribute {
    std::string name;
    TypePtr type;
    AttributeKind kind = AttributeKind::Regular;
  };

  static std::shared_ptr<ClassType> create(std::string qualified_name, bool is_module);

  bool is_module_class() const { return is_module_; }
  const std::vector<Attribute>& attributes() const { return attributes_; }
  // Slot index of an attribute, or nullopt.
  std::optional<size_t> find_attribute_slot(std::string_view name) const;
  TypePtr find_attribute(std::string_view name) const;  // nullptr when absent
  // Throws InvalidInput when the name is taken.
  size_t add_attribute(std::string name, TypePtr type, AttributeKind kind = AttributeKind::Regular);
  // Changing a class in place, as freezing does (PyTorch's unsafeRemoveAttribute,
  // unsafeChangeAttributeType, unsafeRemoveMethod): whoever calls these keeps the objects of the
  // class in step. Unknown names are ignored.
  void remove_attribute(std::string_view name);
  void set_attribute_type(std::string_view name, TypePtr type);

  // `__constants__` / `x : Final[int] = 3`.
  const std::vector<std::pair<std::string, IValue>>& constants() const { return constants_; }
  const IValue* find_constant(std::string_view name) const;
  void add_constant(std::string name, IValue value);

  const std::vector<MethodSignature>& methods() const { return methods_; }
  const MethodSignature* find_method(std::string_view name) const;
  void add_method(MethodSignature m);
  void remove_method(std::string_view name);

  // Drops attributes, constants and methods. Classes that refer to themselves (every method's
  // `self`) or to each other hold shared pointers in a cycle; whoever owns a set of classes (the
  // importer's compilation unit) calls this when it is done with them.
  void release();

 private:
  ClassType(std::string name, bool is_module) : NamedTypeBase(kKind, std::move(name)), is_module_(is_module) {}
  bool is_module_;
  std::vector<Attribute> attributes_;
  std::vector<std::pair<std::string, IValue>> constants_;
  std::vector<MethodSignature> methods_;
};

// @torch.jit.interface: a set of abstract methods a class may meet. Module interfaces accept
// only modules.
class InterfaceType final : public NamedTypeBase {
 public:
  static constexpr TypeKind kKind = TypeKind::Interface;
  static std::shared_ptr<InterfaceType> create(std::string qualified_name, bool is_module);
  bool is_module_interface() const { return is_module_; }
  const std::vector<MethodSignature>& methods() const { return methods_; }
  const MethodSignature* find_method(std::string_view name) const;
  void add_method(MethodSignature m);
  void release() { methods_.clear(); }  // as ClassType::release

 private:
  InterfaceType(std::string name, bool is_module) : NamedTypeBase(kKind, std::move(name)), is_module_(is_module) {}
  bool is_module_;
  std::vector<MethodSignature> methods_;
};

// A Python Enum subclass; values are all int, all float or all str.
class EnumType final : public Type {
 public:
  static constexpr TypeKind kKind = TypeKind::Enum;
  // `value_type` must be int, float or str (InvalidInput otherwise).
  static TypePtr create(std::string qualified_name, TypePtr value_type,
                        std::vector<std::pair<std::string, IValue>> names_values);
  const std::string& qualified_name() const { return name_; }
  const TypePtr& value_type() const { return value_[0]; }
  const std::vector<std::pair<std::string, IValue>>& names_values() const { return names_values_; }
  std::span<const TypePtr> contained() const override { return value_; }

 private:
  EnumType() : Type(kKind) {}
  std::string name_;
  std::vector<TypePtr> value_;
  std::vector<std::pair<std::string, IValue>> names_values_;
};

// A first-class reference to a TorchScript function (a graph value of type `Function`).
class FunctionType final : public Type {
 public:
  static constexpr TypeKind kKind = TypeKind::Function;
  static TypePtr create(std::string qualified_name);
  const std::string& qualified_name() const { return name_; }

 private:
  explicit FunctionType(std::string name) : Type(kKind), name_(std::move(name)) {}
  std::string name_;
};

// ---------------------------------------------------------------------------------------------
// Unification, for schema matching and for joining the types of if/loop outputs.

// The most specific type both are subtypes of (c10 unifyTypes): int and NoneType give int?,
// Tuple[int, None] and Tuple[int, str] give Tuple[int, Optional[str]]. nullopt when there is none,
// unless default_to_union, which then answers Union[a, b]. `type_hint`, when both are its
// subtypes, answers for classes that share an interface.
std::optional<TypePtr> unify_types(const TypePtr& a, const TypePtr& b, bool default_to_union = false,
                                   const TypePtr& type_hint = nullptr);
// Left to right over a list literal's element types; nullopt with `why_not` set when some element
// does not unify.
std::optional<TypePtr> unify_type_list(std::span<const TypePtr> types, std::string* why_not = nullptr);

// Type variable bindings while matching one schema: "t" -> int.
using TypeEnv = std::unordered_map<std::string, TypePtr>;

// Binds the type variables of `formal` (a schema argument type) from `actual`. Returns "" on
// success or the reason it cannot match. A None actual for Optional[t] leaves t unbound.
std::string match_type_variables(const TypePtr& formal, const TypePtr& actual, TypeEnv& env);
// `type` with its variables replaced from `env`: List[t] -> List[int]; nullptr if one is unbound.
TypePtr try_eval_type_variables(const TypePtr& type, const TypeEnv& env);

// `type` with every refined Tensor replaced by plain Tensor, recursively.
TypePtr unshaped_type(const TypePtr& type);

// ---------------------------------------------------------------------------------------------
// Value formatting shared by the printers of types and schemas.

// A double as PyTorch's IValue printer writes it: integral values that fit int64 as "3." (and
// -0.0 as "0."), the rest with 17 significant digits ("1.0000000000000001e-05", "1e+22", "inf").
std::string format_double(double d);
// IValue's operator<< in PyTorch 1.13, for the values defaults hold: None, True, 3, 2.5, 1.+2.j,
// [1, 2], (1, x) -- strings unquoted, as torch prints them there.
std::string format_ivalue(const IValue& v);

}  // namespace jitctl
