#include "lib/archive/torch_save.h"

#include <fmt/format.h>

#include <fstream>

#include "lib/core/error.h"

namespace jitctl {
void refuse_legacy_torch_save(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  char head[2] = {0, 0};
  f.read(head, 2);
  // The pre-1.6 torch.save format is a bare pickle stream (protocol 2 starts with 0x80 0x02).
  if (f.gcount() == 2 && static_cast<unsigned char>(head[0]) == 0x80 && head[1] <= 5)
    throw Unsupported(fmt::format("{}: legacy (non-zip) torch.save format; re-save it with PyTorch >= 1.6", path));
}

IValue load_torch_save(const std::string& path) {
  refuse_legacy_torch_save(path);
  return load_torch_save(*Archive::open(path));
}

IValue load_torch_save(const Archive& a) {
  a.check_byteorder();
  return a.load_pickle("data.pkl", "data/", false);
}

bool looks_like_torch_save(const Archive& a) {
  return a.has("data.pkl") && a.list("code/").empty() && !a.has("constants.pkl");
}

}  // namespace jitctl
