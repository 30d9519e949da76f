#include "lib/serialization/import_code.h"

#include <cstdlib>

#include <fmt/format.h>

#include "lib/core/error.h"
#include "lib/ops/schema_registry.h"
#include "lib/frontend/parser.h"
#include "lib/serialization/class_outline.h"
#include "lib/serialization/read_source_map.h"

namespace jitctl {
namespace {

// JITCTL_TORCH_VERSION when set (scan: false); else the newest known 2.x list for an archive
// with a record only PyTorch 2.1 and later write (which 2.x wrote it is recorded nowhere, so the
// newest is the best guess); else 1.13's, which the code scan may turn into 2.0's.
std::pair<std::string_view, bool> schema_version_of(const Archive& archive) {
  if (const char* env = std::getenv("JITCTL_TORCH_VERSION"); env && *env) {
    try {
      return {SchemaRegistry::known_version(env), false};
    } catch (const InvalidInput& e) {
      throw InvalidInput(fmt::format("JITCTL_TORCH_VERSION: {}", e.what()));
    }
  }
  if (archive.has("byteorder") || archive.has(".data/serialization_id")) return {SchemaRegistry::versions().back(), false};
  return {SchemaRegistry::versions().front(), true};
}

}  // namespace

std::shared_ptr<CompilationUnit> import_code(const Archive& archive) {
  auto cu = std::make_shared<CompilationUnit>(archive.path());
  const auto [version, scan] = schema_version_of(archive);
  cu->set_schema_version(version, scan);
  cu->set_format_version(archive.format_version());
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
