#pragma once
// The corpus directories the golden-file tests walk, and the PyTorch version whose printouts each
// golden directory holds: the tests set JITCTL_TORCH_VERSION to it (jitctl then matches the
// archives' code against that version's schemas), or leave it unset where the default choice is
// the one under test (1.13 for archives 1.13 writes, the newest 2.x for those only 2.x writes).
#include <cstdlib>
#include <vector>

namespace jitctl::test {

struct CorpusDir {
  const char* models;
  const char* golden;
  const char* torch_version;  // nullptr: JITCTL_TORCH_VERSION unset
};

inline const std::vector<CorpusDir>& corpus_dirs() {
  static const std::vector<CorpusDir> dirs = {
      {"models", "golden", nullptr},
      {"models_torch2", "golden_torch2", "1.13"},  // written by 2.4.1, printed by 1.13
      {"models_torch1.13", "golden_torch1.13", nullptr},
      {"models_torch2.0", "golden_torch2.0", "2.0"},
      {"models_torch2.4", "golden_torch2.4", "2.4"},
      {"models_torch2.15", "golden_torch2.15", nullptr},  // the default for 2.x archives is 2.15
      {"models_old", "golden_old", nullptr},              // old operator versions: upgraders
  };
  return dirs;
}

inline void use_torch_version(const char* version) {
  if (version) setenv("JITCTL_TORCH_VERSION", version, 1);
  else unsetenv("JITCTL_TORCH_VERSION");
}

}  // namespace jitctl::test
