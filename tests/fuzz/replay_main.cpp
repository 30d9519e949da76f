// A plain main for a fuzz target, without libFuzzer: runs LLVMFuzzerTestOneInput once on every
// file named (folders: every file under them, in name order) and says how many it ran. The
// target aborts on a broken contract (fuzz_support.h) and the sanitizers abort on what they find,
// so exit 0 means every input passed. This is how `meson test --suite fuzz` replays the kept
// crashers of tests/fuzz/regressions/ and a few seeds, in every build (gcc, ASan).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const fs::path p = argv[i];
    if (fs::is_directory(p)) {
      for (const auto& e : fs::recursive_directory_iterator(p))
        if (e.is_regular_file() && e.path().filename().string()[0] != '.') files.push_back(e.path());
    } else if (fs::is_regular_file(p)) {
      files.push_back(p);
    } else {
      std::fprintf(stderr, "%s: no such file or folder\n", argv[i]);
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::fprintf(stderr, "%s\n", f.c_str());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  // The line scripts/dev.sh sums up: every input is a passed case (a failed one never gets here).
  std::printf("%s: %zu passed, 0 failed\n", fs::path(argv[0]).filename().c_str(), files.size());
  return files.empty() ? 1 : 0;
}
