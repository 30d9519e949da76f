#include "lib/archive/mapped_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "lib/core/error.h"

namespace jitctl {

namespace {

std::shared_ptr<MappedFile> read_stdin() {
  std::string bytes;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InvalidInput(fmt::format("<stdin>: cannot read: {}", std::strerror(errno)));
    }
    bytes.append(buf, static_cast<size_t>(n));
  }
  return MappedFile::from_bytes(std::move(bytes), "<stdin>");
}

}  // namespace

std::shared_ptr<MappedFile> MappedFile::open(const std::string& path) {
  if (path == "-") {
    // Standard input can be read once; every later open of "-" (a format check, then the load)
    // sees the same bytes.
    static std::mutex mu;
    static std::shared_ptr<MappedFile> stdin_bytes;
    std::lock_guard lock(mu);
    if (!stdin_bytes) stdin_bytes = read_stdin();
    return stdin_bytes;
  }
  // O_NONBLOCK: opening a FIFO (or a device) must not wait for a writer; only regular files are
  // read, and for them the flag changes nothing.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) throw InvalidInput(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const char* kind = S_ISDIR(st.st_mode)    ? "a folder"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                       : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                                                                     : "not a regular file";
    ::close(fd);
    throw InvalidInput(fmt::format("{}: is {}; models and input files are read from regular files (- for standard "
                                   "input)",
                                   path, kind));
  }
  auto f = std::shared_ptr<MappedFile>(new MappedFile());
  f->path_ = path;
  f->size_ = static_cast<size_t>(st.st_size);
  if (f->size_ > 0) {
    void* p = mmap(nullptr, f->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int e = errno;
      ::close(fd);
      throw InvalidInput(fmt::format("{}: cannot map: {}", path, std::strerror(e)));
    }
    f->data_ = static_cast<const uint8_t*>(p);
    f->mapped_ = true;
  }
  ::close(fd);
  return f;
}

std::shared_ptr<MappedFile> MappedFile::from_bytes(std::string bytes, std::string name) {
  auto f = std::shared_ptr<MappedFile>(new MappedFile());
  f->owned_ = std::move(bytes);
  f->data_ = reinterpret_cast<const uint8_t*>(f->owned_.data());
  f->size_ = f->owned_.size();
  f->path_ = std::move(name);
  return f;
}

MappedFile::~MappedFile() {
  if (mapped_) munmap(const_cast<uint8_t*>(data_), size_);
}

}  // namespace jitctl
