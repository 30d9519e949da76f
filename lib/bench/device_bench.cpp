#include "lib/bench/device_bench.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>

#include "kernels/cuda_backend.h"
#include "lib/bench/statistics.h"
#include "lib/core/describe.h"
#include "lib/runtime/device_dispatch.h"
#include "lib/runtime/device_runner.h"
#include "lib/runtime/op_profile.h"

namespace jitctl {
namespace {

double since_ms(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

int64_t batch_of(const std::vector<IValue>& args) {
  for (const IValue& a : args)
    if (a.is_tensor() && a.to_tensor().defined()) return a.to_tensor().dim() ? a.to_tensor().sizes()[0] : 1;
  return 0;
}

}  // namespace

DeviceBenchResult bench_on_device(const Method& m, const std::vector<IValue>& args, const DeviceBenchOptions& opt) {
  CudaBackend* dev = run_device();
  if (!dev) throw std::logic_error("bench_on_device without a selected device");
  DeviceBenchResult r;
  for (const CudaDeviceInfo& d : dev->devices())
    if (d.index == dev->selected())
      r.device = fmt::format("cuda:{} {} (sm_{}{}, {} SMs, {})", d.index, d.name, d.major, d.minor, d.multiprocessors, human_bytes(d.memory_bytes));
  r.versions = dev->versions();
  r.batch = batch_of(args);
  r.tf32 = opt.tf32;
  DeviceRunner runner(m, opt.graphs);
  std::vector<IValue> dargs;
  for (const IValue& a : args) dargs.push_back(values_to_device(a));
  dev->synchronize();
  auto t0 = std::chrono::steady_clock::now();
  runner.on_device(dargs);
  dev->synchronize();
  r.first_call_ms = since_ms(t0);
  // The second call is the one captured; warm-up covers it.
  for (int i = 0; i < std::max(opt.warmup, 2); ++i) runner.on_device(dargs);
  dev->synchronize();
  op_profile_reset();
  const int per_round = std::max(1, opt.iters / std::max(1, opt.rounds));
  for (int round = 0; round < opt.rounds; ++round)
    for (int i = 0; i < per_round; ++i) {
      t0 = std::chrono::steady_clock::now();
      runner.on_device(dargs);
      dev->synchronize();
      r.ms.push_back(since_ms(t0));
    }
  r.graph_note = runner.graph_note();
  r.host_ops = ops_run_on_host();
  r.memory_in_use = dev->memory_in_use();
  r.memory_reserved = dev->memory_reserved();
  return r;
}

std::string device_bench_text(const std::string& model, const DeviceBenchResult& r) {
  std::vector<double> s = r.ms;
  std::sort(s.begin(), s.end());
  const double p50 = percentile(s, 50);
  std::string out = fmt::format("model    {}\ndevice   {}\nlibrary  {}\nmath     {}\ngraph    {}\n", model, r.device, r.versions,
                                r.tf32 ? "TF32 tensor cores allowed (--tf32)" : "fp32 (no TF32)", r.graph_note);
  out += fmt::format("first call  {:.3f} ms (parameters copied to the device, cuDNN algorithms chosen)\n", r.first_call_ms);
  out += fmt::format("latency     p50 {:.3f} ms  min {:.3f}  p90 {:.3f}  ({} calls, inputs resident on the device)\n", p50, s.front(),
                     percentile(s, 90), s.size());
  out += fmt::format("throughput  {:.1f} calls/s", 1000.0 / p50);
  if (r.batch > 1) out += fmt::format(", {:.0f} items/s (batch {})", 1000.0 / p50 * static_cast<double>(r.batch), r.batch);
  out += fmt::format("\nmemory      {} in use, {} held by the caching allocator\n", human_bytes(r.memory_in_use), human_bytes(r.memory_reserved));
  out += r.host_ops.empty() ? std::string("host ops    none: every op ran on the GPU\n")
                            : fmt::format("host ops    {} (no CUDA kernel takes their case: copied to the host and back)\n", fmt::join(r.host_ops, ", "));
  return out;
}

nlohmann::ordered_json device_bench_json(const std::string& model, const std::string& method, const DeviceBenchResult& r) {
  std::vector<double> s = r.ms;
  std::sort(s.begin(), s.end());
  nlohmann::ordered_json j;
  j["model"] = model;
  j["method"] = method;
  j["device"] = r.device;
  j["versions"] = r.versions;
  j["tf32"] = r.tf32;
  j["graph"] = r.graph_note;
  j["first_call_ms"] = r.first_call_ms;
  j["calls"] = s.size();
  j["p50_ms"] = percentile(s, 50);
  j["min_ms"] = s.front();
  j["p90_ms"] = percentile(s, 90);
  j["calls_per_s"] = 1000.0 / percentile(s, 50);
  j["batch"] = r.batch;
  j["items_per_s"] = r.batch > 0 ? 1000.0 / percentile(s, 50) * static_cast<double>(r.batch) : 0.0;
  j["memory_in_use_bytes"] = r.memory_in_use;
  j["memory_reserved_bytes"] = r.memory_reserved;
  j["host_ops"] = r.host_ops;
  j["ms"] = r.ms;
  return j;
}

}  // namespace jitctl
