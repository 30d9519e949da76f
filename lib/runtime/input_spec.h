#pragma once
// --input-spec: a method's arguments written on the command line. One spec string holds one or
// more values separated by commas; every value is one positional argument.
//
//   value   := tensor | int | float | bool | none | string | tuple | list | dict
//   tensor  := DTYPE '[' [dim {',' dim}] ']'    float32[1,3,224,224]; int64[] is 0-d; seeded random
//   int     := ['+'|'-'] digits                  3  -1
//   float   := digits '.' [digits] [exp] | digits exp | inf | nan (signed)   2.5  1e-3  -inf
//   bool    := true | false | True | False
//   none    := none | None
//   string  := "..." | '...'                     escapes \\ \" \' \n \t \r \0 \xHH \uHHHH
//   tuple   := '(' ')' | '(' value ',' ')' | '(' value {',' value} [','] ')'
//   list    := '[' [value {',' value} [',']] ']'
//   dict    := '{' [key ':' value {',' key ':' value} [',']] '}'   keys: string, int, float, bool
//
// Apart from tensors this is Python's literal syntax, so a spec without tensors is also a Python
// expression. What a value becomes is decided by the method's schema (lib/runtime/arguments.h):
// an int for a float argument is a float, a tuple for a List[int] a list, [] takes its element
// type from the argument. Random tensors: floating types from N(0, 1), integer types from
// [0, 10) (valid as small indices), bool from {false, true}; the k-th tensor of the command line
// is drawn with seed + k, so adding a spec does not change the earlier ones.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/core/dtype.h"
#include "lib/core/ivalue.h"

namespace jitctl {

struct SpecValue {
  enum class Kind { Tensor, Int, Float, Bool, None, String, Tuple, List, Dict };
  Kind kind = Kind::None;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string s;
  DType dtype = DType::Float32;  // tensor
  std::vector<int64_t> shape;    // tensor
  std::vector<SpecValue> items;  // tuple, list; a dict's keys and values alternate
  std::string text;              // as written, for messages
};

// Throws InvalidInput "--input-spec 'TEXT': <problem> at column N (...)"; Unsupported for a dtype
// jitctl cannot draw (complex, quantized).
std::vector<SpecValue> parse_input_spec(std::string_view text);

// Values (tensors drawn), numbering tensors from `first_tensor` (updated).
IValue spec_to_ivalue(const SpecValue& v, uint64_t seed, uint64_t& first_tensor);

// Every spec string's values, in order: the arguments before they meet the schema.
std::vector<IValue> spec_inputs(const std::vector<std::string>& specs, uint64_t seed);

// A seeded random tensor as --input-spec draws it.
Tensor random_tensor(DType dtype, const std::vector<int64_t>& shape, uint64_t seed);

}  // namespace jitctl
