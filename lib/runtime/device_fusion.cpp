#include "lib/runtime/device_fusion.h"

#include <string>
#include <vector>

#include "kernels/cuda_backend.h"
#include "kernels/registry.h"
#include "lib/core/error.h"
#include "lib/ir/constants.h"
#include "lib/runtime/device_dispatch.h"
#include "lib/runtime/op_profile.h"

namespace jitctl {
namespace {

bool is(const Node* n, const char* kind) { return n->kind().qual_string() == kind; }
bool is_relu(const Node* n) { return is(n, "aten::relu") || is(n, "aten::relu_"); }
bool is_add(const Node* n) { return is(n, "aten::add") || is(n, "aten::add_"); }

// The one node reading `v`, in the same block, or nullptr.
Node* only_reader(const Value* v, const Node* producer) {
  if (v->uses().size() != 1) return nullptr;
  Node* u = v->uses()[0].user;
  return u->owning_block() == producer->owning_block() ? u : nullptr;
}

class ConvGroup final : public PreparedKernel {
 public:
  // conv_inputs: how many of the stack's values are the convolution's; convolution: the layout
  // of aten::_convolution (transposed and output_padding between dilation and groups).
  ConvGroup(KernelFn fused, size_t conv_inputs, bool convolution, std::shared_ptr<const PreparedKernel> conv,
            std::shared_ptr<const PreparedKernel> add, size_t add_slot, IValue alpha, std::shared_ptr<const PreparedKernel> relu)
      : fused_(fused), conv_inputs_(conv_inputs), convolution_(convolution), conv_(std::move(conv)), add_(std::move(add)),
        add_slot_(add_slot), alpha_(std::move(alpha)), relu_(std::move(relu)) {}

  void run(Stack& s) const override {
    if (fused_ && s[0].is_tensor() && s[0].to_tensor().storage()->in_device_memory()) {
      Stack f;
      f.reserve(9);
      for (size_t i = 0; i < 6; ++i) f.push_back(s[i]);
      f.push_back(convolution_ ? s[8] : s[6]);  // groups
      f.push_back(add_ ? s[conv_inputs_] : IValue());
      f.push_back(IValue(relu_ != nullptr));
      try {
        fused_(f);
        // JITCTL_PROFILE: the group's time is its device time, as for single ops (device_dispatch).
        if (profiling_) run_device()->synchronize();
        s.resize(1);
        s[0] = std::move(f[0]);
        return;
      } catch (const NotOnDevice&) {
      }
    }
    Stack c(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(conv_inputs_));
    conv_->run(c);
    IValue y = std::move(c[0]);
    if (add_) {
      Stack a(3);
      a[add_slot_] = std::move(y);
      a[1 - add_slot_] = s[conv_inputs_];
      a[2] = alpha_;
      add_->run(a);
      y = std::move(a[0]);
    }
    if (relu_) {
      Stack r{std::move(y)};
      relu_->run(r);
      y = std::move(r[0]);
    }
    s.resize(1);
    s[0] = std::move(y);
  }

 private:
  KernelFn fused_;
  size_t conv_inputs_;
  bool convolution_;
  std::shared_ptr<const PreparedKernel> conv_, add_;
  size_t add_slot_;
  IValue alpha_;
  std::shared_ptr<const PreparedKernel> relu_;
  const bool profiling_ = op_profile_enabled();
};

}  // namespace

std::optional<PreparedGroup> device_group(Node* n, const std::function<std::shared_ptr<const PreparedKernel>(const Node*)>& dispatch,
                                          const std::function<bool(const Node*)>& taken) {
  const bool conv2d = is(n, "aten::conv2d");
  const bool convolution = is(n, "aten::_convolution");
  if (!conv2d && !convolution) return std::nullopt;
  if (n->outputs().size() != 1 || n->inputs().size() < (convolution ? 9u : 7u)) return std::nullopt;
  if (convolution) {
    auto transposed = to_ivalue(n->input(6));
    if (!transposed || !transposed->is(IValue::Kind::Bool) || transposed->to_bool()) return std::nullopt;
  }
  PreparedGroup g;
  g.nodes.push_back(n);
  Node* next = only_reader(n->output(), n);
  Node* add = nullptr;
  size_t slot = 0;
  IValue alpha;
  if (next && is_add(next) && next->inputs().size() == 3 && !taken(next)) {
    slot = next->input(0) == n->output() ? 0 : 1;
    auto a = to_ivalue(next->input(2));
    const bool unit_alpha = a && ((a->is(IValue::Kind::Int) && a->to_int() == 1) || (a->is(IValue::Kind::Double) && a->to_double() == 1.0));
    // add_ writes its self: fused, only when self is the convolution's output (read by nobody else).
    const bool in_place_ok = !is(next, "aten::add_") || slot == 0;
    const bool tensor_other = next->input(1 - slot)->type()->cast<TensorType>() != nullptr;
    if (unit_alpha && in_place_ok && tensor_other && next->input(1 - slot) != n->output()) {
      add = next;
      alpha = *a;
      next = only_reader(add->output(), add);
    }
  }
  Node* relu = next && is_relu(next) && !taken(next) ? next : nullptr;
  if (!relu) return std::nullopt;  // cuDNN fuses a residual only together with an activation
  if (add) g.nodes.push_back(add);
  g.nodes.push_back(relu);
  for (Value* v : n->inputs()) g.inputs.push_back(v);
  if (add) g.inputs.push_back(add->input(1 - slot));
  g.output = relu->output();
  g.op = std::make_shared<ConvGroup>(find_kernel("jitctl::conv2d_fused", Backend::CUDA), n->inputs().size(), convolution, dispatch(n),
                                     add ? dispatch(add) : nullptr, slot, alpha, dispatch(relu));
  return g;
}

}  // namespace jitctl
