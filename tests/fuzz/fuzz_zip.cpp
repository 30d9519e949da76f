// Fuzz target: zip reading and the records of an archive or torch.save file (lib/archive): the
// file-kind sniffer, the zip directory and every entry's bytes, the version and byteorder records,
// data.pkl and constants.pkl with their storages, a torch.save file's value, and .npy parsing.
#include <memory>
#include <string>

#include "lib/archive/archive.h"
#include "lib/archive/file_kind.h"
#include "lib/archive/npy.h"
#include "lib/archive/torch_save.h"
#include "lib/core/tensor.h"
#include "tests/fuzz/fuzz_support.h"

using namespace jitctl;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = MappedFile::from_bytes(std::string(fuzz::as_text(data, size)), "fuzz.pt");
  fuzz::expect_clean("zip", [&] { identify_file(file); });
  fuzz::expect_clean("zip", [&] { parse_npy(data, size, "fuzz.npy"); });
  std::shared_ptr<Archive> archive;
  fuzz::expect_clean("zip", [&] { archive = Archive::open(ZipReader::open(file)); });
  if (!archive) return 0;
  for (const auto& e : archive->zip().entries())
    fuzz::expect_clean("zip", [&] { archive->zip().read(e, uint64_t(16) << 20); });
  fuzz::expect_clean("zip", [&] { archive->format_version(); });
  fuzz::expect_clean("zip", [&] { archive->check_byteorder(); });
  fuzz::expect_clean("zip", [&] { archive->list("code/"); });
  fuzz::expect_clean("zip", [&] { fuzz::touch(archive->load_pickle("data.pkl", "data/", true)); });
  fuzz::expect_clean("zip", [&] { fuzz::touch(archive->load_pickle("constants.pkl", "constants/", true)); });
  fuzz::expect_clean("zip", [&] {
    if (looks_like_torch_save(*archive)) fuzz::touch(load_torch_save(*archive));
  });
  return 0;
}
