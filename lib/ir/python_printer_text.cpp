#include "lib/ir/python_printer_text.h"

#include <fmt/format.h>

#include <cstring>

#include "lib/core/dtype.h"
#include "lib/core/error.h"
#include "lib/core/string_literal.h"
#include "lib/ir/attribute_text.h"
#include "lib/ir/ivalue_type.h"

namespace jitctl {
namespace {

void repr(std::string& out, const IValue& v, const ReprOverride& special, const TypePrinter& tp);

void repr_items(std::string& out, const std::vector<IValue>& items, const char* open, const char* close,
                const ReprOverride& special, const TypePrinter& tp) {
  out += open;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    repr(out, items[i], special, tp);
  }
  out += close;
}

void repr(std::string& out, const IValue& v, const ReprOverride& special, const TypePrinter& tp) {
  if (special) {
    if (auto s = special(v)) {
      out += *s;
      return;
    }
  }
  using K = IValue::Kind;
  switch (v.kind()) {
    case K::None: out += "None"; return;
    case K::Bool: out += v.to_bool() ? "True" : "False"; return;
    case K::Int: out += fmt::format("{}", v.to_int()); return;
    case K::Double: out += repr_double(v.to_double()); return;
    case K::Complex: out += repr_ivalue(v); return;
    case K::String: out += quote_string(v.to_string()); return;
    case K::Device: out += "torch.device(" + quote_string(v.to_device().str()) + ")"; return;
    case K::Tuple: {
      if (TypePtr t = ivalue_type(v); t && t->kind() == TypeKind::Tuple && t->expect<TupleType>().is_named())
        out += t->annotation_str(tp);
      const auto& items = v.to_tuple()->items;
      repr_items(out, items, "(", items.size() == 1 ? ",)" : ")", special, tp);
      return;
    }
    case K::List: {
      const auto& list = *v.to_list();
      TypePtr elem = list_element_type(list);
      if (list.items.empty() || !elem || !element_type_shows_in_members(elem)) {
        out += "annotate(" + ListType::create(elem ? elem : AnyType::get())->annotation_str(tp) + ", ";
        repr_items(out, list.items, "[", "]", special, tp);
        out += ")";
      } else {
        repr_items(out, list.items, "[", "]", special, tp);
      }
      return;
    }
    case K::Dict: {
      const auto& dict = *v.to_dict();
      auto [kt, vt] = dict_types(dict);
      const bool annotate = dict.items.empty() || !vt || !element_type_shows_in_members(vt);
      if (annotate) {
        // No space after the comma: PyTorch writes `annotate(Dict[str, int],{})`.
        out += "annotate(" +
               DictType::create(kt ? kt : StringType::get(), vt ? vt : AnyType::get())->annotation_str(tp) + ",";
      }
      out += "{";
      bool first = true;
      for (const auto& [key, value] : dict.items) {
        if (!first) out += ", ";
        first = false;
        repr(out, key, special, tp);
        out += ": ";
        repr(out, value, special, tp);
      }
      out += "}";
      if (annotate) out += ")";
      return;
    }
    default: throw Unsupported(fmt::format("printing a {} constant as code", kind_name(v.kind())));
  }
}

// Calls f(byte offset) for each element of a strided tensor, in row-major order.
template <class F>
void for_each_offset(const Tensor& t, F f) {
  const auto& sizes = t.sizes();
  const auto& strides = t.strides();
  const int64_t n = t.numel();
  std::vector<int64_t> index(sizes.size(), 0);
  const int64_t esize = static_cast<int64_t>(element_size(t.dtype()));
  for (int64_t k = 0; k < n; ++k) {
    int64_t off = 0;
    for (size_t d = 0; d < sizes.size(); ++d) off += index[d] * strides[d];
    f(off * esize);
    for (size_t d = sizes.size(); d-- > 0;) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace

std::string code_repr(const IValue& v, const ReprOverride& special, const TypePrinter& type_printer) {
  std::string out;
  repr(out, v, special, type_printer);
  return out;
}

bool contains_non_ascii_string(const IValue& v) {
  using K = IValue::Kind;
  switch (v.kind()) {
    case K::String:
      for (char c : v.to_string())
        if (static_cast<unsigned char>(c) > 0x7f) return true;
      return false;
    case K::Tuple:
      for (const auto& x : v.to_tuple()->items)
        if (contains_non_ascii_string(x)) return true;
      return false;
    case K::List:
      for (const auto& x : v.to_list()->items)
        if (contains_non_ascii_string(x)) return true;
      return false;
    case K::Dict:
      for (const auto& [k, x] : v.to_dict()->items)
        if (contains_non_ascii_string(k) || contains_non_ascii_string(x)) return true;
      return false;
    default: return false;
  }
}

bool tensors_equal_for_constants(const Tensor& a, const Tensor& b) {
  if (!a.defined() || !b.defined()) return a.defined() == b.defined();
  if (a.dtype() != b.dtype() || !(a.device() == b.device()) || a.sizes() != b.sizes()) return false;
  const size_t esize = element_size(a.dtype());
  std::vector<int64_t> offs_a, offs_b;
  for_each_offset(a, [&](int64_t o) { offs_a.push_back(o); });
  for_each_offset(b, [&](int64_t o) { offs_b.push_back(o); });
  const auto* pa = static_cast<const char*>(a.data());
  const auto* pb = static_cast<const char*>(b.data());
  for (size_t i = 0; i < offs_a.size(); ++i)
    if (std::memcmp(pa + offs_a[i], pb + offs_b[i], esize) != 0) return false;
  return true;
}

}  // namespace jitctl
