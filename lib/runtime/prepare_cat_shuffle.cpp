// The concatenation and channel-shuffle groups of prepare_group (prepare.h). Each of these ops
// copies every value it reads; as groups they copy once where the nodes would copy two or three
// times, and they write channels-last where the nodes would write NCHW for the next convolution
// to convert back.
#include <algorithm>
#include <unordered_map>

#include "kernels/cpu/channel_shuffle.h"
#include "kernels/cpu/concat_nhwc.h"
#include "kernels/cpu/tensor_util.h"
#include "lib/runtime/prepare_internal.h"

namespace jitctl::prepare_detail {

namespace {

// A list of ints (a view's sizes) as numbers; false for anything else.
bool ints_of(const IValue& v, std::vector<int64_t>& out) {
  if (!v.is(IValue::Kind::List)) return false;
  out.clear();
  for (const IValue& e : v.to_list()->items) {
    if (!e.is(IValue::Kind::Int)) return false;
    out.push_back(e.to_int());
  }
  return true;
}

// A channel concatenation written channels-last, with the max pool that alone reads it.
class PreparedCat final : public PreparedKernel {
 public:
  // pool (may be null): a max_pool2d, the concatenation's only reader, with its other arguments.
  PreparedCat(KernelFn cat, IValue dim, bool channels_last_out, KernelFn pool = nullptr, std::vector<IValue> pool_args = {})
      : cat_(cat), dim_(std::move(dim)), channels_last_out_(channels_last_out), pool_(pool), pool_args_(std::move(pool_args)) {}

  void run(Stack& s) const override {
    // 4-D parts: dim 1 is the channels, which max pooling keeps apart, so each part is pooled
    // and the smaller results concatenated (the same values; a quarter of the copy at stride 2).
    // Other parts (unbatched images: dim 1 is the height) are concatenated, then pooled.
    const bool pool_parts = pool_ && std::all_of(s.begin(), s.end(), [](const IValue& v) { return v.is_tensor() && v.to_tensor().dim() == 4; });
    if (pool_parts)
      for (IValue& v : s) v = pooled(std::move(v));
    concat(s);
    if (pool_ && !pool_parts) s[0] = pooled(std::move(s[0]));
  }

 private:
  IValue pooled(IValue x) const {
    Stack ps{std::move(x)};
    ps.insert(ps.end(), pool_args_.begin(), pool_args_.end());
    pool_(ps);
    return std::move(ps.at(0));
  }

  void concat(Stack& s) const {
    std::vector<Tensor> parts;
    bool tensors = true;
    for (const IValue& v : s) {
      if (!v.is_tensor()) {
        tensors = false;
        break;
      }
      parts.push_back(v.to_tensor());
    }
    if (channels_last_out_ && tensors && cpu::concat_channels_last_ok(parts)) {
      s.assign(1, IValue(cpu::concat_channels_last(parts)));
      return;
    }
    auto list = std::make_shared<ListData>();
    list->items = std::move(s);
    Stack st{IValue(std::move(list)), dim_};
    cat_(st);
    s.assign(1, std::move(st.at(0)));
  }

  KernelFn cat_;
  IValue dim_;
  bool channels_last_out_;
  KernelFn pool_;
  std::vector<IValue> pool_args_;
};

// A channel shuffle (ShuffleChain) whose input is channels-last: one pass interleaving each
// pixel's channels into a channels-last output, where the ops would copy into NCHW order and the
// next convolution convert back. Other inputs, and sizes that are no shuffle, replay the ops.
class PreparedChannelShuffle final : public PreparedKernel {
 public:
  PreparedChannelShuffle(Arg split, Arg merged, bool channels_last_out, std::vector<Step> steps)
      : split_(std::move(split)), merged_(std::move(merged)), channels_last_out_(channels_last_out), steps_(std::move(steps)) {}

  void run(Stack& s) const override {
    const IValue& xv = s.at(0);
    if (xv.is_tensor()) {
      const Tensor& x = xv.to_tensor();
      const int64_t g = groups_of(x, s);
      if (g > 0 && channels_last_out_ && cpu::channel_shuffle_channels_last_ok(x, g)) {
        s.assign(1, IValue(cpu::channel_shuffle_channels_last(x, g)));
        return;
      }
      // Not a shuffle of these sizes: the ops on x in the layout PyTorch's producer gave it
      // (a view of a channels-last x would fail where PyTorch's contiguous one does not).
      if (g == 0 && !x.is_contiguous()) {
        Stack copy = s;
        copy[0] = IValue(cpu::contiguous(x));
        s.assign(1, IValue(replay(steps_, copy)));
        return;
      }
    }
    s.assign(1, IValue(replay(steps_, s)));
  }

 private:
  // The groups g when the views are a channel shuffle of x, else 0.
  int64_t groups_of(const Tensor& x, const Stack& s) const {
    std::vector<int64_t> a, b;
    if (x.dim() != 4 || !ints_of(arg_value(split_, s, {}), a) || !ints_of(arg_value(merged_, s, {}), b)) return 0;
    return cpu::channel_shuffle_groups(x.sizes(), a, b);
  }

  Arg split_, merged_;  // constants or inputs of the instruction
  bool channels_last_out_;
  std::vector<Step> steps_;
};

Node* only_reader(const Node* n, std::initializer_list<std::string_view> kinds) {
  if (n->outputs().size() != 1 || n->output()->uses().size() != 1) return nullptr;
  const Use& u = n->output()->uses()[0];
  if (u.offset != 0 || u.user->owning_block() != n->owning_block() || !is_kind(u.user, kinds)) return nullptr;
  return u.user;
}

}  // namespace

std::optional<ShuffleChain> channel_shuffle_at(Node* n) {
  ShuffleChain c;
  if (!is_kind(n, {"aten::view", "aten::reshape"}) || n->inputs().size() != 2) return std::nullopt;
  c.view5 = n;
  c.transpose = only_reader(n, {"aten::transpose"});
  if (!c.transpose || c.transpose->inputs().size() != 3) return std::nullopt;
  auto d0 = constant_of(c.transpose->input(1)), d1 = constant_of(c.transpose->input(2));
  if (!d0 || !d1 || !d0->is(IValue::Kind::Int) || !d1->is(IValue::Kind::Int)) return std::nullopt;
  const int64_t a = d0->to_int() < 0 ? d0->to_int() + 5 : d0->to_int(), b = d1->to_int() < 0 ? d1->to_int() + 5 : d1->to_int();
  if (std::min(a, b) != 1 || std::max(a, b) != 2) return std::nullopt;
  c.contiguous = only_reader(c.transpose, {"aten::contiguous"});
  if (!c.contiguous || c.contiguous->inputs().size() != 2) return std::nullopt;
  auto format = constant_of(c.contiguous->input(1));  // torch.contiguous_format is 0
  if (!format || !format->is(IValue::Kind::Int) || format->to_int() != 0) return std::nullopt;
  c.view4 = only_reader(c.contiguous, {"aten::view", "aten::reshape"});
  if (!c.view4 || c.view4->inputs().size() != 2) return std::nullopt;
  // Nothing that writes between them, so that the four can run as one instruction at the last.
  if (!pure_between(c.view5, c.view4, {c.view5, c.transpose, c.contiguous, c.view4})) return std::nullopt;
  return c;
}

// `cat(ListConstruct(parts...), 1)`, the list read by the cat alone: the cat node, else null.
Node* channel_cat_of_list(const Node* list) {
  if (list->kind().qual_string() != "prim::ListConstruct" || list->output()->uses().size() != 1) return nullptr;
  Node* cat = list->output()->uses()[0].user;
  if (cat->kind().qual_string() != "aten::cat" || cat->inputs().size() != 2 || cat->input(0) != list->output()) return nullptr;
  if (cat->owning_block() != list->owning_block()) return nullptr;
  auto dim = constant_of(cat->input(1));
  if (!dim || !dim->is(IValue::Kind::Int) || dim->to_int() != 1) return nullptr;
  for (const Value* v : list->inputs())
    if (!is_tensor_value(v)) return nullptr;
  return cat;
}

namespace {

// ShuffleNet's block end: `cat([a, b], 1)`, then the channel shuffle (ShuffleChain) of the
// result, whose view sizes torchvision computes from the concatenation's (aten::size,
// NumToTensor, floor_divide, Int, ListConstruct). The concatenation and the shuffle would each
// copy every value; here each pixel's shuffled channels are written straight from the parts, in
// one pass, channels-last. The size computations run on the parts' sizes (no concatenation
// needed for them). Other inputs, and sizes that are no shuffle, replay every node.
class PreparedCatShuffle final : public PreparedKernel {
 public:
  // A step's part on the fast path, kept beside the steps (which the other inputs replay).
  struct Sizing {
    std::optional<int64_t> size_dim;  // aten::size(cat, dim): on the fast path, the concatenation's size
    bool sizes = false;     // a size computation (not the concatenation, not the shuffle's views)
  };

  PreparedCatShuffle(size_t parts, size_t cat_step, Arg split, Arg merged, bool channels_last_out, std::vector<Step> steps,
                     std::vector<Sizing> sizing)
      : parts_(parts), cat_step_(cat_step), split_(std::move(split)), merged_(std::move(merged)), channels_last_out_(channels_last_out),
        steps_(std::move(steps)), sizing_(std::move(sizing)) {}

  void run(Stack& s) const override {
    if (channels_last_out_) {
      std::vector<Tensor> parts;
      for (size_t i = 0; i < parts_; ++i) {
        if (!s.at(i).is_tensor()) break;
        parts.push_back(s[i].to_tensor());
      }
      std::vector<int64_t> cat;
      if (parts.size() == parts_ && same_image(parts, cat)) {
        std::vector<IValue> locals(steps_.size());
        bool ok = true;
        for (size_t i = 0; i < steps_.size() && ok; ++i) {
          const Sizing& st = sizing_[i];
          if (!st.sizes) continue;
          if (st.size_dim) {
            const int64_t d = *st.size_dim < 0 ? *st.size_dim + 4 : *st.size_dim;
            ok = d >= 0 && d < 4;
            if (ok) locals[i] = IValue(cat[static_cast<size_t>(d)]);
            continue;
          }
          locals[i] = call(steps_[i], s, locals);
        }
        std::vector<int64_t> a, b;
        const int64_t g = ok && ints_of(arg_value(split_, s, locals), a) && ints_of(arg_value(merged_, s, locals), b) ? cpu::channel_shuffle_groups(cat, a, b) : 0;
        if (g > 0 && cpu::channel_shuffle_parts_channels_last_ok(parts, g)) {
          s.assign(1, IValue(cpu::channel_shuffle_parts_channels_last(parts, g)));
          return;
        }
        // A group across two parts (three groups of 16 over 24 + 24 channels): two passes.
        if (g > 0 && cpu::concat_channels_last_ok(parts)) {
          const Tensor x = cpu::concat_channels_last(parts);
          if (cpu::channel_shuffle_channels_last_ok(x, g)) {
            s.assign(1, IValue(cpu::channel_shuffle_channels_last(x, g)));
            return;
          }
        }
      }
    }
    Tensor out = replay(steps_, s, [this](size_t i, IValue& v) {
      // The parts may be channels-last where PyTorch's are contiguous: its concatenation then
      // is too, and a view PyTorch can take of it must not fail here.
      if (i == cat_step_ && v.is_tensor() && !v.to_tensor().is_contiguous()) v = IValue(cpu::contiguous(v.to_tensor()));
    });
    s.assign(1, IValue(std::move(out)));
  }

 private:
  // 4-D parts of one N, H and W: the sizes of their concatenation along the channels.
  static bool same_image(const std::vector<Tensor>& parts, std::vector<int64_t>& cat) {
    for (const Tensor& t : parts)
      if (t.dim() != 4 || t.sizes()[0] != parts[0].sizes()[0] || t.sizes()[2] != parts[0].sizes()[2] || t.sizes()[3] != parts[0].sizes()[3])
        return false;
    cat = {parts[0].sizes()[0], 0, parts[0].sizes()[2], parts[0].sizes()[3]};
    for (const Tensor& t : parts) cat[1] += t.sizes()[1];
    return true;
  }

  size_t parts_, cat_step_;
  Arg split_, merged_;
  bool channels_last_out_;
  std::vector<Step> steps_;
  std::vector<Sizing> sizing_;
};

// aten::max_pool2d(cat, constant arguments), the concatenation's only reader: its node, else null.
Node* max_pool_reading(const Node* cat, const std::function<bool(const Node*)>& taken) {
  if (cat->output()->uses().size() != 1) return nullptr;
  Node* pool = cat->output()->uses()[0].user;
  const FunctionSchema* s = schema_of(pool);
  if (!s || s->name != "aten::max_pool2d" || !s->overload_name.empty() || pool->inputs().size() != 6 || pool->input(0) != cat->output() ||
      pool->owning_block() != cat->owning_block() || taken(pool))
    return nullptr;
  for (size_t i = 1; i < pool->inputs().size(); ++i)
    if (!constant_of(pool->input(i))) return nullptr;
  return pool;
}

// The concatenation at `list` and the channel shuffle of its result, with the size computations
// between them (PreparedCatShuffle), when every node from the list to the shuffle's last view is
// one of them or a constant, and no value they define is read after.
std::optional<PreparedGroup> prepare_cat_shuffle(Node* list, Node* cat, KernelFn (*lookup)(const Node*),
                                                 const std::function<bool(const Node*)>& taken) {
  using CS = PreparedCatShuffle;
  std::optional<ShuffleChain> chain;
  for (const Use& u : cat->output()->uses()) {
    if (is_kind(u.user, {"aten::size"})) continue;
    if (chain || u.offset != 0 || !(chain = channel_shuffle_at(u.user))) return std::nullopt;
  }
  if (!chain) return std::nullopt;
  const std::vector<Node*> views{chain->view5, chain->transpose, chain->contiguous, chain->view4};
  std::vector<Node*> nodes{list};
  for (Node* n = list->next(); n; n = n->next()) {
    if (n->kind().qual_string() == "prim::Constant") {
      if (n == chain->view4) return std::nullopt;
      continue;
    }
    nodes.push_back(n);
    if (n == chain->view4) break;
  }
  if (nodes.back() != chain->view4) return std::nullopt;
  GroupBuilder b;
  for (Value* v : list->inputs()) b.slot_of(v);
  std::vector<CS::Sizing> sizing;
  size_t cat_step = 0;
  for (Node* n : nodes) {
    const KernelFn fn = lookup(n);
    if (taken(n) || !fn || !n->blocks().empty() || n->outputs().size() != 1) return std::nullopt;
    const bool is_view = std::find(views.begin(), views.end(), n) != views.end();
    CS::Sizing st;
    st.sizes = n != list && n != cat && !is_view;
    if (st.sizes) {
      // Pure, and reading the concatenation only for its sizes.
      const std::string_view k = n->kind().qual_string();
      const FunctionSchema* s = schema_of(n);
      if (k != "prim::ListConstruct" && k != "prim::NumToTensor" && (!k.starts_with("aten::") || !s || s->is_mutable())) return std::nullopt;
      for (const Value* in : n->inputs())
        if (in == cat->output()) {
          auto d = n->inputs().size() == 2 && is_kind(n, {"aten::size"}) ? constant_of(n->input(1)) : std::nullopt;
          if (!d || !d->is(IValue::Kind::Int)) return std::nullopt;
          st.size_dim = d->to_int();
        }
    }
    if (n == cat) cat_step = b.steps.size();
    b.add_step(n, fn);
    sizing.push_back(std::move(st));
  }
  for (Node* n : nodes)
    for (const Use& u : n->output()->uses())
      if (n != chain->view4 && std::find(nodes.begin(), nodes.end(), u.user) == nodes.end()) return std::nullopt;
  Arg split = b.arg_of(chain->view5->input(1)), merged = b.arg_of(chain->view4->input(1));
  std::unordered_map<const Value*, bool> memo;
  b.g.output = chain->view4->output();
  b.g.op = std::make_shared<CS>(list->inputs().size(), cat_step, std::move(split), std::move(merged), channels_last_ok(b.g.output, memo),
                                std::move(b.steps), std::move(sizing));
  return std::move(b.g);
}

}  // namespace

std::optional<PreparedGroup> prepare_cat(Node* list, KernelFn (*lookup)(const Node*), const std::function<bool(const Node*)>& taken) {
  Node* cat = channel_cat_of_list(list);
  if (!cat) return std::nullopt;
  if (auto g = prepare_cat_shuffle(list, cat, lookup, taken)) return g;
  const KernelFn fn = lookup(cat);
  if (!fn) return std::nullopt;
  std::unordered_map<const Value*, bool> memo;
  PreparedGroup g;
  g.nodes = {list, cat};
  g.inputs.assign(list->inputs().begin(), list->inputs().end());
  Node* pool = max_pool_reading(cat, taken);
  const KernelFn pool_fn = pool ? lookup(pool) : nullptr;
  if (pool && pool_fn && pure_between(list, pool, {list, cat, pool})) {
    std::vector<IValue> args;
    for (size_t i = 1; i < pool->inputs().size(); ++i) args.push_back(*constant_of(pool->input(i)));
    g.nodes.push_back(pool);
    g.output = pool->output();
    g.op = std::make_shared<PreparedCat>(fn, *constant_of(cat->input(1)), channels_last_ok(pool->output(), memo), pool_fn, std::move(args));
    return g;
  }
  g.output = cat->output();
  g.op = std::make_shared<PreparedCat>(fn, *constant_of(cat->input(1)), channels_last_ok(cat->output(), memo));
  return g;
}

std::optional<PreparedGroup> prepare_channel_shuffle(Node* view5, KernelFn (*lookup)(const Node*),
                                                     const std::function<bool(const Node*)>& taken) {
  auto chain = channel_shuffle_at(view5);
  if (!chain) return std::nullopt;
  const std::vector<Node*> nodes{chain->view5, chain->transpose, chain->contiguous, chain->view4};
  for (Node* n : nodes)
    if (taken(n) || !lookup(n)) return std::nullopt;
  GroupBuilder b;
  b.slot_of(view5->input(0));
  Arg split = b.arg_of(chain->view5->input(1)), merged = b.arg_of(chain->view4->input(1));
  for (Node* n : nodes) b.add_step(n, lookup(n));
  b.g.output = chain->view4->output();
  std::unordered_map<const Value*, bool> memo;
  b.g.op = std::make_shared<PreparedChannelShuffle>(std::move(split), std::move(merged), channels_last_ok(b.g.output, memo), std::move(b.steps));
  return std::move(b.g);
}

}  // namespace jitctl::prepare_detail
