#pragma once
// Graph text -> Graph: reads what graph_printer.h prints (and so what PyTorch's str(graph)
// prints), in the spirit of PyTorch's irparser, so that pass tests can be IR in, IR out.
//
// Printing a parsed graph gives back the same text: values keep their printed names, and values
// printed as numbers (`%54`) get exactly that id (new values take ids above the largest one),
// ` # file:line:col` comments become source locations, `kind_N` nodes with a `with kind_N = graph`
// section get their Subgraph attribute back, and attribute values keep how they print. Beyond the
// printed form it accepts outputs and inputs without types (Tensor), `= kind(...)` or `kind(...)`
// for nodes without outputs, and `#` comments on lines of their own.
//
// What text does not say comes out as placeholders: classes, interfaces and enums by name (see
// type_text.h); `<Tensor>` as an undefined Tensor (which prints as `<Tensor>` again); `<Graph>`
// as an empty graph; `[<Tensors>]` as an empty tensor list. Tensors printed by value come back with
// the printed (rounded) values.
//
// Attribute kinds follow the value: `1` is an `i`, `1.5` an `f`, `"a"` an `s`, a type a `ty`;
// lists of ints, floats, strings, complex numbers and types are `is`/`fs`/`ss`/`cs`/`tys`, except
// on prim::Constant, where lists, tuples and dicts are `ival`s as insert_constant makes them.
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "lib/ir/ir.h"
#include "lib/ir/type_text.h"

namespace jitctl {

struct GraphParseOptions {
  std::string source_name = "<graph>";  // prefix of error messages: "<graph>:3:14: ..."
  // Shared class/interface/enum resolution; a fresh context per parse when null.
  TypeTextContext* types = nullptr;
};

// Throws InvalidInput "<source_name>:LINE:COL: message".
std::shared_ptr<Graph> parse_graph(std::string_view text, const GraphParseOptions& opts = {});

// Parses into `g`, which must be empty; `names` (optional) receives the top-level graph's values
// by printed name ("x.1", "54").
void parse_graph_into(std::string_view text, Graph& g, std::unordered_map<std::string, Value*>* names = nullptr,
                      const GraphParseOptions& opts = {});

}  // namespace jitctl
