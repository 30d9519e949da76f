#include "lib/bench/op_sweep.h"

#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <random>

#include "kernels/registry.h"
#include "lib/bench/machine.h"
#include "lib/bench/machine_report.h"
#include "lib/bench/report.h"
#include "lib/core/error.h"
#include "lib/core/tensor.h"

namespace jitctl {
namespace {

Tensor random_tensor(std::vector<int64_t> sizes, uint64_t seed) {
  Tensor t = Tensor::empty(DType::Float32, std::move(sizes));
  float* p = static_cast<float*>(t.mutable_data());
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.f, 1.f);
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = normal(rng);
  return t;
}

IValue int_list(std::vector<int64_t> v) {
  auto l = std::make_shared<ListData>();
  l->elem_type = "int";
  for (int64_t x : v) l->items.emplace_back(x);
  return IValue(std::move(l));
}

double round4(double v) { return std::round(v * 1e4) / 1e4; }

}  // namespace

OpBench make_op_bench(const std::string& op, int64_t size, size_t callers) {
  OpBench b;
  b.op = op;
  b.size = size;
  std::vector<Stack> operands;  // per caller, the kernel's full input list
  KernelFn fn = nullptr;
  if (op == "mm") {
    if (size < 1 || size > 16384) throw InvalidInput(fmt::format("--size {}: mm takes 1 to 16384", size));
    fn = find_kernel("aten::mm");
    b.shape = fmt::format("{0}x{0} @ {0}x{0} fp32", size);
    b.flops = 2.0 * std::pow(static_cast<double>(size), 3);
    for (size_t c = 0; c < callers; ++c)
      operands.push_back({IValue(random_tensor({size, size}, 2 * c + 1)), IValue(random_tensor({size, size}, 2 * c + 2))});
  } else if (op == "conv") {
    if (size < 1 || size > 4096) throw InvalidInput(fmt::format("--size {}: conv takes 1 to 4096", size));
    fn = find_kernel("aten::conv2d");
    b.shape = fmt::format("1x64x{0}x{0} * 64x64x3x3, stride 1, padding 1, fp32", size);
    b.flops = 2.0 * 64 * 64 * 9 * static_cast<double>(size) * static_cast<double>(size);
    for (size_t c = 0; c < callers; ++c)
      operands.push_back({IValue(random_tensor({1, 64, size, size}, 3 * c + 1)), IValue(random_tensor({64, 64, 3, 3}, 3 * c + 2)),
                          IValue(random_tensor({64}, 3 * c + 3)), int_list({1, 1}), int_list({1, 1}), int_list({1, 1}),
                          IValue(int64_t{1})});
  } else {
    throw InvalidInput(fmt::format("--op {}: expected mm or conv", op));
  }
  if (!fn) throw Unsupported(fmt::format("--op {}: this build has no kernel for it", op));
  auto shared = std::make_shared<std::vector<Stack>>(std::move(operands));
  b.call = [fn, shared](size_t c) {
    Stack s = (*shared)[c];
    fn(s);
  };
  return b;
}

OpRow op_row(const OpBench& b, const BenchRow& r, double peak_per_core, int physical_cores) {
  OpRow o;
  o.row = &r;
  if (!r.measured) return o;
  // Every caller does one op per call: throughput counts them all.
  o.gflops = b.flops * r.throughput_per_s / 1e9;
  if (r.setting.concurrency == 1 && r.latency_ms.p50 > 0) o.gflops = b.flops / (r.latency_ms.p50 / 1000.0) / 1e9;
  o.gflops_best = r.latency_ms.min > 0 ? b.flops / (r.latency_ms.min / 1000.0) / 1e9 * r.setting.concurrency : 0;
  const int used = std::min(r.setting.intra_op_threads * r.setting.concurrency, std::max(1, physical_cores));
  o.peak_gflops = peak_per_core * used;
  o.pct_of_peak = o.peak_gflops > 0 ? o.gflops / o.peak_gflops * 100.0 : 0;
  return o;
}

std::string op_text_header(const OpBench& b, double peak_per_core) {
  const MachineInfo& m = machine_info();
  std::string s = fmt::format("--op {} --size {}: {} ({:.3g} GFLOP a call)\n", b.op, b.size, b.shape, b.flops / 1e9);
  s += fmt::format("machine: {}; {} core{} x {} thread{} per core; {}; measured fp32 peak {:.1f} GFLOP/s per core "
                   "(independent FMAs); {}\n",
                   m.cpu, m.physical_cores, m.physical_cores == 1 ? "" : "s", m.threads_per_core,
                   m.threads_per_core == 1 ? "" : "s", m.isa, peak_per_core, m.openmp_runtime);
  s += fmt::format("{:>7} {:>7} {:>10} {:>10} {:>10} {:>10} {:>11} {:>8} {:>8}\n", "threads", "callers", "p50 ms", "min ms",
                   "GFLOP/s", "best", "peak", "% peak", "spread");
  return s;
}

std::string op_text_row(const OpRow& o, int cores) {
  const BenchRow& r = *o.row;
  if (!r.measured)
    return fmt::format("{:>7} {:>7}  skipped: {}\n", r.setting.intra_op_threads, r.setting.concurrency, r.skipped);
  const std::string spread = r.rounds >= 2 ? fmt::format("{:.1f}%", r.p50_spread_pct) : "-";
  return fmt::format("{:>7} {:>7} {:>10.3f} {:>10.3f} {:>10.1f} {:>10.1f} {:>11.1f} {:>7.1f}% {:>8}{}\n",
                     r.setting.intra_op_threads, r.setting.concurrency, r.latency_ms.p50, r.latency_ms.min, o.gflops,
                     o.gflops_best, o.peak_gflops, o.pct_of_peak, spread,
                     r.setting.intra_op_threads * r.setting.concurrency > cores ? "  ! more threads than cores" : "");
}

std::string op_csv_header() {
  return "intra_op_threads,concurrency,p50_ms,min_ms,gflops,gflops_best,peak_gflops,pct_of_peak,p50_spread_pct,rounds,status\n";
}

std::string op_csv_row(const OpRow& o) {
  const BenchRow& r = *o.row;
  if (!r.measured) return fmt::format("{},{},,,,,,,,0,skipped\n", r.setting.intra_op_threads, r.setting.concurrency);
  return fmt::format("{},{},{:.4f},{:.4f},{:.2f},{:.2f},{:.2f},{:.2f},{:.2f},{},measured\n", r.setting.intra_op_threads,
                     r.setting.concurrency, r.latency_ms.p50, r.latency_ms.min, o.gflops, o.gflops_best, o.peak_gflops,
                     o.pct_of_peak, r.p50_spread_pct, r.rounds);
}

nlohmann::ordered_json op_report_json(const OpBench& b, const SweepOptions& o, const SweepResult& res, double peak_per_core) {
  const MachineInfo& m = machine_info();
  nlohmann::ordered_json j;
  j["op"] = b.op;
  j["size"] = b.size;
  j["shape"] = b.shape;
  j["flops_per_call"] = b.flops;
  j["machine"] = machine_json(m);
  j["machine"]["fp32_peak_gflops_per_core"] = round4(peak_per_core);
  j["warmup"] = o.warmup;
  j["iters"] = o.iters;
  j["rounds"] = res.rounds_planned;
  j["rounds_run"] = res.rounds_run;
  j["seconds"] = round4(res.seconds);
  j["rows"] = nlohmann::ordered_json::array();
  for (const auto& r : res.rows) {
    const OpRow x = op_row(b, r, peak_per_core, m.physical_cores);
    auto v = [&](double d) { return r.measured ? nlohmann::ordered_json(round4(d)) : nlohmann::ordered_json(nullptr); };
    j["rows"].push_back({{"intra_op_threads", r.setting.intra_op_threads},
                         {"inter_op_threads", r.setting.inter_op_threads},
                         {"concurrency", r.setting.concurrency},
                         {"latency_ms", {{"p50", v(r.latency_ms.p50)}, {"p90", v(r.latency_ms.p90)}, {"p99", v(r.latency_ms.p99)},
                                         {"min", v(r.latency_ms.min)}, {"mean", v(r.latency_ms.mean)}}},
                         {"throughput_per_s", v(r.throughput_per_s)},
                         {"first_call_ms", v(r.first_call_ms)},
                         {"status", r.measured ? "measured" : "skipped"},
                         {"rounds", r.rounds},
                         {"gflops", v(x.gflops)},
                         {"gflops_best", v(x.gflops_best)},
                         {"peak_gflops", v(x.peak_gflops)},
                         {"pct_of_peak", v(x.pct_of_peak)},
                         {"spread_pct", {{"p50", v(r.p50_spread_pct)}}}});
  }
  return j;
}

}  // namespace jitctl
