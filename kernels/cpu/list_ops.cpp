// Operations on TorchScript lists. Lists are shared mutable objects: append, insert, pop,
// _set_item, sort ... change the ListData the program holds, never a copy.
#include <algorithm>
#include <string>

#include "kernels/cpu/register_cpu.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/cpu/value_util.h"
#include "lib/core/ivalue_equality.h"

namespace jitctl {
namespace {

using cpu::normalize_index;
using cpu::set_result;

std::vector<IValue>& items_of(const IValue& v) { return v.to_list()->items; }

// A new list with the element type of `like`.
std::shared_ptr<ListData> new_list_like(const IValue& like) {
  auto l = std::make_shared<ListData>();
  l->elem_type = like.to_list()->elem_type;
  return l;
}

void append(Stack& s) {
  items_of(s[0]).push_back(s[1]);
  s.resize(1);
}

void insert(Stack& s) {
  auto& items = items_of(s[0]);
  const int64_t n = static_cast<int64_t>(items.size());
  int64_t i = s[1].to_int();
  // Python's insert clamps the position instead of failing.
  if (i < 0) i = std::max<int64_t>(i + n, 0);
  if (i > n) i = n;
  items.insert(items.begin() + i, s[2]);
  s.clear();
}

void pop(Stack& s) {
  auto& items = items_of(s[0]);
  if (items.empty()) throw InvalidInput("pop from empty list");
  const size_t i = normalize_index(s[1].to_int(), items.size());
  IValue v = std::move(items[i]);
  items.erase(items.begin() + static_cast<std::ptrdiff_t>(i));
  set_result(s, std::move(v));
}

void getitem(Stack& s) {
  const auto& items = items_of(s[0]);
  set_result(s, items[normalize_index(s[1].to_int(), items.size())]);
}

void set_item(Stack& s) {
  auto& items = items_of(s[0]);
  items[normalize_index(s[1].to_int(), items.size())] = s[2];
  s.resize(1);
}

void delete_item(Stack& s) {
  auto& items = items_of(s[0]);
  const size_t i = normalize_index(s[1].to_int(), items.size());
  items.erase(items.begin() + static_cast<std::ptrdiff_t>(i));
  s.clear();
}

void copy_list(Stack& s) {
  auto l = new_list_like(s[0]);
  l->items = items_of(s[0]);
  set_result(s, IValue(std::move(l)));
}

void slice(Stack& s) {
  const auto& items = items_of(s[0]);
  const auto r = cpu::slice_range(s[1], s[2], s[3].to_int(), static_cast<int64_t>(items.size()));
  auto l = new_list_like(s[0]);
  l->items.reserve(static_cast<size_t>(r.count));
  for (int64_t k = 0, i = r.start; k < r.count; ++k, i += r.step) l->items.push_back(items[static_cast<size_t>(i)]);
  set_result(s, IValue(std::move(l)));
}

void concat(Stack& s) {
  auto l = new_list_like(s[0]);
  l->items = items_of(s[0]);
  const auto& b = items_of(s[1]);
  l->items.insert(l->items.end(), b.begin(), b.end());
  set_result(s, IValue(std::move(l)));
}

// `a += b` and a.extend(b); b may be a itself.
void extend_in_place(const IValue& a, const IValue& b) {
  const std::vector<IValue> other = items_of(b);
  auto& items = items_of(a);
  items.insert(items.end(), other.begin(), other.end());
}

std::vector<IValue> repeated(const std::vector<IValue>& items, int64_t n) {
  std::vector<IValue> out;
  // PyTorch reserves size * n elements first, so a negative count fails with the allocator's text.
  if (n < 0 && !items.empty()) throw InvalidInput("vector::reserve");
  if (n <= 0) return out;
  out.reserve(items.size() * static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) out.insert(out.end(), items.begin(), items.end());
  return out;
}

void repeat_left(Stack& s) {
  auto l = new_list_like(s[0]);
  l->items = repeated(items_of(s[0]), s[1].to_int());
  set_result(s, IValue(std::move(l)));
}

void repeat_right(Stack& s) {
  auto l = new_list_like(s[1]);
  l->items = repeated(items_of(s[1]), s[0].to_int());
  set_result(s, IValue(std::move(l)));
}

void repeat_in_place(Stack& s) {
  auto& items = items_of(s[0]);
  items = repeated(items, s[1].to_int());
  s.resize(1);
}

void contains(Stack& s) {
  const auto& items = items_of(s[0]);
  const bool found = std::any_of(items.begin(), items.end(), [&](const IValue& x) { return ivalues_equal(x, s[1]); });
  set_result(s, found);
}

void index_of(Stack& s) {
  const auto& items = items_of(s[0]);
  for (size_t i = 0; i < items.size(); ++i)
    if (ivalues_equal(items[i], s[1])) return set_result(s, static_cast<int64_t>(i));
  throw InvalidInput("'" + cpu::script_str(s[1]) + "' is not in list");
}

void count(Stack& s) {
  const auto& items = items_of(s[0]);
  set_result(s, static_cast<int64_t>(
                    std::count_if(items.begin(), items.end(), [&](const IValue& x) { return ivalues_equal(x, s[1]); })));
}

void remove(Stack& s) {
  auto& items = items_of(s[0]);
  auto it = std::find_if(items.begin(), items.end(), [&](const IValue& x) { return ivalues_equal(x, s[1]); });
  if (it == items.end()) throw InvalidInput("list.remove(x): x not in list");
  items.erase(it);
  s.clear();
}

void list_eq(Stack& s) { set_result(s, ivalues_equal(s[0], s[1])); }
void list_ne(Stack& s) { set_result(s, !ivalues_equal(s[0], s[1])); }

// Python's < on ints, floats, bools or strings.
bool less(const IValue& a, const IValue& b) {
  if (a.is(IValue::Kind::String)) return a.to_string() < b.to_string();
  if (a.is(IValue::Kind::Int) && b.is(IValue::Kind::Int)) return a.to_int() < b.to_int();
  return cpu::number_of(a) < cpu::number_of(b);
}

void sort_items(std::vector<IValue>& items, bool reverse) {
  // Stable, with reverse keeping equal elements in order, as Python's sort(reverse=True) does.
  std::stable_sort(items.begin(), items.end(),
                   [&](const IValue& a, const IValue& b) { return reverse ? less(b, a) : less(a, b); });
}

void sort(Stack& s) {
  sort_items(items_of(s[0]), s[1].to_bool());
  s.clear();
}

void sorted(Stack& s) {
  auto l = new_list_like(s[0]);
  l->items = items_of(s[0]);
  sort_items(l->items, false);
  set_result(s, IValue(std::move(l)));
}

// min(l) / max(l) of a list of numbers.
template <bool Max>
void extreme(Stack& s) {
  const auto& items = items_of(s[0]);
  if (items.empty()) throw InvalidInput(std::string(Max ? "max" : "min") + "() arg is an empty sequence");
  IValue best = items[0];
  for (size_t i = 1; i < items.size(); ++i)
    if (Max ? less(best, items[i]) : less(items[i], best)) best = items[i];
  set_result(s, best);
}

// min(a, b) / max(a, b) of two lists: lexicographic, as Python compares sequences.
template <bool Max>
void extreme_of_lists(Stack& s) {
  const auto& a = items_of(s[0]);
  const auto& b = items_of(s[1]);
  bool a_less = a.size() < b.size();
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (ivalues_equal(a[i], b[i])) continue;
    a_less = less(a[i], b[i]);
    break;
  }
  const bool take_a = Max ? !a_less : a_less;
  set_result(s, take_a ? s[0] : s[1]);
}

void sum_int(Stack& s) {
  int64_t total = 0;
  for (const auto& x : items_of(s[0]))
    total = static_cast<int64_t>(static_cast<uint64_t>(total) + static_cast<uint64_t>(static_cast<int64_t>(cpu::number_of(x))));
  set_result(s, total);
}

void sum_float(Stack& s) {
  double total = 0;
  for (const auto& x : items_of(s[0])) total += x.to_double();
  set_result(s, total);
}

void any_of(Stack& s) {
  const auto& items = items_of(s[0]);
  set_result(s, std::any_of(items.begin(), items.end(), [](const IValue& x) {
               return x.is(IValue::Kind::String) ? !x.to_string().empty() : cpu::number_of(x) != 0.0;
             }));
}

void all_of(Stack& s) {
  const auto& items = items_of(s[0]);
  set_result(s, std::all_of(items.begin(), items.end(), [](const IValue& x) { return cpu::number_of(x) != 0.0; }));
}

IValue int_list_value(std::vector<int64_t> v) {
  auto l = std::make_shared<ListData>();
  l->elem_type = "int";
  for (int64_t x : v) l->items.emplace_back(x);
  return IValue(std::move(l));
}

// Broadcast shape of two size lists, with PyTorch's message.
void infer_size(Stack& s) {
  const auto a = cpu::int_list(s[0]), b = cpu::int_list(s[1]);
  const size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t k = 0; k < n; ++k) {
    const int64_t i = static_cast<int64_t>(n) - 1 - static_cast<int64_t>(k);
    const int64_t da = i - static_cast<int64_t>(n - a.size()), db = i - static_cast<int64_t>(n - b.size());
    const int64_t x = da >= 0 ? a[static_cast<size_t>(da)] : 1, y = db >= 0 ? b[static_cast<size_t>(db)] : 1;
    if (x != y && x != 1 && y != 1)
      throw InvalidInput("The size of tensor a (" + std::to_string(x) + ") must match the size of tensor b (" +
                         std::to_string(y) + ") at non-singleton dimension " + std::to_string(i));
    out[static_cast<size_t>(i)] = x == 1 ? y : x;
  }
  set_result(s, int_list_value(std::move(out)));
}

void size_if_not_equal(Stack& s) {
  if (ivalues_equal(s[0], s[1]))
    set_result(s, IValue());
  else
    set_result(s, s[1]);
}

}  // namespace

void register_list_kernels() {
  register_kernel("aten::append.t", &append);
  register_kernel("aten::insert.t", &insert);
  register_kernel("aten::pop.t", &pop);
  register_kernel("aten::__getitem__.t", &getitem);
  register_kernel("aten::select.t", &getitem);
  register_kernel("aten::_set_item.t", &set_item);
  register_kernel("aten::Delete.t", &delete_item);
  register_kernel("aten::len.t", [](Stack& s) { set_result(s, static_cast<int64_t>(items_of(s[0]).size())); });
  register_kernel("aten::len.any", [](Stack& s) { set_result(s, static_cast<int64_t>(items_of(s[0]).size())); });
  register_kernel("aten::list.t", &copy_list);
  register_kernel("aten::copy.t", &copy_list);
  register_kernel("aten::Size", &copy_list);
  register_kernel("aten::slice.t", &slice);
  register_kernel("aten::add.t", &concat);
  register_kernel("aten::add_.t", [](Stack& s) {
    extend_in_place(s[0], s[1]);
    s.resize(1);
  });
  register_kernel("aten::extend.t", [](Stack& s) {
    extend_in_place(s[0], s[1]);
    s.clear();
  });
  register_kernel("aten::mul.left_t", &repeat_left);
  register_kernel("aten::mul.right_", &repeat_right);
  register_kernel("aten::mul_.t", &repeat_in_place);
  register_kernel("aten::clear.t", [](Stack& s) {
    items_of(s[0]).clear();
    s.clear();
  });
  register_kernel("aten::reverse.t", [](Stack& s) {
    std::reverse(items_of(s[0]).begin(), items_of(s[0]).end());
    s.clear();
  });
  for (const char* t : {"int_list", "float_list", "str_list"}) register_kernel(std::string("aten::__contains__.") + t, &contains);
  for (const char* t : {"int", "float", "bool", "str"}) {
    register_kernel(std::string("aten::index.list_") + t, &index_of);
    register_kernel(std::string("aten::count.") + t, &count);
    register_kernel(std::string("aten::remove.") + t, &remove);
    register_kernel(std::string("aten::sort.") + t, &sort);
    register_kernel(std::string("aten::sorted.") + t, &sorted);
  }
  for (const char* t : {"int_list", "float_list", "bool_list", "str_list"}) {
    register_kernel(std::string("aten::eq.") + t, &list_eq);
    register_kernel(std::string("aten::ne.") + t, &list_ne);
  }
  for (const char* t : {"int", "float", "bool"}) {
    register_kernel(std::string("prim::min.self_") + t, &extreme<false>);
    register_kernel(std::string("prim::max.self_") + t, &extreme<true>);
    register_kernel(std::string("prim::min.") + t + "_list", &extreme_of_lists<false>);
    register_kernel(std::string("prim::max.") + t + "_list", &extreme_of_lists<true>);
  }
  register_kernel("aten::sum.int", &sum_int);
  register_kernel("aten::sum.bool", &sum_int);
  register_kernel("aten::sum.float", &sum_float);
  for (const char* t : {"int", "float", "bool", "str"}) register_kernel(std::string("aten::any.") + t, &any_of);
  for (const char* t : {"int", "float", "bool"}) register_kernel(std::string("aten::all.") + t, &all_of);
  register_kernel("aten::_infer_size", &infer_size);
  register_kernel("aten::_size_if_not_equal", &size_if_not_equal);

  cpu::register_dict_kernels();
}

}  // namespace jitctl
