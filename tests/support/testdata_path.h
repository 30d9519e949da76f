#pragma once
// Finds the repository's testdata/ from a unit test, which is compiled without JITCTL_TESTDATA:
// from JITCTL_SOURCE_ROOT when the build passes it, else relative to this header's __FILE__
// (meson compiles with paths relative to the build directory), the test binary, or the current
// directory.
#include <filesystem>
#include <system_error>
#include <vector>

namespace jitctl::test {

inline std::filesystem::path testdata_dir() {
  namespace fs = std::filesystem;
  std::vector<fs::path> candidates;
#ifdef JITCTL_TESTDATA
  candidates.emplace_back(JITCTL_TESTDATA);
#endif
#ifdef JITCTL_SOURCE_ROOT
  candidates.push_back(fs::path(JITCTL_SOURCE_ROOT) / "testdata");
#endif
  const fs::path here = fs::path(__FILE__).parent_path();  // tests/support
  candidates.push_back(here / ".." / ".." / "testdata");
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back(exe.parent_path() / ".." / ".." / "testdata");
  candidates.emplace_back("../testdata");
  candidates.emplace_back("testdata");
  for (const auto& c : candidates)
    if (fs::is_directory(c / "models", ec)) return c;
  return {};
}

}  // namespace jitctl::test
