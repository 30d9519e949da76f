#include "lib/serialization/import_code.h"

#include <fmt/format.h>

#include "lib/core/error.h"
#include "lib/frontend/parser.h"
#include "lib/serialization/class_outline.h"
#include "lib/serialization/read_source_map.h"

namespace jitctl {

std::shared_ptr<CompilationUnit> import_code(const Archive& archive) {
  auto cu = std::make_shared<CompilationUnit>(archive.path());
  for (const auto& record : archive.list("code/")) {
    if (record.size() <= 3 || record.compare(record.size() - 3, 3, ".py") != 0) continue;
    auto f = std::make_unique<CompilationUnit::CodeFile>();
    f->record = record;
    f->where = archive.where(record);
    f->qualifier = qualifier_of_record(record);
    f->text = archive.read(record);
    ParseOptions po;
    po.file = f->where;
    f->ast = parse_source(f->text, po);
    if (archive.has(record + ".debug_pkl"))
      f->map = read_source_map(archive.read(record + ".debug_pkl"), archive.where(record + ".debug_pkl"));
    cu->add_file(std::move(f));
  }
  if (archive.has("constants.pkl")) {
    const IValue c = archive.load_pickle("constants.pkl", "constants/", true);
    if (!c.is(IValue::Kind::Tuple))
      throw InvalidInput(fmt::format("{}: holds a {}, not a tuple", archive.where("constants.pkl"), kind_name(c.kind())));
    cu->set_constants(c.to_tuple()->items);
  }
  return cu;
}

}  // namespace jitctl
