#pragma once
// Calls of a method on the selected CUDA device (device_dispatch.h), as `run` and `bench` make
// them: tensor arguments copied in, outputs copied back to the host. With graphs on, the second
// call with the same argument shapes and values of non-tensor arguments is captured as a CUDA
// graph, and later such calls copy their tensors into the captured inputs and replay it: one
// launch instead of one per kernel (launches are most of a batch-1 CNN's time on a fast GPU).
// A method that cannot be captured (it reads device values on the host, runs an op on the host,
// sets module attributes, draws random numbers...) keeps running op by op; graph_note() says why.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lib/core/ivalue.h"
#include "lib/runtime/interpreter.h"

namespace jitctl {

class CudaGraph;

class DeviceRunner {
 public:
  DeviceRunner(Method method, bool graphs);
  ~DeviceRunner();
  // Host arguments in, host outputs out.
  IValue operator()(const std::vector<IValue>& args);
  // Arguments already on the device (values_to_device) in, device outputs out, not waited for
  // (what `bench` times, as PyTorch's own benchmarks do: inputs resident, outputs left there).
  // The outputs of a replayed graph are overwritten by the next call.
  IValue on_device(const std::vector<IValue>& device_args);
  // "replayed as a CUDA graph", "not captured: <why>", "graphs off", "not captured yet".
  std::string graph_note() const;

 private:
  struct Captured;
  Method method_;
  bool graphs_;
  std::map<std::string, int> calls_;  // per argument signature
  std::map<std::string, std::unique_ptr<Captured>> captured_;
  std::map<std::string, std::string> not_capturable_;
  std::string last_note_;
};

}  // namespace jitctl
