// resave IN OUT: reads a torch.save file with jitctl's unpickler and writes it back with jitctl's
// pickler and zip writer. The oracle test torch.load()s both and compares: what we read is what
// PyTorch wrote, and what we write is what PyTorch reads.
#include <fmt/format.h>

#include "lib/archive/torch_save.h"
#include "lib/core/error.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    fmt::print(stderr, "usage: resave IN.pt OUT.pt\n");
    return 2;
  }
  try {
    jitctl::save_torch_save(argv[2], jitctl::load_torch_save(argv[1]));
  } catch (const jitctl::Error& e) {
    fmt::print(stderr, "resave: {}\n", e.what());
    return static_cast<int>(e.code());
  }
  return 0;
}
