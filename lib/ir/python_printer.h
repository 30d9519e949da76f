#pragma once
// TorchScript code from IR: PyTorch 1.13's PythonPrint (what `.code` shows and what torch.jit.save
// writes into code/**.py). Statement order follows the graph; a single-use, unnamed value whose
// node comes right where a left-to-right evaluation of its user's arguments would put it is
// written inline into that use (constants always are), other values get a name (`x`, `x0`, `_0`,
// ...), unique within one function. Long inline expressions are split back out so the line stays
// short, in an order that keeps side effects where they were.
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lib/core/ivalue.h"
#include "lib/core/types.h"
#include "lib/ir/ir.h"
#include "lib/ir/source_location.h"

namespace jitctl {

// A function's signature as the printer writes its `def` line.
struct PrintedArgument {
  std::string name;
  TypePtr type;
  std::optional<IValue> default_value;
  std::optional<int32_t> N;  // a broadcasting list `int[2]`: a scalar default prints as a list
};
struct PrintedSignature {
  std::string name;
  std::vector<PrintedArgument> arguments;  // `self` first for methods
  TypePtr return_type;
};

// From this byte offset on, the printed text came from the node at `source` (nullopt: a node
// without a source location).
struct PrintedRange {
  size_t begin = 0;
  std::optional<SourceLocation> source;
};

class PythonPrinter {
 public:
  struct CallArgument {
    size_t input;
    std::string keyword;
  };
  using CallArguments = std::vector<CallArgument>;
  struct Hooks {
    // Which inputs an operator call passes, in order, and the keyword of each ("" when
    // positional): PyTorch leaves out trailing arguments that equal their schema default and
    // passes `out=` and keyword-only ones by name (`torch.zeros(s, dtype=6)`). Unset: every
    // input, positionally.
    std::function<CallArguments(const Node& n)> call_arguments;
    // Sees every named type the printed code depends on (classes, interfaces, NamedTuples,
    // enums, functions), in the order PyTorch's dependency table meets them.
    std::function<void(const TypePtr& t)> on_dependency;
    // Spells types (a class under another name); unset: the default annotation.
    TypePrinter type_printer;
  };

  // Tensor constants (and strings with non-ASCII bytes) go to `constants` and print as
  // CONSTANTS.cN; equal tensors share one entry.
  PythonPrinter(std::vector<IValue>& constants, Hooks hooks);
  ~PythonPrinter();
  PythonPrinter(const PythonPrinter&) = delete;
  PythonPrinter& operator=(const PythonPrinter&) = delete;

  // `def name(args) -> ret:` and the body. A method omits its first argument's type.
  void print_function(const PrintedSignature& sig, const Graph& graph, bool is_method);

  // `class Name(Module):` with __parameters__/__buffers__, attribute annotations, Final constants
  // and then each method (signature and graph), in the order given.
  void print_class(const ClassType& cls,
                   const std::vector<std::pair<PrintedSignature, std::shared_ptr<Graph>>>& methods);
  void print_named_tuple(const TupleType& t);
  void print_interface(const InterfaceType& t);
  void print_enum(const EnumType& t);

  const std::string& str() const;
  const std::vector<PrintedRange>& ranges() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace jitctl
