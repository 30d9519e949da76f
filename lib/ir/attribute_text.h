#pragma once
// How str(graph) shows attribute values: PyTorch prints every scalar and list attribute through
// IValue::repr (so `value=1.`, `value="a\"b"`, `value=[1, 2]`, `annotate(List[int], [])`), tensors
// as tensor_text.h describes, and graphs only as `<Graph>`.
#include <string>
#include <string_view>

#include "lib/core/ivalue.h"
#include "lib/core/types.h"
#include "lib/ir/attributes.h"

namespace jitctl {

// IValue::repr of a double: integral values below 1e10 as `3.` (and `-0.`), the rest with 17
// significant digits (`0.10000000000000001`, `1e+22`, `inf`, `nan`).
std::string repr_double(double d);

// Can a reader infer a list's or dict's element type from its members? Not for Optional, Union,
// number, Any or interfaces: graphs and code write those containers inside `annotate(...)`.
bool element_type_shows_in_members(const TypePtr& t);

// IValue::repr with the formatter PyTorch's graph printer installs (tensors as
// tensor_attribute_text, lists of tensors as `[<Tensors>]`). Empty lists and dicts, and those whose
// element type members cannot show (Optional, Union, number, Any, interfaces), print as
// `annotate(List[T], [...])` / `annotate(Dict[K, V],{...})`.
std::string repr_ivalue(const IValue& v);

// The text after `name=` for an attribute; `mkldnn` prints tensors as MKLDNN tensors (see
// tensor_attribute_text), for the value of a prim::ConstantMKLDNNTensor.
std::string attribute_value_text(const AttributeValue& v, bool mkldnn = false);

}  // namespace jitctl
