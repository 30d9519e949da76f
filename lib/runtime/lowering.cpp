#include "lib/runtime/lowering.h"

#include <fmt/format.h>

#include <unordered_map>
#include <unordered_set>

#include "lib/ops/schema.h"
#include "lib/frontend/schema_matching.h"
#include "lib/ops/schema_registry.h"
#include "lib/ir/constants.h"
#include "lib/runtime/device_dispatch.h"
#include "lib/runtime/device_fusion.h"
#include "lib/runtime/prepare.h"
#include "lib/runtime/prim_ops.h"

namespace jitctl {
namespace {

class Lowering {
 public:
  Lowering(CalleeResolver& r, Plan& f) : r_(r), f_(f) {}

  void run(const Graph& g) {
    for (Value* v : g.inputs()) f_.input_registers.push_back(def(v));
    emit_block(g.block());
    Instr ret{.op = OpCode::Return};
    ret.in = static_cast<uint32_t>(f_.operands.size());
    for (Value* v : g.outputs()) use(v);
    ret.n_in = static_cast<uint32_t>(g.outputs().size());
    f_.code.push_back(ret);
    f_.origin_of.resize(f_.code.size(), operand::kNone);
    mark_last_uses();
    f_.num_registers = next_reg_;
  }

 private:
  struct UseSite {
    uint32_t operand;  // position in f_.operands
    uint32_t reg;
    uint32_t loop;
  };

  // A register for a value a node defines; kNone when nothing reads it.
  uint32_t def(Value* v) {
    if (!v->has_uses()) return operand::kNone;
    uint32_t r = new_reg();
    reg_of_[v] = r;
    def_loop_[r] = loop_;
    return r;
  }
  uint32_t new_reg() {
    def_loop_.push_back(loop_);
    return next_reg_++;
  }

  // Appends the operand that reads `v`.
  void use(Value* v) {
    if (auto c = const_of_.find(v); c != const_of_.end()) {
      f_.operands.push_back(operand::constant(c->second));
      return;
    }
    auto it = reg_of_.find(v);
    if (it == reg_of_.end()) throw std::logic_error("interpreter: value used before its definition: %" + v->debug_name());
    uses_.push_back({static_cast<uint32_t>(f_.operands.size()), it->second, loop_});
    f_.operands.push_back(operand::reg(it->second, false));
  }

  Instr& emit(OpCode op, const std::vector<Value*>& inputs, const std::vector<Value*>& outputs) {
    Instr in{.op = op};
    in.in = static_cast<uint32_t>(f_.operands.size());
    for (Value* v : inputs) use(v);
    in.n_in = static_cast<uint32_t>(inputs.size());
    in.out = static_cast<uint32_t>(f_.operands.size());
    for (Value* v : outputs) f_.operands.push_back(def(v));
    in.n_out = static_cast<uint32_t>(outputs.size());
    f_.code.push_back(in);
    return f_.code.back();
  }

  // outputs[k] = values[k], as one parallel assignment into fixed registers.
  void emit_moves(const std::vector<Value*>& values, const std::vector<uint32_t>& regs) {
    if (values.empty()) return;
    Instr in{.op = OpCode::Moves};
    in.in = static_cast<uint32_t>(f_.operands.size());
    for (Value* v : values) use(v);
    in.n_in = static_cast<uint32_t>(values.size());
    in.out = static_cast<uint32_t>(f_.operands.size());
    for (uint32_t r : regs) f_.operands.push_back(r);
    in.n_out = static_cast<uint32_t>(regs.size());
    f_.code.push_back(in);
  }

  uint32_t add_extra(InstrExtra e) {
    f_.extras.push_back(std::move(e));
    return static_cast<uint32_t>(f_.extras.size() - 1);
  }

  // Prepared groups (prepare.h) are emitted where their last node is; their other nodes are not
  // emitted at all (their values have no other readers).
  void emit_block(const Block* b) {
    std::unordered_map<const Node*, PreparedGroup> group_at;  // by last node
    std::unordered_set<const Node*> grouped;
    for (Node* n : b->nodes()) {
      if (grouped.count(n)) continue;
      // On the GPU its own fusions; the CPU's prepared groups (packed weights, oneDNN) are not for it.
      auto taken = [&](const Node* m) { return grouped.count(m) > 0; };
      auto g = run_device() ? device_group(n, &dispatch_for, taken) : prepare_group(n, &kernel_for, taken);
      if (!g) continue;
      for (Node* m : g->nodes) grouped.insert(m);
      group_at.emplace(g->nodes.back(), std::move(*g));
    }
    for (Node* n : b->nodes()) {
      const size_t first = f_.code.size();
      if (auto it = group_at.find(n); it != group_at.end()) {
        emit_prepared(it->second);
        // A group's errors name its first node: the op whose checks (shapes, dtypes) run first.
        note_origin(it->second.nodes.front(), first);
        continue;
      }
      if (grouped.count(n)) continue;
      emit_node(n);
      note_origin(n, first);
    }
  }

  // Instructions [first, end) that a nested block did not claim come from `n`.
  void note_origin(const Node* n, size_t first) {
    if (f_.code.size() == first) return;
    f_.origin_of.resize(f_.code.size(), operand::kNone);
    std::string text;
    for (const Value* v : n->outputs()) text += (text.empty() ? "%" : ", %") + v->debug_name();
    if (!text.empty()) text += " = ";
    text += n->kind().qual_string();
    if (n->kind() == prim::CallMethod || n->kind() == prim::GetAttr || n->kind() == prim::SetAttr)
      text += "[name=\"" + n->s(attr::name) + "\"]";
    text += "(";
    for (size_t i = 0; i < n->inputs().size(); ++i) text += (i ? ", %" : "%") + n->input(i)->debug_name();
    text += ")";
    f_.origins.push_back({std::string(n->kind().qual_string()), std::move(text),
                          n->source_location() && !n->source_location()->file.empty() ? n->source_location()->str() : ""});
    const auto index = static_cast<uint32_t>(f_.origins.size() - 1);
    for (size_t i = first; i < f_.code.size(); ++i)
      if (f_.origin_of[i] == operand::kNone) f_.origin_of[i] = index;
  }

  void emit_prepared(const PreparedGroup& g) {
    Instr& in = emit(OpCode::Prepared, g.inputs, {g.output});
    in.prepared = g.op.get();
    in.extra = add_extra({.name = std::string(g.nodes.front()->kind().qual_string()) + " (prepared)"});
    f_.prepared.push_back(g.op);
  }

  // Registers for a node's outputs, allocated even when unused (control flow assigns them).
  std::vector<uint32_t> output_regs(const Node* n) {
    std::vector<uint32_t> regs;
    for (Value* v : n->outputs()) {
      uint32_t r = new_reg();
      reg_of_[v] = r;
      regs.push_back(r);
    }
    return regs;
  }

  void emit_if(Node* n) {
    std::vector<uint32_t> outs = output_regs(n);
    emit(OpCode::JumpIfFalse, {n->input(0)}, {});
    const size_t jump_else = f_.code.size() - 1;
    emit_block(n->blocks()[0]);
    emit_moves(n->blocks()[0]->outputs(), outs);
    f_.code.push_back(Instr{.op = OpCode::Jump});
    const size_t jump_end = f_.code.size() - 1;
    f_.code[jump_else].target = static_cast<uint32_t>(f_.code.size());
    emit_block(n->blocks()[1]);
    emit_moves(n->blocks()[1]->outputs(), outs);
    f_.code[jump_end].target = static_cast<uint32_t>(f_.code.size());
  }

  // Loop(max_trip_count, cond, carried...) with body(i, carried...) -> (cond, carried...):
  //   LoopInit   counter = 0; (trip, cond, outs...) = inputs
  //   top: LoopTest  leave unless counter < trip and cond; i = counter
  //   Moves      params = outs           (moved: outs are reassigned below)
  //   body
  //   Moves      (cond, outs...) = body outputs
  //   LoopNext   counter += 1, to top
  void emit_loop(Node* n) {
    std::vector<uint32_t> outs = output_regs(n);
    const uint32_t counter = new_reg(), trip = new_reg(), cond = new_reg();
    Instr init{.op = OpCode::LoopInit, .a = counter};
    init.in = static_cast<uint32_t>(f_.operands.size());
    for (Value* v : n->inputs()) use(v);
    init.n_in = static_cast<uint32_t>(n->inputs().size());
    init.out = static_cast<uint32_t>(f_.operands.size());
    f_.operands.push_back(trip);
    f_.operands.push_back(cond);
    for (uint32_t r : outs) f_.operands.push_back(r);
    init.n_out = static_cast<uint32_t>(2 + outs.size());
    f_.code.push_back(init);

    const Block* body = n->blocks()[0];
    const uint32_t outer = loop_;
    loop_ = ++loops_;
    const size_t top = f_.code.size();
    Instr test{.op = OpCode::LoopTest, .a = counter, .b = trip, .c = cond};
    test.out = static_cast<uint32_t>(f_.operands.size());
    f_.operands.push_back(def(body->inputs()[0]));
    test.n_out = 1;
    f_.code.push_back(test);
    if (!outs.empty()) {
      Instr mv{.op = OpCode::Moves};
      mv.in = static_cast<uint32_t>(f_.operands.size());
      for (uint32_t r : outs) f_.operands.push_back(operand::reg(r, true));
      mv.n_in = static_cast<uint32_t>(outs.size());
      mv.out = static_cast<uint32_t>(f_.operands.size());
      for (size_t k = 0; k < outs.size(); ++k) f_.operands.push_back(def(body->inputs()[k + 1]));
      mv.n_out = static_cast<uint32_t>(outs.size());
      f_.code.push_back(mv);
    }
    emit_block(body);
    std::vector<uint32_t> back{cond};
    back.insert(back.end(), outs.begin(), outs.end());
    emit_moves(body->outputs(), back);
    f_.code.push_back(Instr{.op = OpCode::LoopNext, .a = counter, .target = static_cast<uint32_t>(top)});
    f_.code[top].target = static_cast<uint32_t>(f_.code.size());
    loop_ = outer;
  }

  static const FunctionSchema* schema_of(const Node* n) {
    if (n->schema()) return n->schema();
    return match_builtin_schema(n);
  }

  // The kernel of an operator node, or nullptr.
  static KernelFn kernel_for(const Node* n) {
    const FunctionSchema* s = schema_of(n);
    const std::string name = s ? s->full_name() : std::string(n->kind().qual_string());
    KernelFn k = s ? find_kernel(name) : nullptr;
    if (!k) k = find_prim_op(name);
    if (!k) k = find_prim_op(n->kind().qual_string());
    return k;
  }

  // A node's device dispatcher (device_dispatch.h), for the device fusions' unfused path.
  static std::shared_ptr<const PreparedKernel> dispatch_for(const Node* n) {
    const FunctionSchema* s = schema_of(n);
    const KernelFn k = kernel_for(n);
    if (!k) throw std::logic_error("a fused node without a kernel");
    return device_dispatch(n, s, s ? s->full_name() : std::string(n->kind().qual_string()), k);
  }

  void emit_kernel(Node* n) {
    const FunctionSchema* s = schema_of(n);
    std::string name = s ? s->full_name() : std::string(n->kind().qual_string());
    const KernelFn k = kernel_for(n);
    if (!k) {
      r_.missing(s ? s->str() : name);
      Instr& in = emit(OpCode::Missing, n->inputs(), n->outputs());
      in.extra = add_extra({.name = s ? s->str() : name});
      return;
    }
    if (run_device()) {
      auto dispatch = device_dispatch(n, s, name, k);
      Instr& in = emit(OpCode::Prepared, n->inputs(), n->outputs());
      in.prepared = dispatch.get();
      in.extra = add_extra({.name = name});
      f_.prepared.push_back(std::move(dispatch));
      return;
    }
    if (auto prepared = prepare_kernel(n, name)) {
      Instr& in = emit(OpCode::Prepared, n->inputs(), n->outputs());
      in.prepared = prepared.get();
      in.extra = add_extra({.name = name + " (prepared)"});
      f_.prepared.push_back(std::move(prepared));
      return;
    }
    Instr& in = emit(OpCode::Kernel, n->inputs(), n->outputs());
    in.kernel = k;
    in.extra = add_extra({.name = name});
  }

  static std::shared_ptr<ClassType> class_of(const Value* v) {
    if (auto* c = v->type()->cast<ClassType>())
      return std::static_pointer_cast<ClassType>(std::const_pointer_cast<Type>(c->shared_from_this()));
    return nullptr;
  }

  uint32_t attribute_slot(const Node* n) {
    auto cls = class_of(n->input(0));
    const std::string& field = n->s(attr::name);
    if (!cls) throw Unsupported(fmt::format("{} on a value of type {}", n->kind().qual_string(), n->input(0)->type()->str()));
    auto slot = cls->find_attribute_slot(field);
    if (!slot) throw InvalidInput(fmt::format("class {} has no attribute '{}'", cls->qualified_name(), field));
    return static_cast<uint32_t>(*slot);
  }

  void emit_node(Node* n) {
    switch (n->kind()) {
      case prim::Constant: {
        if (n->output()->type()->kind() == TypeKind::Function) return;  // read by CallFunction
        auto v = to_ivalue(n->output());
        if (!v) throw Unsupported(fmt::format("a constant of type {}", n->output()->type()->str()));
        f_.constants.push_back(std::move(*v));
        const_of_[n->output()] = static_cast<uint32_t>(f_.constants.size() - 1);
        return;
      }
      case prim::ListConstruct:
        if (emit_constant_list(n)) return;
        return emit_kernel(n);
      case prim::Uninitialized:
        f_.constants.emplace_back();
        const_of_[n->output()] = static_cast<uint32_t>(f_.constants.size() - 1);
        return;
      case prim::If: return emit_if(n);
      case prim::Loop: return emit_loop(n);
      case prim::unchecked_cast:
      case prim::unchecked_unwrap_optional:
        emit(OpCode::Moves, {n->input(0)}, {n->output()});
        return;
      case prim::GetAttr: emit(OpCode::GetAttr, n->inputs(), n->outputs()).a = attribute_slot(n); return;
      case prim::SetAttr: emit(OpCode::SetAttr, n->inputs(), {}).a = attribute_slot(n); return;
      case prim::CallMethod: {
        const std::string& name = n->s(attr::name);
        if (auto cls = class_of(n->input(0))) {
          const Plan* callee = r_.method(cls, name);
          emit(OpCode::Call, n->inputs(), n->outputs()).callee = callee;
        } else {
          r_.interface_call(name);
          Instr& in = emit(OpCode::CallInterface, n->inputs(), n->outputs());
          in.extra = add_extra({.name = name});
        }
        return;
      }
      case prim::CallFunction: {
        const auto& fn_type = n->input(0)->type()->expect<FunctionType>();
        const Plan* callee = r_.function(fn_type.qualified_name());
        std::vector<Value*> args(n->inputs().begin() + 1, n->inputs().end());
        emit(OpCode::Call, args, n->outputs()).callee = callee;
        return;
      }
      case prim::fork: {
        const Plan* callee = r_.subgraph(n->g(attr::Subgraph), f_.name + ".fork");
        emit(OpCode::Fork, n->inputs(), n->outputs()).callee = callee;
        return;
      }
      case prim::CreateObject: {
        auto cls = class_of(n->output());
        if (!cls) throw Unsupported("prim::CreateObject of " + n->output()->type()->str());
        emit(OpCode::CreateObject, {}, n->outputs()).extra = add_extra({.cls = cls});
        return;
      }
      case prim::isinstance:
        emit(OpCode::Isinstance, n->inputs(), n->outputs()).extra = add_extra({.types = n->tys(attr::types)});
        return;
      case prim::RaiseException: {
        std::string where;
        if (const auto& loc = n->source_location()) where = loc->str();
        emit(OpCode::Raise, n->inputs(), {}).extra = add_extra({.name = where});
        return;
      }
      case prim::Enter:
      case prim::Exit: return emit_with(n);
      default: return emit_kernel(n);
    }
  }

  // A list of constant ints, floats or bools that only operators read (conv strides, pool
  // windows, view sizes) is built once, as a constant, instead of on every call. Lists are mutable
  // in TorchScript, so every reader must be an operator whose schema neither writes nor aliases
  // that argument: a shared list then cannot change or escape.
  bool emit_constant_list(Node* n) {
    const auto* lt = n->output()->type()->cast<ListType>();
    if (!lt) return false;
    const TypeKind ek = lt->elem()->kind();
    if (ek != TypeKind::Int && ek != TypeKind::Float && ek != TypeKind::Bool) return false;
    for (const Value* v : n->inputs())
      if (!const_of_.count(v)) return false;
    if (n->output()->uses().empty()) return false;
    for (const Use& u : n->output()->uses()) {
      const FunctionSchema* s = u.user->kind() == prim::ListConstruct ? nullptr : schema_of(u.user);
      if (!s || s->is_vararg || u.offset >= s->arguments.size() || s->arguments[u.offset].alias_info) return false;
    }
    auto list = std::make_shared<ListData>();
    for (const Value* v : n->inputs()) list->items.push_back(f_.constants[const_of_.at(v)]);
    f_.constants.emplace_back(std::move(list));
    const_of_[n->output()] = static_cast<uint32_t>(f_.constants.size() - 1);
    return true;
  }

  // `with obj:` runs obj.__enter__() at prim::Enter and obj.__exit__(None, None, None) at
  // prim::Exit, as PyTorch's interpreter does.
  void emit_with(Node* n) {
    auto cls = class_of(n->input(0));
    if (!cls) throw Unsupported(fmt::format("`with` on a value of type {}", n->input(0)->type()->str()));
    const bool enter = n->kind() == prim::Enter;
    const Plan* callee = r_.method(cls, enter ? "__enter__" : "__exit__");
    Instr in{.op = OpCode::Call, .callee = callee};
    in.in = static_cast<uint32_t>(f_.operands.size());
    use(n->input(0));
    if (!enter) {
      f_.constants.emplace_back();
      for (int k = 0; k < 3; ++k) f_.operands.push_back(operand::constant(static_cast<uint32_t>(f_.constants.size() - 1)));
    }
    in.n_in = static_cast<uint32_t>(f_.operands.size() - in.in);
    in.out = static_cast<uint32_t>(f_.operands.size());
    for (Value* v : n->outputs()) f_.operands.push_back(def(v));
    in.n_out = static_cast<uint32_t>(n->outputs().size());
    f_.code.push_back(in);
  }

  // A read may move the value out of its register when it is the register's last read in
  // instruction order and happens in the loop (or outside loops) where the value was defined: a
  // read inside a loop nested deeper runs again on the next iteration.
  void mark_last_uses() {
    std::vector<int64_t> last(next_reg_, -1);
    for (size_t i = 0; i < uses_.size(); ++i) last[uses_[i].reg] = static_cast<int64_t>(i);
    for (uint32_t r = 0; r < next_reg_; ++r) {
      if (last[r] < 0) continue;
      const UseSite& u = uses_[static_cast<size_t>(last[r])];
      if (u.loop == def_loop_[r]) f_.operands[u.operand] |= operand::kMove;
    }
  }

  CalleeResolver& r_;
  Plan& f_;
  std::unordered_map<const Value*, uint32_t> reg_of_;
  std::unordered_map<const Value*, uint32_t> const_of_;
  std::vector<uint32_t> def_loop_;  // per register: the loop it was defined in (0: none)
  std::vector<UseSite> uses_;
  uint32_t next_reg_ = 0;
  uint32_t loop_ = 0, loops_ = 0;
};

}  // namespace

void lower_graph(const Graph& g, CalleeResolver& resolver, Plan& out) {
  Lowering(resolver, out).run(g);
}

}  // namespace jitctl
