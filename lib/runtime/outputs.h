#pragma once
// What `jitctl run` does with a method's result (DESIGN.md, "Output files").
//
//   pt    torch.save format, read back by torch.load: tuples stay tuples (NamedTuples become
//         plain tuples), lists and dicts as they are; objects are refused (exit 3).
//   npy   the result must be one tensor.
//   npz   every leaf (tensors as they are; ints, floats, bools as 0-d arrays; str, None and
//         objects are refused, exit 3), named by its place in the result: the items of a tuple
//         or list result are arg0, arg1, ...; the entries of a dict result are named by their keys;
//         a single value is arg0; deeper leaves add ".index" or ".key" (arg1.0, arg0.boxes), so
//         that a result read back as --inputs has the same structure (lib/runtime/inputs.h).
//   no -o summarize_outputs() / output_leaves(): one line (or one JSON object) per leaf.
// The format is `format` when given, else the extension (.pt/.pth, .npy, .npz, any case);
// "-" writes to standard output (pt unless `format` says otherwise). Files appear atomically
// (written beside the target, then renamed), with the mode a new file gets (0666 & ~umask).
#include <optional>
#include <string>
#include <vector>

#include "lib/core/ivalue.h"

namespace jitctl {

void write_outputs(const std::string& path, const IValue& result, const std::string& format = "");

// The format write_outputs would use: "pt", "npy" or "npz"; InvalidInput for an unknown one.
std::string output_format(const std::string& path, const std::string& format);

// One leaf of a result, for summaries: its path (out, out[0], out["key"]), and for a tensor its
// dtype, shape and statistics, for any other value its text.
struct OutputLeaf {
  std::string path;
  std::string kind;   // "Tensor", "int", "float", "bool", "str", "None", ...
  std::string dtype;  // tensors
  std::vector<int64_t> shape;
  std::optional<double> min, max, mean;  // tensors with an order and elements (nan shows as nan)
  std::string value;                     // non-tensors: the value as text (str unquoted)
  std::string note;                      // "empty", "no statistics for complex64", ...
};
std::vector<OutputLeaf> output_leaves(const IValue& result);

// One line per leaf: its path, then for a tensor its dtype, shape and min/max/mean (its value
// when it has one element), for other values the value.
std::string summarize_outputs(const IValue& result);

}  // namespace jitctl
