#include "lib/runtime/trace_builder.h"

#include <fmt/format.h>

#include "lib/core/error.h"
#include "lib/core/types.h"
#include "lib/frontend/schema_matching.h"
#include "lib/ir/constants.h"

namespace jitctl {
namespace {

bool is_module_object(const IValue& v) {
  return v.is_object() && v.to_object()->cls && v.to_object()->cls->is_module_class();
}

// The type a trace input gets for an argument (tensors and containers of them only).
TypePtr input_type(const IValue& v, const std::string& where) {
  switch (v.kind()) {
    case IValue::Kind::Tensor: return TensorType::get();
    case IValue::Kind::Tuple: {
      std::vector<TypePtr> elems;
      for (const auto& x : v.to_tuple()->items) elems.push_back(input_type(x, where));
      return TupleType::create(std::move(elems));
    }
    case IValue::Kind::List: {
      const auto& items = v.to_list()->items;
      TypePtr elem = items.empty() ? TensorType::get() : input_type(items[0], where);
      for (const auto& x : items)
        if (!(*input_type(x, where) == *elem)) throw InvalidInput(fmt::format("{}: a list whose items differ in type cannot be traced", where));
      return ListType::create(elem);
    }
    case IValue::Kind::Dict: {
      const auto& items = v.to_dict()->items;
      for (const auto& [k, x] : items) {
        if (!k.is(IValue::Kind::String) && !k.is_tensor())
          throw InvalidInput(fmt::format("{}: only dicts with str or Tensor keys can be traced", where));
        input_type(x, where);
      }
      TypePtr key = !items.empty() && items[0].first.is_tensor() ? TensorType::get() : StringType::get();
      TypePtr value = items.empty() ? TensorType::get() : input_type(items[0].second, where);
      return DictType::create(key, value);
    }
    default:
      throw InvalidInput(fmt::format(
          "{} is {} {}: torch.jit.trace takes only tensors (and tuples, lists and dicts of tensors) as inputs",
          where, v.is_none() ? "" : "a", v.is_none() ? "None" : kind_name(v.kind())));
  }
}

}  // namespace

TraceBuilder::TraceBuilder() : graph_(std::make_shared<Graph>()) {}

void TraceBuilder::add_module_input(const IValue& root) {
  Value* self = graph_->add_input("self");
  if (!root.is_object() || !root.to_object()->cls) throw InvalidInput("the traced object is not a module");
  self->set_type(root.to_object()->cls);
  modules_[root.to_object().get()] = {self, "__module"};
  gather(root, "__module");
}

// Attributes in slot order; tensors that are parameters or buffers are traced as the attribute,
// submodules are gathered recursively. Other attributes are what a Python module keeps outside
// the traced module: a tensor among them is a constant of the trace, as in PyTorch.
void TraceBuilder::gather(const IValue& module, const std::string& path) {
  const auto& obj = module.to_object();
  const auto& attrs = obj->cls->attributes();
  for (size_t i = 0; i < attrs.size() && i < obj->attrs.size(); ++i) {
    const IValue& v = obj->attrs[i].second;
    const std::string sub = path + "." + attrs[i].name;
    const bool tensor = attrs[i].kind != ClassType::AttributeKind::Regular && v.is_tensor() && v.to_tensor().defined();
    const bool module_attr = is_module_object(v);
    if (!tensor && !module_attr) continue;
    Node* n = graph_->create(prim::TracedAttr);
    n->s_(attr::scope, sub);
    graph_->insert_node(n);
    if (tensor) {
      n->output()->set_type(TensorType::get());
      set_value(v.to_tensor(), n->output());
    } else {
      n->output()->set_type(v.to_object()->cls);
      if (!modules_.count(v.to_object().get())) {
        modules_[v.to_object().get()] = {n->output(), sub};
        gather(v, sub);
      }
    }
  }
}

void TraceBuilder::add_argument(const IValue& arg, const std::string& where) {
  Value* v = graph_->add_input();
  v->set_type(input_type(arg, where));
  add_input_value(arg, v, where);
}

Value* TraceBuilder::add_input_value(const IValue& arg, Value* v, const std::string& where) {
  switch (arg.kind()) {
    case IValue::Kind::Tensor: set_value(arg.to_tensor(), v); break;
    case IValue::Kind::Tuple: {
      Node* unpack = graph_->insert_node(graph_->create_tuple_unpack(v));
      const auto& items = arg.to_tuple()->items;
      for (size_t i = 0; i < items.size(); ++i) add_input_value(items[i], unpack->output(i), where);
      break;
    }
    case IValue::Kind::List: {
      const auto& items = arg.to_list()->items;
      Node* unpack = graph_->insert_node(graph_->create_list_unpack(v, items.size()));
      for (size_t i = 0; i < items.size(); ++i) add_input_value(items[i], unpack->output(i), where);
      break;
    }
    case IValue::Kind::Dict: {
      // PyTorch: aten::values(dict), unpacked.
      const auto& items = arg.to_dict()->items;
      const auto& dt = v->type()->expect<DictType>();
      Node* values = graph_->create(Symbol::aten("values"), {v});
      values->output()->set_type(ListType::create(dt.value()));
      graph_->insert_node(values);
      Node* unpack = graph_->insert_node(graph_->create_list_unpack(values->output(), items.size()));
      for (size_t i = 0; i < items.size(); ++i) add_input_value(items[i].second, unpack->output(i), where);
      break;
    }
    default: throw std::logic_error("trace input of an unexpected kind");
  }
  return v;
}

Value* TraceBuilder::find(const Tensor& t) const {
  if (!t.defined()) return nullptr;
  auto it = tensors_.find(&t.impl());
  return it == tensors_.end() ? nullptr : it->second.second;
}

Value* TraceBuilder::value_of(const Tensor& t) {
  if (!t.defined()) return none();
  if (Value* v = find(t)) return v;
  if (t.requires_grad())
    throw InvalidInput("the trace would need a tensor that requires grad as a constant (PyTorch refuses: make it a "
                       "parameter or an input)");
  Value* c = constant(IValue(t));
  set_value(t, c);
  return c;
}

void TraceBuilder::set_value(const Tensor& t, Value* v) {
  if (!t.defined()) return;
  tensors_[&t.impl()] = {t, v};
}

Value* TraceBuilder::module_value(const ObjectData* module) const {
  auto it = modules_.find(module);
  return it == modules_.end() ? nullptr : it->second.first;
}

const std::string* TraceBuilder::module_path(const ObjectData* module) const {
  auto it = modules_.find(module);
  return it == modules_.end() ? nullptr : &it->second.second;
}

Value* TraceBuilder::convert_number(Value* number, Symbol conversion) {
  WithInsertPoint guard(number->node()->next());
  Node* n = graph_->create(conversion, {number});
  if (conversion == aten::Int)
    n->output()->set_type(IntType::get());
  else if (conversion == aten::Float)
    n->output()->set_type(FloatType::get());
  else
    n->output()->set_type(NumberType::get());
  return graph_->insert_node(n)->output();
}

Value* TraceBuilder::constant(const IValue& v) {
  if (v.is_none()) return none();
  return graph_->insert_constant(v, loc_);
}

Value* TraceBuilder::none() { return graph_->insert_node(graph_->create_none())->output(); }

Node* TraceBuilder::insert(Node* n, bool located) {
  graph_->insert_node(n);
  if (located) n->set_source_location(loc_);
  // The operator its inputs select, as PyTorch finds it again by matching: passes (alias
  // analysis, the code printer) read it.
  if (!n->schema() && n->kind().ns() == namespaces::aten) n->set_schema(match_builtin_schema(n));
  return n;
}

std::vector<Value*> TraceBuilder::item_numbers(const IValue& container) const {
  const void* key = container.is(IValue::Kind::List)    ? static_cast<const void*>(container.to_list().get())
                    : container.is(IValue::Kind::Tuple) ? static_cast<const void*>(container.to_tuple().get())
                                                        : nullptr;
  if (!key) return {};
  auto it = items_.find(key);
  if (it == items_.end()) return {};
  return it->second.numbers;
}

void TraceBuilder::set_item_numbers(const IValue& container, std::vector<Value*> numbers) {
  const void* key = container.is(IValue::Kind::List)    ? static_cast<const void*>(container.to_list().get())
                    : container.is(IValue::Kind::Tuple) ? static_cast<const void*>(container.to_tuple().get())
                                                        : nullptr;
  if (!key) return;
  bool any = false;
  for (Value* v : numbers) any = any || v;
  if (!any) {
    items_.erase(key);
    return;
  }
  items_[key] = {container, std::move(numbers)};
}

void TraceBuilder::push_scope(const std::string& path) {
  Node* n = graph_->create(prim::TracedModuleForward, 0);
  n->s_(attr::scope, path);
  graph_->insert_node(n);
  graph_->set_insert_point(n->add_block());
}

void TraceBuilder::pop_scope() {
  Node* owner = graph_->insert_point()->owning_block()->owning_node();
  if (owner && owner->kind() == prim::TracedModuleForward) graph_->set_insert_point(owner->next());
}

}  // namespace jitctl
