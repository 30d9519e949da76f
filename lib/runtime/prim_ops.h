#pragma once
// Operators the interpreter implements itself because they are about values rather than tensors
// (building and taking apart tuples, lists and dicts), about interpreter state (futures, grad
// mode), or because kernels/ leaves them to it. Same calling convention as kernels/registry.h.
#include <string_view>

#include "kernels/registry.h"

namespace jitctl {

// The implementation for an operator ("prim::ListConstruct", "aten::__is__", "prim::min.int"),
// or nullptr.
KernelFn find_prim_op(std::string_view name);

}  // namespace jitctl
