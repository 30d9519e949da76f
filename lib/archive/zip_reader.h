#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lib/archive/mapped_file.h"

struct zip;

namespace jitctl {

// Reads a zip file through libzip (directory, decompression, CRC and consistency checks) over a
// memory map. libzip does not expose where an entry's bytes start, so the central directory is
// walked once more here to find the data offsets that let stored entries be used in place.
class ZipReader {
 public:
  struct Entry {
    std::string name;
    uint64_t index = 0;
    uint64_t size = 0;       // uncompressed
    uint64_t comp_size = 0;  // as stored
    bool stored = true;      // no compression: bytes usable in place at data_offset
    uint64_t data_offset = 0;
  };

  static std::shared_ptr<ZipReader> open(const std::string& path);
  static std::shared_ptr<ZipReader> open(std::shared_ptr<MappedFile> file);
  ~ZipReader();
  ZipReader(const ZipReader&) = delete;
  ZipReader& operator=(const ZipReader&) = delete;

  const std::string& path() const { return file_->path(); }
  const std::vector<Entry>& entries() const { return entries_; }
  const Entry* find(std::string_view name) const;

  // The entry's bytes, decompressed and CRC-checked (for records: pickles, code, small files);
  // refuses entries over max_bytes.
  std::string read(const Entry& e, uint64_t max_bytes) const;
  // Pointer to a stored entry's bytes in the mapping (valid while this reader lives), or nullptr
  // for a compressed entry.
  const uint8_t* in_place(const Entry& e) const;

 private:
  ZipReader() = default;
  void locate_data_offsets();
  std::shared_ptr<MappedFile> file_;
  zip* zip_ = nullptr;
  std::vector<Entry> entries_;
  std::unordered_map<std::string_view, size_t> by_name_;
};

}  // namespace jitctl
