#pragma once
// The positional arguments of `jitctl run` and `bench-threads` (DESIGN.md, "Input files").
//
//   --inputs F.pt   torch.save file: a tuple gives its items as the arguments; any other value
//                   (a tensor, list, dict, str, None, int, float, bool) is the one argument.
//   --inputs F.npy  one tensor.
//   --inputs F.npz  members arg0, arg1, ... (or numpy's own arr_0, arr_1, ...) in index order.
//   --input-spec S  a seeded random tensor per spec: 'float32[1,3,224,224]', 'int64[8]', 'bool[]'
//                   (a 0-d tensor); several specs may be given, or joined by commas. Floating
//                   types draw from N(0, 1), integer types from [0, 10) (valid as small indices),
//                   bool from {false, true}.
// Bad files and specs throw InvalidInput naming the file or spec and the problem (exit 2).
#include <cstdint>
#include <string>
#include <vector>

#include "lib/core/dtype.h"
#include "lib/core/ivalue.h"

namespace jitctl {

std::vector<IValue> load_inputs(const std::string& path);

struct InputSpec {
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;
};

// One or more comma-joined specs: "float32[1,3],int64[4]".
std::vector<InputSpec> parse_input_specs(const std::string& text);
Tensor random_tensor(const InputSpec& spec, uint64_t seed);
// Argument i is drawn with seed + i, so adding a spec does not change the earlier ones.
std::vector<IValue> spec_inputs(const std::vector<std::string>& specs, uint64_t seed);

// --inputs F or --input-spec S...: exactly one of the two, or neither for a method without
// arguments (then empty).
std::vector<IValue> resolve_inputs(const std::string& inputs_path, const std::vector<std::string>& specs,
                                   uint64_t seed);

}  // namespace jitctl
