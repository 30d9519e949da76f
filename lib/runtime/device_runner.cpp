#include "lib/runtime/device_runner.h"

#include <fmt/format.h>

#include <optional>

#include "kernels/cuda_backend.h"
#include "lib/core/dtype.h"
#include "lib/runtime/device_dispatch.h"

namespace jitctl {
namespace {

// What a captured graph bakes in: the tensors' dtypes and shapes, every other argument's value.
// nullopt for arguments that a graph cannot be keyed on (objects, futures).
std::optional<std::string> signature(const IValue& v) {
  switch (v.kind()) {
    case IValue::Kind::Tensor: {
      const Tensor& t = v.to_tensor();
      if (!t.defined()) return "undef";
      return fmt::format("{}{}", dtype_name(t.dtype()), shape_string(t.sizes()));
    }
    case IValue::Kind::None: return "None";
    case IValue::Kind::Bool: return v.to_bool() ? "True" : "False";
    case IValue::Kind::Int: return std::to_string(v.to_int());
    case IValue::Kind::Double: return fmt::format("{}", v.to_double());
    case IValue::Kind::String: return "'" + v.to_string() + "'";
    case IValue::Kind::List:
    case IValue::Kind::Tuple: {
      const auto& items = v.is(IValue::Kind::List) ? v.to_list()->items : v.to_tuple()->items;
      std::string s = "(";
      for (const IValue& x : items) {
        auto e = signature(x);
        if (!e) return std::nullopt;
        s += *e + ",";
      }
      return s + ")";
    }
    default: return std::nullopt;
  }
}

// The tensors of `v`, in order (what is copied into a captured graph's inputs).
void tensors_of(const IValue& v, std::vector<Tensor>& out) {
  if (v.is_tensor()) {
    if (v.to_tensor().defined()) out.push_back(v.to_tensor());
  } else if (v.is(IValue::Kind::List)) {
    for (const IValue& x : v.to_list()->items) tensors_of(x, out);
  } else if (v.is(IValue::Kind::Tuple)) {
    for (const IValue& x : v.to_tuple()->items) tensors_of(x, out);
  }
}

}  // namespace

struct DeviceRunner::Captured {
  std::vector<Tensor> inputs;  // device tensors the graph reads
  IValue outputs;              // device values the graph writes
  std::unique_ptr<CudaGraph> graph;
};

DeviceRunner::DeviceRunner(Method method, bool graphs) : method_(std::move(method)), graphs_(graphs) {
  last_note_ = graphs_ ? "not captured yet" : "graphs off";
}

DeviceRunner::~DeviceRunner() = default;

IValue DeviceRunner::operator()(const std::vector<IValue>& args) {
  std::vector<IValue> dargs;
  for (const IValue& a : args) dargs.push_back(values_to_device(a));
  return values_to_host(on_device(dargs));
}

IValue DeviceRunner::on_device(const std::vector<IValue>& args) {
  CudaBackend* dev = run_device();
  if (!dev) throw std::logic_error("DeviceRunner without a selected device");
  std::optional<std::string> key;
  if (graphs_) {
    std::string k;
    key = k;
    for (const IValue& a : args) {
      auto s = signature(a);
      if (!s) {
        key.reset();
        last_note_ = "not captured: an argument a graph cannot be keyed on";
        break;
      }
      k += *s + ";";
      key = k;
    }
  }
  if (key) {
    if (auto it = captured_.find(*key); it != captured_.end()) {
      Captured& c = *it->second;
      std::vector<Tensor> given;
      for (const IValue& a : args) tensors_of(a, given);
      for (size_t i = 0; i < given.size(); ++i)
        if (!given[i].same(c.inputs[i])) dev->copy_device(given[i], c.inputs[i]);
      c.graph->replay();
      last_note_ = "replayed as a CUDA graph";
      return c.outputs;
    }
    if (++calls_[*key] >= 2 && !not_capturable_.count(*key)) {
      auto c = std::make_unique<Captured>();
      for (const IValue& a : args) tensors_of(a, c->inputs);
      dev->synchronize();
      std::string why;
      dev->begin_capture();
      try {
        c->outputs = method_(args);
      } catch (const std::exception& e) {
        why = e.what();
      }
      std::unique_ptr<CudaGraph> graph = dev->end_capture();
      if (why.empty() && !graph) why = "the stream capture was invalidated";
      if (why.empty()) {
        c->graph = std::move(graph);
        c->graph->replay();
        IValue out = c->outputs;
        captured_[*key] = std::move(c);
        last_note_ = "replayed as a CUDA graph";
        return out;
      }
      not_capturable_[*key] = why;
      last_note_ = "not captured: " + why;
    }
  }
  return method_(args);
}

std::string DeviceRunner::graph_note() const { return last_note_; }

}  // namespace jitctl
