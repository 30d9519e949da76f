#pragma once
// A graph as Graphviz dot, for people (`jitctl dump-graph --format dot | dot -Tsvg > g.svg`):
//  - each node is a box labelled with its kind and its attributes (long values shortened), its
//    source location as the tooltip; a constant with uses gets a box at each use, placed with its
//    user (pooled constants have dozens of uses, and edges from one shared box make the layout
//    slow and unreadable); an unused one is drawn once;
//  - each use of a value is an edge from the node that makes it to the node that reads it,
//    labelled `%name : type` as str(graph) would print it;
//  - the graph's inputs are one node each, its outputs go into one `return` node;
//  - the blocks of an If or Loop are `subgraph cluster_...` boxes with their own param node (the
//    block's inputs) and return node (its outputs), reached from the owning node by a dotted edge.
// Every node is declared inside its cluster before any edge is written, so edges never drag a node
// into the wrong cluster. Strings are escaped for dot's quoted IDs.
#include <string>

#include "lib/ir/ir.h"

namespace jitctl {

std::string graph_to_dot(const Graph& g);

}  // namespace jitctl
