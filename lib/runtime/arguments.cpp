#include "lib/runtime/arguments.h"

#include <fmt/format.h>

#include "lib/core/describe.h"
#include "lib/core/error.h"

namespace jitctl {
namespace {

const char* ordinal_suffix(size_t n) {
  if (n % 100 >= 11 && n % 100 <= 13) return "th";
  switch (n % 10) {
    case 1: return "st";
    case 2: return "nd";
    case 3: return "rd";
    default: return "th";
  }
}

std::string short_value(const IValue& v) {
  if (v.is_tensor() || v.is(IValue::Kind::Tuple) || v.is(IValue::Kind::List) || v.is(IValue::Kind::Dict)) return "";
  return " (" + describe(v, 40) + ")";
}

bool is_int_like(TypeKind k) {
  return k == TypeKind::Int || k == TypeKind::SymInt || k == TypeKind::ScalarType || k == TypeKind::Layout ||
         k == TypeKind::MemoryFormat;
}

std::optional<IValue> convert_items(const std::vector<IValue>& items, std::span<const TypePtr> types, bool same_type,
                                    std::vector<IValue>& out, std::string& why) {
  out.clear();
  for (size_t i = 0; i < items.size(); ++i) {
    const TypePtr& t = same_type ? types[0] : types[i];
    std::string inner;
    auto c = convert_to_type(items[i], t, inner);
    if (!c) {
      why = fmt::format("element [{}] is {}{}", i, inner.empty() ? value_kind_text(items[i]) : inner,
                        inner.empty() ? fmt::format(", not {}", t->annotation_str()) : "");
      return std::nullopt;
    }
    out.push_back(std::move(*c));
  }
  return IValue();
}

}  // namespace

std::string value_kind_text(const IValue& v) {
  using K = IValue::Kind;
  switch (v.kind()) {
    case K::None: return "None";
    case K::Bool: return "bool";
    case K::Int: return "int";
    case K::Double: return "float";
    case K::Complex: return "complex";
    case K::String: return "str";
    case K::Tensor: return fmt::format("Tensor ({} {})", dtype_name(v.to_tensor().dtype()), shape_string(v.to_tensor().sizes()));
    case K::Tuple: return fmt::format("tuple of {}", v.to_tuple()->items.size());
    case K::List: return fmt::format("list of {}", v.to_list()->items.size());
    case K::Dict: return fmt::format("dict of {}", v.to_dict()->items.size());
    case K::Object: return v.to_object()->type_name;
    case K::Device: return "device";
    default: return kind_name(v.kind());
  }
}

std::optional<IValue> convert_to_type(const IValue& v, const TypePtr& type, std::string& why) {
  using K = IValue::Kind;
  const TypeKind tk = type->kind();
  switch (tk) {
    case TypeKind::Any: return v;
    case TypeKind::Tensor: if (v.is_tensor()) return v; break;
    case TypeKind::Float:
      if (v.is(K::Double)) return v;
      if (v.is(K::Int)) return IValue(static_cast<double>(v.to_int()));
      break;
    case TypeKind::Complex:
      if (v.is(K::Complex)) return v;
      if (v.is(K::Int) || v.is(K::Double)) return IValue(std::complex<double>(v.to_double(), 0));
      break;
    case TypeKind::Number:
      if (v.is(K::Int) || v.is(K::Double) || v.is(K::Complex)) return v;
      if (v.is(K::Bool)) return IValue(static_cast<int64_t>(v.to_bool()));
      break;
    case TypeKind::Bool: if (v.is(K::Bool)) return v; break;
    case TypeKind::String: if (v.is(K::String)) return v; break;
    case TypeKind::None: if (v.is_none()) return v; break;
    case TypeKind::Device:
      if (v.is(K::Device)) return v;
      if (v.is(K::String))
        if (auto d = Device::parse(v.to_string())) return IValue(*d);
      break;
    case TypeKind::Optional:
      if (v.is_none()) return v;
      return convert_to_type(v, type->contained()[0], why);
    case TypeKind::Union:
      for (const auto& t : type->contained()) {
        std::string ignored;
        if (auto c = convert_to_type(v, t, ignored)) return c;
      }
      break;
    case TypeKind::List: {
      if (!v.is(K::List) && !v.is(K::Tuple)) break;
      const auto& items = v.is(K::List) ? v.to_list()->items : v.to_tuple()->items;
      auto l = std::make_shared<ListData>();
      l->elem_type = type->contained()[0]->annotation_str();
      if (!convert_items(items, type->contained(), true, l->items, why)) return std::nullopt;
      return IValue(std::move(l));
    }
    case TypeKind::AnyList: if (v.is(K::List)) return v; break;
    case TypeKind::AnyTuple: if (v.is(K::Tuple)) return v; break;
    case TypeKind::Tuple: {
      if (!v.is(K::List) && !v.is(K::Tuple)) break;
      const auto& items = v.is(K::List) ? v.to_list()->items : v.to_tuple()->items;
      const auto elems = type->contained();
      if (items.size() != elems.size()) {
        why = fmt::format("{} with {} element(s), not {}", v.is(K::List) ? "a list" : "a tuple", items.size(), elems.size());
        return std::nullopt;
      }
      auto t = std::make_shared<TupleData>();
      if (!convert_items(items, elems, false, t->items, why)) return std::nullopt;
      return IValue(std::move(t));
    }
    case TypeKind::Dict: {
      if (!v.is(K::Dict)) break;
      const auto& d = *v.to_dict();
      auto out = std::make_shared<DictData>();
      const TypePtr& kt = type->contained()[0];
      const TypePtr& vt = type->contained()[1];
      out->key_type = kt->annotation_str();
      out->value_type = vt->annotation_str();
      for (const auto& [key, value] : d.items) {
        std::string inner;
        auto ck = convert_to_type(key, kt, inner);
        if (!ck) {
          why = fmt::format("key {} is {}, not {}", describe(key, 40), value_kind_text(key), kt->annotation_str());
          return std::nullopt;
        }
        auto cv = convert_to_type(value, vt, inner);
        if (!cv) {
          why = fmt::format("value of key {} is {}{}", describe(key, 40), inner.empty() ? value_kind_text(value) : inner,
                            inner.empty() ? fmt::format(", not {}", vt->annotation_str()) : "");
          return std::nullopt;
        }
        out->set(std::move(*ck), std::move(*cv));
      }
      return IValue(std::move(out));
    }
    case TypeKind::Class:
      if (v.is_object() && v.to_object()->type_name == type->expect<ClassType>().qualified_name()) return v;
      break;
    default:
      if (is_int_like(tk)) {
        if (v.is(K::Int)) return v;
        break;
      }
      return v;  // a type jitctl does not check (futures, interfaces, ...): the interpreter decides
  }
  if (is_int_like(tk) && v.is(K::Int)) return v;
  return std::nullopt;
}

bool has_self(const FunctionSchema& schema) {
  return !schema.arguments.empty() && schema.arguments[0].type && schema.arguments[0].type->cast<ClassType>() != nullptr;
}

std::vector<IValue> check_arguments(const FunctionSchema& schema, std::vector<IValue> args) {
  const size_t first = has_self(schema) ? 1 : 0;
  const size_t total = schema.arguments.size() - first;
  size_t required = total;
  while (required > 0 && schema.arguments[first + required - 1].default_value) --required;
  const std::string fn = schema.name.substr(schema.name.rfind('.') == std::string::npos ? 0 : schema.name.rfind('.') + 1);
  auto listing = [&] {
    std::vector<std::string> parts;
    for (size_t i = first; i < schema.arguments.size(); ++i) parts.push_back(schema.arguments[i].str());
    return fmt::format("{}({})", fn, fmt::join(parts, ", "));
  };
  if (args.size() < required || args.size() > total) {
    const std::string takes = required == total ? std::to_string(total) : fmt::format("{} to {}", required, total);
    std::string detail;
    if (args.size() < required) {
      const auto& missing = schema.arguments[first + args.size()];
      detail = fmt::format("; '{}' ({}) is missing", missing.name, missing.type->annotation_str());
      // No inputs at all is usually a forgotten flag, not a wrong file: say which flags give them.
      if (args.empty()) detail += " (give the inputs with --inputs F or --input-spec S; --describe-inputs shows an example)";
    }
    throw InvalidInput(fmt::format("{}() takes {} argument{}, the inputs give {}{}: {}", fn, takes, total == 1 && required == total ? "" : "s",
                                   args.size(), detail, listing()));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const Argument& a = schema.arguments[first + i];
    if (a.type->kind() == TypeKind::Class || a.type->kind() == TypeKind::Interface) {
      if (!args[i].is_object())
        throw Unsupported(fmt::format("{}() argument '{}' is an object of class {}, which jitctl cannot build from "
                                      "--inputs or --input-spec",
                                      fn, a.name, a.type->annotation_str()));
    }
    std::string why;
    auto converted = convert_to_type(args[i], a.type, why);
    if (!converted) {
      const auto example = example_spec(a.type);
      throw InvalidInput(fmt::format("{}() argument '{}' ({}{} argument) must be {}, not {}{}{}", fn, a.name, i + 1,
                                     ordinal_suffix(i + 1), a.type->annotation_str(),
                                     why.empty() ? value_kind_text(args[i]) : value_kind_text(args[i]) + ": " + why,
                                     why.empty() ? short_value(args[i]) : "",
                                     example ? fmt::format(" (as --input-spec, e.g. {})", *example) : ""));
    }
    args[i] = std::move(*converted);
  }
  return args;
}

std::optional<std::string> example_spec(const TypePtr& type) {
  switch (type->kind()) {
    case TypeKind::Any:
    case TypeKind::Tensor: return "float32[2,3]";
    case TypeKind::Int:
    case TypeKind::SymInt: return "2";
    case TypeKind::Float: return "0.5";
    case TypeKind::Number: return "1.5";
    case TypeKind::Bool: return "true";
    case TypeKind::String: return "\"text\"";
    case TypeKind::None: return "none";
    case TypeKind::Device: return "\"cpu\"";
    case TypeKind::ScalarType: return "6";  // torch.float32's number
    case TypeKind::Optional: return example_spec(type->contained()[0]);
    case TypeKind::Union:
      for (const auto& t : type->contained())
        if (auto e = example_spec(t)) return e;
      return std::nullopt;
    case TypeKind::List: {
      auto e = example_spec(type->contained()[0]);
      if (!e) return std::nullopt;
      return fmt::format("[{}, {}]", *e, *e);
    }
    case TypeKind::Tuple: {
      std::vector<std::string> parts;
      for (const auto& t : type->contained()) {
        auto e = example_spec(t);
        if (!e) return std::nullopt;
        parts.push_back(*e);
      }
      if (parts.size() == 1) return fmt::format("({},)", parts[0]);
      return fmt::format("({})", fmt::join(parts, ", "));
    }
    case TypeKind::Dict: {
      const TypePtr& k = type->contained()[0];
      std::optional<std::string> ke;
      if (k->kind() == TypeKind::String) ke = "\"key\"";
      else if (k->kind() == TypeKind::Int) ke = "0";
      else if (k->kind() == TypeKind::Float) ke = "0.5";
      else if (k->kind() == TypeKind::Bool) ke = "true";
      auto ve = example_spec(type->contained()[1]);
      if (!ke || !ve) return std::nullopt;
      return fmt::format("{{{}: {}}}", *ke, *ve);
    }
    default: return std::nullopt;
  }
}

}  // namespace jitctl
