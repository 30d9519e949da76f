#pragma once
// The GPU's fusions at lowering (the CPU's are in prepare.h): a convolution whose output only
// feeds a relu, or an add of a residual that then only feeds a relu (a ResNet block's tail), runs
// as one cuDNN call (conv + bias + residual, then relu: cudnnConvolutionBiasActivationForward)
// instead of three kernels and two round trips of the activation through GPU memory.
//
// Like the CPU's groups this is runtime-only: the graph is unchanged, and a call the fused kernel
// does not take (no bias, a broadcast residual, inputs not on the device) runs the group's nodes
// one by one through their dispatchers.
#include <functional>
#include <memory>
#include <optional>

#include "lib/runtime/prepare.h"

namespace jitctl {

// The group anchored at convolution `n`, or nullopt. `dispatch(node)` gives a node's dispatcher
// (device_dispatch.h) for the unfused path; `taken(node)`: the node is in an earlier group.
std::optional<PreparedGroup> device_group(Node* n, const std::function<std::shared_ptr<const PreparedKernel>(const Node*)>& dispatch,
                                          const std::function<bool(const Node*)>& taken);

}  // namespace jitctl
