#include "lib/runtime/execute.h"

#include <fmt/format.h>

#include <deque>

#include "kernels/cuda_backend.h"
#include "lib/core/error.h"
#include "lib/core/future.h"
#include "lib/core/run_limits.h"
#include "lib/runtime/device_dispatch.h"
#include "lib/runtime/interop_pool.h"
#include "lib/runtime/interpreter.h"
#include "lib/runtime/op_profile.h"
#include "lib/runtime/prepare.h"

namespace jitctl {
namespace {

// Registers are reused across calls on a thread: one buffer per call depth (a deque, so that a
// deeper call adding one leaves the callers' buffers where they are).
struct RegisterPool {
  std::deque<std::vector<IValue>> frames;
  size_t depth = 0;
};
thread_local RegisterPool pool;

// Deep enough for any real model; a hostile archive whose functions fork or call each other
// without end stops here instead of overflowing the native stack.
constexpr size_t kMaxCallDepth = 512;

class Frame {
 public:
  explicit Frame(uint32_t n) {
    if (pool.depth >= kMaxCallDepth)
      throw InvalidInput(fmt::format("calls nest more than {} deep (a recursive call?)", kMaxCallDepth));
    if (pool.frames.size() <= pool.depth) pool.frames.emplace_back();
    regs_ = &pool.frames[pool.depth++];
    regs_->resize(n);
  }
  ~Frame() {
    for (auto& r : *regs_) r = IValue();
    --pool.depth;
  }
  IValue* data() { return regs_->data(); }

 private:
  std::vector<IValue>* regs_;
};

bool value_is(const IValue& v, const TypePtr& t);

bool all_items_are(const std::vector<IValue>& items, const TypePtr& t) {
  for (const auto& x : items)
    if (!value_is(x, t)) return false;
  return true;
}

// isinstance: the value's runtime kind against the type; containers by their items.
bool value_is(const IValue& v, const TypePtr& t) {
  using K = IValue::Kind;
  switch (t->kind()) {
    case TypeKind::Any: return true;
    case TypeKind::Tensor: return v.is_tensor();
    case TypeKind::Int: return v.is(K::Int);
    case TypeKind::Float: return v.is(K::Double);
    case TypeKind::Bool: return v.is(K::Bool);
    case TypeKind::Complex: return v.is(K::Complex);
    case TypeKind::Number: return v.is(K::Int) || v.is(K::Double) || v.is(K::Complex);
    case TypeKind::String: return v.is(K::String);
    case TypeKind::None: return v.is_none();
    case TypeKind::Device: return v.is(K::Device);
    case TypeKind::Optional: return v.is_none() || value_is(v, t->contained()[0]);
    case TypeKind::Union:
      for (const auto& e : t->contained())
        if (value_is(v, e)) return true;
      return false;
    case TypeKind::List: return v.is(K::List) && all_items_are(v.to_list()->items, t->contained()[0]);
    case TypeKind::AnyList: return v.is(K::List);
    case TypeKind::AnyTuple: return v.is(K::Tuple);
    case TypeKind::Tuple: {
      if (!v.is(K::Tuple)) return false;
      const auto& items = v.to_tuple()->items;
      auto elems = t->contained();
      if (items.size() != elems.size()) return false;
      for (size_t i = 0; i < items.size(); ++i)
        if (!value_is(items[i], elems[i])) return false;
      return true;
    }
    case TypeKind::Dict: {
      if (!v.is(K::Dict)) return false;
      for (const auto& [k, x] : v.to_dict()->items)
        if (!value_is(k, t->contained()[0]) || !value_is(x, t->contained()[1])) return false;
      return true;
    }
    case TypeKind::Class: {
      if (!v.is_object()) return false;
      const auto& o = *v.to_object();
      return o.type_name == t->expect<ClassType>().qualified_name();
    }
    case TypeKind::Interface: {
      if (!v.is_object()) return false;
      const auto& o = *v.to_object();
      if (!o.cls) return false;
      for (const auto& m : t->expect<InterfaceType>().methods())
        if (!o.cls->find_method(m.name)) return false;
      return true;
    }
    default: throw Unsupported("isinstance() with type " + t->str());
  }
}

[[noreturn]] void raise(const IValue& msg, const IValue* cls, const std::string& where) {
  std::string python_class = cls && !cls->is_none() ? cls->to_string() : "";
  std::string line = fmt::format("{}: {}", python_class.empty() ? "RuntimeError" : python_class, msg.to_string());
  std::string what = where.empty() ? line : fmt::format("{} (raised at {})", line, where);
  throw RaisedException(what, python_class, msg.to_string());
}

// An error that has been told where it happened (by the innermost function running): outer
// frames add only that they called it. It stays an InvalidInput (exit 2) or an Unsupported
// (exit 3), so callers that catch those still do.
struct LocatedInvalid : InvalidInput {
  explicit LocatedInvalid(const std::string& what) : InvalidInput(what) {}
};
struct LocatedUnsupported : Unsupported {
  explicit LocatedUnsupported(const std::string& what) : Unsupported(what) {}
};
[[noreturn]] void throw_located(ExitCode code, const std::string& what) {
  if (code == ExitCode::Unsupported) throw LocatedUnsupported(what);
  throw LocatedInvalid(what);
}

// "mismatch(): aten::mm failed at model.py:12:15 (%y = aten::mm(%h, %w)): <what went wrong>"
std::string function_name(const Plan& f) {
  const size_t dot = f.name.rfind('.');
  return (dot == std::string::npos ? f.name : f.name.substr(dot + 1)) + "()";
}

std::string at(const InstrOrigin& o) {
  return fmt::format("{}{}({})", o.source.empty() ? "" : "at " + o.source + " ", "", o.node);
}

// In a catch handler: the located error `e` from a callee, with this frame's call added.
[[noreturn]] void called_from(const Plan& f, size_t pc, const Error& e) {
  if (pc >= f.origin_of.size() || f.origin_of[pc] == operand::kNone) throw;
  throw_located(e.code(), fmt::format("{}; called from {} {}", e.what(), function_name(f), at(f.origins[f.origin_of[pc]])));
}

// A limit reached (lib/core/run_limits.h): the innermost function says where, outer ones that
// they called it. It stays a LimitReached, which no model-error handler turns into a finding.
[[noreturn]] void limit_located(const Plan& f, size_t pc, const LimitReached& e) {
  // `e`, not the exception being handled: from the bad_alloc handler that is a std::bad_alloc.
  if (pc >= f.origin_of.size() || f.origin_of[pc] == operand::kNone) throw e;
  const InstrOrigin& o = f.origins[f.origin_of[pc]];
  const std::string where = fmt::format("{} at {}", o.op, o.source.empty() ? o.node : o.source);
  if (e.located()) throw LimitReached(fmt::format("{}; called from {} ({})", e.what(), function_name(f), where), true);
  throw LimitReached(fmt::format("{} in {} ({})", e.what(), function_name(f), where), true);
}

std::string located(const Plan& f, size_t pc, const std::string& what) {
  if (pc < f.origin_of.size() && f.origin_of[pc] != operand::kNone) {
    const InstrOrigin& o = f.origins[f.origin_of[pc]];
    return fmt::format("{}: {} failed {}: {}", function_name(f), o.op, at(o), what);
  }
  return fmt::format("{}: {}", function_name(f), what);
}

}  // namespace

void execute_function(const Plan& f, Stack& stack, RuntimeState* rt) {
  using namespace operand;
  if (stack.size() != f.input_registers.size())
    throw InvalidInput(fmt::format("{}: expected {} argument(s), got {}", f.name, f.input_registers.size(), stack.size()));
  Frame frame(f.num_registers);
  IValue* regs = frame.data();
  for (size_t i = 0; i < stack.size(); ++i)
    if (f.input_registers[i] != kNone) regs[f.input_registers[i]] = std::move(stack[i]);
  stack.clear();

  const uint32_t* ops = f.operands.data();
  const IValue* consts = f.constants.data();
  auto ref = [&](uint32_t op) -> const IValue& { return (op & kConst) ? consts[op >> 2] : regs[op >> 2]; };
  auto load = [&](uint32_t op) -> IValue {
    if (op & kConst) return consts[op >> 2];
    if (op & kMove) return std::move(regs[op >> 2]);
    return regs[op >> 2];
  };
  auto release = [&](uint32_t op) {
    if ((op & (kMove | kConst)) == kMove) regs[op >> 2] = IValue();
  };
  // Straight into the stack, without a temporary: each IValue move is a variant visit.
  auto push_inputs = [&](const Instr& in) {
    for (uint32_t k = 0; k < in.n_in; ++k) {
      const uint32_t op = ops[in.in + k];
      if (op & kConst)
        stack.push_back(consts[op >> 2]);
      else if (op & kMove)
        stack.push_back(std::move(regs[op >> 2]));
      else
        stack.push_back(regs[op >> 2]);
    }
  };
  auto pop_outputs = [&](const Instr& in, const char* what) {
    if (stack.size() != in.n_out) {
      const std::string& name = in.extra < f.extras.size() ? f.extras[in.extra].name : f.name;
      throw InvalidInput(fmt::format("{}: expected {} value(s), got {}", name.empty() ? what : name, in.n_out, stack.size()));
    }
    for (uint32_t k = 0; k < in.n_out; ++k)
      if (ops[in.out + k] != kNone) regs[ops[in.out + k]] = std::move(stack[k]);
    stack.clear();
  };

  const Instr* code = f.code.data();
  const bool profiling = op_profile_enabled();
  size_t pc = 0;
  try {
  for (;;) {
    const Instr& in = code[pc];
    switch (in.op) {
      case OpCode::Kernel:
        // Before every kernel as at every back edge: a model of straight-line code stops at the
        // next op once --timeout has passed, naming it, instead of being ended by the watchdog.
        if (stop_requested()) [[unlikely]] throw_stop_reason();
        push_inputs(in);
        if (profiling) [[unlikely]] {
          std::string key = op_profile_key(in.extra < f.extras.size() ? f.extras[in.extra].name : f.name, stack);
          const int64_t t0 = op_profile_clock();
          in.kernel(stack);
          const int64_t t1 = op_profile_clock();
          op_profile_outputs(key, stack);
          op_profile_add(key, t1 - t0);
        } else {
          in.kernel(stack);
        }
        pop_outputs(in, "kernel");
        ++pc;
        break;
      case OpCode::Moves:
        if (in.n_in == 1) {
          IValue v = load(ops[in.in]);
          if (ops[in.out] != kNone) regs[ops[in.out]] = std::move(v);
        } else {
          push_inputs(in);
          for (uint32_t k = 0; k < in.n_out; ++k)
            if (ops[in.out + k] != kNone) regs[ops[in.out + k]] = std::move(stack[k]);
          stack.clear();
        }
        ++pc;
        break;
      case OpCode::Jump: pc = in.target; break;
      case OpCode::JumpIfFalse: {
        const bool c = ref(ops[in.in]).to_bool();
        release(ops[in.in]);
        pc = c ? pc + 1 : in.target;
        break;
      }
      case OpCode::LoopInit:
        regs[in.a] = IValue(int64_t{0});
        push_inputs(in);
        for (uint32_t k = 0; k < in.n_out; ++k) regs[ops[in.out + k]] = std::move(stack[k]);
        stack.clear();
        ++pc;
        break;
      case OpCode::LoopTest: {
        const int64_t i = regs[in.a].to_int();
        if (i < regs[in.b].to_int() && regs[in.c].to_bool()) {
          if (ops[in.out] != kNone) regs[ops[in.out]] = IValue(i);
          ++pc;
        } else {
          pc = in.target;
        }
        break;
      }
      case OpCode::LoopNext:
        if (stop_requested()) [[unlikely]] throw_stop_reason();  // a back edge: where --timeout stops a loop
        regs[in.a] = IValue(regs[in.a].to_int() + 1);
        pc = in.target;
        break;
      case OpCode::Return:
        push_inputs(in);
        return;
      case OpCode::GetAttr: {
        const auto& obj = ref(ops[in.in]).to_object();
        if (in.a >= obj->attrs.size())
          throw InvalidInput(fmt::format("object of class {} has no attribute slot {}", obj->type_name, in.a));
        IValue v = obj->attrs[in.a].second;
        release(ops[in.in]);
        if (ops[in.out] != kNone) regs[ops[in.out]] = std::move(v);
        ++pc;
        break;
      }
      case OpCode::SetAttr: {
        // A replayed CUDA graph would skip this host-side change of state.
        if (CudaBackend* d = run_device(); d && d->capturing()) [[unlikely]]
          throw CaptureBroken("the method sets a module attribute");
        IValue v = load(ops[in.in + 1]);
        const auto& obj = ref(ops[in.in]).to_object();
        if (in.a >= obj->attrs.size())
          throw InvalidInput(fmt::format("object of class {} has no attribute slot {}", obj->type_name, in.a));
        obj->attrs[in.a].second = std::move(v);
        release(ops[in.in]);
        ++pc;
        break;
      }
      case OpCode::Call:
        if (!in.callee) throw Unsupported(fmt::format("{}: a call jitctl cannot compile", f.name));
        push_inputs(in);
        execute_function(*in.callee, stack, rt);
        pop_outputs(in, in.callee->name.c_str());
        ++pc;
        break;
      case OpCode::CallInterface: {
        const Plan* callee =
            runtime_interface_method(rt, *ref(ops[in.in]).to_object(), f.extras[in.extra].name);
        push_inputs(in);
        execute_function(*callee, stack, rt);
        pop_outputs(in, callee->name.c_str());
        ++pc;
        break;
      }
      case OpCode::Fork: {
        auto fut = std::make_shared<FutureData>();
        Stack args;
        args.reserve(in.n_in);
        for (uint32_t k = 0; k < in.n_in; ++k) args.push_back(load(ops[in.in + k]));
        InteropFuture task = InteropPool::global().submit([fut, callee = in.callee, args = std::move(args), rt,
                                                           keep = runtime_keep_alive(rt)]() mutable {
          try {
            execute_function(*callee, args, rt);
            fut->set_value(std::move(args.at(0)));
          } catch (...) {
            fut->set_error(std::current_exception());
          }
        });
        fut->wait_for_producer = [task] { task.wait(); };
        if (ops[in.out] != kNone) regs[ops[in.out]] = IValue(std::move(fut));
        ++pc;
        break;
      }
      case OpCode::CreateObject: {
        const auto& cls = f.extras[in.extra].cls;
        auto o = std::make_shared<ObjectData>();
        o->type_name = cls->qualified_name();
        o->cls = cls;
        for (const auto& a : cls->attributes()) o->attrs.emplace_back(a.name, IValue());
        if (ops[in.out] != kNone) regs[ops[in.out]] = IValue(std::move(o));
        ++pc;
        break;
      }
      case OpCode::Isinstance: {
        bool r = false;
        for (const auto& t : f.extras[in.extra].types) r = r || value_is(ref(ops[in.in]), t);
        release(ops[in.in]);
        if (ops[in.out] != kNone) regs[ops[in.out]] = IValue(r);
        ++pc;
        break;
      }
      case OpCode::Raise:
        raise(ref(ops[in.in]), in.n_in > 1 ? &ref(ops[in.in + 1]) : nullptr, f.extras[in.extra].name);
      case OpCode::Prepared:
        if (stop_requested()) [[unlikely]] throw_stop_reason();
        push_inputs(in);
        if (profiling) [[unlikely]] {
          std::string key = op_profile_key(in.extra < f.extras.size() ? f.extras[in.extra].name : f.name, stack);
          op_profile_describe(key, in.prepared->describe());
          const int64_t t0 = op_profile_clock();
          in.prepared->run(stack);
          const int64_t t1 = op_profile_clock();
          op_profile_outputs(key, stack);
          op_profile_add(key, t1 - t0);
        } else {
          in.prepared->run(stack);
        }
        pop_outputs(in, "prepared");
        ++pc;
        break;
      case OpCode::Missing:
        throw Unsupported(fmt::format("operator {} has no kernel", f.extras[in.extra].name));
    }
  }
  } catch (const RaisedException&) {
    throw;  // the model's own exception, as PyTorch words it (it names where it was raised)
  } catch (const LimitReached& e) {
    limit_located(f, pc, e);
  } catch (const LocatedInvalid& e) {
    called_from(f, pc, e);
  } catch (const LocatedUnsupported& e) {
    called_from(f, pc, e);
  } catch (const Error& e) {
    throw_located(e.code(), located(f, pc, e.what()));
  } catch (const std::bad_alloc&) {
    limit_located(f, pc, LimitReached(with_limits_subject("out of memory")));  // a huge list, string, ...
  } catch (const CaptureBroken&) {
    throw;  // the CUDA graph runner (device_runner.h) runs the call again without capturing
  } catch (const std::exception& e) {
    throw_located(ExitCode::InvalidInput, located(f, pc, e.what()));
  }
}

}  // namespace jitctl

namespace jitctl {

bool value_is_instance(const IValue& v, const TypePtr& t) { return value_is(v, t); }

}  // namespace jitctl
