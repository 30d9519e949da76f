#pragma once
// What a traced archive's graph assumes about its inputs. A traced archive keeps the trace, not
// the Python it came from, so re-tracing it gives the same graph on any input; PyTorch's check
// re-traces the Python. What the graph still shows of where the Python's result depended on its
// input predicts where that re-trace would differ. Certain:
//  - an unrolled loop over a dimension: a value's dimension d enumerated by aten::select with the
//    constant indices 0..k-1, all from one source line, or by aten::unbind unpacked into k values,
//    where k (at least 2) is that dimension's size when the trace runs on the traced input set --
//    a loop `for i in range(x.size(1))` that ran k times. The sizes are measured by running the
//    trace (with the sizes as extra outputs) on every input set: one where it is not k traces to
//    another number of iterations. (Python that indexes rows 0..k-1 explicitly on one line looks
//    the same, and is reported the same.)
//  - a library layer whose path depends on grad mode: nn.TransformerEncoderLayer and
//    nn.MultiheadAttention in eval mode take a fused fast path unless gradients are enabled and
//    their parameters require them. An archive traced on the slow path was traced with gradients
//    enabled; PyTorch's check re-traces under torch.no_grad() and takes the fast path.
// Cannot tell (a literal in the Python looks the same as a baked number; reported as such):
//  - a shape argument (size, shape, length, end, output_size) holding a constant that equals a
//    dimension's size in the traced set, or an arithmetic constant equal to that size (>= 3), its
//    square root or their reciprocals, where another input set's dimension differs: what
//    int(x.size(0)), float(x.size(1)) or math.sqrt(q.size(-1)) leave in a trace;
//  - a float constant that is exactly a float32 value needing 6 or more significant digits: what
//    .item() or float() of a float32 tensor leaves (literals are short decimals); an input set
//    whose values differ from the traced set's would bake another value;
//  - an input whose rank differs from the traced set's: Python that branches on x.dim() traces
//    another graph, and the trace records no such branch.
// What the Python computed and dropped otherwise (a branch on the data, an int() of a value used
// as an index) leaves no mark in the graph and is not found.
#include <memory>
#include <string>
#include <vector>

#include "lib/core/ivalue.h"
#include "lib/ir/ir.h"

namespace jitctl {

struct LoadedModule;

struct TracedAssumptions {
  // A dimension the trace enumerates; `output` is its size's position among the probe's outputs.
  struct Enumerated {
    size_t output = 0;
    int64_t size = 0;
    std::string what;  // "dimension 1 of argument 1 (aten::slice at f.py:12), by aten::select at f.py:13"
  };
  std::vector<Enumerated> enumerated;
  std::shared_ptr<Graph> probe;  // the trace, returning (its outputs, the enumerated sizes...)

  struct InputDim {
    size_t argument = 0;
    std::vector<size_t> path;
    int64_t dim = 0;
  };
  struct BakedSize {
    std::string what;  // the constant, its node and source line, and the form ("the size")
    int64_t size = 0;
    std::vector<InputDim> dims;  // the traced set's dimensions of that size
  };
  std::vector<BakedSize> baked_sizes;
  std::vector<std::string> computed_constants;
  std::vector<std::string> grad_mode_paths;
  std::vector<IValue> traced_args;
};

// `trace` is the method's graph (straight-line), `traced_args` the input set it was traced with
// (taken to be the first one given); the trace is run on it (`self` first) to measure sizes.
TracedAssumptions find_traced_assumptions(const Graph& trace, const LoadedModule& m, const IValue& self,
                                          const std::vector<IValue>& traced_args);

struct BrokenAssumptions {
  std::vector<std::string> certain;      // the graphs differ
  std::vector<std::string> cannot_tell;  // they differ if the constant came from the input
};

// The assumptions an input set breaks, one message each; the probe runs on `args`.
BrokenAssumptions broken_assumptions(const TracedAssumptions& a, const IValue& self, const std::vector<IValue>& args);

}  // namespace jitctl
