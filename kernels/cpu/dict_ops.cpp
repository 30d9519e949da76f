// Operations on TorchScript dicts (insertion-ordered, shared and mutable like lists). Every key
// type (str, int, bool, float, complex, Tensor) has its own overload; one kernel serves them all.
#include <string>

#include "kernels/cpu/value_util.h"
#include "lib/core/ivalue_equality.h"

namespace jitctl::cpu {
namespace {

DictData& dict_of(const IValue& v) { return *v.to_dict(); }

[[noreturn]] void key_error(const IValue& key) { throw InvalidInput("KeyError: " + script_str(key)); }

// Removes `key` (present). DictData keeps a private hash index over item positions, so removal
// rebuilds the dict in place: the object the program holds stays the same.
IValue erase(DictData& d, const IValue& key) {
  auto items = std::move(d.items);
  DictData rebuilt;
  rebuilt.key_type = d.key_type;
  rebuilt.value_type = d.value_type;
  IValue removed;
  for (auto& [k, v] : items) {
    if (ivalues_equal(k, key))
      removed = std::move(v);
    else
      rebuilt.set(std::move(k), std::move(v));
  }
  d = std::move(rebuilt);
  return removed;
}

std::shared_ptr<DictData> copy_of(const DictData& d) {
  auto out = std::make_shared<DictData>();
  out->key_type = d.key_type;
  out->value_type = d.value_type;
  for (const auto& [k, v] : d.items) out->set(k, v);
  return out;
}

void getitem(Stack& s) {
  const IValue* v = dict_of(s[0]).find(s[1]);
  if (!v) key_error(s[1]);
  set_result(s, *v);
}

void set_item(Stack& s) {
  dict_of(s[0]).set(s[1], s[2]);
  s.clear();
}

void get(Stack& s) {
  const IValue* v = dict_of(s[0]).find(s[1]);
  set_result(s, v ? *v : IValue());
}

void get_default(Stack& s) {
  const IValue* v = dict_of(s[0]).find(s[1]);
  set_result(s, v ? *v : s[2]);
}

void setdefault(Stack& s) {
  DictData& d = dict_of(s[0]);
  if (const IValue* v = d.find(s[1])) return set_result(s, *v);
  d.set(s[1], s[2]);
  set_result(s, s[2]);
}

void pop(Stack& s) {
  DictData& d = dict_of(s[0]);
  if (!d.find(s[1])) key_error(s[1]);
  set_result(s, erase(d, s[1]));
}

void pop_default(Stack& s) {
  DictData& d = dict_of(s[0]);
  if (!d.find(s[1])) return set_result(s, s[2]);
  set_result(s, erase(d, s[1]));
}

void delete_key(Stack& s) {
  DictData& d = dict_of(s[0]);
  if (!d.find(s[1])) key_error(s[1]);
  erase(d, s[1]);
  s.clear();
}

// PyTorch's popitem takes the first inserted item (Python's takes the last).
void popitem(Stack& s) {
  DictData& d = dict_of(s[0]);
  if (d.items.empty()) throw InvalidInput("popitem(): dictionary is empty");
  const IValue key = d.items.front().first;
  auto t = std::make_shared<TupleData>();
  t->items.push_back(key);
  t->items.push_back(erase(d, key));
  set_result(s, IValue(std::move(t)));
}

void contains(Stack& s) { set_result(s, dict_of(s[0]).find(s[1]) != nullptr); }

void keys(Stack& s) {
  auto l = std::make_shared<ListData>();
  l->elem_type = dict_of(s[0]).key_type;
  for (const auto& kv : dict_of(s[0]).items) l->items.push_back(kv.first);
  set_result(s, IValue(std::move(l)));
}

void values(Stack& s) {
  auto l = std::make_shared<ListData>();
  l->elem_type = dict_of(s[0]).value_type;
  for (const auto& kv : dict_of(s[0]).items) l->items.push_back(kv.second);
  set_result(s, IValue(std::move(l)));
}

void items(Stack& s) {
  auto l = std::make_shared<ListData>();
  const DictData& d = dict_of(s[0]);
  if (!d.key_type.empty() && !d.value_type.empty()) l->elem_type = "Tuple[" + d.key_type + ", " + d.value_type + "]";
  for (const auto& [k, v] : d.items) {
    auto t = std::make_shared<TupleData>();
    t->items = {k, v};
    l->items.emplace_back(std::move(t));
  }
  set_result(s, IValue(std::move(l)));
}

void clear(Stack& s) {
  DictData& d = dict_of(s[0]);
  DictData empty;
  empty.key_type = d.key_type;
  empty.value_type = d.value_type;
  d = std::move(empty);
  s.clear();
}

void update(Stack& s) {
  const auto added = dict_of(s[1]).items;  // the argument may be the dict itself
  DictData& d = dict_of(s[0]);
  for (const auto& [k, v] : added) d.set(k, v);
  s.clear();
}

// dict(list of (key, value) tuples).
void from_pairs(Stack& s) {
  auto d = std::make_shared<DictData>();
  for (const auto& pair : s[0].to_list()->items) {
    const auto& t = pair.to_tuple()->items;
    d->set(t.at(0), t.at(1));
  }
  set_result(s, IValue(std::move(d)));
}

}  // namespace

void register_dict_kernels() {
  for (const std::string k : {"str", "int", "bool", "float", "complex", "Tensor"}) {
    register_kernel("aten::__getitem__.Dict_" + k, &getitem);
    register_kernel("aten::_set_item." + k, &set_item);
    register_kernel("aten::len.Dict_" + k, [](Stack& s) { set_result(s, static_cast<int64_t>(dict_of(s[0]).items.size())); });
    register_kernel("aten::keys." + k, &keys);
    register_kernel("aten::values." + k, &values);
    register_kernel("aten::items." + k, &items);
    register_kernel("aten::get." + k, &get);
    register_kernel("aten::get.default_" + k, &get_default);
    register_kernel("aten::setdefault." + k, &setdefault);
    register_kernel("aten::pop.Dict_" + k, &pop);
    register_kernel("aten::pop.Dict_default_" + k, &pop_default);
    register_kernel("aten::popitem." + k, &popitem);
    register_kernel("aten::Delete.Dict_" + k, &delete_key);
    register_kernel("aten::__contains__." + k, &contains);
    register_kernel("aten::copy.Dict_" + k, [](Stack& s) { set_result(s, IValue(copy_of(dict_of(s[0])))); });
    register_kernel("aten::dict.Dict_" + k, [](Stack& s) { set_result(s, IValue(copy_of(dict_of(s[0])))); });
    register_kernel("aten::dict." + k, &from_pairs);
    register_kernel("aten::clear." + k, &clear);
    register_kernel("aten::update." + k, &update);
  }
  register_kernel("aten::dict", [](Stack& s) {
    auto d = std::make_shared<DictData>();
    d->key_type = "str";
    d->value_type = "Tensor";
    set_result(s, IValue(std::move(d)));
  });
}

}  // namespace jitctl::cpu
