// libFuzzer custom mutator for the targets whose inputs are archives (zip, load_print, run). Zip
// entries carry CRC-32s, so a mutation of the raw bytes inside a record is almost always refused
// by the CRC check and never reaches the pickles and code behind it. This mutator mostly takes
// the archive apart, mutates one record's bytes (rarely its name) with libFuzzer's own mutator,
// and writes the archive again with valid CRCs, entries stored and 64-byte aligned as
// torch.jit.save writes them; now and then it mutates the raw bytes, for the zip layer itself.
// Linked into the libFuzzer builds only (replay_main.cpp needs no mutator).
#include <zlib.h>

#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "lib/archive/zip_reader.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

void put16(std::string& s, uint32_t v) { s.append({char(v & 0xff), char((v >> 8) & 0xff)}); }
void put32(std::string& s, uint32_t v) { put16(s, v & 0xffff), put16(s, v >> 16); }

// A zip of stored entries, data 64-byte aligned through padding in the local extra field.
std::string write_zip(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string out, central;
  for (const auto& [name, bytes] : entries) {
    const uint32_t crc = crc32(0, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size()));
    const uint32_t offset = static_cast<uint32_t>(out.size());
    size_t pad = (64 - (out.size() + 30 + name.size() + 4) % 64) % 64;
    std::string local;
    put32(local, 0x04034b50), put16(local, 20), put16(local, 0), put16(local, 0), put16(local, 0), put16(local, 0x21);
    put32(local, crc), put32(local, uint32_t(bytes.size())), put32(local, uint32_t(bytes.size()));
    put16(local, uint16_t(name.size())), put16(local, uint16_t(4 + pad));
    local += name;
    put16(local, 0x4246), put16(local, uint16_t(pad));  // "FB" padding field, as PyTorch's writer
    local.append(pad, 'Z');
    out += local + bytes;
    put32(central, 0x02014b50), put16(central, 20), put16(central, 20), put16(central, 0), put16(central, 0);
    put16(central, 0), put16(central, 0x21), put32(central, crc), put32(central, uint32_t(bytes.size()));
    put32(central, uint32_t(bytes.size())), put16(central, uint16_t(name.size())), put16(central, 0);
    put16(central, 0), put16(central, 0), put16(central, 0), put32(central, 0), put32(central, offset);
    central += name;
  }
  const uint32_t cd_offset = static_cast<uint32_t>(out.size());
  out += central;
  put32(out, 0x06054b50), put16(out, 0), put16(out, 0), put16(out, uint16_t(entries.size()));
  put16(out, uint16_t(entries.size())), put32(out, uint32_t(central.size())), put32(out, cd_offset), put16(out, 0);
  return out;
}

size_t mutate_raw(uint8_t* data, size_t size, size_t max_size) { return LLVMFuzzerMutate(data, size, max_size); }

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  std::minstd_rand rng(seed);
  if (rng() % 8 == 0) return mutate_raw(data, size, max_size);
  std::vector<std::pair<std::string, std::string>> entries;
  try {
    auto zip = jitctl::ZipReader::open(
        jitctl::MappedFile::from_bytes(std::string(reinterpret_cast<const char*>(data), size), "mutator"));
    for (const auto& e : zip->entries()) entries.emplace_back(e.name, zip->read(e, max_size));
  } catch (...) {
    return mutate_raw(data, size, max_size);
  }
  if (entries.empty()) return mutate_raw(data, size, max_size);
  // Records other than tensor data (pickles, code, debug records, version, extra files) first:
  // mutated weights rarely lead anywhere new.
  std::vector<size_t> records;
  for (size_t i = 0; i < entries.size(); ++i)
    if (entries[i].first.find("/data/") == std::string::npos && entries[i].first.find("/constants/") == std::string::npos)
      records.push_back(i);
  const size_t pick = !records.empty() && rng() % 8 != 0 ? records[rng() % records.size()] : rng() % entries.size();
  std::string& target = rng() % 16 == 0 ? entries[pick].first : entries[pick].second;
  if (target.empty()) target = "\n";
  const size_t room = std::min<size_t>(max_size, target.size() * 2 + 64);
  std::string buf = target;
  buf.resize(room);
  buf.resize(LLVMFuzzerMutate(reinterpret_cast<uint8_t*>(buf.data()), target.size(), room));
  target = std::move(buf);
  const std::string out = write_zip(entries);
  if (out.size() > max_size) return mutate_raw(data, size, max_size);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}
