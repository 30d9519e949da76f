#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lib/archive/zip_reader.h"
#include "lib/core/ivalue.h"

namespace jitctl {

// The records of a TorchScript archive or a torch.save file: a zip whose entries share one root
// folder (any name). Record names here are relative to that folder ("data.pkl", "data/0").
class Archive {
 public:
  // Limits for records read whole into memory (pickles, code, version files). Storages are never
  // read whole by this class; they are mapped lazily.
  static constexpr uint64_t kMaxRecordBytes = uint64_t(1) << 30;

  static std::shared_ptr<Archive> open(const std::string& path);
  static std::shared_ptr<Archive> open(std::shared_ptr<ZipReader> zip);

  const std::string& path() const { return zip_->path(); }
  const std::string& root() const { return root_; }
  const ZipReader& zip() const { return *zip_; }

  bool has(std::string_view record) const { return find(record) != nullptr; }
  const ZipReader::Entry* find(std::string_view record) const;
  std::string read(std::string_view record) const;  // throws InvalidInput when missing
  // Record names under a folder ("code/", "extra/"), in archive order.
  std::vector<std::string> list(std::string_view folder) const;

  // "model.pt: archive/data.pkl" -- how messages name a record.
  std::string where(std::string_view record) const;

  // `version` (or `.data/version`): the file-format version; -1 when absent.
  int64_t format_version() const;
  // Checks `byteorder`: big-endian archives are refused (exit 3).
  void check_byteorder() const;

  // Unpickles `record`; storages it references come from `<storage_dir><key>` records, lazily.
  IValue load_pickle(std::string_view record, std::string_view storage_dir, bool allow_torchscript_classes) const;

 private:
  Archive() = default;
  std::shared_ptr<ZipReader> zip_;
  std::string root_;
};

// A bool tensor's bytes must each be 0 or 1 (a C++ bool holding any other byte is undefined
// behaviour in every kernel that reads it); a file may hold any byte, and PyTorch reads a nonzero
// one as true. Returns `p` when its n bytes are all 0 or 1, else a copy with every nonzero byte
// made 1, which `keep` then holds.
const uint8_t* normalize_bools(const uint8_t* p, size_t n, std::shared_ptr<const void>& keep);

}  // namespace jitctl
