#pragma once
// `bench --device cuda`: latency and throughput of a method on the GPU. Inputs are copied to the
// device once and outputs stay there, as PyTorch's own GPU benchmarks measure (a call is timed
// from its launch until the stream is done); the calls after the first with the same shapes are
// replayed as one CUDA graph unless graphs are off (lib/runtime/device_runner.h).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lib/core/ivalue.h"
#include "lib/runtime/interpreter.h"

namespace jitctl {

struct DeviceBenchOptions {
  int warmup = 3;
  int iters = 20;
  int rounds = 3;
  bool graphs = true;
  bool tf32 = false;
};

struct DeviceBenchResult {
  std::string device;      // "cuda:0 NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79.6 GiB)"
  std::string versions;    // CUDA runtime, driver, cuBLAS, cuDNN
  std::string graph_note;  // "replayed as a CUDA graph", "not captured: ..."
  double first_call_ms = 0;  // parameters copied, cuDNN algorithms chosen
  std::vector<double> ms;    // every timed call
  int64_t batch = 0;         // the first tensor argument's first dimension (0: none)
  size_t memory_in_use = 0, memory_reserved = 0;
  bool tf32 = false;
  std::vector<std::string> host_ops;  // ops that ran on the host (no device kernel took them)
};

DeviceBenchResult bench_on_device(const Method& m, const std::vector<IValue>& args, const DeviceBenchOptions& opt);
std::string device_bench_text(const std::string& model, const DeviceBenchResult& r);
nlohmann::ordered_json device_bench_json(const std::string& model, const std::string& method, const DeviceBenchResult& r);

}  // namespace jitctl
