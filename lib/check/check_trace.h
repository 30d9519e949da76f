#pragma once
// `jitctl check-trace`: would tracing this model give one graph valid for all these inputs? What
// torch.jit.trace(model, inputs[0], check_inputs=inputs) checks, answered from the archive:
//  1. trace the method on the first input set (with gradients enabled, as torch.jit.trace does
//     unless told otherwise);
//  2. for every input set (the first included): trace again (under no_grad, as PyTorch's check
//     does) and compare the graphs canonically, then the values of their tensor constants;
//     run the first trace on the set and compare its outputs with the model's own (or with the
//     outputs given by --expected), and, when they agree, with the second trace's;
//  3. for an archive that was itself traced, look for what its graph assumes about its inputs
//     that an input set breaks (traced_assumptions.h): its code alone always re-traces to itself.
// The verdict follows PyTorch's order: the first input set whose trace fails to run, or whose graph
// or tensor constants differ, decides it (graphs_differ, or outputs_differ for constants); else
// outputs that do not match make it outputs_differ; else it is ok. A traced archive's verdict is
// not certain: when only what it cannot tell (a constant that may be a baked size or value, a
// rank that differs) speaks against the trace, the verdict is graphs_differ with certain = false;
// an ok is never certain for it (a branch on the data leaves no mark in a trace).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lib/ir/ir.h"
#include "lib/runtime/trace.h"

namespace jitctl {

struct CheckTraceOptions {
  std::string method = "forward";
  double rtol = 1e-5;           // torch.jit.trace's check_tolerance
  std::optional<double> atol;   // default: torch.testing's for the dtypes compared
  bool traced_with_grad = true; // the user's trace ran with gradients enabled
  bool strict = true;           // torch.jit.trace(strict=...)
  std::string save_trace;       // write the first trace here as an archive ("" for none)
};

struct OutputMismatch {
  size_t output = 0;    // 1-based, among the compared tensors
  std::string against;  // "the model", "the repeated trace", "the expected outputs"
  std::string detail;
};

struct InputSetCheck {
  std::string inputs;    // the file
  std::string expected;  // the --expected file, if any
  std::string run_error; // the first trace raised on this input set
  bool graphs_differ = false;
  std::string graph_diff;        // unified diff of the canonical graphs
  std::string first_difference;  // the first differing node of each, with its source location
  std::string constants_differ;  // the first tensor constant whose value differs
  std::vector<OutputMismatch> outputs;
  std::vector<std::string> assumptions;  // what the traced archive assumes that this set breaks
  std::vector<std::string> cannot_tell;  // what may break, which a traced archive cannot decide
  std::vector<TracerWarning> warnings;   // of the trace on this set
  double seconds = 0;  // elapsed: tracing this set, comparing, running (set 1: making the first trace too)
  bool ok() const {
    return run_error.empty() && !graphs_differ && constants_differ.empty() && outputs.empty() && assumptions.empty() &&
           cannot_tell.empty();
  }
  std::string status() const;  // "ok", "graphs differ", "tensor constants differ", "outputs differ", ...
};

struct CheckTraceReport {
  std::string model, method;
  std::string verdict;       // "ok", "graphs_differ", "outputs_differ" or "untraceable"
  std::string untraceable;   // why, for "untraceable"
  bool traced_archive = false;  // the method's own code came from torch.jit.trace
  bool certain = true;          // false: a traced archive's verdict, inferred from what its graph shows
  std::vector<InputSetCheck> sets;
  std::vector<TracerWarning> warnings;        // of the first trace
  std::vector<std::string> nondeterministic;  // its nondeterministic nodes, as printed
  std::shared_ptr<Graph> trace;               // the first trace
  double rtol = 0;
  std::optional<double> atol;
  double seconds = 0;  // elapsed, loading the model included
  bool generalizes() const { return verdict == "ok"; }
};

// `inputs` and `expected` (empty, or one file per input set) name torch.save/.npy/.npz files.
// Throws InvalidInput for unreadable files or inputs the model rejects (it raises), Unsupported
// for what jitctl cannot run.
CheckTraceReport check_trace(const std::string& model, const std::vector<std::string>& inputs,
                             const std::vector<std::string>& expected, const CheckTraceOptions& options);

}  // namespace jitctl
