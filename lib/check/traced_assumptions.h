#pragma once
// What a traced archive's graph assumes about its inputs. A traced archive keeps the trace, not
// the Python it came from, so re-tracing it gives the same graph on any input; PyTorch's check
// re-traces the Python. What the graph still shows of where the Python's result depended on its
// input, found here, predicts where that re-trace would differ:
//  - an unrolled loop over a dimension: an input's dimension d enumerated by aten::select with
//    the constant indices 0..k-1, all from one source line, where k (at least 2) is that
//    dimension's size in the traced input set -- a loop `for i in range(x.size(0))` that ran k
//    times. An input set whose dimension d is not k traces to another number of iterations.
//    (Python that indexes rows 0..k-1 explicitly on one line looks the same, and is reported the
//    same.)
//  - a library layer whose path depends on grad mode: nn.TransformerEncoderLayer in eval mode
//    takes a fused fast path (aten::_transformer_encoder_layer_fwd) unless gradients are enabled
//    and its parameters require them. An archive traced on the slow path was traced with
//    gradients enabled; PyTorch's check re-traces under torch.no_grad() and takes the fast path.
// What the Python computed and then dropped (a value baked into a tensor constant, a branch on
// the data) leaves no trace in the graph and is not found.
#include <string>
#include <vector>

#include "lib/core/ivalue.h"
#include "lib/ir/ir.h"

namespace jitctl {

struct LoadedModule;

struct TracedAssumptions {
  struct DimensionSize {
    size_t argument = 0;  // 0-based, after self
    std::vector<size_t> path;  // items of tuple/list arguments leading to the tensor
    int64_t dim = 0;
    int64_t size = 0;
    std::string where;    // "file:line" of the enumeration
  };
  std::vector<DimensionSize> sizes;
  std::vector<std::string> grad_mode_paths;  // one message per layer traced on its grad-mode path
};

// `trace` is the method's graph (straight-line), `traced_args` the input set it was traced with
// (taken to be the first one given).
TracedAssumptions find_traced_assumptions(const Graph& trace, const LoadedModule& m,
                                          const std::vector<IValue>& traced_args);

// The assumptions an input set breaks, one message each.
std::vector<std::string> broken_assumptions(const TracedAssumptions& a, const std::vector<IValue>& args);

}  // namespace jitctl
