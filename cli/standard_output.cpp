#include "cli/standard_output.h"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <stdio_ext.h>
#include <iostream>
#include <system_error>

#include "lib/core/error.h"

namespace jitctl::cli {
namespace {

[[noreturn]] void end_by_closed_pipe() {
  std::signal(SIGPIPE, SIG_DFL);
  std::raise(SIGPIPE);
  std::_Exit(2);  // SIGPIPE blocked by the parent: still end, still without a message
}

bool reported = false;

int write_failed(int error) {
  if (error == EPIPE) end_by_closed_pipe();
  if (!reported) fmt::print(stderr, "jitctl: cannot write standard output: {}\n", std::strerror(error));
  reported = true;
  __fpurge(stdout);  // what is still buffered would only fail again at exit
  return static_cast<int>(ExitCode::InvalidInput);
}

}  // namespace

void prepare_standard_output() { std::signal(SIGPIPE, SIG_IGN); }

int finish_standard_output(int code) {
  if (reported) return static_cast<int>(ExitCode::InvalidInput);
  // CLI11's help goes through std::cout (synced with stdio: its flush is stdout's), the rest
  // through stdio. The first failure's errno says why.
  errno = 0;
  std::cout.flush();
  int error = errno;
  const bool cout_failed = std::cout.fail();
  const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  if (!error) error = errno;
  if (!failed && !cout_failed) {
    // Closing reports what a deferred write (NFS, a full pipe's end) still has to say.
    errno = 0;
    if (std::fclose(stdout) == 0) return code;
    error = errno;
    if (error == EBADF) return code;  // nothing was open to write to
  }
  return write_failed(error ? error : EIO);
}

bool report_standard_output_error(const std::exception& e) {
  // fmt's and write_to_stdout_through_file's failed writes are generic-category system errors,
  // but so are others (std::filesystem, threads): only one with stdout's error flag set is ours.
  const auto* s = dynamic_cast<const std::system_error*>(&e);
  if (!s || s->code().category() != std::generic_category() || !std::ferror(stdout)) return false;
  write_failed(s->code().value());
  return true;
}

}  // namespace jitctl::cli
