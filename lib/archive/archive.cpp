#include "lib/archive/archive.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>

#include "lib/archive/unpickler.h"
#include "lib/core/error.h"

namespace jitctl {

const uint8_t* normalize_bools(const uint8_t* p, size_t n, std::shared_ptr<const void>& keep) {
  size_t i = 0;
  while (i < n && p[i] <= 1) ++i;
  if (i == n) return p;
  auto copy = std::make_shared<std::string>(reinterpret_cast<const char*>(p), n);
  for (char& c : *copy) c = c != 0;
  keep = copy;
  return reinterpret_cast<const uint8_t*>(copy->data());
}

std::shared_ptr<Archive> Archive::open(const std::string& path) { return open(ZipReader::open(path)); }

std::shared_ptr<Archive> Archive::open(std::shared_ptr<ZipReader> zip) {
  auto a = std::shared_ptr<Archive>(new Archive());
  a->zip_ = std::move(zip);
  for (const auto& e : a->zip_->entries()) {
    const auto slash = e.name.find('/');
    if (slash == std::string::npos || slash == 0)
      throw InvalidInput(fmt::format("{}: entry '{}' is not inside a root folder", a->path(), e.name));
    const std::string_view root(e.name.data(), slash);
    if (a->root_.empty()) a->root_ = root;
    else if (root != a->root_)
      throw InvalidInput(fmt::format("{}: entries under two root folders, '{}' and '{}'", a->path(), a->root_, root));
  }
  if (a->root_.empty()) throw InvalidInput(fmt::format("{}: the zip archive is empty", a->path()));
  return a;
}

const ZipReader::Entry* Archive::find(std::string_view record) const {
  return zip_->find(root_ + "/" + std::string(record));
}

std::string Archive::where(std::string_view record) const { return fmt::format("{}: {}/{}", path(), root_, record); }

std::string Archive::read(std::string_view record) const {
  const auto* e = find(record);
  if (!e) throw InvalidInput(fmt::format("{}: record is missing", where(record)));
  return zip_->read(*e, kMaxRecordBytes);
}

std::vector<std::string> Archive::list(std::string_view folder) const {
  std::vector<std::string> out;
  const std::string prefix = root_ + "/" + std::string(folder);
  for (const auto& e : zip_->entries())
    if (e.name.size() > prefix.size() && e.name.compare(0, prefix.size(), prefix) == 0 && e.name.back() != '/')
      out.push_back(e.name.substr(root_.size() + 1));
  return out;
}

int64_t Archive::format_version() const {
  const char* record = has("version") ? "version" : has(".data/version") ? ".data/version" : nullptr;
  if (!record) return -1;
  std::string text = read(record);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  int64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size())
    throw InvalidInput(fmt::format("{}: not a decimal version number", where(record)));
  if (v <= 0 || v > 1000) throw InvalidInput(fmt::format("{}: impossible file format version {}", where(record), v));
  return v;
}

void Archive::check_byteorder() const {
  if (!has("byteorder")) return;
  const std::string order = read("byteorder");
  if (order == "little") return;
  if (order == "big") throw Unsupported(fmt::format("{}: big-endian archives are not supported", where("byteorder")));
  throw InvalidInput(fmt::format("{}: unknown byte order '{}'", where("byteorder"), order.substr(0, 40)));
}

IValue Archive::load_pickle(std::string_view record, std::string_view storage_dir, bool allow_torchscript_classes) const {
  const std::string bytes = read(record);
  UnpickleOptions o;
  o.record = where(record);
  o.allow_torchscript_classes = allow_torchscript_classes;
  auto zip = zip_;
  o.load_storage = [this, zip, dir = std::string(storage_dir), &o, record](const std::string& key, const std::string& location,
                                                                   DType dtype, int64_t numel) {
    for (char c : key)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.')
        throw InvalidInput(fmt::format("{}: storage key '{}' is not a record name", o.record, key.substr(0, 40)));
    const std::string name = dir + key;
    const auto* e = find(name);
    if (!e) throw InvalidInput(fmt::format("{}: storage record is missing (referenced by {})", where(name), record));
    const auto device = Device::parse(location);
    if (!device) throw InvalidInput(fmt::format("{}: unknown storage location '{}'", o.record, location.substr(0, 40)));
    const unsigned __int128 need = static_cast<unsigned __int128>(numel) * element_size(dtype);
    if (need > e->size)
      throw InvalidInput(fmt::format("{}: storage holds {} bytes but {} declares {} elements of {} ({} bytes)", where(name),
                                     e->size, record, numel, dtype_name(dtype), static_cast<uint64_t>(need)));
    const size_t nbytes = static_cast<size_t>(need);
    return Storage::lazy(nbytes, *device, where(name), [zip, e, dtype, nbytes](std::shared_ptr<const void>& keep) -> const uint8_t* {
      const uint8_t* p = zip->in_place(*e);
      if (p) {
        keep = zip;
      } else {
        auto bytes = std::make_shared<std::string>(zip->read(*e, e->size));
        keep = bytes;
        p = reinterpret_cast<const uint8_t*>(bytes->data());
      }
      // torch.save aligns storages to 64 bytes in the file, but a crafted archive can put one at
      // any byte, and kernels read elements at their natural alignment: such a storage is copied.
      if (reinterpret_cast<uintptr_t>(p) % element_size(dtype) != 0) {
        std::shared_ptr<uint8_t> copy(static_cast<uint8_t*>(::operator new[](nbytes, std::align_val_t{64})),
                                      [](uint8_t* q) { ::operator delete[](q, std::align_val_t{64}); });
        std::memcpy(copy.get(), p, nbytes);
        keep = copy;
        p = copy.get();
      }
      return dtype == DType::Bool ? normalize_bools(p, nbytes, keep) : p;
    });
  };
  return unpickle(bytes, o);
}

}  // namespace jitctl
