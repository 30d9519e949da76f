#include "lib/serialization/module_info.h"

#include <fmt/format.h>

#include <unordered_map>
#include <unordered_set>

#include "lib/core/error.h"
#include "lib/serialization/load_module.h"

namespace jitctl {
namespace {

class ModuleWalker {
 public:
  ModuleWalker(const Archive& a, ModuleInfo& info) : a_(a), info_(info) {}

  void walk(const IValue& v, ModuleNode& node, const std::string& prefix) {
    const auto& obj = v.to_object();
    node.type_name = obj->type_name;
    if (auto it = seen_modules_.find(obj.get()); it != seen_modules_.end()) {
      node.same_as = it->second;
      return;
    }
    seen_modules_.emplace(obj.get(), prefix.empty() ? std::string("<root>") : prefix);
    const ClassOutline& cls = outline(*obj);
    const bool by_setstate = cls.has_method("__setstate__") && obj->setstate_arg;
    if (by_setstate) apply_setstate(*obj, cls);
    for (const auto& [name, type] : cls.attributes) {
      const IValue* value = obj->attr(name);
      if (!value) {
        if (by_setstate) continue;  // a slot __setstate__ leaves unset stays uninitialized, as in PyTorch
        throw InvalidInput(
            fmt::format("{}: object of class {} has no value for attribute '{}'", a_.where("data.pkl"), obj->type_name, name));
      }
      if (!value->is_tensor()) continue;
      const bool param = contains(cls.parameters, name), buffer = contains(cls.buffers, name);
      if (!param && !buffer) continue;
      NamedTensor nt{name, value->to_tensor()};
      (param ? node.parameters : node.buffers).push_back(nt);
      auto& seen = param ? seen_params_ : seen_buffers_;
      if (seen.insert(&nt.tensor.impl()).second)
        (param ? info_.parameters : info_.buffers).push_back({join(prefix, name), nt.tensor});
    }
    // named_modules() visits a module's children after the module's own members.
    for (const auto& [name, type] : cls.attributes) {
      const IValue* value = obj->attr(name);
      if (!value || !value->is_object() || !is_module(*value->to_object())) continue;
      node.children.emplace_back();
      node.children.back().name = name;
      walk(*value, node.children.back(), join(prefix, name));
    }
  }

 private:
  // Without an interpreter, only a __setstate__ that copies fields of its state tuple into
  // attributes can be followed; anything else is reported as unsupported.
  void apply_setstate(ObjectData& obj, const ClassOutline& cls) const {
    if (!obj.setstate_arg) return;  // state was an attribute dict after all
    if (!cls.setstate_is_simple)
      throw Unsupported(fmt::format("{}: class {} restores its state with a __setstate__ that needs the interpreter",
                                    a_.where("data.pkl"), obj.type_name));
    const IValue& state = *obj.setstate_arg;
    if (!state.is(IValue::Kind::Tuple))
      throw InvalidInput(fmt::format("{}: state of class {} is a {}, not a tuple", a_.where("data.pkl"), obj.type_name,
                                     kind_name(state.kind())));
    const auto& items = state.to_tuple()->items;
    for (const auto& [attr, index] : cls.setstate_copies) {
      if (index >= items.size())
        throw InvalidInput(fmt::format("{}: state of class {} has {} fields, __setstate__ reads field {}",
                                       a_.where("data.pkl"), obj.type_name, items.size(), index));
      obj.attrs.emplace_back(attr, items[index]);
    }
    obj.setstate_arg.reset();
  }

  static bool contains(const std::vector<std::string>& v, const std::string& s) {
    for (const auto& x : v)
      if (x == s) return true;
    return false;
  }
  static std::string join(const std::string& prefix, const std::string& name) {
    return prefix.empty() ? name : prefix + "." + name;
  }
  const ClassOutline& outline(const ObjectData& obj) const {
    const ClassOutline* c = info_.code.find(obj.type_name);
    if (!c) {
      throw InvalidInput(fmt::format("{}: object of class {} has no class definition under {}/code/", a_.where("data.pkl"),
                                     obj.type_name, a_.root()));
    }
    return *c;
  }
  bool is_module(const ObjectData& obj) const { return outline(obj).is_module(); }

  const Archive& a_;
  ModuleInfo& info_;
  std::unordered_map<const ObjectData*, std::string> seen_modules_;
  std::unordered_set<const TensorImpl*> seen_params_, seen_buffers_;
};

}  // namespace

ModuleInfo inspect_archive(const Archive& a) {
  ModuleInfo info;
  info.format_version = check_torchscript_layout(a);
  info.path = a.path();
  info.root = a.root();

  for (const auto& record : a.list("code/"))
    if (record.size() > 3 && record.compare(record.size() - 3, 3, ".py") == 0)
      outline_code_file(a.read(record), record, a.where(record), info.code);
  check_type_references(info.code);

  const IValue data = a.load_pickle("data.pkl", "data/", true);
  if (!data.is_object())
    throw InvalidInput(fmt::format("{}: holds a {}, not a module object", a.where("data.pkl"), kind_name(data.kind())));
  info.class_name = data.to_object()->type_name;

  if (a.has("constants.pkl")) {
    const IValue constants = a.load_pickle("constants.pkl", "constants/", true);
    if (!constants.is(IValue::Kind::Tuple))
      throw InvalidInput(fmt::format("{}: holds a {}, not a tuple", a.where("constants.pkl"), kind_name(constants.kind())));
    const auto& items = constants.to_tuple()->items;
    for (size_t i = 0; i < items.size(); ++i)
      if (items[i].is_tensor()) info.constants.push_back({fmt::format("c{}", i), items[i].to_tensor()});
  }

  ModuleWalker(a, info).walk(data, info.tree, "");
  info.methods = info.code.find(info.class_name)->methods;

  for (const auto& record : a.list("extra/")) info.extra_files.emplace_back(record.substr(6), a.find(record)->size);
  return info;
}

}  // namespace jitctl
