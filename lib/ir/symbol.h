#pragma once
// Interned qualified names: node kinds (`aten::add`, `prim::Constant`) and attribute names
// (`attr::value`). A Symbol is a 32-bit id into a process-wide table, so comparing two is one
// integer compare and a Symbol converts to an integer for `switch`. The symbols passes and the
// emitter name often are constants (prim::Constant, attr::value, ...); every other name is interned
// the first time it is seen, from any thread.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace jitctl {

// Namespaces first: a namespace is itself the symbol `namespaces::aten`.
#define JITCTL_FORALL_NAMESPACES(_) \
  _(namespaces) _(prim) _(aten) _(attr) _(cuda) _(onnx) _(scope) _(user) _(prims) _(quantized) _(mkldnn)

// The kinds and attribute names the compiler and the passes refer to by name. Anything else is
// interned on first use; the order here only fixes ids.
#define JITCTL_FORALL_BUILTIN_SYMBOLS(_)                                                               \
  _(prim, Param) _(prim, Return) _(prim, Constant) _(prim, If) _(prim, Loop) _(prim, ListConstruct)    \
  _(prim, ListUnpack) _(prim, TupleConstruct) _(prim, TupleUnpack) _(prim, TupleIndex)                 \
  _(prim, TupleSlice) _(prim, DictConstruct) _(prim, DictIndex) _(prim, GetAttr) _(prim, SetAttr)      \
  _(prim, CallFunction) _(prim, CallMethod) _(prim, CreateObject) _(prim, Uninitialized)               \
  _(prim, unchecked_cast) _(prim, unchecked_unwrap_optional) _(prim, isinstance)                       \
  _(prim, RaiseException) _(prim, Print) _(prim, NumToTensor) _(prim, ImplicitTensorToNum)             \
  _(prim, Enter) _(prim, Exit) _(prim, Store) _(prim, Load) _(prim, ReturnStmt) _(prim, BreakStmt)     \
  _(prim, ContinueStmt) _(prim, LoopContinuation) _(prim, ComprehensionScope) _(prim, Closure)         \
  _(prim, fork) _(prim, TracedFork) _(prim, TracedAttr) _(prim, TracedModuleForward)                   \
  _(prim, AutogradZero) _(prim, AutogradAdd) _(prim, AutogradAnyNonZero) _(prim, AutogradAllZero)      \
  _(prim, AutogradAllNonZero) _(prim, EnumName) _(prim, EnumValue) _(prim, Drop) _(prim, Guard)        \
  _(prim, BailOut) _(prim, TypeCheck) _(prim, RequiresGradCheck) _(prim, FusionGroup)                  \
  _(prim, DifferentiableGraph) _(prim, TensorExprGroup) _(prim, StaticSubgraph) _(prim, MKLDNNGroup)   \
  _(prim, ConstantChunk) _(prim, BroadcastingChunk) _(prim, MMTreeReduce) _(prim, PythonOp)            \
  _(prim, IgnoredPythonOp) _(prim, AddStatValue) _(prim, TimePoint) _(prim, profile)                   \
  _(prim, profile_ivalue) _(prim, tolist) _(prim, device) _(prim, dtype) _(prim, layout)               \
  _(prim, requires_grad) _(prim, data) _(prim, shape) _(prim, is_cuda) _(prim, min) _(prim, max)       \
  _(prim, abs) _(prim, id) _(prim, rpc_async) _(prim, rpc_sync) _(prim, rpc_remote)                    \
  _(prim, VarConcat) _(prim, VarStack) _(prim, Eval) _(prim, ConstantMKLDNNTensor)                     \
  _(aten, add) _(aten, sub) _(aten, mul) _(aten, div) _(aten, neg) _(aten, eq) _(aten, ne) _(aten, lt) \
  _(aten, le) _(aten, gt) _(aten, ge) _(aten, __and__) _(aten, __or__) _(aten, __xor__)                \
  _(aten, __not__) _(aten, __is__) _(aten, __isnot__) _(aten, __contains__) _(aten, __getitem__)       \
  _(aten, __round_to_zero_floordiv) _(aten, append) _(aten, len) _(aten, size) _(aten, dim)            \
  _(aten, format) _(aten, wait) _(aten, warn) _(aten, Bool) _(aten, Int) _(aten, Float)                \
  _(aten, Complex) _(aten, ScalarImplicit) _(aten, str) _(aten, list) _(aten, dict) _(aten, item)      \
  _(aten, tensor) _(aten, to) _(aten, copy_) _(aten, detach) _(aten, dropout) _(aten, conv2d)          \
  _(aten, linear) _(aten, relu) _(aten, batch_norm) _(aten, _set_item) _(aten, slice) _(aten, select)  \
  _(aten, view) _(aten, reshape) _(aten, cat) _(aten, stack) _(aten, matmul) _(aten, addmm)            \
  _(aten, manual_seed) _(aten, save) _(aten, __interpolate) _(aten, _grad_sum_to_size)                 \
  _(attr, value) _(attr, name) _(attr, Subgraph) _(attr, types) _(attr, scope) _(attr, dim)            \
  _(attr, chunks) _(attr, warn_id) _(attr, profiled_type) _(attr, num_outputs)

namespace detail {
enum class SymbolKey : uint32_t {
  empty,
#define JITCTL_NS_KEY(ns) ns_##ns,
  JITCTL_FORALL_NAMESPACES(JITCTL_NS_KEY)
#undef JITCTL_NS_KEY
#define JITCTL_SYM_KEY(ns, s) ns##_##s,
  JITCTL_FORALL_BUILTIN_SYMBOLS(JITCTL_SYM_KEY)
#undef JITCTL_SYM_KEY
  num_builtin
};
}  // namespace detail

class Symbol {
 public:
  constexpr Symbol() = default;  // the empty symbol; qual_string() is ""
  constexpr explicit Symbol(detail::SymbolKey k) : id_(static_cast<uint32_t>(k)) {}

  // "aten::add"; throws InvalidInput when there is no "::" or either side is empty.
  static Symbol from_qual_string(std::string_view qual);
  static Symbol from_domain_and_name(std::string_view ns, std::string_view name);
  static Symbol prim(std::string_view name) { return from_domain_and_name("prim", name); }
  static Symbol aten(std::string_view name) { return from_domain_and_name("aten", name); }
  static Symbol attr(std::string_view name) { return from_domain_and_name("attr", name); }
  static Symbol cuda(std::string_view name) { return from_domain_and_name("cuda", name); }
  static Symbol onnx(std::string_view name) { return from_domain_and_name("onnx", name); }
  static Symbol user(std::string_view name) { return from_domain_and_name("user", name); }

  std::string_view qual_string() const;    // "aten::add"
  std::string_view unqual_string() const;  // "add"
  std::string_view ns_string() const;      // "aten"
  Symbol ns() const;                       // namespaces::aten

  bool is_prim() const { return is_in(detail::SymbolKey::ns_prim); }
  bool is_aten() const { return is_in(detail::SymbolKey::ns_aten); }
  bool is_attr() const { return is_in(detail::SymbolKey::ns_attr); }
  bool is_cuda() const { return is_in(detail::SymbolKey::ns_cuda); }
  bool is_onnx() const { return is_in(detail::SymbolKey::ns_onnx); }
  bool is_user() const { return is_in(detail::SymbolKey::ns_user); }

  constexpr uint32_t id() const { return id_; }
  // Lets `switch (node->kind())` use the constants below as case labels.
  constexpr operator uint32_t() const { return id_; }

 private:
  bool is_in(detail::SymbolKey ns) const;
  uint32_t id_ = 0;
};

#define JITCTL_NS_SYMBOL(ns) \
  namespace namespaces {     \
  inline constexpr Symbol ns{detail::SymbolKey::ns_##ns}; }
JITCTL_FORALL_NAMESPACES(JITCTL_NS_SYMBOL)
#undef JITCTL_NS_SYMBOL

#define JITCTL_BUILTIN_SYMBOL(ns, s) \
  namespace ns {                     \
  inline constexpr Symbol s{detail::SymbolKey::ns##_##s}; }
JITCTL_FORALL_BUILTIN_SYMBOLS(JITCTL_BUILTIN_SYMBOL)
#undef JITCTL_BUILTIN_SYMBOL

}  // namespace jitctl

template <>
struct std::hash<jitctl::Symbol> {
  size_t operator()(jitctl::Symbol s) const noexcept { return std::hash<uint32_t>()(s.id()); }
};
