#pragma once
// str(graph) and str(node), character for character as PyTorch 1.13 prints them:
//
//   graph(%self : __torch__.M,
//         %x.1 : Tensor):
//     %3 : int = prim::Constant[value=1]() # m.py:4:8
//     %y : Tensor = aten::add(%x.1, %x.1, %3) # m.py:4:8
//     %5 : Tensor = prim::If(%c)
//       block0():
//         -> (%y)
//       block1():
//         -> (%x.1)
//     return (%5)
//   with prim::fork_0 = graph(...)
//
// A node holding a `Subgraph` graph attribute prints as `kind_N`, and its subgraph follows the
// graph as a `with kind_N = ...` section, numbered in printing order.
#include <string>

#include "lib/ir/ir.h"

namespace jitctl {

struct GraphPrintOptions {
  // PyTorch's print_source_locations: the ` # file:line:col` comments of the graph's top-level
  // nodes (nested nodes always print theirs, as in PyTorch).
  bool source_locations = true;
};

std::string graph_to_string(const Graph& g, const GraphPrintOptions& opts = {});
// What operator<<(ostream, Node) prints: the node line, then its blocks, indented from level 0.
std::string node_to_string(const Node& n);

}  // namespace jitctl
