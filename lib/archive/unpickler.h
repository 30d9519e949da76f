#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "lib/core/dtype.h"
#include "lib/core/ivalue.h"

namespace jitctl {

// Reads pickles as PyTorch writes them (protocol 2; up to 5 accepted) into IValues.
// Safety: nothing is ever called. GLOBAL names resolve against a fixed allow-list of what
// torch.jit.save and torch.save write; every other name is an error naming it. Lengths are checked
// against the bytes that remain before anything is allocated, values nest at most max_depth deep,
// and containers are frozen once placed inside another, so a hostile pickle can build neither a
// cycle nor a chain too deep to destroy.
struct UnpickleOptions {
  // For messages: "model.pt: archive/data.pkl".
  std::string record;
  // Resolves a storage persistent id ('storage', torch.<T>Storage, key, location, numel).
  std::function<std::shared_ptr<Storage>(const std::string& key, const std::string& location, DType dtype,
                                         int64_t numel)>
      load_storage;
  // torch.jit.save pickles may instantiate TorchScript classes (__torch__.*); torch.save input
  // files may not.
  bool allow_torchscript_classes = false;
  size_t max_depth = 512;
};

IValue unpickle(std::string_view bytes, const UnpickleOptions& options);

}  // namespace jitctl
