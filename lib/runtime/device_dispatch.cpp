#include "lib/runtime/device_dispatch.h"

#include <fmt/format.h>

#include <atomic>
#include <mutex>
#include <set>

#include "kernels/cuda_backend.h"
#include "lib/core/error.h"
#include "lib/ops/schema.h"
#include "lib/runtime/op_profile.h"
#include "lib/runtime/prepare.h"

namespace jitctl {
namespace {

CudaBackend* g_backend = nullptr;

std::mutex g_host_ops_mu;
std::set<std::string> g_host_ops;  // ops that ran on the host for want of a device kernel

void note_host_op(const std::string& name) {
  std::lock_guard lock(g_host_ops_mu);
  g_host_ops.insert(name);
}

bool in_device_memory(const IValue& v) {
  switch (v.kind()) {
    case IValue::Kind::Tensor: {
      const Tensor& t = v.to_tensor();
      return t.defined() && t.storage() && t.storage()->in_device_memory();
    }
    case IValue::Kind::List:
      for (const IValue& x : v.to_list()->items)
        if (in_device_memory(x)) return true;
      return false;
    case IValue::Kind::Tuple:
      for (const IValue& x : v.to_tuple()->items)
        if (in_device_memory(x)) return true;
      return false;
    case IValue::Kind::Dict:
      for (const auto& [k, x] : v.to_dict()->items)
        if (in_device_memory(k) || in_device_memory(x)) return true;
      return false;
    default: return false;
  }
}

// A factory's device argument (torch.zeros(..., device=x.device)) naming the GPU.
bool names_cuda(const IValue& v) { return v.is(IValue::Kind::Device) && v.to_device().type == Device::Type::CUDA; }

template <class F>
IValue map_tensors(const IValue& v, const F& f) {
  switch (v.kind()) {
    case IValue::Kind::Tensor: {
      const Tensor& t = v.to_tensor();
      return t.defined() && t.storage() ? IValue(f(t)) : v;
    }
    case IValue::Kind::List: {
      const auto& in = v.to_list();
      auto out = std::make_shared<ListData>();
      out->elem_type = in->elem_type;
      out->items.reserve(in->items.size());
      for (const IValue& x : in->items) out->items.push_back(map_tensors(x, f));
      return IValue(std::move(out));
    }
    case IValue::Kind::Tuple: {
      auto out = std::make_shared<TupleData>();
      for (const IValue& x : v.to_tuple()->items) out->items.push_back(map_tensors(x, f));
      return IValue(std::move(out));
    }
    case IValue::Kind::Dict: {
      const auto& in = v.to_dict();
      auto out = std::make_shared<DictData>();
      out->key_type = in->key_type;
      out->value_type = in->value_type;
      for (const auto& [k, x] : in->items) out->set(k, map_tensors(x, f));
      return IValue(std::move(out));
    }
    default: return v;
  }
}

class Dispatch final : public PreparedKernel {
 public:
  Dispatch(std::string name, KernelFn cpu, KernelFn cuda, std::shared_ptr<const PreparedKernel> cuda_prepared, std::vector<size_t> written,
           bool makes_tensors)
      : name_(std::move(name)), cpu_(cpu), cuda_(cuda), cuda_prepared_(std::move(cuda_prepared)), written_(std::move(written)),
        makes_tensors_(makes_tensors) {}

  void run(Stack& s) const override {
    bool on_device = false, device_arg = false;
    for (const IValue& v : s) {
      if (in_device_memory(v)) on_device = true;
      if (names_cuda(v)) device_arg = true;
    }
    if (!on_device && !(device_arg && makes_tensors_)) return cpu_(s);
    if (!on_device) return make_on_device(s);
    if (profiling_) {
      // JITCTL_PROFILE: each op's time is its device time (the interpreter times run()).
      run_on_device(s);
      run_device()->synchronize();
      return;
    }
    run_on_device(s);
  }

 private:
  void run_on_device(Stack& s) const {
    if (cuda_prepared_ || cuda_) {
      Stack saved = s;
      try {
        if (cuda_prepared_) cuda_prepared_->run(s);
        else cuda_(s);
        return;
      } catch (const NotOnDevice&) {
        s = std::move(saved);
      }
    }
    if (!needs_host_.load(std::memory_order_relaxed)) {
      Stack saved = s;
      try {
        return cpu_(s);  // sizes and views: the CPU kernel never reads the data
      } catch (const DeviceMemoryRead&) {
        needs_host_.store(true, std::memory_order_relaxed);
        s = std::move(saved);
      }
    }
    on_host(s);
  }

  // A factory given device=cuda (torch.zeros(..., device=x.device)): its CUDA kernel makes the
  // tensor on the GPU, which a graph capture can record; without one the CPU kernel makes it on
  // the host and it is copied over.
  void make_on_device(Stack& s) const {
    if (cuda_) {
      Stack saved = s;
      try {
        cuda_(s);
        if (profiling_) run_device()->synchronize();
        return;
      } catch (const NotOnDevice&) {
        s = std::move(saved);
      }
    }
    on_host(s);
  }

  // The CPU kernel on host copies; its tensor outputs go back to the device, and arguments it
  // writes (an in-place op's self, out=) are written back into their device tensors.
  void on_host(Stack& s) const {
    if (!noted_.exchange(true, std::memory_order_relaxed)) note_host_op(name_);
    std::vector<Tensor> device_args(s.size());
    for (size_t i : written_)
      if (i < s.size() && s[i].is_tensor() && in_device_memory(s[i])) device_args[i] = s[i].to_tensor();
    std::vector<Tensor> host_args(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
      s[i] = names_cuda(s[i]) ? IValue(Device{}) : values_to_host(s[i]);
      if (device_args[i].defined()) host_args[i] = s[i].to_tensor();
    }
    cpu_(s);
    for (IValue& v : s) {
      // An output that is a written argument is that argument, on the device.
      bool replaced = false;
      if (v.is_tensor())
        for (size_t i = 0; i < host_args.size() && !replaced; ++i)
          if (host_args[i].defined() && v.to_tensor().same(host_args[i])) {
            g_backend->copy_to(host_args[i], device_args[i]);
            v = IValue(device_args[i]);
            replaced = true;
          }
      if (!replaced) v = values_to_device(v);
    }
    for (size_t i = 0; i < host_args.size(); ++i)
      if (host_args[i].defined() && !host_args[i].same(device_args[i])) g_backend->copy_to(host_args[i], device_args[i]);
  }

  std::string name_;
  KernelFn cpu_, cuda_;
  std::shared_ptr<const PreparedKernel> cuda_prepared_;
  std::vector<size_t> written_;  // arguments the schema marks (a!)
  bool makes_tensors_;           // returns a Tensor: a factory given device=cuda makes it on the GPU
  mutable std::atomic<bool> needs_host_{false};
  mutable std::atomic<bool> noted_{false};
  const bool profiling_ = op_profile_enabled();
};

}  // namespace

CudaBackend& select_run_device(const Device& device, bool tf32) {
  std::string why;
  CudaBackend* b = cuda_backend(&why);
  if (!b) throw InvalidInput(fmt::format("--device {}: {}", device.str(), why));
  try {
    b->select(device.index, tf32);
  } catch (const InvalidInput& e) {
    throw InvalidInput(fmt::format("--device {}: {}", device.str(), e.what()));
  }
  g_backend = b;
  return *b;
}

CudaBackend* run_device() { return g_backend; }

std::vector<std::string> ops_run_on_host() {
  std::lock_guard lock(g_host_ops_mu);
  return {g_host_ops.begin(), g_host_ops.end()};
}

std::shared_ptr<const PreparedKernel> device_dispatch(const Node* n, const FunctionSchema* s, const std::string& name, KernelFn cpu) {
  KernelFn cuda = find_kernel(name, Backend::CUDA);
  std::shared_ptr<const PreparedKernel> prepared;
  if (PrepareFn prep = find_cuda_preparer(name)) {
    std::vector<std::optional<IValue>> constants;
    for (const Value* v : n->inputs()) constants.push_back(constant_of(v));
    prepared = prep(constants);
  }
  std::vector<size_t> written;
  if (s)
    for (size_t i = 0; i < s->arguments.size(); ++i)
      if (s->arguments[i].is_write()) written.push_back(i);
  bool makes_tensors = false;
  if (s)
    for (const Argument& r : s->returns) makes_tensors = makes_tensors || r.type->cast<TensorType>() != nullptr;
  return std::make_shared<Dispatch>(name, cpu, cuda, std::move(prepared), std::move(written), makes_tensors);
}

IValue values_to_device(const IValue& v) {
  if (!g_backend) return v;
  return map_tensors(v, [](const Tensor& t) { return g_backend->to_device(t); });
}

IValue values_to_host(const IValue& v) {
  if (!g_backend || !in_device_memory(v)) return v;
  return map_tensors(v, [](const Tensor& t) { return g_backend->to_host(t); });
}

}  // namespace jitctl
