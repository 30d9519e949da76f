#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace jitctl {

// Writes a zip the way PyTorch does: entries under one root folder, stored (not compressed) with
// their data 64-byte aligned (padding goes into an extra field) so that readers can map tensors in
// place -- except records added with `compress`, which are deflated, as torch.jit.save deflates
// code and debug records (their sizes, which the alignment of what follows depends on, are
// measured by deflating them once in memory first). Records keep the order they were added in.
// Modification times are 1980-01-01, so the bytes are reproducible. The file appears atomically
// (lib/core/output_file.h).
class ZipWriter {
 public:
  explicit ZipWriter(std::string root) : root_(std::move(root)) {}
  // The way numpy writes .npz files: entries at the top level, no alignment padding.
  struct Plain {};
  explicit ZipWriter(Plain) : aligned_(false) {}

  void add(const std::string& record, std::string bytes, bool compress = false);
  // Adds bytes owned elsewhere; `keep` holds them alive until write().
  void add(const std::string& record, const void* data, size_t size, std::shared_ptr<const void> keep);

  void write(const std::string& path) const;

 private:
  // The deflated size of every `compress` record (0 for the others), as libzip will write it.
  std::vector<uint64_t> compressed_sizes() const;

  struct Item {
    std::string name;
    const void* data;
    size_t size;
    std::shared_ptr<const void> keep;
    bool compress = false;
  };
  std::string root_;
  bool aligned_ = true;
  std::vector<Item> items_;
};

}  // namespace jitctl
