#pragma once
// Helpers shared by the non-tensor kernels (scalars, lists, dicts, strings): argument access on
// the stack, TorchScript's str() of a value, Python's == and index rules.
#include <cstdint>
#include <optional>
#include <string>

#include "kernels/registry.h"
#include "lib/core/error.h"
#include "lib/core/ivalue.h"

namespace jitctl::cpu {

// Replaces the kernel's inputs with its single output.
inline void set_result(Stack& s, IValue v) {
  s.clear();
  s.push_back(std::move(v));
}

// An `int?` argument: nullopt for None.
inline std::optional<int64_t> optional_int(const IValue& v) {
  if (v.is_none()) return std::nullopt;
  return v.to_int();
}

// A Scalar argument as double (int, float or bool).
double number_of(const IValue& v);

// str(v) as TorchScript prints it: floats as "1." / "0.5" / "1.0000000000000001e-05", strings
// unquoted (also inside containers), lists "[1, 2]", tuples "(1,)", dicts "{a: 1}".
std::string script_str(const IValue& v);
std::string format_double(double d);

// Python list index `i` (negative counts from the end) into a container of `n` elements;
// InvalidInput with PyTorch's message when out of range.
size_t normalize_index(int64_t i, size_t n);

// Python's slice [start:end:step] on a sequence of `n` elements: the first index, the count,
// and the step. Step 0 is an error, as in PyTorch.
struct SliceRange {
  int64_t start, count, step;
};
SliceRange slice_range(const IValue& start, const IValue& end, int64_t step, int64_t n);

// Registration of the non-tensor files that register_cpu.cpp does not call directly.
void register_tensor_meta_kernels();  // tensor_meta.cpp, called from register_scalar_kernels
void register_dict_kernels();         // dict_ops.cpp, called from register_list_kernels
void register_format_kernels();       // format_ops.cpp, called from register_string_kernels

}  // namespace jitctl::cpu
