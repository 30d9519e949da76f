#include "lib/ir/attribute_text.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>

#include "lib/core/enum_value.h"
#include "lib/core/string_literal.h"
#include "lib/ir/ivalue_type.h"
#include "lib/ir/tensor_text.h"

namespace jitctl {
namespace {

void repr(std::string& out, const IValue& v);

void repr_items(std::string& out, const std::vector<IValue>& items, const char* open, const char* close) {
  out += open;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    repr(out, items[i]);
  }
  out += close;
}

void repr_list(std::string& out, const ListData& list) {
  TypePtr elem = list_element_type(list);
  if (elem && elem->kind() == TypeKind::Tensor) {
    out += "[<Tensors>]";
    return;
  }
  if (list.items.empty() || !elem || !element_type_shows_in_members(elem)) {
    out += "annotate(" + ListType::create(elem ? elem : AnyType::get())->annotation_str() + ", ";
    repr_items(out, list.items, "[", "]");
    out += ")";
    return;
  }
  repr_items(out, list.items, "[", "]");
}

void repr_dict_items(std::string& out, const DictData& dict) {
  out += "{";
  bool first = true;
  for (const auto& [k, v] : dict.items) {
    if (!first) out += ", ";
    first = false;
    repr(out, k);
    out += ": ";
    repr(out, v);
  }
  out += "}";
}

void repr_dict(std::string& out, const DictData& dict) {
  auto [k, v] = dict_types(dict);
  if (dict.items.empty() || !v || !element_type_shows_in_members(v)) {
    // No space after the comma here: PyTorch writes `annotate(Dict[str, int],{})`.
    out += "annotate(" + DictType::create(k ? k : StringType::get(), v ? v : AnyType::get())->annotation_str() + ",";
    repr_dict_items(out, dict);
    out += ")";
    return;
  }
  repr_dict_items(out, dict);
}

void repr(std::string& out, const IValue& v) {
  using K = IValue::Kind;
  switch (v.kind()) {
    case K::None: out += "None"; return;
    case K::Bool: out += v.to_bool() ? "True" : "False"; return;
    case K::Int: out += fmt::format("{}", v.to_int()); return;
    case K::Double: out += repr_double(v.to_double()); return;
    case K::Complex: out += format_ivalue(v); return;  // the parts print as operator<< does
    case K::String: out += quote_string(v.to_string()); return;
    case K::Tensor: {
      const Tensor& t = v.to_tensor();
      out += t.defined() ? tensor_attribute_text(t) : "<Tensor>";
      return;
    }
    case K::Tuple: {
      const auto& items = v.to_tuple()->items;
      repr_items(out, items, "(", items.size() == 1 ? ",)" : ")");
      return;
    }
    case K::List: repr_list(out, *v.to_list()); return;
    case K::Dict: repr_dict(out, *v.to_dict()); return;
    case K::Device: out += "torch.device(" + quote_string(v.to_device().str()) + ")"; return;
    // PyTorch prints a non-module object as its address; a stable placeholder serves better.
    case K::Object:
      if (is_enum_value(v)) {
        out += enum_class_name(v) + "." + enum_member_name(v);
        return;
      }
      out += "object(" + v.to_object()->type_name + ")"; return;
    default: out += fmt::format("<{}>", kind_name(v.kind())); return;
  }
}

template <class T>
std::string list_text(const std::vector<T>& items, const char* elem) {
  if (items.empty()) return fmt::format("annotate(List[{}], [])", elem);
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    if constexpr (std::is_same_v<T, double>) out += repr_double(items[i]);
    else if constexpr (std::is_same_v<T, int64_t>) out += fmt::format("{}", items[i]);
    else if constexpr (std::is_same_v<T, std::string>) out += quote_string(items[i]);
    else out += format_ivalue(IValue(items[i]));
  }
  return out + "]";
}

}  // namespace

std::string repr_double(double d) {
  const int c = std::fpclassify(d);
  if ((c == FP_NORMAL || c == FP_ZERO) && std::abs(d) < 1e10) {
    const auto i = static_cast<int64_t>(d);
    if (static_cast<double>(i) == d) return i == 0 && std::signbit(d) ? "-0." : fmt::format("{}.", i);
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  return buf;
}

std::string repr_ivalue(const IValue& v) {
  std::string out;
  repr(out, v);
  return out;
}

std::string attribute_value_text(const AttributeValue& v, bool mkldnn) {
  switch (kind_of(v)) {
    case AttributeKind::f: return repr_double(std::get<0>(v));
    case AttributeKind::fs: return list_text(std::get<1>(v), "float");
    case AttributeKind::c: return format_ivalue(IValue(std::get<2>(v)));
    // PyTorch asserts on complex lists; print them as a complex list IValue would.
    case AttributeKind::cs: return list_text(std::get<3>(v), "complex");
    case AttributeKind::i: return fmt::format("{}", std::get<4>(v));
    case AttributeKind::is: return list_text(std::get<5>(v), "int");
    case AttributeKind::s: return quote_string(std::get<6>(v));
    case AttributeKind::ss: return list_text(std::get<7>(v), "str");
    case AttributeKind::t: {
      const Tensor& t = std::get<8>(v);
      return t.defined() ? tensor_attribute_text(t, mkldnn) : "<Tensor>";
    }
    case AttributeKind::ts: return "[<Tensors>]";
    case AttributeKind::g: return "<Graph>";
    case AttributeKind::gs: return "[<Graphs>]";
    case AttributeKind::ty: return std::get<12>(v)->graph_str();
    case AttributeKind::tys: {
      std::string out = "[";
      const auto& types = std::get<13>(v);
      for (size_t i = 0; i < types.size(); ++i) out += (i ? ", " : "") + types[i]->graph_str();
      return out + "]";
    }
    case AttributeKind::ival: return repr_ivalue(std::get<14>(v));
  }
  return "";
}

bool element_type_shows_in_members(const TypePtr& t) {
  switch (t->kind()) {
    case TypeKind::Union:
    case TypeKind::Optional:
    case TypeKind::Number:
    case TypeKind::Interface:
    case TypeKind::Any: return false;
    default: return true;
  }
}

}  // namespace jitctl
