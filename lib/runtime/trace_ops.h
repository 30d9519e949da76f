#pragma once
// How one operator call shows in a trace: the rules of PyTorch's tracer for a call the Python
// code makes, applied to the same call in a scripted graph.
//  - A tensor operator is recorded with every argument: tensors by their trace values (untraced
//    ones as constants), numbers that follow sizes converted after their definition
//    (aten::Int/aten::Float/aten::ScalarImplicit), Python numbers as constants; a Python number
//    as the `other` of add/sub/mul/div as a 0-dim tensor constant (Python's binding has only the
//    Tensor overloads); factories with the defaults Python's argument parser fills in (device
//    "cpu", pin_memory False; for *_like and new_* those of `self`); a slice's missing bounds as
//    0 and INT64_MAX; torch.tensor(data) as a constant moved with aten::to and detached.
//  - x.size(d), x.shape and x.numel() are recorded (aten::size / aten::numel, then
//    prim::NumToTensor): their results are numbers the trace follows, and int arithmetic on them
//    is recorded as the tensor arithmetic Python runs on them.
//  - A tensor or followed number turned into a Python value (int(t), float(t), bool(t), t.item(),
//    an `if`, range(), min/max, ...) is baked in, with a warning; the implicit conversions of a
//    traced archive's own code (aten::Int of a recorded size) stay recorded.
//  - Everything else runs without being recorded; lists and tuples carry their items' numbers.
#include <string>
#include <vector>

#include "kernels/registry.h"
#include "lib/ir/ir.h"
#include "lib/runtime/trace.h"
#include "lib/runtime/trace_builder.h"
#include "lib/runtime/trace_source.h"

namespace jitctl {

struct TraceContext {
  TraceBuilder& builder;
  std::vector<TracerWarning>& warnings;
  bool grad_enabled = true;
  // The graph being run was itself made by torch.jit.trace: its aten::Int/aten::Float of sizes are
  // the tracer's own implicit conversions, not Python's int()/float().
  bool traced_code = false;
  // The Python source the scripted code was compiled from, where the archive keeps it.
  const TraceSource* source = nullptr;
  // The node being run stands for library code whose tracing branch keeps sizes traced
  // (TraceSource::in_untraced_branch): int()/float()/math.floor() of a followed number are
  // recorded as the tensor ops that branch runs instead of baking it.
  bool keep_numbers = false;

  // Records a TracerWarning at the current location: `what` ("a Python boolean") was baked in.
  void warn_baked(const std::string& what, const IValue& value);
};

// Runs the operator node `n` of a scripted graph (its schema `s`, or nullptr for an interpreter
// primitive without one) with `kernel` on `inputs`, recording it as PyTorch's tracer would;
// returns its outputs.
std::vector<Traced> run_traced_op(TraceContext& ctx, const Node& n, const FunctionSchema* s, KernelFn kernel,
                                  std::vector<Traced> inputs);

// A number the trace follows used where Python turns it into a plain value (an `if` condition, a
// loop's trip count): its runtime value; warns that it was baked in.
const IValue& bake(TraceContext& ctx, const Traced& x, const char* what);

}  // namespace jitctl
