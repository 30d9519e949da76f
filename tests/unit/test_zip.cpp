#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include <filesystem>
#include <fstream>

#include "lib/archive/archive.h"
#include "lib/archive/zip_writer.h"
#include "lib/core/error.h"
#include "tests/support/error_of.h"

using namespace jitctl;
using jitctl::test::error_of;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("jitctl_test_zip_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

}  // namespace

TEST_CASE("written zips are stored, 64-byte aligned, and read back in place") {
  TempDir tmp;
  ZipWriter w("model");
  w.add("version", "3\n");
  w.add("data.pkl", std::string(1000, 'p'));
  std::string big(100000, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 31);
  w.add("data/0", big);
  w.add("extra/notes.txt", "hello");
  w.write(tmp.file("m.pt"));

  auto a = Archive::open(tmp.file("m.pt"));
  CHECK(a->root() == "model");
  CHECK(a->read("version") == "3\n");
  CHECK(a->list("extra/") == std::vector<std::string>{"extra/notes.txt"});
  const auto* e = a->find("data/0");
  REQUIRE(e);
  CHECK(e->stored);
  for (const auto& entry : a->zip().entries()) CHECK(entry.data_offset % 64 == 0);
  const uint8_t* p = a->zip().in_place(*e);
  REQUIRE(p);
  CHECK(std::string(reinterpret_cast<const char*>(p), big.size()) == big);
  CHECK(a->format_version() == 3);
}

TEST_CASE("compressed entries are inflated and CRC-checked") {
  TempDir tmp;
  const std::string path = tmp.file("deflated.zip");
  int err = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  REQUIRE(z);
  const std::string text(5000, 'a');
  zip_int64_t idx = zip_file_add(z, "r/code/x.py", zip_source_buffer(z, text.data(), text.size(), 0), 0);
  zip_set_file_compression(z, static_cast<zip_uint64_t>(idx), ZIP_CM_DEFLATE, 9);
  REQUIRE(zip_close(z) == 0);
  auto a = Archive::open(path);
  const auto* e = a->find("code/x.py");
  REQUIRE(e);
  CHECK_FALSE(e->stored);
  CHECK(a->zip().in_place(*e) == nullptr);
  CHECK(a->read("code/x.py") == text);

  // Flip a byte of the deflated payload: the read fails with the record's name.
  std::string bytes = slurp(path);
  bytes[a->find("code/x.py")->data_offset + 3] ^= 0x55;
  std::ofstream(tmp.file("flipped.zip"), std::ios::binary) << bytes;
  auto b = Archive::open(tmp.file("flipped.zip"));
  CHECK(error_of([&] { b->read("code/x.py"); }).find("r/code/x.py") != std::string::npos);
}

TEST_CASE("broken zips are refused with the file's name") {
  TempDir tmp;
  ZipWriter w("m");
  w.add("data.pkl", std::string(300, 'x'));
  w.write(tmp.file("ok.pt"));
  const std::string good = slurp(tmp.file("ok.pt"));
  for (size_t cut : {size_t(0), size_t(1), good.size() / 2, good.size() - 10}) {
    std::ofstream(tmp.file("cut.pt"), std::ios::binary) << good.substr(0, cut);
    const auto err = error_of([&] { Archive::open(tmp.file("cut.pt")); });
    CHECK(err.find("cut.pt") != std::string::npos);
  }
  std::ofstream(tmp.file("text.pt")) << "this is not a zip archive at all, just some text\n";
  CHECK(error_of([&] { Archive::open(tmp.file("text.pt")); }).find("zip") != std::string::npos);
  CHECK(error_of([&] { Archive::open(tmp.file("missing.pt")); }).find("cannot open") != std::string::npos);
  CHECK(error_of([&] { Archive::open(tmp.path.string()); }).find("is a folder") != std::string::npos);
}

TEST_CASE("only regular files are opened: a FIFO is refused at once, not waited on") {
  TempDir tmp;
  const std::string fifo = tmp.file("m.pt");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // Opening a FIFO for reading blocks until a writer comes, unless it is opened non-blocking: a
  // regression hangs here (and the suite's timeout fails it).
  const auto err = error_of([&] { Archive::open(fifo); });
  CHECK(err == fifo + ": is a FIFO; models and input files are read from regular files (- for standard input)");
  CHECK(error_of([&] { Archive::open("/dev/null"); }).find("/dev/null: is a device") == 0);
}

TEST_CASE("entries must share one root folder") {
  TempDir tmp;
  int err = 0;
  zip_t* z = zip_open(tmp.file("two.zip").c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  zip_file_add(z, "a/data.pkl", zip_source_buffer(z, "x", 1, 0), 0);
  zip_file_add(z, "b/version", zip_source_buffer(z, "3", 1, 0), 0);
  REQUIRE(zip_close(z) == 0);
  CHECK(error_of([&] { Archive::open(tmp.file("two.zip")); }).find("two root folders") != std::string::npos);
}
