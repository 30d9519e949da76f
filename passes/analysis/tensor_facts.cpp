#include "passes/analysis/tensor_facts.h"

#include <algorithm>
#include <functional>
#include <string_view>
#include <unordered_set>

#include "lib/ir/constants.h"
#include "lib/ops/schema.h"
#include "passes/analysis/alias_db.h"

namespace jitctl {
namespace {

using std::string_view;

const TensorFacts kUnknown{};

bool in(string_view kind, const std::unordered_set<string_view>& set) { return set.count(kind) > 0; }

// Operators that change a tensor's shape, strides or dtype in place, and calls that could.
const std::unordered_set<string_view> kMetadataWriters = {
    "aten::resize_",    "aten::resize_as_", "aten::set_",       "aten::set_data",   "aten::squeeze_",
    "aten::unsqueeze_", "aten::transpose_", "aten::t_",         "aten::swapdims_",  "aten::swapaxes_",
    "aten::as_strided_", "aten::_set_data", "aten::_resize_output_", "prim::CallFunction", "prim::CallMethod",
    "prim::PythonOp",   "prim::IgnoredPythonOp"};

// The result has the dtype and rank of `self` (input 0): in-place operators (the result is self),
// and functions that keep both for any dtype they accept.
const std::unordered_set<string_view> kKeepsDtypeAndRank = {
    "aten::relu",        "aten::relu_",        "aten::hardtanh_",   "aten::leaky_relu_",  "aten::clamp_",
    "aten::dropout",     "aten::dropout_",     "aten::feature_dropout", "aten::alpha_dropout", "aten::batch_norm",
    "aten::layer_norm",  "aten::group_norm",   "aten::instance_norm", "aten::detach",      "aten::clone",
    "aten::contiguous",  "aten::transpose",    "aten::permute",     "aten::roll",         "aten::flip",
    "aten::constant_pad_nd", "aten::slice",    "aten::narrow",      "aten::masked_fill_",
    "aten::add_",        "aten::sub_",         "aten::mul_",        "aten::div_",         "aten::copy_",
    "aten::zero_",       "aten::fill_",        "aten::pixel_shuffle", "aten::pixel_unshuffle", "aten::channel_shuffle",
    "aten::native_channel_shuffle", "aten::sigmoid_", "aten::tanh_", "aten::silu_",       "aten::hardswish_",
    "aten::hardsigmoid_", "aten::elu_",        "aten::max_pool1d",  "aten::max_pool2d",   "aten::max_pool3d",
    "aten::avg_pool1d",  "aten::avg_pool2d",   "aten::avg_pool3d",  "aten::adaptive_avg_pool1d",
    "aten::adaptive_avg_pool2d", "aten::adaptive_avg_pool3d", "aten::upsample_nearest2d",
    "aten::upsample_bilinear2d"};

// Floating functions of one tensor: a floating input's dtype and the input's rank (an integral
// input gives the default dtype or raises: unknown).
const std::unordered_set<string_view> kFloatingUnary = {
    "aten::sigmoid", "aten::tanh",  "aten::gelu",  "aten::silu",     "aten::hardswish", "aten::hardsigmoid",
    "aten::elu",     "aten::selu",  "aten::celu",  "aten::mish",     "aten::softplus",  "aten::exp",
    "aten::log",     "aten::sqrt",  "aten::rsqrt", "aten::erf",      "aten::sin",       "aten::cos",
    "aten::reciprocal", "aten::log_sigmoid", "aten::relu6", "aten::hardtanh", "aten::leaky_relu", "aten::clamp",
    "aten::clamp_min", "aten::clamp_max"};

// Out-of-place functions computed element by element from one tensor: the result is laid out as
// the input, so a contiguous input gives a contiguous result.
const std::unordered_set<string_view> kElementwise = {
    "aten::relu",    "aten::relu6", "aten::hardtanh", "aten::leaky_relu", "aten::clamp",     "aten::clamp_min",
    "aten::clamp_max", "aten::sigmoid",    "aten::tanh",      "aten::gelu",
    "aten::silu",    "aten::hardswish", "aten::hardsigmoid", "aten::elu",  "aten::selu",      "aten::exp",
    "aten::log",     "aten::sqrt",  "aten::rsqrt",    "aten::erf"};

// Binary arithmetic with type promotion between `self` and `other`.
const std::unordered_set<string_view> kArithmetic = {"aten::add", "aten::sub", "aten::mul", "aten::div",
                                                     "aten::rsub", "aten::maximum", "aten::minimum"};
const std::unordered_set<string_view> kComparisons = {"aten::eq", "aten::ne", "aten::lt", "aten::le", "aten::gt",
                                                      "aten::ge", "aten::logical_and", "aten::logical_or"};

// Bool < integral < floating < complex, the categories of type promotion.
int category(DType d) {
  if (d == DType::Bool) return 0;
  if (is_complex(d)) return 3;
  if (is_floating(d)) return 2;
  return 1;
}

// Ranks above this are not narrowed to (ATen tensors have at most 64 dims).
constexpr int64_t kMaxRankBound = 1024;

std::optional<int64_t> const_int(const Value* v) {
  const auto c = to_ivalue(v);
  if (!c || !c->is(IValue::Kind::Int)) return std::nullopt;
  return c->to_int();
}

bool is_none_constant(const Value* v) { return v->type()->kind() == TypeKind::None; }

// A dtype argument's code (ScalarType), or nullopt when it names none: file constants can hold any int.
std::optional<DType> const_dtype(const Value* v) {
  const auto d = const_int(v);
  if (!d || *d < 0 || *d > static_cast<int64_t>(DType::QUInt2x4)) return std::nullopt;
  return static_cast<DType>(*d);
}

TensorFacts with_rank(TensorFacts f, int64_t lo, int64_t hi) {
  f.min_rank = std::max(f.min_rank, lo);
  f.max_rank = std::min(f.max_rank, hi);
  if (f.min_rank > f.max_rank) {  // the operator always raises on such an input; nothing is known
    f.min_rank = 0;
    f.max_rank = TensorFacts::kAnyRank;
  }
  return f;
}

TensorFacts exact_rank(int64_t r) {
  TensorFacts f;
  f.min_rank = f.max_rank = r;
  return f;
}

int64_t add_rank(int64_t r, int64_t d) {
  if (r == TensorFacts::kAnyRank) return r;
  return std::max<int64_t>(0, r + d);
}

// What two values agree on (an If's outputs).
TensorFacts join(const TensorFacts& a, const TensorFacts& b) {
  TensorFacts f;
  if (a.dtype == b.dtype) f.dtype = a.dtype;
  f.min_rank = std::min(a.min_rank, b.min_rank);
  f.max_rank = std::max(a.max_rank, b.max_rank);
  f.contiguous = a.contiguous && b.contiguous;
  return f;
}

TensorFacts from_type(const TypePtr& type) {
  TensorFacts f;
  if (type->kind() != TypeKind::Tensor) return f;
  const auto& r = static_cast<const TensorType&>(*type).refinement();
  f.dtype = r.dtype;
  if (r.sizes) f.min_rank = f.max_rank = static_cast<int64_t>(r.sizes->size());
  return f;
}

}  // namespace

bool block_always_raises(const Block* b) {
  for (const Node* n : b->nodes())
    if (n->kind() == prim::RaiseException) return true;
  return false;
}

TensorFactAnalysis::~TensorFactAnalysis() = default;

TensorFactAnalysis::TensorFactAnalysis(const Graph& g) : graph_(g) {
  // Any metadata write anywhere (forks' subgraphs included) turns the analysis off.
  std::function<bool(const Block*)> writes_metadata = [&](const Block* b) {
    for (const Node* n : b->nodes()) {
      if (in(n->kind().qual_string(), kMetadataWriters)) return true;
      for (const Block* sub : n->blocks())
        if (writes_metadata(sub)) return true;
      if (n->kind() == prim::fork && n->has_attribute(attr::Subgraph) && writes_metadata(n->g(attr::Subgraph)->block()))
        return true;
    }
    return false;
  };
  if (writes_metadata(g.block())) {
    enabled_ = false;
    return;
  }
  for (const Value* in : g.inputs()) facts_[in] = from_type(in->type());
  analyze(g.block(), {});
}

const TensorFacts& TensorFactAnalysis::of(const Value* v) const {
  auto it = facts_.find(v);
  return it == facts_.end() ? kUnknown : it->second;
}

const TensorFacts& TensorFactAnalysis::of_input(const Node* n, size_t i) const {
  auto it = at_use_.find({n, i});
  return it == at_use_.end() ? of(n->input(i)) : it->second;
}

void TensorFactAnalysis::analyze(const Block* b, Narrowed narrowed) {
  for (const Node* n : b->nodes()) {
    for (size_t i = 0; i < n->inputs().size(); ++i)
      if (auto it = narrowed.find(n->input(i)); it != narrowed.end()) at_use_[{n, i}] = it->second;
    for (const Block* sub : n->blocks()) analyze(sub, narrowed);
    for (size_t i = 0; i < n->outputs().size(); ++i) {
      if (n->output(i)->type()->kind() != TypeKind::Tensor) continue;
      TensorFacts f = output_facts(n, i, narrowed);
      if (f != kUnknown) facts_[n->output(i)] = f;
    }
    if (n->kind() == prim::If) narrow_after_check(n, narrowed);
  }
}

// The tensor whose rank `v` is: v = dim(x), or len(x.size()) of a list nothing writes to.
const Value* TensorFactAnalysis::rank_query_of(const Value* v) {
  const Node* n = v->node();
  if (n->inputs().size() != 1) return nullptr;
  if (n->kind() == Symbol::aten("dim") && n->input(0)->type()->kind() == TypeKind::Tensor) return n->input(0);
  if (n->kind() != Symbol::aten("len")) return nullptr;
  const Value* list = n->input(0);
  if (list->node()->kind() != Symbol::aten("size") || list->node()->inputs().size() != 1) return nullptr;
  if (!alias_db_) alias_db_ = std::make_unique<AliasDb>(graph_);
  return alias_db_->has_writers(list) ? nullptr : list->node()->input(0);
}

// After `if rank(x) OP k: raise` (or the else block raising), x's rank is what did not raise.
void TensorFactAnalysis::narrow_after_check(const Node* n, Narrowed& narrowed) {
  const bool then_raises = block_always_raises(n->blocks().at(0)), else_raises = block_always_raises(n->blocks().at(1));
  if (then_raises == else_raises) return;
  bool holds = else_raises;  // the condition's value in the code after the If
  const Value* c = n->input(0);
  while (c->node()->kind() == Symbol::aten("__not__") && c->node()->inputs().size() == 1) {
    c = c->node()->input(0);
    holds = !holds;
  }
  const Node* cmp = c->node();
  string_view k = cmp->kind().qual_string();
  if (cmp->inputs().size() != 2 || !in(k, kComparisons) || k == "aten::logical_and" || k == "aten::logical_or") return;
  const Value* lhs = cmp->input(0);
  const Value* rhs = cmp->input(1);
  if (!rank_query_of(lhs)) {
    std::swap(lhs, rhs);  // k < rank is rank > k
    if (k == "aten::lt") k = "aten::gt";
    else if (k == "aten::gt") k = "aten::lt";
    else if (k == "aten::le") k = "aten::ge";
    else if (k == "aten::ge") k = "aten::le";
  }
  const Value* x = rank_query_of(lhs);
  const auto bound = const_int(rhs);
  if (!x || !bound) return;
  if (!holds) {  // the negation holds
    if (k == "aten::eq") k = "aten::ne";
    else if (k == "aten::ne") k = "aten::eq";
    else if (k == "aten::lt") k = "aten::ge";
    else if (k == "aten::ge") k = "aten::lt";
    else if (k == "aten::gt") k = "aten::le";
    else if (k == "aten::le") k = "aten::gt";
  }
  auto it = narrowed.find(x);
  TensorFacts f = it != narrowed.end() ? it->second : of(x);
  // A rank bound from the file: one no tensor can have says nothing (and would overflow below).
  if (*bound < 0 || *bound > kMaxRankBound) return;
  int64_t lo = 0, hi = TensorFacts::kAnyRank;
  if (k == "aten::eq") lo = hi = *bound;
  else if (k == "aten::lt") hi = *bound - 1;
  else if (k == "aten::le") hi = *bound;
  else if (k == "aten::gt") lo = *bound + 1;
  else if (k == "aten::ge") lo = *bound;
  else if (k == "aten::ne" && f.min_rank == *bound) lo = *bound + 1;
  else if (k == "aten::ne" && f.max_rank == *bound) hi = *bound - 1;
  else return;
  lo = std::max(lo, f.min_rank);
  hi = std::min(hi, f.max_rank);
  if (lo > hi || lo < 0) return;  // contradicts what is known: the code after it never runs
  f.min_rank = lo;
  f.max_rank = hi;
  narrowed[x] = f;
}

TensorFacts TensorFactAnalysis::output_facts(const Node* n, size_t i, const Narrowed& narrowed) const {
  const string_view k = n->kind().qual_string();
  const auto& ins = n->inputs();
  auto current = [&](const Value* v) -> const TensorFacts& {
    auto it = narrowed.find(v);
    return it != narrowed.end() ? it->second : of(v);
  };
  auto input = [&](size_t j) -> const TensorFacts& { return j < ins.size() ? current(ins[j]) : kUnknown; };
  auto tensor_input = [&](size_t j) { return j < ins.size() && ins[j]->type()->kind() == TypeKind::Tensor; };

  if (n->kind() == prim::Constant) {
    const auto c = to_ivalue(n->output(i));
    if (!c || !c->is(IValue::Kind::Tensor) || !c->to_tensor().defined()) return {};
    const Tensor& t = c->to_tensor();
    TensorFacts f = exact_rank(t.dim());
    f.dtype = t.dtype();
    f.contiguous = t.is_contiguous();
    return f;
  }
  if (n->kind() == prim::If) {
    const Block* then_b = n->blocks().at(0);
    const Block* else_b = n->blocks().at(1);
    return join(of(then_b->outputs().at(i)), of(else_b->outputs().at(i)));
  }
  if (n->outputs().size() != 1 || ins.empty() || !tensor_input(0)) return {};

  if (in(k, kKeepsDtypeAndRank)) {
    TensorFacts f = input(0);
    const bool in_place = k.back() == '_';
    if (in_place) return f;  // the result is self
    f.contiguous = false;
    if (k == "aten::contiguous") f.contiguous = ins.size() < 2 || const_int(ins[1]) == 0;
    if (k == "aten::clone") f.contiguous = ins.size() >= 2 && const_int(ins[1]) == 0;
    if (in(k, kElementwise)) f.contiguous = input(0).contiguous;
    if (k.find("pool1d") != string_view::npos) return with_rank(f, 2, 3);
    if (k.find("pool2d") != string_view::npos) return with_rank(f, 3, 4);
    if (k.find("pool3d") != string_view::npos) return with_rank(f, 4, 5);
    return f;
  }
  if (in(k, kFloatingUnary) || k == "aten::softmax" || k == "aten::log_softmax") {
    TensorFacts f;
    f.min_rank = input(0).min_rank;
    f.max_rank = input(0).max_rank;
    const bool explicit_dtype = (k == "aten::softmax" || k == "aten::log_softmax") && ins.size() >= 3 && !is_none_constant(ins[2]);
    if (explicit_dtype) {
      f.dtype = const_dtype(ins[2]);
    } else if (input(0).dtype && is_floating(*input(0).dtype)) {
      f.dtype = input(0).dtype;
    }
    if (in(k, kElementwise)) f.contiguous = input(0).contiguous;
    return f;
  }
  // Convolutions and linear: the weight's dtype (PyTorch raises on a different input dtype).
  if (k == "aten::conv1d" || k == "aten::conv2d" || k == "aten::conv3d" || k == "aten::_convolution" ||
      k == "aten::convolution" || k == "aten::linear") {
    if (ins.size() < 2) return {};
    TensorFacts f;
    f.min_rank = input(0).min_rank;
    f.max_rank = input(0).max_rank;
    f.dtype = input(1).dtype ? input(1).dtype : input(0).dtype;
    if (k == "aten::linear") {
      if (input(1).rank() == 2) return with_rank(f, 1, TensorFacts::kAnyRank);
      // A 1-D weight (F.linear allows it) takes a dim away.
      f.min_rank = std::max<int64_t>(0, f.min_rank - 1);
      return f;
    }
    int64_t full = k == "aten::conv1d" ? 3 : (k == "aten::conv2d" ? 4 : (k == "aten::conv3d" ? 5 : 0));
    if (full == 0) {
      const auto w = input(1).rank();
      if (!w) return with_rank(f, 2, TensorFacts::kAnyRank);
      full = *w;
    }
    return with_rank(f, full - 1, full);  // unbatched or batched
  }
  if (in(k, kArithmetic) || in(k, kComparisons)) {
    if (ins.size() < 2) return {};
    const TensorFacts& a = input(0);
    TensorFacts f;
    const bool comparison = in(k, kComparisons);
    if (tensor_input(1)) {
      const TensorFacts& b = input(1);
      f.min_rank = std::max(a.min_rank, b.min_rank);
      f.max_rank = std::max(a.max_rank, b.max_rank);
      if (!comparison && a.dtype && b.dtype) {
        // Equal dtypes keep theirs (true division of integers aside); a zero-dim `other` of a
        // category no higher does not promote a tensor of rank >= 1.
        if (*a.dtype == *b.dtype && (k != "aten::div" || category(*a.dtype) >= 2))
          f.dtype = a.dtype;
        else if (b.rank() == 0 && a.min_rank >= 1 && category(*b.dtype) <= category(*a.dtype) && k != "aten::div")
          f.dtype = a.dtype;
      }
    } else {
      f.min_rank = a.min_rank;
      f.max_rank = a.max_rank;
      const TypeKind other = ins[1]->type()->kind();
      if (!comparison && a.dtype) {
        // A Python number promotes only across categories: an int keeps any non-bool dtype, a
        // float keeps a floating one.
        const int c = category(*a.dtype);
        const bool keeps = (other == TypeKind::Int && c >= 1 && (k != "aten::div" || c >= 2)) ||
                           (other == TypeKind::Float && c >= 2);
        if (keeps) f.dtype = a.dtype;
      }
    }
    if (comparison) f.dtype = DType::Bool;
    return f;
  }
  if (k == "aten::flatten" && ins.size() == 3) {
    const auto s = const_int(ins[1]), e = const_int(ins[2]);
    TensorFacts f;
    f.dtype = input(0).dtype;
    f.contiguous = input(0).contiguous;
    if (!s || !e) return f;
    if (*s == 0 && *e == -1) {
      f.min_rank = f.max_rank = 1;
    } else if (*s == 1 && *e == -1 && input(0).min_rank >= 1) {
      f.min_rank = f.max_rank = 2;  // a 1-D input raises
    } else if (const auto r = input(0).rank(); r && *r >= 1) {
      const int64_t ns = *s < 0 ? *s + *r : *s, ne = *e < 0 ? *e + *r : *e;
      if (ns >= 0 && ne < *r && ns <= ne) f.min_rank = f.max_rank = *r - (ne - ns);
    }
    return f;
  }
  if ((k == "aten::view" || k == "aten::reshape") && ins.size() == 2) {
    TensorFacts f;
    f.dtype = input(0).dtype;
    f.contiguous = input(0).contiguous;
    const Node* list = ins[1]->node();
    if (list->kind() == prim::ListConstruct) {
      f.min_rank = f.max_rank = static_cast<int64_t>(list->inputs().size());
    } else if (const auto c = to_ivalue(ins[1]); c && c->is(IValue::Kind::List)) {
      f.min_rank = f.max_rank = static_cast<int64_t>(c->to_list()->items.size());
    }
    return f;
  }
  if (k == "aten::unsqueeze" || k == "aten::squeeze") {
    TensorFacts f;
    f.dtype = input(0).dtype;
    if (k == "aten::unsqueeze") {
      f.min_rank = input(0).min_rank + 1;
      f.max_rank = add_rank(input(0).max_rank, 1);
    } else {
      // squeeze(x, dim) takes at most one dim away; squeeze(x) and squeeze(x, dims) any number.
      const bool one_dim = ins.size() == 2 && ins[1]->type()->kind() == TypeKind::Int;
      f.min_rank = one_dim ? std::max<int64_t>(0, input(0).min_rank - 1) : 0;
      f.max_rank = input(0).max_rank;
    }
    return f;
  }
  if (k == "aten::select" && ins.size() == 3) {
    TensorFacts f;
    f.dtype = input(0).dtype;
    f.min_rank = std::max<int64_t>(0, input(0).min_rank - 1);
    f.max_rank = add_rank(input(0).max_rank, -1);
    return f;
  }
  if (k == "aten::to") {
    // Every overload but to.other has an optional `dtype` (None keeps self's); the rank is self's.
    TensorFacts f;
    f.min_rank = input(0).min_rank;
    f.max_rank = input(0).max_rank;
    const FunctionSchema* schema = n->schema();
    if (!schema) return f;
    if (schema->overload_name == "other" || schema->overload_name == "prim_other") {
      if (schema->overload_name == "other") f.dtype = input(1).dtype;
      if (schema->overload_name == "prim_other") f.dtype = input(0).dtype;
      return f;
    }
    const auto at = schema->argument_index("dtype");
    if (!at || *at >= ins.size()) return f;
    if (is_none_constant(ins[*at]))
      f.dtype = input(0).dtype;
    else
      f.dtype = const_dtype(ins[*at]);
    return f;
  }
  if (k == "aten::type_as" && ins.size() == 2) {
    TensorFacts f;
    f.dtype = input(1).dtype;
    f.min_rank = input(0).min_rank;
    f.max_rank = input(0).max_rank;
    return f;
  }
  if (k == "aten::mm" || k == "aten::bmm" || k == "aten::addmm") {
    TensorFacts f = exact_rank(k == "aten::bmm" ? 3 : 2);
    const size_t a = k == "aten::addmm" ? 1 : 0;
    if (ins.size() > a + 1 && input(a).dtype && input(a).dtype == input(a + 1).dtype) f.dtype = input(a).dtype;
    return f;
  }
  if (k == "aten::cat" && ins.size() == 2 && ins[0]->node()->kind() == prim::ListConstruct) {
    const auto& parts = ins[0]->node()->inputs();
    if (parts.empty()) return {};
    TensorFacts f;
    f.dtype = current(parts[0]).dtype;
    const auto r = current(parts[0]).rank();
    bool same_rank = r.has_value();
    for (const Value* p : parts) {
      if (current(p).dtype != f.dtype) f.dtype.reset();
      if (current(p).rank() != r) same_rank = false;
    }
    if (same_rank && *r >= 1) f.min_rank = f.max_rank = *r;
    return f;
  }
  if (k == "aten::embedding" && ins.size() >= 2) {
    TensorFacts f;
    f.dtype = input(0).dtype;
    f.min_rank = input(1).min_rank + 1;
    f.max_rank = add_rank(input(1).max_rank, 1);
    return f;
  }
  return {};
}

}  // namespace jitctl
