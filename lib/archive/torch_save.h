#pragma once
// Files written by torch.save (zip format, PyTorch >= 1.6): the inputs and outputs of `jitctl run`.
#include <string>

#include "lib/archive/archive.h"
#include "lib/core/ivalue.h"

namespace jitctl {

// The pickled value, tensors mapped lazily from the file. Throws InvalidInput naming the record.
IValue load_torch_save(const std::string& path);

IValue load_torch_save(const Archive& archive);

// Refuses the pre-1.6 (bare pickle) torch.save format with a clear message.
void refuse_legacy_torch_save(const std::string& path);

// Writes `value` as torch.save does (zip format, protocol 2), atomically. Tensors keep their
// sharing: views of one storage are written as views of one storage record.
void save_torch_save(const std::string& path, const IValue& value);

// A torch.save file rather than a TorchScript archive: data.pkl without code or constants.
bool looks_like_torch_save(const Archive& archive);

}  // namespace jitctl
