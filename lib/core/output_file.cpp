#include "lib/core/output_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "lib/core/error.h"

namespace jitctl {
namespace {

namespace fs = std::filesystem;

fs::path folder_of(const fs::path& target) { return target.has_parent_path() ? target.parent_path() : fs::path("."); }

// fsync through a fresh descriptor: `fill` may have written with any library.
bool flush_to_disk(const std::string& file, int flags) {
  const int fd = ::open(file.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

void refuse_overwriting_inputs(const std::string& output, const std::vector<std::string>& inputs, std::string_view hint) {
  std::error_code ec;
  if (!fs::exists(output, ec)) return;
  for (const std::string& input : inputs) {
    if (input.empty() || !fs::equivalent(input, output, ec)) continue;
    throw InvalidInput(fmt::format("{}: is the input {} itself; refusing to overwrite it{}", output, input, hint));
  }
}

void write_file_atomically(const std::string& path, const std::function<void(const std::string& temporary)>& fill) {
  const fs::path target(path);
  std::string tmp = (folder_of(target) / fmt::format(".{}.XXXXXX", target.filename().string())).string();
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) throw InvalidInput(fmt::format("{}: cannot create a temporary file: {}", path, std::strerror(errno)));
  // mkstemp creates the file 0600; an output is an ordinary file, so give it what open(2) would.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  ::close(fd);
  try {
    fill(tmp);
    if (!flush_to_disk(tmp, O_RDONLY))
      throw InvalidInput(fmt::format("{}: cannot flush the written file to disk: {}", path, std::strerror(errno)));
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw InvalidInput(fmt::format("{}: cannot move the written file into place: {}", path, ec.message()));
  }
  // The rename itself lasts once the folder's entry is on disk; a folder that cannot be opened
  // for that (unusual permissions) still holds the complete file.
  flush_to_disk(folder_of(target).string(), O_RDONLY | O_DIRECTORY);
}

void write_file_atomically(const std::string& path, std::string_view bytes) {
  write_file_atomically(path, [&](const std::string& tmp) {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.close();
    if (!f) throw InvalidInput(fmt::format("{}: write failed: {}", path, std::strerror(errno)));
  });
}

void write_to_stdout_through_file(const std::string& name, const std::function<void(const std::string& temporary)>& fill) {
  const char* tmpdir = std::getenv("TMPDIR");
  std::string dir = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/jitctl-stdout-XXXXXX";
  if (!mkdtemp(dir.data())) throw InvalidInput(fmt::format("-: cannot make a temporary folder: {}", std::strerror(errno)));
  const std::string file = dir + "/" + name;
  auto cleanup = [&] {
    std::remove(file.c_str());
    rmdir(dir.c_str());
  };
  try {
    fill(file);
    std::ifstream in(file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    std::fflush(stdout);
    if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size() || std::fflush(stdout) != 0)
      throw InvalidInput(fmt::format("-: cannot write to standard output: {}", std::strerror(errno)));
  } catch (...) {
    cleanup();
    throw;
  }
  cleanup();
}

}  // namespace jitctl
