#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace jitctl {

// A read-only memory map of a whole file: archive bytes are read in place, never copied.
class MappedFile {
 public:
  // "-" is standard input, read whole the first time and the same bytes after (named "<stdin>"
  // in messages). Throws InvalidInput.
  static std::shared_ptr<MappedFile> open(const std::string& path);
  // Wraps bytes already in memory (tests, data made on the fly).
  static std::shared_ptr<MappedFile> from_bytes(std::string bytes, std::string name);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  MappedFile() = default;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
  std::string owned_;
  std::string path_;
};

}  // namespace jitctl
