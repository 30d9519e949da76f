#pragma once
// `jitctl bench-threads --op mm|conv --size N`: one kernel swept over thread counts without a
// model, in GFLOP/s and in percent of the machine's peak -- the C++ side of the torch.mm script
// in shared/reference/cpu_threading.txt (tests/bench/op_sweep_torch.py runs that script beside it).
//   mm    N x N times N x N, fp32: 2 N^3 FLOPs a call (aten::mm)
//   conv  a ResNet 3x3 layer: input 1 x 64 x N x N, weight 64 x 64 x 3 x 3, bias, stride 1,
//         padding 1: 2 * 64 * 64 * 9 * N^2 FLOPs a call (aten::conv2d)
// The kernels are the registered ones (kernels/registry.h find_kernel), called as the interpreter
// calls them. When kernels/cpu grows a timing entry point of its own (cpu_features), only
// make_op_bench() changes.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "lib/bench/measure.h"
#include "lib/bench/sweep.h"

namespace jitctl {

struct OpBench {
  std::string op;          // "mm", "conv"
  int64_t size = 0;
  std::string shape;       // "1024x1024 @ 1024x1024 fp32"
  double flops = 0;        // per call
  CallFn call;             // caller c uses its own operands
};

// Throws InvalidInput for an op other than mm/conv or a size outside 1..16384 (mm) / 1..4096 (conv).
OpBench make_op_bench(const std::string& op, int64_t size, size_t callers);

struct OpRow {
  const BenchRow* row = nullptr;
  double gflops = 0;       // at the p50 time
  double gflops_best = 0;  // at the fastest call
  double peak_gflops = 0;  // per-core peak x min(threads x callers, physical cores)
  double pct_of_peak = 0;  // gflops / peak_gflops
};
OpRow op_row(const OpBench& b, const BenchRow& r, double peak_per_core, int physical_cores);

std::string op_text_header(const OpBench& b, double peak_per_core);
std::string op_text_row(const OpRow& r, int cores);
std::string op_csv_header();
std::string op_csv_row(const OpRow& r);
nlohmann::ordered_json op_report_json(const OpBench& b, const SweepOptions& o, const SweepResult& res, double peak_per_core);

}  // namespace jitctl
