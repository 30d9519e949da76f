#pragma once
// PyTorch 1.13's CanonicalizeOutputs: the outputs of every If and Loop are reordered by where each
// is first used, in the order the graph prints (a node before the nodes in its blocks, a true
// block before its false block); unused outputs go last in their old order. A loop's carried
// inputs, body inputs and body outputs move with its outputs. This removes the ordering jitter
// of outputs the compiler added after emitting the node.
#include "lib/ir/ir.h"

namespace jitctl {

void canonicalize_outputs(Graph& g);

}  // namespace jitctl
