#include "lib/core/output_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <vector>

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

// The temporaries in flight, for remove_pending_temporaries, which a signal handler calls
// (run_limits.cpp): fixed slots claimed and released with atomics, no allocation, no lock.
struct PendingSlot {
  std::atomic<int> state{0};  // 0 free, 1 being filled, 2 a file, 3 a folder
  char path[4096];
};
PendingSlot g_pending[16];

// Registered for its lifetime (a path too long for a slot, or a 17th at once, is not: it is only
// left behind if the process is ended while writing it).
class PendingTemporary {
 public:
  PendingTemporary(const std::string& path, bool folder) {
    if (path.size() >= sizeof(PendingSlot::path)) return;
    for (PendingSlot& s : g_pending) {
      int free = 0;
      if (!s.state.compare_exchange_strong(free, 1)) continue;
      std::memcpy(s.path, path.c_str(), path.size() + 1);
      s.state.store(folder ? 3 : 2);
      slot_ = &s;
      return;
    }
  }
  ~PendingTemporary() {
    if (slot_) slot_->state.store(0);
  }
  PendingTemporary(const PendingTemporary&) = delete;
  PendingTemporary& operator=(const PendingTemporary&) = delete;

 private:
  PendingSlot* slot_ = nullptr;
};

// Folders where a path would be a device or a kernel interface, not a file.
bool in_system_folder(const fs::path& folder) {
  std::error_code ec;
  const fs::path real = fs::weakly_canonical(fs::absolute(folder, ec), ec);
  for (const char* sys : {"/dev", "/proc", "/sys"}) {
    const std::string s = real.string();
    if (s == sys || s.rfind(std::string(sys) + "/", 0) == 0) return true;
  }
  return false;
}

}  // namespace

void remove_pending_temporaries() {
  // Files first, then the folders that held them (write_to_stdout_through_file's).
  for (int kind : {2, 3})
    for (PendingSlot& s : g_pending)
      if (s.state.load() == kind) kind == 2 ? ::unlink(s.path) : ::rmdir(s.path);
}

void check_output_path(const std::string& path, const std::vector<std::string>& inputs, bool force, std::string_view flag,
                       bool forcible) {
  if (is_stdout(path)) return;
  if (path.empty()) throw InvalidInput(fmt::format("{}: the output path is empty", flag));
  const fs::path target(path);
  const fs::path folder = folder_of(target);
  if (in_system_folder(folder))
    throw InvalidInput(fmt::format("{} {}: is in {}, not a place for files (use {} - for standard output)", flag, path,
                                   fs::weakly_canonical(fs::absolute(folder)).string(), flag));
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw InvalidInput(fmt::format("{} {}: is a folder; name a file in it", flag, path));
    if (!S_ISREG(st.st_mode))
      throw InvalidInput(fmt::format("{} {}: exists and is not a regular file (a device, FIFO or socket); refusing to write "
                                     "there (use {} - for standard output)",
                                     flag, path, flag));
  }
  struct stat fst {};
  if (::stat(folder.c_str(), &fst) != 0)
    throw InvalidInput(fmt::format("{} {}: the folder {} does not exist", flag, path, folder.string()));
  if (!S_ISDIR(fst.st_mode)) throw InvalidInput(fmt::format("{} {}: {} is not a folder", flag, path, folder.string()));
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    throw InvalidInput(fmt::format("{} {}: cannot write in the folder {}: {}", flag, path, folder.string(), std::strerror(errno)));
  if (!force) refuse_overwriting_inputs(path, inputs, forcible ? " (use --force to replace it)" : "");
}

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
  const PendingTemporary registered(tmp, false);
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
  const PendingTemporary registered_dir(dir, true), registered_file(file, false);
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
      throw std::system_error(errno, std::generic_category(), "cannot write standard output");
  } catch (...) {
    cleanup();
    throw;
  }
  cleanup();
}

}  // namespace jitctl
