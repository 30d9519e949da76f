#pragma once
// The N application threads of `bench-threads --concurrency N`, each calling the model as a
// server's request threads would. They share what PyTorch callers share -- one loaded model, its
// read-only weights and plans -- but never mutable state:
//  - each caller gets its own deep copy of the inputs (a model that writes into its input, or a
//    kernel that materialises a lazily mapped input, would otherwise race with the other callers);
//  - a method that writes module state (prim::SetAttr, an in-place op on a parameter or buffer,
//    batch norm in training mode, a call the analysis cannot see into) gets one model instance per
//    caller, loaded from the same file: the runtime does not lock objects, and in PyTorch such a
//    model would give racy results too. The report says which happened and why.
#include <string>
#include <vector>

#include "lib/core/ivalue.h"
#include "lib/runtime/interpreter.h"

namespace jitctl {

// What in `method` of the archive (with everything it calls, as the interpreter runs it) writes
// state that outlives a call, by alias analysis (passes/analysis/alias_db.h: a write to anything
// reachable from the graph's inputs -- self, its attributes, the arguments -- counts, and so does
// batch norm unless `training` is constant False): "prim::SetAttr", "aten::add_ (...)"; "" when
// nothing does.
std::string state_written_by(const std::string& model_path, const std::string& method);
// The same for one graph (as the interpreter runs it: calls inlined); its inputs are the caller's.
std::string state_written_by(const Graph& g);

// A copy of `args` that shares no mutable memory with it: tensors get fresh storages (views of
// one storage stay views of one copy), lists, tuples and dicts are rebuilt; strings and scalars
// are immutable and shared; objects are shared (they cannot be copied without their class).
std::vector<IValue> copy_arguments(const std::vector<IValue>& args);

struct Callers {
  std::vector<Method> methods;            // one per caller; all the same Method when shared
  std::vector<std::vector<IValue>> args;  // one private copy per caller
  std::string own_instances_because;      // "" when one model instance serves every caller

  size_t size() const { return args.size(); }
  void call(size_t caller) const { methods[caller](args[caller]); }
};

// `n` callers of `m` (the method `method` of `model_path`, already planned) with `args`. When
// `model_path` is empty (a standalone graph) the method is shared. Loading the extra instances
// happens here, before anything is timed.
Callers make_callers(const std::string& model_path, const std::string& method, const Method& m,
                     const std::vector<IValue>& args, size_t n);

}  // namespace jitctl
