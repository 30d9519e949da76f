// The GPU tests' main: without a usable GPU every test here is skipped (exit 77, which meson
// reports as SKIP) with the reason on stdout, never passed silently.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "kernels/cuda_backend.h"
#include "lib/runtime/device_dispatch.h"

int main(int argc, char** argv) {
  std::string why;
  jitctl::CudaBackend* b = jitctl::cuda_backend(&why);
  if (b && b->devices().empty()) why = b->no_device_reason();
  if (!b || b->devices().empty()) {
    std::printf("SKIP: the GPU tests need a CUDA device: %s\n", why.c_str());
    return 77;
  }
  jitctl::select_run_device(jitctl::Device{jitctl::Device::Type::CUDA, 0}, false);
  std::printf("GPU: %s; %s\n", b->devices()[0].name.c_str(), b->versions().c_str());
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
