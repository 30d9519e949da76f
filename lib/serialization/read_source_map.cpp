#include "lib/serialization/read_source_map.h"

#include <fmt/format.h>

#include <map>
#include <utility>
#include <vector>

#include "lib/archive/unpickler.h"
#include "lib/core/error.h"

namespace jitctl {
namespace {

using K = IValue::Kind;

const std::vector<IValue>& tuple_of(const IValue& v, size_t n, const std::string& where, const char* what) {
  if (!v.is(K::Tuple) || v.to_tuple()->items.size() != n)
    throw InvalidInput(fmt::format("{}: malformed {} record", where, what));
  return v.to_tuple()->items;
}

int64_t int_of(const IValue& v, const std::string& where) {
  if (!v.is(K::Int)) throw InvalidInput(fmt::format("{}: expected an int in a source range record", where));
  return v.to_int();
}

}  // namespace

SourceMap read_source_map(std::string_view bytes, const std::string& where) {
  UnpickleOptions o;
  o.record = where;
  const IValue root = unpickle(bytes, o);
  // (tag, text_table, records) with the string table; a bare tuple of records before it.
  std::vector<std::string> table;
  const std::vector<IValue>* records = nullptr;
  if (root.is(K::Tuple) && root.to_tuple()->items.size() == 3 && root.to_tuple()->items[0].is(K::String) &&
      root.to_tuple()->items[0].to_string() == "FORMAT_WITH_STRING_TABLE") {
    const auto& items = root.to_tuple()->items;
    if (!items[1].is(K::Tuple) && !items[1].is(K::List)) throw InvalidInput(fmt::format("{}: malformed string table", where));
    for (const auto& s : items[1].is(K::Tuple) ? items[1].to_tuple()->items : items[1].to_list()->items) {
      if (!s.is(K::String)) throw InvalidInput(fmt::format("{}: string table holds a {}", where, kind_name(s.kind())));
      table.push_back(s.to_string());
    }
    if (!items[2].is(K::Tuple)) throw InvalidInput(fmt::format("{}: malformed source range records", where));
    records = &items[2].to_tuple()->items;
  } else if (root.is(K::Tuple)) {
    records = &root.to_tuple()->items;
  } else {
    throw InvalidInput(fmt::format("{}: holds a {}, not source ranges", where, kind_name(root.kind())));
  }

  auto string_at = [&](const IValue& i) -> const std::string& {
    const int64_t k = int_of(i, where);
    if (k < 0 || static_cast<size_t>(k) >= table.size())
      throw InvalidInput(fmt::format("{}: string table index {} out of range", where, k));
    return table[static_cast<size_t>(k)];
  };
  // Sources repeat across records (same tuple, written once and memoized): share them.
  std::map<const void*, std::shared_ptr<const SourceMap::Original>> sources;
  std::vector<SourceMap::Record> out;
  for (const auto& rec : *records) {
    if (!rec.is(K::Tuple) || rec.to_tuple()->items.size() < 2)
      throw InvalidInput(fmt::format("{}: malformed source range record", where));
    const auto& r = rec.to_tuple()->items;  // (code offset, (source, start, end)[, tag])
    const auto& range = tuple_of(r[1], 3, where, "source range");
    const void* key = range[0].is(K::Tuple) ? static_cast<const void*>(range[0].to_tuple().get()) : nullptr;
    auto& src = sources[key];
    if (!src || !key) {
      auto o = std::make_shared<SourceMap::Original>();
      const auto& s = tuple_of(range[0], 3, where, "source");
      if (!table.empty()) {
        if (!s[0].is(K::List) && !s[0].is(K::Tuple)) throw InvalidInput(fmt::format("{}: malformed source text", where));
        for (const auto& i : s[0].is(K::List) ? s[0].to_list()->items : s[0].to_tuple()->items) o->text += string_at(i);
        o->filename = string_at(s[1]);
      } else {
        if (!s[0].is(K::String)) throw InvalidInput(fmt::format("{}: malformed source text", where));
        o->text = s[0].to_string();
        if (s[1].is(K::String)) o->filename = s[1].to_string();
      }
      o->first_line = int_of(s[2], where);
      src = std::move(o);
    }
    const int64_t offset = int_of(r[0], where), start = int_of(range[1], where);
    if (offset < 0 || offset > UINT32_MAX || start < 0 || static_cast<size_t>(start) > src->text.size())
      throw InvalidInput(fmt::format("{}: source range outside its source", where));
    out.push_back({static_cast<uint32_t>(offset), src, static_cast<uint32_t>(start)});
  }
  return SourceMap(std::move(out));
}

}  // namespace jitctl
