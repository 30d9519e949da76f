#pragma once
// A graph as JSON, for tools (`jitctl dump-graph --format json`):
//
//   {"inputs": [{"name": "x.1", "type": "Tensor"}, ...],
//    "outputs": [{"name": "y", "type": "Tensor"}, ...],
//    "nodes": [{"kind": "aten::add",
//               "inputs": ["x.1", "y", "3"],                 value names, as %name prints
//               "outputs": [{"name": "z", "type": "Tensor"}],
//               "attributes": {"value": 1, ...},             insertion order
//               "source": "m.py:4:8" | null,
//               "blocks": [{"inputs": [...], "nodes": [...], "outputs": [...]}]}, ...]}
//
// Names and types read as in str(graph) (`graph_str`), so the two can be cross-referenced.
// Attribute values are JSON where JSON says it plainly: numbers (non-finite floats as the strings
// "inf", "-inf", "nan"), strings, lists of those, null for None, true/false for bool IValues, a
// graph attribute as a nested {"inputs", "outputs", "nodes"} object; the rest (tensors, complex
// numbers, dicts, objects) as the text str(graph) shows after `name=`. Written by hand, so that
// lib/ir needs no JSON library; bytes that are not UTF-8 come out as U+FFFD.
#include <string>

#include "lib/ir/ir.h"

namespace jitctl {

// `indent` spaces per level; 0 prints everything on one line. Ends without a newline.
std::string graph_to_json(const Graph& g, int indent = 2);

}  // namespace jitctl
