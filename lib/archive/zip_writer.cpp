#include "lib/archive/zip_writer.h"

#include <fmt/format.h>
#include <zip.h>

#include <algorithm>
#include <string>

#include "lib/core/error.h"
#include "lib/core/output_file.h"

namespace jitctl {
namespace {

constexpr uint64_t kAlign = 64;
constexpr uint16_t kPadFieldId = 0x4246;  // "FB": the id PyTorch's writer uses for its padding
constexpr uint64_t kLocalHeaderBytes = 30;

}  // namespace

void ZipWriter::add(const std::string& record, std::string bytes, bool compress) {
  auto owned = std::make_shared<std::string>(std::move(bytes));
  const void* p = owned->data();
  const size_t n = owned->size();
  add(record, p, n, std::move(owned));
  items_.back().compress = compress;
}

void ZipWriter::add(const std::string& record, const void* data, size_t size, std::shared_ptr<const void> keep) {
  items_.push_back({aligned_ ? root_ + "/" + record : record, data, size, std::move(keep)});
}

void ZipWriter::write(const std::string& path) const {
  write_file_atomically(path, [&](const std::string& tmp) {
    int err = 0;
    zip_t* z = zip_open(tmp.c_str(), ZIP_TRUNCATE, &err);
    if (!z) throw InvalidInput(fmt::format("{}: cannot write zip (libzip error {})", path, err));
    auto fail = [&](const std::string& what) {
      const std::string msg = fmt::format("{}: {}: {}", path, what, zip_strerror(z));
      zip_discard(z);
      throw InvalidInput(msg);
    };
    uint64_t offset = 0;
    const std::vector<uint64_t> deflated = aligned_ ? compressed_sizes() : std::vector<uint64_t>(items_.size(), 0);
    for (size_t i = 0; i < items_.size(); ++i) {
      const Item& it = items_[i];
      zip_source_t* src = zip_source_buffer(z, it.data, it.size, 0);
      if (!src) fail(it.name);
      const zip_int64_t idx = zip_file_add(z, it.name.c_str(), src, ZIP_FL_ENC_UTF_8);
      if (idx < 0) {
        zip_source_free(src);
        fail(it.name);
      }
      if (zip_set_file_compression(z, static_cast<zip_uint64_t>(idx), it.compress ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0) != 0)
        fail(it.name);
      zip_file_set_mtime(z, static_cast<zip_uint64_t>(idx), 315532800, 0);  // reproducible bytes: 1980-01-01
      if (!aligned_) continue;
      if (it.compress) {
        offset += kLocalHeaderBytes + it.name.size() + deflated[i];
        continue;
      }
      // Pad the local header's extra field so the data starts on a 64-byte boundary.
      const uint64_t header = offset + kLocalHeaderBytes + it.name.size();
      uint64_t pad = (kAlign - (header + 4) % kAlign) % kAlign;
      static const std::string zeros(kAlign, '\0');
      if (zip_file_extra_field_set(z, static_cast<zip_uint64_t>(idx), kPadFieldId, ZIP_EXTRA_FIELD_NEW,
                                   reinterpret_cast<const zip_uint8_t*>(zeros.data()), static_cast<zip_uint16_t>(pad),
                                   ZIP_FL_LOCAL) != 0)
        fail(it.name);
      offset = header + 4 + pad + it.size;
    }
    if (zip_close(z) != 0) fail("writing");
  });
}

std::vector<uint64_t> ZipWriter::compressed_sizes() const {
  std::vector<uint64_t> sizes(items_.size(), 0);
  if (std::none_of(items_.begin(), items_.end(), [](const Item& it) { return it.compress; })) return sizes;
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* buffer = zip_source_buffer_create(nullptr, 0, 0, &error);
  if (!buffer) throw InvalidInput("zip: cannot make an in-memory buffer");
  zip_source_keep(buffer);
  auto fail = [&](const char* what) {
    zip_source_free(buffer);
    throw InvalidInput(std::string("zip: measuring compressed records: ") + what);
  };
  zip_t* z = zip_open_from_source(buffer, ZIP_TRUNCATE, &error);
  if (!z) fail("open");
  std::vector<std::pair<size_t, zip_int64_t>> added;  // item, index in the measuring zip
  for (size_t i = 0; i < items_.size(); ++i) {
    const Item& it = items_[i];
    if (!it.compress) continue;
    zip_source_t* src = zip_source_buffer(z, it.data, it.size, 0);
    const zip_int64_t idx = src ? zip_file_add(z, it.name.c_str(), src, ZIP_FL_ENC_UTF_8) : -1;
    if (idx < 0) {
      if (src) zip_source_free(src);
      zip_discard(z);
      fail("add");
    }
    zip_set_file_compression(z, static_cast<zip_uint64_t>(idx), ZIP_CM_DEFLATE, 0);
    added.emplace_back(i, idx);
  }
  if (zip_close(z) != 0) {
    zip_discard(z);
    fail("deflate");
  }
  zip_t* r = zip_open_from_source(buffer, ZIP_RDONLY, &error);
  if (!r) fail("reopen");
  for (const auto& [i, idx] : added) {
    zip_stat_t st;
    if (zip_stat_index(r, static_cast<zip_uint64_t>(idx), 0, &st) != 0 || !(st.valid & ZIP_STAT_COMP_SIZE)) {
      zip_close(r);
      fail("stat");
    }
    sizes[i] = st.comp_size;
  }
  zip_close(r);  // frees the source it was opened from
  return sizes;
}

}  // namespace jitctl
