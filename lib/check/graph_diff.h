#pragma once
// Graphs compared as a person and a CI job need them compared: canonically, and shown as a
// unified diff with the source `file:line` of every node that differs.
//
// The canonical form is the one ../shared/oracle/compat.py compares with (and PyTorch's trace
// check, up to value names): tensor types without shapes (PyTorch erases shape information
// before comparing traces), no `# file:line:col` comments, no `___torch_mangle_N.` in class names,
// `warn_id=N`, and every %value renamed %v0, %v1, ... in order of first appearance.
#include <optional>
#include <string>
#include <vector>

#include "lib/ir/ir.h"

namespace jitctl {

// One line of a graph's canonical text, and where the node it prints came from ("file:line", or
// "" for the graph's header, its return, and nodes without a location).
struct GraphLine {
  std::string text;
  std::string where;
};

std::vector<GraphLine> canonical_graph_lines(const Graph& g);
std::string canonical_graph_text(const Graph& g);  // the lines, joined by '\n'

// A class name without its `___torch_mangle_N.` parts (re-exports and traces renumber them).
std::string strip_mangling(std::string name);

struct DiffLine {
  char op = ' ';  // ' ' in both, '-' only in the first graph, '+' only in the second
  GraphLine line;
};

struct GraphDiff {
  std::vector<std::vector<DiffLine>> hunks;  // each with up to `context` unchanged lines around
  std::vector<size_t> first_line_a, first_line_b;  // per hunk, 1-based line numbers of each side
  std::vector<size_t> length_a, length_b;          // per hunk, how many lines of each side
  size_t removed = 0, added = 0;
  bool equal() const { return removed == 0 && added == 0; }
};

// A diff computed with dtl (shortest edit script) over the canonical lines. Lines are aligned by
// what they compute (operator, attributes, types; value names aside), so that one extra node
// shows as one added line rather than as every later line renumbered; when only the wiring
// differs, the full canonical lines are diffed instead.
GraphDiff diff_graphs(const std::vector<GraphLine>& a, const std::vector<GraphLine>& b, size_t context = 3);

// The unified diff: `--- label_a`, `+++ label_b`, `@@ -l,n +l,n @@` hunks with each side's lines as
// diff -u and Python's difflib write them (`,1` left out, an empty side as `-l,0` after line l),
// changed lines marked `-`/`+` (removals first) and followed by `  # file:line` when known. Empty
// when the graphs are equal.
std::string format_graph_diff(const GraphDiff& d, const std::string& label_a, const std::string& label_b);

}  // namespace jitctl
