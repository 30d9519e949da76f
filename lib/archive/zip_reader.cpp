#include "lib/archive/zip_reader.h"

#include <fmt/format.h>
#include <zip.h>

#include <cstring>

#include "lib/core/error.h"

namespace jitctl {
namespace {

uint16_t le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t le32(const uint8_t* p) { return le16(p) | (static_cast<uint32_t>(le16(p + 2)) << 16); }
uint64_t le64(const uint8_t* p) { return le32(p) | (static_cast<uint64_t>(le32(p + 4)) << 32); }

constexpr uint32_t kLocalHeader = 0x04034b50, kCentralHeader = 0x02014b50, kEndOfDir = 0x06054b50,
                   kZip64Locator = 0x07064b50, kZip64EndOfDir = 0x06064b50;

// Deflate cannot expand data by more than about 1032:1; a larger claim is a lie.
constexpr uint64_t kMaxDeflateRatio = 1100;

}  // namespace

std::shared_ptr<ZipReader> ZipReader::open(const std::string& path) { return open(MappedFile::open(path)); }

std::shared_ptr<ZipReader> ZipReader::open(std::shared_ptr<MappedFile> file) {
  auto r = std::shared_ptr<ZipReader>(new ZipReader());
  r->file_ = std::move(file);
  const std::string& path = r->file_->path();
  if (r->file_->size() < 22) throw InvalidInput(fmt::format("{}: not a zip archive ({} bytes)", path, r->file_->size()));

  zip_error_t err;
  zip_error_init(&err);
  zip_source_t* src = zip_source_buffer_create(r->file_->data(), r->file_->size(), 0, &err);
  if (!src) throw InvalidInput(fmt::format("{}: {}", path, zip_error_strerror(&err)));
  // No ZIP_CHECKCONS: the walk in locate_data_offsets() compares each local header with the
  // directory itself, so that an inconsistency is reported with the entry's name.
  r->zip_ = zip_open_from_source(src, ZIP_RDONLY, &err);
  if (!r->zip_) {
    zip_source_free(src);
    std::string msg = zip_error_strerror(&err);
    zip_error_fini(&err);
    throw InvalidInput(fmt::format("{}: not a readable zip archive: {}", path, msg));
  }
  zip_error_fini(&err);

  const zip_int64_t n = zip_get_num_entries(r->zip_, 0);
  r->entries_.reserve(static_cast<size_t>(n));
  for (zip_int64_t i = 0; i < n; ++i) {
    zip_stat_t st;
    zip_stat_init(&st);
    // Names as the bytes the archive holds (PyTorch's reader does not convert them either); a
    // name that is not UTF-8 reaches messages escaped, not re-encoded from CP437.
    if (zip_stat_index(r->zip_, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_RAW, &st) != 0)
      throw InvalidInput(fmt::format("{}: entry {}: {}", path, i, zip_strerror(r->zip_)));
    Entry e;
    e.name = st.name ? st.name : "";
    e.index = static_cast<uint64_t>(i);
    e.size = st.size;
    e.comp_size = st.comp_size;
    e.stored = st.comp_method == ZIP_CM_STORE;
    if (st.encryption_method != ZIP_EM_NONE)
      throw InvalidInput(fmt::format("{}: {}: encrypted zip entries cannot be read", path, e.name));
    if (e.stored && e.size != e.comp_size)
      throw InvalidInput(fmt::format("{}: {}: stored entry claims {} bytes but holds {}", path, e.name, e.size, e.comp_size));
    if (!e.stored && e.size > e.comp_size * kMaxDeflateRatio + 4096)
      throw InvalidInput(fmt::format("{}: {}: compressed entry claims an impossible size ({} bytes from {})", path,
                                     e.name, e.size, e.comp_size));
    r->entries_.push_back(std::move(e));
  }
  for (size_t i = 0; i < r->entries_.size(); ++i)
    if (!r->by_name_.emplace(r->entries_[i].name, i).second)
      throw InvalidInput(fmt::format("{}: duplicate zip entry {}", path, r->entries_[i].name));
  r->locate_data_offsets();
  return r;
}

ZipReader::~ZipReader() {
  if (zip_) zip_discard(zip_);
}

void ZipReader::locate_data_offsets() {
  const uint8_t* base = file_->data();
  const uint64_t size = file_->size();
  const std::string& path = file_->path();
  auto bad = [&](const std::string& what) { return InvalidInput(fmt::format("{}: zip directory: {}", path, what)); };

  // End-of-central-directory record: within the last 64 KiB + 22 bytes (the comment may precede).
  uint64_t eocd = UINT64_MAX;
  for (uint64_t p = size - 22 + 1; p-- > (size > 65557 ? size - 65557 : 0);)
    if (le32(base + p) == kEndOfDir) {
      eocd = p;
      break;
    }
  if (eocd == UINT64_MAX) throw bad("end record not found");
  uint64_t count = le16(base + eocd + 10);
  uint64_t cd_offset = le32(base + eocd + 16);
  if (eocd >= 20 && le32(base + eocd - 20) == kZip64Locator) {
    const uint64_t z = le64(base + eocd - 20 + 8);
    if (z > size - 56 || le32(base + z) != kZip64EndOfDir) throw bad("zip64 end record is out of place");
    count = le64(base + z + 32);
    cd_offset = le64(base + z + 48);
  }
  if (count != entries_.size()) throw bad(fmt::format("{} entries listed, libzip saw {}", count, entries_.size()));

  uint64_t p = cd_offset;
  for (auto& e : entries_) {
    if (p > size || size - p < 46 || le32(base + p) != kCentralHeader) throw bad("central header out of place");
    const uint16_t name_len = le16(base + p + 28), extra_len = le16(base + p + 30), comment_len = le16(base + p + 32);
    if (size - p - 46 < uint64_t(name_len) + extra_len + comment_len) throw bad("central header runs past the end");
    uint64_t usize = le32(base + p + 24), csize = le32(base + p + 20), local = le32(base + p + 42);
    // zip64 extra field: 64-bit values for exactly the fields that hold 0xFFFFFFFF, in this order.
    for (uint64_t x = p + 46 + name_len, end = x + extra_len; x + 4 <= end;) {
      const uint16_t id = le16(base + x), len = le16(base + x + 2);
      if (x + 4 + len > end) break;
      if (id == 0x0001) {
        uint64_t y = x + 4, yend = y + len;
        auto next = [&](uint64_t& field) {
          if (field == 0xFFFFFFFFu && y + 8 <= yend) {
            field = le64(base + y);
            y += 8;
          }
        };
        next(usize);
        next(csize);
        next(local);
      }
      x += 4 + len;
    }
    if (std::string_view(reinterpret_cast<const char*>(base + p + 46), name_len) != e.name)
      throw bad(fmt::format("entry {} is named differently in the directory", e.name));
    if (local > size || size - local < 30 || le32(base + local) != kLocalHeader)
      throw bad(fmt::format("{}: local header out of place", e.name));
    const uint16_t local_name_len = le16(base + local + 26);
    if (size - local - 30 < local_name_len) throw bad(fmt::format("{}: local header runs past the end", e.name));
    const std::string_view local_name(reinterpret_cast<const char*>(base + local + 30), local_name_len);
    if (local_name != e.name)
      throw bad(fmt::format("{}: its local header names it '{}'", e.name, local_name.substr(0, 200)));
    if (le16(base + local + 8) != le16(base + p + 10))
      throw bad(fmt::format("{}: local header and directory disagree on the compression method", e.name));
    const uint64_t data = local + 30 + local_name_len + le16(base + local + 28);
    if (data > size || size - data < e.comp_size) throw bad(fmt::format("{}: data runs past the end of the file", e.name));
    e.data_offset = data;
    p += 46 + uint64_t(name_len) + extra_len + comment_len;
  }
}

const ZipReader::Entry* ZipReader::find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &entries_[it->second];
}

std::string ZipReader::read(const Entry& e, uint64_t max_bytes) const {
  if (e.size > max_bytes)
    throw InvalidInput(fmt::format("{}: {}: record of {} bytes is larger than the {} allowed", path(), e.name, e.size, max_bytes));
  zip_file_t* f = zip_fopen_index(zip_, e.index, 0);
  if (!f) throw InvalidInput(fmt::format("{}: {}: {}", path(), e.name, zip_strerror(zip_)));
  std::string out(e.size, '\0');
  const zip_int64_t got = zip_fread(f, out.data(), e.size);
  std::string why = got < 0 ? zip_error_strerror(zip_file_get_error(f)) : "";
  // Reading one byte past the end makes libzip verify the CRC of what it inflated.
  char extra;
  if (got >= 0 && zip_fread(f, &extra, 1) != 0) why = zip_error_strerror(zip_file_get_error(f));
  zip_fclose(f);
  if (got < 0 || static_cast<uint64_t>(got) != e.size || !why.empty())
    throw InvalidInput(fmt::format("{}: {}: corrupt record{}{}", path(), e.name, why.empty() ? "" : ": ", why));
  return out;
}

const uint8_t* ZipReader::in_place(const Entry& e) const {
  return e.stored ? file_->data() + e.data_offset : nullptr;
}

}  // namespace jitctl
