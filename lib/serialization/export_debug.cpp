#include "lib/serialization/export_debug.h"

#include <map>
#include <memory>

#include "lib/archive/pickler.h"

namespace jitctl {
namespace {

IValue tuple(std::vector<IValue> items) {
  auto t = std::make_shared<TupleData>();
  t->items = std::move(items);
  return t;
}

// The strings of the record, each stored once; index 0 is "" (no text, no file name).
class StringTable {
 public:
  StringTable() { index(""); }
  int64_t index(const std::string& s) {
    auto [it, added] = ids_.emplace(s, static_cast<int64_t>(strings_.size()));
    if (added) strings_.push_back(s);
    return it->second;
  }
  IValue strings() const { return tuple(std::vector<IValue>(strings_.begin(), strings_.end())); }

 private:
  std::map<std::string, int64_t> ids_;
  std::vector<std::string> strings_;
};

// ((text pieces, file, first line), start, end): a source whose offset `col` on its first line
// `line` reads back as file:line:col.
IValue source_range(StringTable& table, const SourceLocation& loc) {
  auto pieces = std::make_shared<ListData>();
  pieces->elem_type = "int";
  if (loc.col > 0) pieces->items.push_back(table.index(std::string(loc.col, ' ')));
  const IValue source = tuple({IValue(pieces), IValue(table.index(loc.file)), IValue(static_cast<int64_t>(loc.line))});
  return tuple({source, IValue(static_cast<int64_t>(loc.col)), IValue(static_cast<int64_t>(loc.col))});
}

}  // namespace

std::string debug_pkl_for(const std::vector<CodeRange>& ranges) {
  StringTable table;
  std::vector<IValue> records;
  auto add = [&](uint32_t offset, const SourceLocation& loc) {
    records.push_back(tuple({IValue(static_cast<int64_t>(offset)), source_range(table, loc), IValue(int64_t{0})}));
  };
  const SourceLocation none;  // reads back as ":0:0", as PyTorch's compiler-made ranges do
  uint32_t covered_to = 0;
  for (const auto& r : ranges) {
    if (r.begin > covered_to) add(covered_to, none);
    add(r.begin, r.source);
    covered_to = r.end;
  }
  if (records.empty() || covered_to > ranges.back().begin) add(covered_to, none);

  PickleOptions o;
  o.dialect = PickleOptions::Dialect::TorchScript;
  return pickle(tuple({IValue("FORMAT_WITH_STRING_TABLE"), table.strings(), tuple(std::move(records))}), o);
}

}  // namespace jitctl
