// The three spellings of a type and the IValue formatting they share, each as PyTorch 1.13 prints:
// Type::str(), operator<<(ostream, Type) (graphs) and Type::annotation_str() (code).
#include <fmt/format.h>

#include <cmath>
#include <cstdio>

#include "lib/core/types.h"

namespace jitctl {
namespace {

const char* leaf_str(TypeKind k) {
  switch (k) {
    case TypeKind::Any: return "Any";
    case TypeKind::AnyEnum: return "AnyEnumType";
    case TypeKind::Tensor: return "Tensor";
    case TypeKind::Storage: return "Storage";
    case TypeKind::Number: return "Scalar";  // c10 matches PythonArgParser's name here
    case TypeKind::Float: return "float";
    case TypeKind::Complex: return "complex";
    case TypeKind::Int: return "int";
    case TypeKind::None: return "NoneType";
    case TypeKind::String: return "str";
    case TypeKind::Generator: return "Generator";
    case TypeKind::Quantizer: return "Quantizer";
    case TypeKind::Bool: return "bool";
    case TypeKind::Device: return "Device";
    case TypeKind::Stream: return "Stream";
    case TypeKind::Function: return "Function";
    case TypeKind::PyObject: return "PyObject";
    case TypeKind::Capsule: return "Capsule";
    case TypeKind::QScheme: return "QScheme";
    case TypeKind::ScalarType: return "ScalarType";
    case TypeKind::Layout: return "Layout";
    case TypeKind::MemoryFormat: return "MemoryFormat";
    case TypeKind::AnyList: return "list";
    case TypeKind::AnyTuple: return "tuple";
    case TypeKind::AnyClass: return "AnyClassType";
    case TypeKind::SymInt: return "SymInt";
    case TypeKind::SymFloat: return "SymFloat";
    default: return nullptr;
  }
}

bool is_number_member(const Type& t) {
  return t.kind() == TypeKind::Int || t.kind() == TypeKind::Float || t.kind() == TypeKind::Complex;
}

// c10's UnionType::unionStr, including its quirk: the separator test looks at the member's index
// rather than at what was printed, so a union whose first members are the number types prints
// `Union(, str, Scalar)` -- and PyTorch does print that.
std::string union_str(const UnionType& u, const TypePrinter* printer) {
  const bool holds_number = u.can_hold(*NumberType::get());
  const auto members = u.members();
  std::string out = printer ? "Union[" : "Union(";
  bool printed = false;
  for (size_t i = 0; i < members.size(); ++i) {
    if (holds_number && is_number_member(*members[i])) continue;
    if (i > 0) {
      out += ", ";
      printed = true;
    }
    out += printer ? members[i]->annotation_str(*printer) : members[i]->str();
  }
  if (holds_number) {
    if (printed) out += ", ";
    out += printer ? "number" : "Scalar";
  }
  out += printer ? "]" : ")";
  return out;
}

void append_dims(std::string& out, const TensorType::Dims& dims) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) out += ", ";
    out += dims[i] ? fmt::format("{}", *dims[i]) : "*";
  }
}

// operator<< for TensorType with c10's default verbosity (TypeVerbosity::Full).
std::string tensor_graph_str(const TensorType& t) {
  const auto& r = t.refinement();
  std::string out = r.dtype ? std::string(scalar_type_name(*r.dtype)) : "Tensor";
  if (r.dtype && !r.sizes) out += "Tensor";
  size_t printed = 0;
  auto item = [&](const std::string& s) {
    out += printed++ > 0 ? ", " : "";
    out += s;
  };
  if (r.sizes) {
    const size_t ndim = r.sizes->size();
    out += "(";
    append_dims(out, *r.sizes);
    printed = ndim;
    const bool strides_known =
        ndim > 0 && r.strides && r.strides->size() == ndim &&
        std::all_of(r.strides->begin(), r.strides->end(), [](const auto& s) { return s.has_value(); });
    if (strides_known) {
      out += ", strides=[";
      append_dims(out, *r.strides);
      out += "]";
    }
    if (r.requires_grad) item(fmt::format("requires_grad={}", *r.requires_grad ? 1 : 0));
    if (r.device) item("device=" + r.device->str());
    out += ")";
  } else {
    if (r.requires_grad) item(fmt::format("(requires_grad={}", *r.requires_grad ? 1 : 0));
    if (r.device) out += (printed++ > 0 ? ", device=" : "(device=") + r.device->str();
    if (printed > 0) out += ")";
  }
  if (r.undefined && *r.undefined) out += "[Undefined]";
  return out;
}

}  // namespace

std::string Type::str() const {
  switch (kind_) {
    case TypeKind::List: return expect<ListType>().elem()->str() + "[]";
    case TypeKind::Optional: return expect<OptionalType>().elem()->str() + "?";
    case TypeKind::Future: return "Future(" + expect<FutureType>().elem()->str() + ")";
    case TypeKind::RRef: return "RRef(" + expect<RRefType>().elem()->str() + ")";
    case TypeKind::Dict: {
      const auto& d = expect<DictType>();
      return "Dict(" + d.key()->str() + ", " + d.value()->str() + ")";
    }
    case TypeKind::Tuple: {
      const auto& t = expect<TupleType>();
      if (t.is_named()) return t.qualified_name();
      std::string out = "(";
      for (size_t i = 0; i < t.elements().size(); ++i) out += (i ? ", " : "") + t.elements()[i]->str();
      return out + ")";
    }
    case TypeKind::Union: return union_str(expect<UnionType>(), nullptr);
    case TypeKind::Var: return expect<VarType>().name();
    case TypeKind::Class: return expect<ClassType>().qualified_name();
    case TypeKind::Interface: return "InterfaceType<" + expect<InterfaceType>().base_name() + ">";
    case TypeKind::Enum: return "Enum<" + expect<EnumType>().qualified_name() + ">";
    default: return leaf_str(kind_);
  }
}

std::string Type::graph_str() const {
  switch (kind_) {
    case TypeKind::Tensor: return tensor_graph_str(expect<TensorType>());
    case TypeKind::List: return expect<ListType>().elem()->graph_str() + "[]";
    case TypeKind::Optional: return expect<OptionalType>().elem()->graph_str() + "?";
    case TypeKind::Future: return "Future[" + expect<FutureType>().elem()->graph_str() + "]";
    case TypeKind::RRef: return "RRef[" + expect<RRefType>().elem()->graph_str() + "]";
    case TypeKind::Tuple: {
      const auto& t = expect<TupleType>();
      std::string out = t.is_named() ? "NamedTuple(" : "(";
      for (size_t i = 0; i < t.elements().size(); ++i) {
        if (i > 0) out += ", ";
        if (t.is_named()) out += t.field_names()[i] + " : ";
        out += t.elements()[i]->graph_str();
        if (t.is_named() && !t.field_defaults().empty() && t.field_defaults()[i])
          out += " = " + format_ivalue(*t.field_defaults()[i]);
      }
      return out + ")";
    }
    default: return str();  // Dict and Union print their members with str(), as c10 does
  }
}

std::string Type::annotation_str(const TypePrinter& printer) const {
  if (printer) {
    if (auto renamed = printer(*this)) return *renamed;
  }
  switch (kind_) {
    case TypeKind::List: return "List[" + expect<ListType>().elem()->annotation_str(printer) + "]";
    case TypeKind::Optional: return "Optional[" + expect<OptionalType>().elem()->annotation_str(printer) + "]";
    case TypeKind::Future: return "Future[" + expect<FutureType>().elem()->annotation_str(printer) + "]";
    case TypeKind::RRef: return "RRef[" + expect<RRefType>().elem()->annotation_str(printer) + "]";
    case TypeKind::Dict: {
      const auto& d = expect<DictType>();
      return "Dict[" + d.key()->annotation_str(printer) + ", " + d.value()->annotation_str(printer) + "]";
    }
    case TypeKind::Tuple: {
      const auto& t = expect<TupleType>();
      if (t.is_named()) return t.qualified_name();
      if (t.elements().empty()) return "Tuple[()]";  // typing's spelling of the empty tuple
      std::string out = "Tuple[";
      for (size_t i = 0; i < t.elements().size(); ++i)
        out += (i ? ", " : "") + t.elements()[i]->annotation_str(printer);
      return out + "]";
    }
    case TypeKind::Union: return union_str(expect<UnionType>(), &printer);
    case TypeKind::Number: return "number";  // not Python, but what code files say for Scalar
    case TypeKind::SymInt: return "int";
    case TypeKind::SymFloat: return "float";
    case TypeKind::Class: return expect<ClassType>().qualified_name();
    case TypeKind::Interface: return expect<InterfaceType>().qualified_name();
    case TypeKind::Enum: return expect<EnumType>().qualified_name();
    case TypeKind::Function: return expect<FunctionType>().qualified_name();
    default: return str();
  }
}

std::string format_double(double d) {
  // Integral values within int64's range print through int64 with a trailing dot (-0.0 too,
  // losing its sign, as 1.13 does); the rest as ostream does at precision 17 (%.17g).
  if (std::isfinite(d) && d == std::trunc(d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0)
    return fmt::format("{}.", static_cast<int64_t>(d));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  return buf;
}

std::string format_ivalue(const IValue& v) {
  const ValueDepthGuard level("printing");
  auto join = [](const std::vector<IValue>& items, const char* open, const char* close) {
    std::string out = open;
    for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + format_ivalue(items[i]);
    return out + close;
  };
  switch (v.kind()) {
    case IValue::Kind::None: return "None";
    case IValue::Kind::Bool: return v.to_bool() ? "True" : "False";
    case IValue::Kind::Int: return fmt::format("{}", v.to_int());
    case IValue::Kind::Double: return format_double(v.to_double());
    case IValue::Kind::Complex: {
      const auto c = v.to_complex();
      return format_double(c.real()) + (c.imag() >= 0 ? "+" : "-") + format_double(std::abs(c.imag())) + "j";
    }
    case IValue::Kind::String: return v.to_string();
    case IValue::Kind::Tuple: {
      const auto& items = v.to_tuple()->items;
      return join(items, "(", items.size() == 1 ? ",)" : ")");
    }
    case IValue::Kind::List: return join(v.to_list()->items, "[", "]");
    case IValue::Kind::Dict: {
      std::string out = "{";
      bool first = true;
      for (const auto& [k, val] : v.to_dict()->items) {
        out += (first ? "" : ", ") + format_ivalue(k) + ": " + format_ivalue(val);
        first = false;
      }
      return out + "}";
    }
    case IValue::Kind::Device: return v.to_device().str();
    case IValue::Kind::Object: return "<" + v.to_object()->type_name + " object>";
    case IValue::Kind::Tensor: return "<Tensor>";
    default: return fmt::format("<{}>", kind_name(v.kind()));
  }
}

}  // namespace jitctl
