#pragma once
// Running on the CUDA backend (kernels/cuda_backend.h). Once select_run_device() has chosen a GPU,
// every method planned from then on runs each operator node through a dispatcher that decides per
// call, from where its tensor inputs live:
//   - no input in device memory: the CPU kernel, as always;
//   - the node's CUDA kernel (or CUDA preparer) when there is one and it takes the case;
//   - else the CPU kernel on the device tensors as they are, which works for ops that only look
//     at sizes or build views (size, view, permute, ListConstruct...);
//   - else, once a CPU kernel has read device memory (DeviceMemoryRead), the fallback: inputs copied
//     to the host, the CPU kernel, outputs copied back (and arguments it writes written back).
// So every model that runs on the CPU runs with --device cuda, at the GPU's speed where the CUDA
// kernels reach, with one definition of each op's semantics.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels/prepared.h"
#include "lib/core/device.h"
#include "lib/core/ivalue.h"
#include "lib/ir/ir.h"
#include "lib/ops/schema.h"

namespace jitctl {

class CudaBackend;

// Loads the CUDA backend and selects `device` (cuda or cuda:N) for the methods planned from now
// on. Throws InvalidInput "--device cuda: no CUDA device (...)" when the backend cannot load or
// there is no such device.
CudaBackend& select_run_device(const Device& device, bool tf32);
// The backend selected by select_run_device, or nullptr (running on the CPU).
CudaBackend* run_device();

// The ops (schema names) that have run on the host so far for want of a device kernel that takes
// their case (what `bench --device cuda` reports: each costs copies and prevents a CUDA graph).
std::vector<std::string> ops_run_on_host();

// The dispatcher for node `n` (schema name `name`, CPU kernel `cpu`), when a device is selected.
std::shared_ptr<const PreparedKernel> device_dispatch(const Node* n, const FunctionSchema* schema, const std::string& name, KernelFn cpu);

// Copies every tensor in `v` (lists, tuples, dicts, objects' fields left alone) to the device or
// back to the host.
IValue values_to_device(const IValue& v);
IValue values_to_host(const IValue& v);

}  // namespace jitctl
