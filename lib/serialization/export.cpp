#include "lib/serialization/export.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "lib/archive/pickler.h"
#include "lib/archive/zip_writer.h"
#include "lib/core/error.h"
#include "lib/serialization/code_files.h"
#include "lib/serialization/export_debug.h"
#include "lib/frontend/ir_emitter.h"

namespace jitctl {
namespace {

// What torch.jit.save writes when no operator in the code needs a newer reader.
constexpr int64_t kProducedFormatVersion = 3;
// PyTorch's writer puts a version from this one on into `.data/version`, a lower one into
// `version`; readers look in both places, so writing where PyTorch does keeps the layouts alike.
constexpr int64_t kFirstDotDataVersion = 6;

// `<name>.pkl` in PyTorch's TorchScript pickle dialect, preceded by the storages it refers to as
// `<name>/0`, `<name>/1`, ... in order of first reference: each distinct storage once, however
// many tensors view it.
void add_pickle(ZipWriter& zip, const std::string& name, const IValue& value) {
  std::vector<std::shared_ptr<Storage>> storages;
  PickleOptions o;
  o.dialect = PickleOptions::Dialect::TorchScript;
  o.storage_key = [&](const std::shared_ptr<Storage>& s, DType) {
    storages.push_back(s);
    return std::to_string(storages.size() - 1);
  };
  std::string bytes = pickle(value, o);
  for (size_t i = 0; i < storages.size(); ++i) {
    const auto& s = storages[i];
    zip.add(fmt::format("{}/{}", name, i), s->nbytes() ? s->data() : nullptr, s->nbytes(), s);
  }
  zip.add(name + ".pkl", std::move(bytes));
}

IValue tuple_of(std::vector<IValue> items) {
  auto t = std::make_shared<TupleData>();
  t->items = std::move(items);
  return t;
}

// torch.jit.save deflates code and debug records (and stores everything else).
constexpr bool kCompressCode = true;

// The archive's own code and debug records, in its order.
void add_original_code(ZipWriter& zip, const Archive& a) {
  for (const auto& record : a.list("code/")) zip.add(record, a.read(record), kCompressCode);
}

// Code printed again, with `overrides` for the graphs they replace; returns the tensor constants
// the printed code refers to.
std::vector<IValue> add_printed_code(ZipWriter& zip, LoadedModule& m, const GraphOverrides& overrides) {
  auto graphs = [&](const std::string& name, const std::string& method) -> std::shared_ptr<Graph> {
    if (auto it = overrides.find(std::make_pair(name, method)); it != overrides.end()) return it->second;
    return code_graph(m, name, method);
  };
  CodeFiles printed = print_code_files(m, graphs);
  const Archive& a = *m.archive;
  for (auto& r : printed.records) {
    const std::string debug = r.path + ".debug_pkl";
    // Unchanged code keeps PyTorch's own debug record: it also holds the original source text.
    const bool same_as_archive = a.has(r.path) && a.has(debug) && a.read(r.path) == r.text;
    std::string debug_bytes = same_as_archive ? a.read(debug) : debug_pkl_for(r.ranges);
    zip.add(r.path, std::move(r.text), kCompressCode);
    zip.add(debug, std::move(debug_bytes), kCompressCode);
  }
  return std::move(printed.constants);
}

}  // namespace

void export_module(LoadedModule& m, const std::string& path, const GraphOverrides& overrides) {
  // torch.jit.save names the root folder after the file, without directory and extension.
  std::string root = std::filesystem::path(path).stem().string();
  if (root.empty()) root = "archive";
  ZipWriter zip(root);
  const Archive& a = *m.archive;

  for (const auto& record : a.list("extra/")) zip.add(record, a.read(record));
  add_pickle(zip, "data", m.root);
  std::vector<IValue> constants;
  if (overrides.empty()) {
    add_original_code(zip, a);
    constants = m.cu->constants();
  } else {
    constants = add_printed_code(zip, m, overrides);
  }
  add_pickle(zip, "constants", tuple_of(std::move(constants)));
  // The archive's version says which operator semantics its code was written against (PyTorch
  // applies upgraders below it); printed code calls the same operators, so it keeps it.
  const int64_t version = std::max(m.format_version, kProducedFormatVersion);
  zip.add(version >= kFirstDotDataVersion ? ".data/version" : "version", fmt::format("{}\n", version));
  // PyTorch 2.x writes `byteorder`; kept, an archive written from a 2.x one is still read with
  // 2.x's operator schemas (CompilationUnit::schema_version).
  if (a.has("byteorder")) zip.add("byteorder", a.read("byteorder"));
  zip.write(path);
}

}  // namespace jitctl
