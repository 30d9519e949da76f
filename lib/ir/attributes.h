#pragma once
// Node attributes: the fifteen kinds PyTorch's IR knows, held in one variant whose alternative
// index is the kind, so that a kind and its C++ type can never disagree.
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "lib/core/ivalue.h"
#include "lib/core/tensor.h"
#include "lib/core/types.h"
#include "lib/ir/symbol.h"

namespace jitctl {

class Graph;

// Same names as PyTorch's AttributeKind; the printer and the parser do not show the kind, only
// the value (`value=1` is an `i`, `value=[1, 2]` an `is` or an `ival` list).
enum class AttributeKind : uint8_t { f, fs, c, cs, i, is, s, ss, t, ts, g, gs, ty, tys, ival };

const char* attribute_kind_name(AttributeKind k);  // "f", "fs", ...

using AttributeValue =
    std::variant<double, std::vector<double>, std::complex<double>, std::vector<std::complex<double>>, int64_t,
                 std::vector<int64_t>, std::string, std::vector<std::string>, Tensor, std::vector<Tensor>,
                 std::shared_ptr<Graph>, std::vector<std::shared_ptr<Graph>>, TypePtr, std::vector<TypePtr>, IValue>;

template <AttributeKind K>
using AttributeType = std::variant_alternative_t<static_cast<size_t>(K), AttributeValue>;

inline AttributeKind kind_of(const AttributeValue& v) { return static_cast<AttributeKind>(v.index()); }

struct Attribute {
  Symbol name;  // always in the attr:: namespace
  AttributeValue value;
};

}  // namespace jitctl
