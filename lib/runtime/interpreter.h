#pragma once
// The interpreter: a method's optimized graph is lowered once into a plan, a flat list of
// instructions over register slots, with every operator resolved to a kernel function pointer
// while lowering, so running it does no string or hash lookups per op. ("Compiling" is the
// frontend's: source to graph.) Planning a method also plans every method
// and function it can reach, so an operator without a kernel is reported before anything runs.
//
// Plans are immutable: any number of threads may run the same Method at once (each call
// has its own registers). Module attributes are shared state, as in PyTorch.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lib/core/ivalue.h"
#include "lib/ir/ir.h"
#include "lib/ops/schema.h"

namespace jitctl {

class MappedFile;  // lib/archive/mapped_file.h
class Runtime;
struct LoadedModule;  // lib/serialization/load_module.h
struct Plan;  // lib/runtime/plan.h
struct RuntimeState;

// A planned, runnable method bound to its module (or a free-standing graph). Cheap to copy.
class Method {
 public:
  Method() = default;
  // Runs with the positional arguments after `self` (a method; trailing arguments with defaults
  // may be left out) or all of the graph's inputs (a graph compiled by plan_graph). Throws
  // InvalidInput for a wrong number of arguments and for
  // exceptions the model raises (the message as PyTorch formats it: "The following operation
  // failed in the TorchScript interpreter. ...": see RaisedException).
  IValue operator()(std::vector<IValue> args) const;
  // Number of arguments operator() takes: at most num_inputs(), at least min_inputs().
  size_t num_inputs() const;
  size_t min_inputs() const;
  bool valid() const { return fn_ != nullptr; }

 private:
  friend class Runtime;
  friend Method plan_graph(std::shared_ptr<Graph> graph);
  std::shared_ptr<RuntimeState> state_;
  const Plan* fn_ = nullptr;
  IValue self_;  // None for a graph
  std::vector<std::optional<IValue>> defaults_;  // per argument after self
};

// An exception raised by the model (prim::RaiseException). what() is what PyTorch prints for it
// in Python's RuntimeError ("The following operation failed in the TorchScript interpreter. ...
// RuntimeError: <message>"); exit code 2.
struct RaisedException : InvalidInput {
  RaisedException(const std::string& what, std::string python_class, std::string message)
      : InvalidInput(what), python_class(std::move(python_class)), message(std::move(message)) {}
  std::string python_class;  // "builtins.ValueError"
  std::string message;       // the message argument alone
};

// A TorchScript archive loaded for running.
class Runtime {
 public:
  // Reads the archive, imports its code and unpickles its object tree (tensors load lazily).
  static Runtime load(const std::string& path);
  // The same over bytes already mapped or in memory (the fuzz targets).
  static Runtime load(std::shared_ptr<MappedFile> file);

  // Operators reachable from `method` (and from what was planned before) that have no kernel
  // and are not interpreter primitives, one entry each: "aten::foo.bar(Tensor self) -> Tensor".
  // Empty when the method can run.
  std::vector<std::string> missing_ops(const std::string& method);
  // The planned method (planned on the first call, cached). Throws InvalidInput when the class
  // has no such method and Unsupported naming the first missing operator and its schema.
  Method method(const std::string& name);
  IValue run(const std::string& method_name, std::vector<IValue> args) { return method(method_name)(std::move(args)); }

  // The top-level class's methods, in the order its code defines them, and one's schema
  // (`self` first), as `m.<name>.schema` prints it.
  std::vector<std::string> method_names() const;
  FunctionSchema schema(const std::string& method) const;

  const IValue& module() const;
  const std::string& path() const;
  const std::string& class_name() const;
  // The archive, its code and its object tree, as the interpreter prepared them (objects' attributes
  // in slot order): for tools that run or rewrite the module's graphs themselves (the tracer).
  LoadedModule& loaded_module() const;

 private:
  std::shared_ptr<RuntimeState> state_;
};

// Plans a standalone graph (for tests and graph-level tools). Calls of methods
// (prim::CallMethod) and functions are not available to it (Unsupported when run).
Method plan_graph(std::shared_ptr<Graph> graph);

}  // namespace jitctl
