#pragma once
// Shared by the preparers of prepare.cpp (convolutions, linears, batch norm + ReLU, the layout
// analysis) and prepare_cat_shuffle.cpp (concatenations and channel shuffles), which need each
// other: the layout analysis lets a concatenation's parts and a shuffle's input stay
// channels-last because those groups take them, and those groups ask it about their outputs.
// Not for other files.
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lib/runtime/prepare.h"

namespace jitctl::prepare_detail {

inline bool is_kind(const Node* n, std::initializer_list<std::string_view> kinds) {
  const std::string_view k = n->kind().qual_string();
  for (auto x : kinds)
    if (k == x) return true;
  return false;
}

inline bool is_tensor_value(const Value* v) { return v->type()->kind() == TypeKind::Tensor; }

const FunctionSchema* schema_of(const Node* n);

// A weight, bias or batch-norm parameter: a constant of the graph (a frozen module's), None, or
// an input of the instruction (a module attribute the method reads and never writes).
struct Param {
  std::optional<Tensor> constant;
  int slot = -1;  // input of the instruction

  // The tensor for this call (undefined for None); false when the input is not a tensor.
  bool get(const Stack& in, Tensor& out) const {
    if (constant) {
      out = *constant;
      return true;
    }
    if (slot < 0) {
      out = Tensor();
      return true;
    }
    const IValue& v = in[static_cast<size_t>(slot)];
    if (v.is_none()) {
      out = Tensor();
      return true;
    }
    if (!v.is_tensor()) return false;
    out = v.to_tensor();
    return true;
  }
};

// One argument of an original node replayed through its kernel.
struct Arg {
  enum class Kind { Const, Slot, Output } kind = Kind::Const;
  IValue value;      // Const
  size_t index = 0;  // Slot: an input of the instruction; Output: an earlier step's output
};

struct Step {
  KernelFn fn = nullptr;
  std::vector<Arg> args;
};

// An argument's value for this call; `outs` holds the earlier steps' outputs.
const IValue& arg_value(const Arg& a, const Stack& in, const std::vector<IValue>& outs);

// One step's kernel on its arguments: its output.
IValue call(const Step& st, const Stack& in, const std::vector<IValue>& outs);

// The group's original nodes one by one (inputs it does not take, and PyTorch's own messages):
// the last step's output. `after(i, out)`, if given, sees each output before later steps read it.
Tensor replay(const std::vector<Step>& steps, const Stack& in, const std::function<void(size_t, IValue&)>& after = nullptr);

// Inputs and replay steps of a group being matched.
struct GroupBuilder {
  PreparedGroup g;
  std::vector<Step> steps;
  std::vector<Value*> attributes;                  // parameters read from module attributes
  std::unordered_map<const Value*, size_t> outputs;  // a value a step defines: that step

  size_t slot_of(Value* v);

  // A weight, bias or batch-norm parameter: a constant tensor (or None when `optional`), or a
  // tensor read from a module attribute (prim::GetAttr) that this graph never assigns.
  std::optional<Param> param(Value* v, bool optional);

  // How a step reads `v`: an earlier step's output, a constant, else an input of the instruction.
  Arg arg_of(Value* v);

  // Replays `n` after the steps added before it, reading their outputs where it reads them.
  void add_step(Node* n, KernelFn fn);

  // The attribute parameters are read, never written: no node outside the group may write a
  // value read from an attribute of the same name anywhere in the graph (another read of the
  // same parameter, written in place, would leave the packed copy stale).
  bool attributes_read_only() const;
};

// Whether the nodes strictly between `a` and `b` (same block), other than the group's own,
// leave every tensor as it was: then the group's first node may run where its last one is.
bool pure_between(const Node* a, const Node* b, const std::vector<Node*>& group);

// Whether `v` may be left channels-last: every reader takes any layout (prepare.cpp).
bool channels_last_ok(const Value* v, std::unordered_map<const Value*, bool>& memo, int depth = 0);

// ---- prepare_cat_shuffle.cpp -------------------------------------------------------------------

// ShuffleNet's channel shuffle as traced: `view(x, [N, g, C/g, H, W]) -> transpose(1, 2) ->
// contiguous() -> view([N, C, H, W])`, each value read by the next alone, in one block. Its
// sizes are computed (from x.size()) and checked at run time. The layout analysis lets x be
// channels-last for it, so prepare_group must take every chain it finds (lookups of these four
// kernels never fail).
struct ShuffleChain {
  Node* view5 = nullptr;
  Node* transpose = nullptr;
  Node* contiguous = nullptr;
  Node* view4 = nullptr;
};

std::optional<ShuffleChain> channel_shuffle_at(Node* n);

// `cat(ListConstruct(parts...), 1)`, the list read by the cat alone: the cat node, else null.
Node* channel_cat_of_list(const Node* list);

// The groups prepare_group dispatches to: a concatenation (with the channel shuffle or max pool
// that reads it) at its list, and a channel shuffle at its first view.
std::optional<PreparedGroup> prepare_cat(Node* list, KernelFn (*lookup)(const Node*), const std::function<bool(const Node*)>& taken);
std::optional<PreparedGroup> prepare_channel_shuffle(Node* view5, KernelFn (*lookup)(const Node*),
                                                     const std::function<bool(const Node*)>& taken);

}  // namespace jitctl::prepare_detail
