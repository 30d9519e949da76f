#include "lib/archive/torch_save.h"

#include <fmt/format.h>

#include <filesystem>

#include "lib/archive/mapped_file.h"
#include "lib/archive/pickler.h"
#include "lib/archive/zip_writer.h"
#include "lib/core/error.h"

namespace jitctl {
namespace {

void refuse_legacy_torch_save(const MappedFile& f) {
  // The pre-1.6 torch.save format is a bare pickle stream (protocol 2 starts with 0x80 0x02).
  if (f.size() >= 2 && f.data()[0] == 0x80 && f.data()[1] <= 5)
    throw Unsupported(fmt::format("{}: legacy (non-zip) torch.save format; re-save it with PyTorch >= 1.6", f.path()));
}

}  // namespace

// Through MappedFile, which opens only regular files and never blocks on a FIFO.
void refuse_legacy_torch_save(const std::string& path) { refuse_legacy_torch_save(*MappedFile::open(path)); }

IValue load_torch_save(const std::string& path) {
  const auto file = MappedFile::open(path);
  refuse_legacy_torch_save(*file);
  return load_torch_save(*Archive::open(ZipReader::open(file)));
}

IValue load_torch_save(const Archive& a) {
  a.check_byteorder();
  return a.load_pickle("data.pkl", "data/", false);
}

bool looks_like_torch_save(const Archive& a) {
  return a.has("data.pkl") && a.list("code/").empty() && !a.has("constants.pkl");
}

}  // namespace jitctl

namespace jitctl {

void save_torch_save(const std::string& path, const IValue& value) {
  // torch.save names the root folder after the file, without its extension.
  std::string root = std::filesystem::path(path).stem().string();
  if (root.empty()) root = "archive";
  ZipWriter zip(root);
  std::vector<std::pair<std::string, std::shared_ptr<Storage>>> storages;
  PickleOptions o;
  o.dialect = PickleOptions::Dialect::TorchSave;
  o.storage_key = [&](const std::shared_ptr<Storage>& s, DType) {
    storages.emplace_back(std::to_string(storages.size()), s);
    return storages.back().first;
  };
  zip.add("data.pkl", pickle(value, o));
  zip.add("byteorder", "little");
  for (const auto& [key, s] : storages) zip.add("data/" + key, s->data(), s->nbytes(), s);
  zip.add("version", "3\n");
  zip.write(path);
}

}  // namespace jitctl
