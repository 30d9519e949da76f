#include "lib/serialization/load_module.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "lib/archive/file_kind.h"
#include "lib/core/error.h"
#include "lib/core/suggest.h"
#include "lib/serialization/import_code.h"

namespace jitctl {

int64_t check_torchscript_layout(const Archive& a) {
  a.check_byteorder();
  if (!a.has("data.pkl")) {
    if (a.has("model.json"))
      throw Unsupported(fmt::format("{}: legacy archive format (model.json, written by PyTorch before 1.4)", a.path()));
    if (a.has("bytecode.pkl"))
      throw Unsupported(fmt::format("{}: a lite-interpreter archive without data.pkl is not supported", a.path()));
    throw InvalidInput(fmt::format("{}: record is missing: not a TorchScript archive", a.where("data.pkl")));
  }
  const int64_t version = a.format_version();
  if (version < 0) throw InvalidInput(fmt::format("{}: record is missing", a.where("version")));
  return version;
}

LoadedModule load_module(const std::string& path) { return load_module(MappedFile::open(path)); }

LoadedModule load_module(std::shared_ptr<MappedFile> file) {
  LoadedModule m;
  // What the file is, by its content, so that a state_dict, a pickled nn.Module, inputs, an ONNX
  // or torch.export file given as the model is named with what to do instead.
  refuse_unless_model(file->path(), identify_file(file), file);
  m.archive = Archive::open(ZipReader::open(file));
  m.format_version = check_torchscript_layout(*m.archive);
  m.cu = import_code(*m.archive);
  m.root = m.archive->load_pickle("data.pkl", "data/", true);
  if (!m.root.is_object())
    throw InvalidInput(fmt::format("{}: holds a {}, not a module object", m.archive->where("data.pkl"), kind_name(m.root.kind())));
  m.class_name = m.root.to_object()->type_name;
  if (!m.cu->find_class(m.class_name))
    throw InvalidInput(fmt::format("{}: its module's class {} is not defined under {}/code/", m.archive->where("data.pkl"),
                                   m.class_name, m.archive->root()));
  return m;
}

std::string unknown_method_message(const LoadedModule& m, const std::string& method) {
  std::vector<std::string> names;
  if (auto cls = m.cu->find_class(m.class_name))
    for (const auto& sig : cls->methods()) names.push_back(sig.name);
  return fmt::format("{}: class {} has no method '{}'{}; its methods are {}", m.archive->path(), m.class_name, method,
                     did_you_mean(method, names), names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", ")));
}

void check_method(const LoadedModule& m, const std::string& method) {
  if (!m.cu->find_method(m.class_name, method)) throw InvalidInput(unknown_method_message(m, method));
}

}  // namespace jitctl
