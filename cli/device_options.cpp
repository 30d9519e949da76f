#include "cli/device_options.h"

#include "lib/core/device.h"
#include "lib/core/error.h"
#include "lib/runtime/device_dispatch.h"

namespace jitctl::cli {

void add_device_options(CLI::App& cmd, DeviceOptions& o) {
  cmd.add_option("--device", o.device, "where the model runs: cpu, cuda or cuda:N (parameters are copied to the GPU once)")
      ->check([](const std::string& s) -> std::string {
        auto d = Device::parse(s);
        if (!d || d->type == Device::Type::Meta) return "expected cpu, cuda or cuda:N, got '" + s + "'";
        return "";
      })
      ->capture_default_str();
  cmd.add_flag("--tf32", o.tf32, "with --device cuda: let fp32 matrix products and convolutions use TF32 tensor cores (faster; about 3 fewer significant digits)");
}

void select_device(const DeviceOptions& o) {
  const auto d = Device::parse(o.device);
  if (!d || d->type != Device::Type::CUDA) {
    if (o.tf32) throw InvalidInput("--tf32 needs --device cuda");
    return;
  }
  select_run_device(*d, o.tf32);
}

}  // namespace jitctl::cli
