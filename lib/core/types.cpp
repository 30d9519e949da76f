// Construction, equality and subtyping of TorchScript types, following PyTorch 1.13's c10
// (aten/src/ATen/core/type.cpp, union_type.cpp): where c10's rules are odd, the oddity is kept,
// because emitted graphs and printed types must match PyTorch's.
#include "lib/core/types.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>

#include "lib/core/error.h"

namespace jitctl {

const char* type_kind_name(TypeKind k) {
  static constexpr std::array<const char*, 38> kNames = {
      "AnyType", "EnumType", "AnyEnumType", "TensorType", "StorageType", "TupleType", "ListType",
      "DictType", "NumberType", "FloatType", "ComplexType", "FutureType", "RRefType", "IntType",
      "NoneType", "StringType", "GeneratorType", "QuantizerType", "BoolType", "OptionalType",
      "VarType", "DeviceObjType", "StreamObjType", "FunctionType", "ClassType", "PyObjectType",
      "CapsuleType", "InterfaceType", "QSchemeType", "ScalarTypeType", "LayoutType",
      "MemoryFormatType", "AnyListType", "AnyTupleType", "AnyClassType", "SymIntType",
      "SymFloatType", "UnionType",
  };
  static_assert(kNames.size() == static_cast<size_t>(TypeKind::Union) + 1);
  return kNames[static_cast<size_t>(k)];
}

void Type::expect_failed(TypeKind wanted) const {
  throw std::logic_error(fmt::format("expected a {}, got {} ({})", type_kind_name(wanted),
                                     type_kind_name(kind_), str()));
}

bool Type::any_free(std::span<const TypePtr> types) {
  return std::any_of(types.begin(), types.end(), [](const TypePtr& t) { return t->has_free_variables(); });
}

bool Type::is_module() const {
  if (auto* c = cast<ClassType>()) return c->is_module_class();
  if (auto* i = cast<InterfaceType>()) return i->is_module_interface();
  return false;
}

// ---------------------------------------------------------------------------------------------
// Singletons

template <TypeKind K>
const TypePtr& SingletonType<K>::get() {
  static const TypePtr instance(new SingletonType());
  return instance;
}

template class SingletonType<TypeKind::Any>;
template class SingletonType<TypeKind::AnyEnum>;
template class SingletonType<TypeKind::Storage>;
template class SingletonType<TypeKind::Number>;
template class SingletonType<TypeKind::Float>;
template class SingletonType<TypeKind::Complex>;
template class SingletonType<TypeKind::Int>;
template class SingletonType<TypeKind::None>;
template class SingletonType<TypeKind::String>;
template class SingletonType<TypeKind::Generator>;
template class SingletonType<TypeKind::Quantizer>;
template class SingletonType<TypeKind::Bool>;
template class SingletonType<TypeKind::Device>;
template class SingletonType<TypeKind::Stream>;
template class SingletonType<TypeKind::PyObject>;
template class SingletonType<TypeKind::Capsule>;
template class SingletonType<TypeKind::QScheme>;
template class SingletonType<TypeKind::ScalarType>;
template class SingletonType<TypeKind::Layout>;
template class SingletonType<TypeKind::MemoryFormat>;
template class SingletonType<TypeKind::SymInt>;
template class SingletonType<TypeKind::SymFloat>;
template class SingletonType<TypeKind::AnyList>;
template class SingletonType<TypeKind::AnyTuple>;
template class SingletonType<TypeKind::AnyClass>;

// ---------------------------------------------------------------------------------------------
// Tensor

const TypePtr& TensorType::get() {
  static const TypePtr instance(new TensorType(Refinement{}));
  return instance;
}

TypePtr TensorType::create(Refinement r) {
  if (r == Refinement{}) return get();
  return TypePtr(new TensorType(std::move(r)));
}

TypePtr TensorType::from_tensor(const Tensor& t) {
  Refinement r;
  if (!t.defined()) {
    r.undefined = true;
    return create(std::move(r));
  }
  r.dtype = t.dtype();
  r.device = t.device();
  r.sizes = Dims(t.sizes().begin(), t.sizes().end());
  r.strides = Dims(t.strides().begin(), t.strides().end());
  r.requires_grad = t.requires_grad();
  return create(std::move(r));
}

bool TensorType::is_complete() const {
  auto all_known = [](const std::optional<Dims>& d) {
    return d && std::all_of(d->begin(), d->end(), [](const auto& x) { return x.has_value(); });
  };
  return r_.dtype && r_.device && all_known(r_.sizes) && all_known(r_.strides);
}

namespace {

template <class T>
std::optional<T> merge_field(const std::optional<T>& a, const std::optional<T>& b) {
  return a && b && *a == *b ? a : std::nullopt;
}

std::optional<TensorType::Dims> merge_dims(const std::optional<TensorType::Dims>& a,
                                           const std::optional<TensorType::Dims>& b) {
  if (!a || !b || a->size() != b->size()) return std::nullopt;
  TensorType::Dims out(a->size());
  for (size_t i = 0; i < a->size(); ++i) out[i] = merge_field((*a)[i], (*b)[i]);
  return out;
}

}  // namespace

TypePtr TensorType::merge(const TensorType& other) const {
  const Refinement& o = other.r_;
  return create(Refinement{
      .dtype = merge_field(r_.dtype, o.dtype),
      .device = merge_field(r_.device, o.device),
      .sizes = merge_dims(r_.sizes, o.sizes),
      .strides = merge_dims(r_.strides, o.strides),
      .requires_grad = merge_field(r_.requires_grad, o.requires_grad),
      .undefined = merge_field(r_.undefined, o.undefined),
  });
}

// ---------------------------------------------------------------------------------------------
// Containers

template <TypeKind K>
TypePtr ElementType<K>::create(TypePtr elem) {
  return TypePtr(new ElementType(std::move(elem)));
}

template class ElementType<TypeKind::List>;
template class ElementType<TypeKind::Future>;
template class ElementType<TypeKind::RRef>;

// c10's OptionalType is a Union of {T, None} canonicalized like any union, remembering T.
template <>
TypePtr ElementType<TypeKind::Optional>::create(TypePtr elem) {
  const TypePtr as_union = UnionType::create({elem, NoneType::get()});
  if (as_union->kind() == TypeKind::Optional || as_union->kind() == TypeKind::None) return as_union;
  // Three or more members: Optional of the union of the members other than None.
  std::vector<TypePtr> rest;
  for (const TypePtr& t : as_union->expect<UnionType>().members())
    if (t->kind() != TypeKind::None) rest.push_back(t);
  TypePtr inner = UnionType::create(std::move(rest));
  return TypePtr(new ElementType(std::move(inner)));
}

TypePtr DictType::create(TypePtr key, TypePtr value) {
  switch (key->kind()) {
    case TypeKind::Any:
    case TypeKind::Int:
    case TypeKind::Bool:
    case TypeKind::Float:
    case TypeKind::Complex:
    case TypeKind::String:
    case TypeKind::Tensor:
    case TypeKind::Device:
      return TypePtr(new DictType({std::move(key), std::move(value)}));
    default:
      throw InvalidInput(fmt::format("Cannot create dict for key type '{}', only int, float, complex, "
                                     "Tensor, device and string keys are supported",
                                     key->str()));
  }
}

TypePtr TupleType::create(std::vector<TypePtr> elements) {
  return TypePtr(new TupleType(std::move(elements)));
}

TypePtr TupleType::create_named(std::string qualified_name, std::vector<std::string> field_names,
                                std::vector<TypePtr> elements,
                                std::vector<std::optional<IValue>> defaults) {
  if (field_names.size() != elements.size() || (!defaults.empty() && defaults.size() != elements.size()))
    throw InvalidInput(fmt::format("NamedTuple {}: {} field names, {} types and {} defaults", qualified_name,
                                   field_names.size(), elements.size(), defaults.size()));
  auto* t = new TupleType(std::move(elements));
  t->named_ = true;
  t->name_ = std::move(qualified_name);
  t->fields_ = std::move(field_names);
  t->defaults_ = std::move(defaults);
  return TypePtr(t);
}

TypePtr TupleType::with_elements(std::vector<TypePtr> elements) const {
  if (!named_) return create(std::move(elements));
  return create_named(name_, fields_, std::move(elements), defaults_);
}

TypePtr VarType::create(std::string name) { return TypePtr(new VarType(std::move(name))); }

TypePtr FunctionType::create(std::string qualified_name) {
  return TypePtr(new FunctionType(std::move(qualified_name)));
}

TypePtr EnumType::create(std::string qualified_name, TypePtr value_type,
                         std::vector<std::pair<std::string, IValue>> names_values) {
  const TypeKind k = value_type->kind();
  if (k != TypeKind::Int && k != TypeKind::Float && k != TypeKind::String)
    throw InvalidInput(fmt::format("Cannot create Enum with value type '{}', only int, float and string "
                                   "are supported",
                                   value_type->str()));
  auto* e = new EnumType();
  e->name_ = std::move(qualified_name);
  e->value_ = {std::move(value_type)};
  e->names_values_ = std::move(names_values);
  return TypePtr(e);
}

// ---------------------------------------------------------------------------------------------
// Classes and interfaces

std::string NamedTypeBase::base_name() const {
  const auto dot = name_.rfind('.');
  return dot == std::string::npos ? name_ : name_.substr(dot + 1);
}

std::shared_ptr<ClassType> ClassType::create(std::string qualified_name, bool is_module) {
  return std::shared_ptr<ClassType>(new ClassType(std::move(qualified_name), is_module));
}

std::optional<size_t> ClassType::find_attribute_slot(std::string_view name) const {
  for (size_t i = 0; i < attributes_.size(); ++i)
    if (attributes_[i].name == name) return i;
  return std::nullopt;
}

TypePtr ClassType::find_attribute(std::string_view name) const {
  auto slot = find_attribute_slot(name);
  return slot ? attributes_[*slot].type : nullptr;
}

size_t ClassType::add_attribute(std::string name, TypePtr type, AttributeKind kind) {
  if (find_attribute_slot(name) || find_constant(name))
    throw InvalidInput(fmt::format("class {} defines '{}' twice", qualified_name(), name));
  attributes_.push_back({std::move(name), std::move(type), kind});
  return attributes_.size() - 1;
}

void ClassType::remove_attribute(std::string_view name) {
  std::erase_if(attributes_, [&](const Attribute& a) { return a.name == name; });
}

void ClassType::set_attribute_type(std::string_view name, TypePtr type) {
  for (auto& a : attributes_)
    if (a.name == name) a.type = type;
}

const IValue* ClassType::find_constant(std::string_view name) const {
  for (const auto& [n, v] : constants_)
    if (n == name) return &v;
  return nullptr;
}

void ClassType::add_constant(std::string name, IValue value) {
  if (find_attribute_slot(name) || find_constant(name))
    throw InvalidInput(fmt::format("class {} defines '{}' twice", qualified_name(), name));
  constants_.emplace_back(std::move(name), std::move(value));
}

namespace {

const MethodSignature* find_in(const std::vector<MethodSignature>& methods, std::string_view name) {
  for (const auto& m : methods)
    if (m.name == name) return &m;
  return nullptr;
}

}  // namespace

const MethodSignature* ClassType::find_method(std::string_view name) const { return find_in(methods_, name); }
void ClassType::add_method(MethodSignature m) { methods_.push_back(std::move(m)); }
void ClassType::remove_method(std::string_view name) {
  std::erase_if(methods_, [&](const MethodSignature& m) { return m.name == name; });
}

void ClassType::release() {
  attributes_.clear();
  constants_.clear();
  methods_.clear();
}

std::shared_ptr<InterfaceType> InterfaceType::create(std::string qualified_name, bool is_module) {
  return std::shared_ptr<InterfaceType>(new InterfaceType(std::move(qualified_name), is_module));
}

const MethodSignature* InterfaceType::find_method(std::string_view name) const {
  return find_in(methods_, name);
}
void InterfaceType::add_method(MethodSignature m) { methods_.push_back(std::move(m)); }

// ---------------------------------------------------------------------------------------------
// Unions

namespace {

void flatten_union(const TypePtr& t, std::vector<TypePtr>& out) {
  if (auto* u = t->cast<UnionType>()) {
    for (const TypePtr& m : u->members()) flatten_union(m, out);
  } else if (auto* o = t->cast<OptionalType>()) {
    flatten_union(o->elem(), out);
    out.push_back(NoneType::get());
  } else if (t->kind() == TypeKind::Number) {
    out.push_back(IntType::get());
    out.push_back(FloatType::get());
    out.push_back(ComplexType::get());
  } else {
    out.push_back(t);
  }
}

// c10's filterDuplicateSubtypes, step for step: its right-to-left sweep decides which of two
// unifiable members survives where.
void filter_duplicate_subtypes(std::vector<TypePtr>& types) {
  if (types.empty()) return;
  auto supertype = [](const TypePtr& a, const TypePtr& b) -> std::optional<TypePtr> {
    const bool a_none = a->is_subtype_of(*NoneType::get());
    const bool b_none = b->is_subtype_of(*NoneType::get());
    if (a_none != b_none) return std::nullopt;  // no premature Optional
    return unify_types(a, b);
  };
  size_t end = types.size() - 1;
  for (size_t i = types.size() - 1; i > 0; --i) {
    for (size_t j = std::min(i - 1, end);; --j) {
      if (auto unified = supertype(types[i], types[j])) {
        types[j] = *unified;
        types[i] = types[end];
        --end;
        break;
      }
      if (j == 0) break;
    }
  }
  types.erase(types.begin() + static_cast<std::ptrdiff_t>(end) + 1, types.end());
}

}  // namespace

TypePtr UnionType::create(std::vector<TypePtr> reference) {
  if (reference.empty()) throw InvalidInput("Cannot create an empty Union");
  std::vector<TypePtr> types;
  for (const TypePtr& t : reference) flatten_union(t, types);
  filter_duplicate_subtypes(types);
  std::sort(types.begin(), types.end(), [](const TypePtr& a, const TypePtr& b) {
    if (a->kind() != b->kind()) return a->kind() < b->kind();
    return a->str() < b->str();
  });
  if (types.size() == 1) return types[0];

  bool has_int = false, has_float = false, has_complex = false, has_none = false;
  for (const TypePtr& t : types) {
    has_int |= t->kind() == TypeKind::Int;
    has_float |= t->kind() == TypeKind::Float;
    has_complex |= t->kind() == TypeKind::Complex;
    has_none |= t->kind() == TypeKind::None;
  }
  if (has_none) {
    if (types.size() == 4 && has_int && has_float && has_complex)
      return TypePtr(new OptionalType(NumberType::get()));
    if (types.size() == 2)
      return TypePtr(new OptionalType(types[0]->kind() != TypeKind::None ? types[0] : types[1]));
  }
  return TypePtr(new UnionType(std::move(types)));
}

bool UnionType::can_hold(const Type& t) const {
  if (t.kind() == TypeKind::Number)
    return can_hold(*IntType::get()) && can_hold(*FloatType::get()) && can_hold(*ComplexType::get());
  return std::any_of(types_.begin(), types_.end(), [&](const TypePtr& m) { return t.is_subtype_of(*m); });
}

// ---------------------------------------------------------------------------------------------
// with_contained

TypePtr Type::with_contained(std::vector<TypePtr> c) const {
  auto need = [&](size_t n) {
    if (c.size() != n)
      throw std::logic_error(fmt::format("with_contained: {} wants {} types, got {}", str(), n, c.size()));
  };
  switch (kind_) {
    case TypeKind::List: need(1); return ListType::create(std::move(c[0]));
    case TypeKind::Optional: need(1); return OptionalType::create(std::move(c[0]));
    case TypeKind::Future: need(1); return FutureType::create(std::move(c[0]));
    case TypeKind::RRef: need(1); return RRefType::create(std::move(c[0]));
    case TypeKind::Dict: need(2); return DictType::create(std::move(c[0]), std::move(c[1]));
    case TypeKind::Tuple: need(contained().size()); return expect<TupleType>().with_elements(std::move(c));
    case TypeKind::Union: return UnionType::create(std::move(c));
    default: need(contained().size()); return shared_from_this();
  }
}

// ---------------------------------------------------------------------------------------------
// Equality

namespace {

bool union_equals_number(const UnionType& u) {
  return u.members().size() == 3 && u.can_hold(*NumberType::get());
}

bool same_elements(std::span<const TypePtr> a, std::span<const TypePtr> b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](const TypePtr& x, const TypePtr& y) {
           return x->equals(*y);
         });
}

bool interface_subtype(const std::vector<MethodSignature>& lhs_methods, bool lhs_is_module,
                       const InterfaceType& rhs);

}  // namespace

bool Type::equals(const Type& rhs) const {
  if (this == &rhs) return true;
  switch (kind_) {
    case TypeKind::Number:
      if (auto* u = rhs.cast<UnionType>()) return union_equals_number(*u);
      return rhs.kind() == TypeKind::Number;
    case TypeKind::Union: {
      const auto& self = expect<UnionType>();
      if (auto* u = rhs.cast<UnionType>()) {
        if (u->members().size() != self.members().size()) return false;
        return std::all_of(self.members().begin(), self.members().end(), [&](const TypePtr& m) {
          return std::any_of(u->members().begin(), u->members().end(), [&](const TypePtr& n) { return m->equals(*n); });
        });
      }
      if (auto* o = rhs.cast<OptionalType>())
        return o->elem()->kind() == TypeKind::Number && self.members().size() == 4 &&
               self.can_hold(*NoneType::get()) && self.can_hold(*NumberType::get());
      if (rhs.kind() == TypeKind::Number) return union_equals_number(self);
      return false;
    }
    case TypeKind::Optional:
      if (auto* o = rhs.cast<OptionalType>()) return expect<OptionalType>().elem()->equals(*o->elem());
      if (rhs.kind() == TypeKind::Union) return rhs.equals(*this);
      return false;
    case TypeKind::Tensor:
      return rhs.kind() == kind_ && expect<TensorType>().refinement() == rhs.expect<TensorType>().refinement();
    case TypeKind::List:
    case TypeKind::Future:
    case TypeKind::RRef:
    case TypeKind::Dict:
      return rhs.kind() == kind_ && same_elements(contained(), rhs.contained());
    case TypeKind::Tuple: {
      if (rhs.kind() != kind_ || !same_elements(contained(), rhs.contained())) return false;
      const auto& a = expect<TupleType>();
      const auto& b = rhs.expect<TupleType>();
      if (a.is_named() != b.is_named()) return false;
      return !a.is_named() || (a.qualified_name() == b.qualified_name() && a.field_names() == b.field_names());
    }
    case TypeKind::Var:
      return rhs.kind() == kind_ && expect<VarType>().name() == rhs.expect<VarType>().name();
    case TypeKind::Class:
      return rhs.kind() == kind_ && expect<ClassType>().qualified_name() == rhs.expect<ClassType>().qualified_name();
    case TypeKind::Interface: {
      if (rhs.kind() != kind_) return false;
      const auto& a = expect<InterfaceType>();
      const auto& b = rhs.expect<InterfaceType>();
      return interface_subtype(a.methods(), a.is_module_interface(), b) &&
             interface_subtype(b.methods(), b.is_module_interface(), a);
    }
    case TypeKind::Enum: {
      if (rhs.kind() != kind_) return false;
      const auto& a = expect<EnumType>();
      const auto& b = rhs.expect<EnumType>();
      return a.qualified_name() == b.qualified_name() && a.value_type()->equals(*b.value_type());
    }
    case TypeKind::Function:
      return rhs.kind() == kind_ && expect<FunctionType>().qualified_name() == rhs.expect<FunctionType>().qualified_name();
    default:
      return rhs.kind() == kind_;
  }
}

// ---------------------------------------------------------------------------------------------
// Subtyping

namespace {

// Type::isSubtypeOfExt: the rules every type shares.
bool base_subtype(const Type& lhs, const Type& rhs) {
  if (rhs.kind() == TypeKind::Any || lhs.equals(rhs)) return true;
  if (auto* o = rhs.cast<OptionalType>()) return lhs.is_subtype_of(*o->elem());
  if (auto* u = rhs.cast<UnionType>())
    return std::any_of(u->members().begin(), u->members().end(), [&](const TypePtr& m) { return lhs.is_subtype_of(*m); });
  return false;
}

// Arguments are contravariant, returns covariant; `self` is skipped. Names must agree.
bool args_subtype(const std::vector<MethodSignature::Arg>& child, const std::vector<MethodSignature::Arg>& parent,
                  size_t start) {
  if (child.size() != parent.size()) return false;
  for (size_t i = start; i < child.size(); ++i)
    if (child[i].name != parent[i].name || !child[i].type->is_subtype_of(*parent[i].type)) return false;
  return true;
}

bool method_subtype(const MethodSignature& lhs, const MethodSignature& rhs) {
  return args_subtype(rhs.arguments, lhs.arguments, 1) && args_subtype(lhs.returns, rhs.returns, 0);
}

bool interface_subtype(const std::vector<MethodSignature>& lhs_methods, bool lhs_is_module,
                       const InterfaceType& rhs) {
  if (rhs.is_module_interface() && !lhs_is_module) return false;
  for (const auto& m : rhs.methods()) {
    const MethodSignature* mine = find_in(lhs_methods, m.name);
    if (!mine || !method_subtype(*mine, m)) return false;
  }
  return true;
}

bool tuple_subtype(const TupleType& lhs, const Type& rhs) {
  auto* r = rhs.cast<TupleType>();
  if (!r) return false;
  if (!lhs.is_named() && r->is_named()) return false;  // a plain tuple is no NamedTuple
  if (r->is_named() && lhs.field_names() != r->field_names()) return false;
  auto a = lhs.elements();
  auto b = r->elements();
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!a[i]->is_subtype_of(*b[i])) return false;
  return true;
}

bool union_subtype(const UnionType& lhs, const Type& rhs) {
  std::vector<const Type*> targets;
  auto add_numbers = [&] {
    targets.push_back(IntType::get().get());
    targets.push_back(FloatType::get().get());
    targets.push_back(ComplexType::get().get());
  };
  if (auto* u = rhs.cast<UnionType>()) {
    for (const TypePtr& m : u->members()) targets.push_back(m.get());
  } else if (auto* o = rhs.cast<OptionalType>()) {
    targets.push_back(NoneType::get().get());
    if (o->elem()->kind() == TypeKind::Number)
      add_numbers();
    else
      targets.push_back(o->elem().get());
  } else if (rhs.kind() == TypeKind::Number) {
    add_numbers();
  } else {
    targets.push_back(&rhs);
  }
  return std::all_of(lhs.members().begin(), lhs.members().end(), [&](const TypePtr& m) {
    return std::any_of(targets.begin(), targets.end(), [&](const Type* t) { return m->is_subtype_of(*t); });
  });
}

}  // namespace

bool Type::is_subtype_of(const Type& rhs) const {
  switch (kind_) {
    case TypeKind::Int:
    case TypeKind::Float:
    case TypeKind::Complex:
      return rhs.kind() == TypeKind::Number || base_subtype(*this, rhs);
    case TypeKind::Number:
      if (auto* u = rhs.cast<UnionType>()) return u->can_hold(*this);
      return base_subtype(*this, rhs);
    case TypeKind::None:
      return rhs.kind() == TypeKind::Optional || base_subtype(*this, rhs);
    case TypeKind::Tensor:
      if (auto* t = rhs.cast<TensorType>()) return expect<TensorType>().merge(*t)->equals(rhs);
      return base_subtype(*this, rhs);
    case TypeKind::List:
      return base_subtype(*this, rhs) || rhs.kind() == TypeKind::AnyList;
    case TypeKind::Tuple:
      return base_subtype(*this, rhs) || rhs.kind() == TypeKind::AnyTuple || tuple_subtype(expect<TupleType>(), rhs);
    case TypeKind::Future:
      if (base_subtype(*this, rhs)) return true;
      if (auto* f = rhs.cast<FutureType>()) return expect<FutureType>().elem()->is_subtype_of(*f->elem());
      return false;
    case TypeKind::Optional: {
      const TypePtr& elem = expect<OptionalType>().elem();
      if (auto* o = rhs.cast<OptionalType>()) return elem->is_subtype_of(*o->elem());
      if (auto* u = rhs.cast<UnionType>()) return u->can_hold(*NoneType::get()) && u->can_hold(*elem);
      return base_subtype(*this, rhs);
    }
    case TypeKind::Union:
      if (auto* u = rhs.cast<UnionType>(); u && same_elements(contained(), u->contained())) return true;
      return union_subtype(expect<UnionType>(), rhs);
    case TypeKind::Class: {
      if (rhs.kind() == TypeKind::AnyClass) return true;
      const auto& c = expect<ClassType>();
      if (auto* i = rhs.cast<InterfaceType>()) return interface_subtype(c.methods(), c.is_module_class(), *i);
      return base_subtype(*this, rhs);
    }
    case TypeKind::Interface: {
      const auto& self = expect<InterfaceType>();
      if (auto* i = rhs.cast<InterfaceType>())
        return interface_subtype(self.methods(), self.is_module_interface(), *i);
      return base_subtype(*this, rhs);
    }
    case TypeKind::Enum:
      return rhs.kind() == TypeKind::AnyEnum || base_subtype(*this, rhs);
    default:
      return base_subtype(*this, rhs);
  }
}

}  // namespace jitctl
