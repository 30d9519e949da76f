#include "lib/runtime/interpreter.h"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <set>
#include <unordered_set>

#include "lib/core/error.h"
#include "lib/core/enum_value.h"
#include "lib/frontend/graph_function.h"
#include "lib/frontend/ir_emitter.h"
#include "lib/serialization/load_module.h"
#include "lib/runtime/plan.h"
#include "lib/runtime/lowering.h"
#include "lib/runtime/execute.h"

namespace jitctl {

// Everything planned for one module, shared by its Methods. Planning takes the mutex; running
// does not, except for the first call of an interface method on a class.
struct RuntimeState final : CalleeResolver, std::enable_shared_from_this<RuntimeState> {
  LoadedModule module;
  std::recursive_mutex mu;
  std::map<std::pair<std::string, std::string>, std::unique_ptr<Plan>> plans;
  std::vector<std::unique_ptr<Plan>> subgraphs;
  std::vector<std::string> missing_list;
  std::set<std::string> missing_seen;
  std::vector<std::shared_ptr<ObjectData>> objects;  // every object of the module tree

  const Plan* plan(const std::string& owner, const std::string& method) {
    std::lock_guard lock(mu);
    auto key = std::make_pair(owner, method);
    if (auto it = plans.find(key); it != plans.end()) return it->second.get();
    if (!module.cu) throw Unsupported("calls of methods and functions in a graph compiled without its module");
    GraphFunction* fn = module.cu->graph_function(owner, method);
    if (!fn) {
      missing(fmt::format("{}.{} (a method of a C++ class)", owner, method));
      return nullptr;
    }
    const std::shared_ptr<Graph>& opt = fn->optimized_graph();
    auto cf = std::make_unique<Plan>();
    cf->name = method.empty() ? owner : owner + "." + method;
    Plan* raw = cf.get();
    plans.emplace(key, std::move(cf));
    try {
      lower_graph(*opt, *this, *raw);
    } catch (...) {
      plans.erase(key);  // callers must not find a half-lowered function
      throw;
    }
    return raw;
  }

  // CalleeResolver
  const Plan* method(const std::shared_ptr<ClassType>& cls, const std::string& name) override {
    return plan(cls->qualified_name(), name);
  }
  const Plan* function(const std::string& qualified_name) override {
    return plan(qualified_name, "");
  }
  const Plan* subgraph(const std::shared_ptr<Graph>& g, const std::string& name) override {
    auto cf = std::make_unique<Plan>();
    cf->name = name;
    lower_graph(*g, *this, *cf);
    subgraphs.push_back(std::move(cf));
    return subgraphs.back().get();
  }
  void interface_call(const std::string& name) override {
    for (const auto& o : objects)
      if (o->cls && o->cls->find_method(name)) plan(o->cls->qualified_name(), name);
  }
  void missing(const std::string& op) override {
    if (missing_seen.insert(op).second) missing_list.push_back(op);
  }

  const Plan* interface_method(const ObjectData& obj, const std::string& name) {
    if (!obj.cls) throw Unsupported(fmt::format("calling {}.{}: the runtime does not know its class", obj.type_name, name));
    if (!module.cu) throw Unsupported("method calls in a graph compiled without its module");
    const Plan* f = plan(obj.cls->qualified_name(), name);
    if (!f) throw Unsupported(fmt::format("{}.{} cannot run", obj.type_name, name));
    return f;
  }

  // Resolves every object's class and puts its attributes in slot order (GetAttr indexes them);
  // objects pickled with __getstate__ get their state from __setstate__, as torch.jit.load does.
  void prepare_objects(const IValue& v, std::unordered_set<const void*>& seen) {
    switch (v.kind()) {
      case IValue::Kind::Object: {
        const auto& o = v.to_object();
        if (!seen.insert(o.get()).second) return;
        for (auto& [name, value] : o->attrs) prepare_objects(value, seen);
        if (o->setstate_arg) prepare_objects(*o->setstate_arg, seen);
        prepare_object(o);
        return;
      }
      case IValue::Kind::List:
        for (const auto& x : v.to_list()->items) prepare_objects(x, seen);
        return;
      case IValue::Kind::Tuple:
        for (const auto& x : v.to_tuple()->items) prepare_objects(x, seen);
        return;
      case IValue::Kind::Dict:
        for (const auto& [k, x] : v.to_dict()->items) prepare_objects(x, seen);
        return;
      default: return;
    }
  }

  void prepare_object(const std::shared_ptr<ObjectData>& o) {
    if (o->is_enum) {
      // The pickle holds only the member's value; its name (prim::EnumName) is in the class's code.
      const TypePtr t = module.cu->find_type(o->type_name);
      const auto* e = t ? t->cast<EnumType>() : nullptr;
      if (!e || !resolve_enum_name(IValue(o), *e))
        throw InvalidInput(fmt::format("{}: the archive holds a value of enum {} that its code does not define",
                                       module.archive->path(), o->type_name));
      return;
    }
    auto cls = module.cu->find_class(o->type_name);
    if (!cls) return;  // a C++ class: opaque
    std::vector<std::pair<std::string, IValue>> attrs;
    attrs.reserve(cls->attributes().size());
    for (const auto& a : cls->attributes()) {
      const IValue* v = o->attr(a.name);
      attrs.emplace_back(a.name, v ? *v : IValue());
    }
    o->attrs = std::move(attrs);
    o->cls = cls;
    objects.push_back(o);
    if (o->setstate_arg && cls->find_method("__setstate__")) {
      const Plan* f = plan(cls->qualified_name(), "__setstate__");
      if (!missing_list.empty())
        throw Unsupported(fmt::format("{}: {}.__setstate__ needs operators jitctl lacks: {}", module.archive->path(),
                                      cls->qualified_name(), missing_list.front()));
      Stack stack{IValue(o), *o->setstate_arg};
      execute_function(*f, stack, this);
    }
  }
};

IValue Method::operator()(std::vector<IValue> args) const {
  if (!fn_) throw std::logic_error("Method: not planned");
  if (args.size() < min_inputs() || args.size() > num_inputs())
    throw InvalidInput(fmt::format("{}() takes {} argument(s), got {}", fn_->name,
                                   min_inputs() == num_inputs() ? std::to_string(num_inputs())
                                                                : fmt::format("{} to {}", min_inputs(), num_inputs()),
                                   args.size()));
  Stack stack;
  stack.reserve(fn_->input_registers.size());
  if (!self_.is_none()) stack.push_back(self_);
  const size_t given = args.size();
  for (auto& a : args) stack.push_back(std::move(a));
  for (size_t i = given; i < num_inputs(); ++i) stack.push_back(*defaults_[i]);
  MemoryPatternScope memory(fn_->memory_patterns);
  execute_function(*fn_, stack, state_.get());
  if (stack.size() == 1) return std::move(stack[0]);
  auto t = std::make_shared<TupleData>();
  t->items = std::move(stack);
  return IValue(std::move(t));
}

size_t Method::num_inputs() const {
  return fn_ ? fn_->input_registers.size() - (self_.is_none() ? 0 : 1) : 0;
}

size_t Method::min_inputs() const {
  size_t n = num_inputs();
  while (n > 0 && n <= defaults_.size() && defaults_[n - 1]) --n;
  return n;
}

Runtime Runtime::load(const std::string& path) { return load(MappedFile::open(path)); }

Runtime Runtime::load(std::shared_ptr<MappedFile> file) {
  Runtime r;
  r.state_ = std::make_shared<RuntimeState>();
  r.state_->module = load_module(std::move(file));
  std::unordered_set<const void*> seen;
  std::lock_guard lock(r.state_->mu);
  r.state_->prepare_objects(r.state_->module.root, seen);
  return r;
}

std::vector<std::string> Runtime::missing_ops(const std::string& name) {
  std::lock_guard lock(state_->mu);
  if (!state_->module.cu->find_method(state_->module.class_name, name))
    throw InvalidInput(unknown_method_message(state_->module, name));
  state_->plan(state_->module.class_name, name);
  return state_->missing_list;
}

Method Runtime::method(const std::string& name) {
  std::lock_guard lock(state_->mu);
  if (!state_->module.cu->find_method(state_->module.class_name, name))
    throw InvalidInput(unknown_method_message(state_->module, name));
  const Plan* f = state_->plan(state_->module.class_name, name);
  if (!state_->missing_list.empty())
    throw Unsupported(fmt::format("{}: method '{}' uses an operator without a kernel: {}{}", path(), name,
                                  state_->missing_list.front(),
                                  state_->missing_list.size() > 1
                                      ? fmt::format(" (and {} more)", state_->missing_list.size() - 1)
                                      : ""));
  Method m;
  m.state_ = state_;
  m.fn_ = f;
  m.self_ = state_->module.root;
  const FunctionSchema schema =
      schema_of(*state_->module.cu, *state_->module.cu->find_method(state_->module.class_name, name));
  for (size_t i = 1; i < schema.arguments.size(); ++i) m.defaults_.push_back(schema.arguments[i].default_value);
  return m;
}

std::vector<std::string> Runtime::method_names() const {
  std::vector<std::string> out;
  if (auto cls = state_->module.cu->find_class(state_->module.class_name))
    for (const auto& m : cls->methods()) out.push_back(m.name);
  return out;
}

FunctionSchema Runtime::schema(const std::string& method) const {
  const auto* fn = state_->module.cu->find_method(state_->module.class_name, method);
  if (!fn) throw InvalidInput(unknown_method_message(state_->module, method));
  return schema_of(*state_->module.cu, *fn);
}

const IValue& Runtime::module() const { return state_->module.root; }
const std::string& Runtime::path() const { return state_->module.archive->path(); }
const std::string& Runtime::class_name() const { return state_->module.class_name; }
LoadedModule& Runtime::loaded_module() const { return state_->module; }

Method plan_graph(std::shared_ptr<Graph> graph) {
  auto state = std::make_shared<RuntimeState>();
  auto cf = std::make_unique<Plan>();
  cf->name = "graph";
  lower_graph(*graph, *state, *cf);
  Method m;
  m.fn_ = cf.get();
  state->subgraphs.push_back(std::move(cf));
  m.state_ = std::move(state);
  return m;
}

std::shared_ptr<const void> runtime_keep_alive(RuntimeState* rt) {
  return rt ? std::shared_ptr<const void>(rt->shared_from_this()) : nullptr;
}

const Plan* runtime_interface_method(RuntimeState* rt, const ObjectData& obj, const std::string& name) {
  if (!rt) throw Unsupported("interface method calls outside a module");
  return rt->interface_method(obj, name);
}

}  // namespace jitctl
