#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace jitctl {

// Writes a zip the way PyTorch does: every entry stored (not compressed) under one root folder,
// entry data 64-byte aligned (padding goes into an extra field) so that readers can map tensors in
// place; modification times are 1980-01-01, so the bytes are reproducible. The file appears
// atomically (lib/core/output_file.h).
class ZipWriter {
 public:
  explicit ZipWriter(std::string root) : root_(std::move(root)) {}
  // The way numpy writes .npz files: entries at the top level, no alignment padding.
  struct Plain {};
  explicit ZipWriter(Plain) : aligned_(false) {}

  void add(const std::string& record, std::string bytes);
  // Adds bytes owned elsewhere; `keep` holds them alive until write().
  void add(const std::string& record, const void* data, size_t size, std::shared_ptr<const void> keep);

  void write(const std::string& path) const;

 private:
  struct Item {
    std::string name;
    const void* data;
    size_t size;
    std::shared_ptr<const void> keep;
  };
  std::string root_;
  bool aligned_ = true;
  std::vector<Item> items_;
};

}  // namespace jitctl
