#pragma once
#include <functional>
#include <memory>
#include <string>

#include "lib/core/ivalue.h"

namespace jitctl {

// Writes IValues as protocol-2 pickles that PyTorch reads back, in one of two dialects:
// - TorchSave: plain Python containers, what torch.save writes and torch.load reads (tuples stay
//   tuples, dicts stay dicts; TorchScript objects are refused).
// - TorchScript: what torch.jit.save writes into data.pkl/constants.pkl: typed lists through
//   torch.jit._pickle helpers, typed containers tagged with restore_type_tag, objects as
//   __torch__ classes with their attributes set by BUILD.
// Tensors are written as references to storages; shared tensors, storages, lists, dicts and
// objects are written once and referenced through the memo, as Python's pickler does.
struct PickleOptions {
  enum class Dialect { TorchSave, TorchScript };
  Dialect dialect = Dialect::TorchSave;
  // Called once per distinct storage; returns the key it is saved under (its record name).
  std::function<std::string(const std::shared_ptr<Storage>& storage, DType dtype)> storage_key;
};

std::string pickle(const IValue& value, const PickleOptions& options);

}  // namespace jitctl
