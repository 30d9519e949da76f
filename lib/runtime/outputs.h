#pragma once
// What `jitctl run` does with a method's result (DESIGN.md, "Output files").
//
//   -o F.pt   torch.save format, read back by torch.load: tuples stay tuples (NamedTuples become
//             plain tuples), lists and dicts as they are; objects are refused (exit 3).
//   -o F.npy  the result must be one tensor.
//   -o F.npz  every leaf, depth-first, as arg0, arg1, ... so that the file can be passed back as
//             --inputs; tensors as they are, ints/floats/bools as 0-d arrays; other leaves
//             (str, None, objects) are refused (exit 3).
//   no -o     summarize_outputs(): one line per leaf.
// Files appear atomically (written beside the target, then renamed).
#include <string>

#include "lib/core/ivalue.h"

namespace jitctl {

// Chooses the format by the extension (.pt/.pth, .npy, .npz); anything else is InvalidInput.
void write_outputs(const std::string& path, const IValue& result);

// One line per leaf: its path (out, out[0], out["key"]), then for a tensor its dtype, shape and
// min/max/mean (its value when it has one element), for other values the value.
std::string summarize_outputs(const IValue& result);

}  // namespace jitctl
