#pragma once
// The graph a trace records into and what the tracer knows about the run's values (PyTorch's
// TracingState): the trace value of every tensor it has seen (by identity, so that an in-place
// op's result takes over its input's tensor), the trace values of numbers that follow sizes, and
// the module's parameters and submodules as prim::TracedAttr values until the layout turns them
// into prim::GetAttr reads (lib/runtime/trace_layout.h).
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "lib/core/ivalue.h"
#include "lib/ir/ir.h"

namespace jitctl {

// A value as the tracer holds it: the runtime value, and for a number that follows a size (an
// int from x.size(0), and what is computed from it) the trace value that computes it, a 0-dim
// tensor as PyTorch returns sizes while tracing. Python numbers have none: they are constants.
struct Traced {
  IValue v;
  Value* number = nullptr;
};

class TraceBuilder {
 public:
  TraceBuilder();
  const std::shared_ptr<Graph>& graph() const { return graph_; }

  // The source location of the nodes recorded from now on (the node being run).
  void set_location(std::optional<SourceLocation> loc) { loc_ = std::move(loc); }
  const std::optional<SourceLocation>& location() const { return loc_; }

  // Graph input `self` and a prim::TracedAttr for every parameter, buffer and submodule of the
  // module tree, named by its path ("__module.encoder.0.weight"), in PyTorch's order
  // (gatherParametersAndBuffers): a tensor reached twice is traced as the last path that reaches it.
  void add_module_input(const IValue& root);
  // One argument of the traced method: a graph input; tuples, lists and dicts are unpacked into
  // their tensors. Anything but tensors (and containers of them) is InvalidInput naming `where`.
  void add_argument(const IValue& arg, const std::string& where);

  // The trace value of a tensor; an untraced tensor becomes a constant, recorded now.
  Value* value_of(const Tensor& t);
  Value* find(const Tensor& t) const;  // nullptr when the tensor is untraced
  void set_value(const Tensor& t, Value* v);
  // The prim::TracedAttr of a module object of the tree (nullptr for other objects), and its path.
  Value* module_value(const ObjectData* module) const;
  const std::string* module_path(const ObjectData* module) const;

  // A number's trace value passed where an operator takes an int (aten::Int), a float
  // (aten::Float) or a Scalar (aten::ScalarImplicit): converted right after its definition, each
  // use its own conversion, as PyTorch's ArgumentStash inserts them.
  Value* convert_number(Value* number, Symbol conversion);

  // A constant at the insertion point, carrying the location (None constants carry none).
  Value* constant(const IValue& v);
  Value* none();
  // Inserts `n` at the insertion point, with the current location unless `located` is false.
  Node* insert(Node* n, bool located = true);

  // Numbers followed through lists and tuples: per item, its trace value or nullptr. Empty when
  // the container holds none.
  std::vector<Value*> item_numbers(const IValue& container) const;
  void set_item_numbers(const IValue& container, std::vector<Value*> numbers);

  // A submodule's forward: nodes recorded until pop_scope() go into a prim::TracedModuleForward
  // block named `path`, as PyTorch's Graph::push_scope makes them.
  void push_scope(const std::string& path);
  void pop_scope();

 private:
  void gather(const IValue& module, const std::string& path);
  Value* add_input_value(const IValue& arg, Value* v, const std::string& where);

  std::shared_ptr<Graph> graph_;
  std::optional<SourceLocation> loc_;
  // Keyed by the tensor's impl; the tensor is kept alive so that the key is never reused.
  std::unordered_map<const void*, std::pair<Tensor, Value*>> tensors_;
  std::unordered_map<const ObjectData*, std::pair<Value*, std::string>> modules_;
  struct Items {
    IValue owner;
    std::vector<Value*> numbers;
  };
  std::unordered_map<const void*, Items> items_;
};

}  // namespace jitctl
