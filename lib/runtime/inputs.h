#pragma once
// The positional arguments of `jitctl run` and `bench-threads` (DESIGN.md, "Input files"). The
// format is told by the content, not the extension (lib/archive/file_kind.h); "-" is standard
// input.
//
//   torch.save file  a tuple gives its items as the arguments; any other value (a tensor, list,
//                    dict, str, None, int, float, bool) is the one argument.
//   .npy             one tensor.
//   .npz             members arg0, arg1, ... (or numpy's arr_0, arr_1, ...) in index order; a member
//                    argK.PATH is a leaf inside argument K, as `run -o F.npz` names them: argK.0,
//                    argK.1, ... make a tuple, argK.key a dict entry (so a structured output written
//                    as .npz reads back as the same structure).
//   --input-spec S   values written on the command line (lib/runtime/input_spec.h).
// A file that is not inputs (a model, a state_dict, an ONNX file, ...) is named with what to do;
// bad files and specs throw InvalidInput naming the file or spec and the problem (exit 2).
#include <cstdint>
#include <string>
#include <vector>

#include "lib/core/ivalue.h"

namespace jitctl {

std::vector<IValue> load_inputs(const std::string& path);

// --inputs F or --input-spec S...: exactly one of the two, or neither for a method without
// arguments (then empty).
std::vector<IValue> resolve_inputs(const std::string& inputs_path, const std::vector<std::string>& specs,
                                   uint64_t seed);

}  // namespace jitctl
