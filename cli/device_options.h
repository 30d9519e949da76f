#pragma once
// --device cpu|cuda[:N] and --tf32, alike on every command that runs a model (run, check-trace,
// bench). Selecting a GPU loads the CUDA backend (kernels/cuda_backend.h) and must happen before
// the model's methods are planned (lib/runtime/device_dispatch.h).
#include <CLI/CLI.hpp>

#include <string>

namespace jitctl::cli {

struct DeviceOptions {
  std::string device = "cpu";
  bool tf32 = false;
  bool on_cuda() const { return device != "cpu"; }
};

void add_device_options(CLI::App& cmd, DeviceOptions& o);

// Selects the device (nothing for cpu). Exit 2 with one line when there is no such GPU or this
// jitctl has no CUDA backend: "--device cuda: no CUDA device (...)".
void select_device(const DeviceOptions& o);

}  // namespace jitctl::cli
