// Type unification and schema type variables, as c10's unifyTypes / matchTypeVariables /
// tryEvalTypeVariables (PyTorch 1.13), which decide the types the emitter gives to if/loop outputs
// and to the results of generic operators such as aten::__getitem__.t.
#include <fmt/format.h>

#include "lib/core/types.h"

namespace jitctl {
namespace {

std::optional<TypePtr> unify_impl(const TypePtr& a, const TypePtr& b, bool default_to_union,
                                  const TypePtr& type_hint) {
  if (a->is_subtype_of(*b)) return b;
  if (b->is_subtype_of(*a)) return a;

  if (auto* ta = a->cast<TensorType>(); ta && b->kind() == TypeKind::Tensor) return ta->merge(b->expect<TensorType>());

  const bool a_none = a->is_subtype_of(*NoneType::get());
  const bool b_none = b->is_subtype_of(*NoneType::get());
  if (a_none && !b_none) return OptionalType::create(b);
  if (b_none && !a_none) return OptionalType::create(a);

  // unify(Optional[x], y) => Optional[unify(x, y)]
  if (auto* oa = a->cast<OptionalType>()) {
    if (auto elem = unify_types(oa->elem(), b)) return OptionalType::create(*elem);
  } else if (auto* ob = b->cast<OptionalType>()) {
    if (auto elem = unify_types(ob->elem(), a)) return OptionalType::create(*elem);
  }

  // Tuples are immutable, so their elements unify one by one.
  if (auto* ta = a->cast<TupleType>()) {
    if (auto* tb = b->cast<TupleType>()) {
      if (ta->elements().size() != tb->elements().size()) return std::nullopt;
      std::vector<TypePtr> elems;
      for (size_t i = 0; i < ta->elements().size(); ++i) {
        auto e = unify_types(ta->elements()[i], tb->elements()[i], default_to_union);
        if (!e) return std::nullopt;
        elems.push_back(*e);
      }
      return TupleType::create(std::move(elems));
    }
  }

  if (auto* fa = a->cast<FutureType>()) {
    if (auto* fb = b->cast<FutureType>()) {
      if (auto e = unify_types(fa->elem(), fb->elem())) return FutureType::create(*e);
    }
  }

  // Mutable containers holding differently refined tensors.
  const TypePtr ua = unshaped_type(a);
  const TypePtr ub = unshaped_type(b);
  if (ua->is_subtype_of(*ub)) return ub;
  if (ub->is_subtype_of(*ua)) return ua;

  if (type_hint && a->is_subtype_of(*type_hint) && b->is_subtype_of(*type_hint)) return type_hint;
  return std::nullopt;
}

}  // namespace

std::optional<TypePtr> unify_types(const TypePtr& a, const TypePtr& b, bool default_to_union,
                                   const TypePtr& type_hint) {
  auto unified = unify_impl(a, b, default_to_union, type_hint);
  if (!unified && default_to_union) return UnionType::create({a, b});
  return unified;
}

std::optional<TypePtr> unify_type_list(std::span<const TypePtr> types, std::string* why_not) {
  if (types.empty()) {
    if (why_not) *why_not = "Cannot get unified type from empty list";
    return std::nullopt;
  }
  TypePtr result = types[0];
  for (size_t i = 1; i < types.size(); ++i) {
    auto u = unify_types(result, types[i]);
    if (!u) {
      if (why_not)
        *why_not = fmt::format(
            "Could not unify type list since element {} of type {} did not match the types before it ({})", i,
            types[i]->annotation_str(), result->annotation_str());
      return std::nullopt;
    }
    result = *u;
  }
  return result;
}

std::string match_type_variables(const TypePtr& formal, const TypePtr& actual, TypeEnv& env) {
  if (!formal->has_free_variables()) return "";

  if (auto* v = formal->cast<VarType>()) {
    auto it = env.find(v->name());
    if (it == env.end()) {
      env.emplace(v->name(), actual);
      return "";
    }
    // Either direction of subtyping is fine; reporting a mismatch is the caller's business.
    if (unify_types(it->second, actual)) return "";
    return fmt::format("Type variable '{}' previously matched to type {} is matched to type {}", v->name(),
                       it->second->annotation_str(), actual->annotation_str());
  }
  if (auto* l = formal->cast<ListType>()) {
    if (auto* la = actual->cast<ListType>()) return match_type_variables(l->elem(), la->elem(), env);
    if (auto* ta = actual->cast<TupleType>()) {
      if (auto elem = unify_type_list(ta->elements())) return match_type_variables(l->elem(), *elem, env);
    }
    return fmt::format("Cannot match {} to {}", formal->annotation_str(), actual->annotation_str());
  }
  if (auto* t = formal->cast<TupleType>()) {
    auto* ta = actual->cast<TupleType>();
    if (!ta) return "Cannot match a tuple to " + actual->annotation_str();
    if (t->elements().size() != ta->elements().size()) return "Cannot match tuples of mismatched size";
    for (size_t i = 0; i < t->elements().size(); ++i) {
      auto r = match_type_variables(t->elements()[i], ta->elements()[i], env);
      if (!r.empty()) return r;
    }
    return "";
  }
  if (auto* f = formal->cast<FutureType>()) {
    if (auto* fa = actual->cast<FutureType>()) return match_type_variables(f->elem(), fa->elem(), env);
    return "Cannot match a future to " + actual->annotation_str();
  }
  if (auto* r = formal->cast<RRefType>()) {
    if (auto* ra = actual->cast<RRefType>()) return match_type_variables(r->elem(), ra->elem(), env);
    return "Cannot match a rref to " + actual->annotation_str();
  }
  if (auto* o = formal->cast<OptionalType>()) {
    if (auto* oa = actual->cast<OptionalType>()) return match_type_variables(o->elem(), oa->elem(), env);
    // None matches Optional[t] without telling what t is; evaluation reports it if nothing else does.
    if (!actual->is_subtype_of(*NoneType::get())) return match_type_variables(o->elem(), actual, env);
    return "";
  }
  if (auto* d = formal->cast<DictType>()) {
    auto* da = actual->cast<DictType>();
    if (!da) return "Cannot match a dict to " + actual->annotation_str();
    auto k = match_type_variables(d->key(), da->key(), env);
    if (!k.empty()) return k;
    return match_type_variables(d->value(), da->value(), env);
  }
  return "Unhandled free variable container: " + formal->annotation_str();
}

TypePtr try_eval_type_variables(const TypePtr& type, const TypeEnv& env) {
  if (!type->has_free_variables()) return type;
  if (auto* v = type->cast<VarType>()) {
    auto it = env.find(v->name());
    return it == env.end() ? nullptr : it->second;
  }
  std::vector<TypePtr> contained;
  for (const TypePtr& t : type->contained()) {
    TypePtr r = try_eval_type_variables(t, env);
    if (!r) return nullptr;
    contained.push_back(std::move(r));
  }
  return type->with_contained(std::move(contained));
}

TypePtr unshaped_type(const TypePtr& type) {
  if (type->is_subtype_of(*TensorType::get())) return TensorType::get();
  if (type->contained().empty()) return type;
  std::vector<TypePtr> contained;
  for (const TypePtr& t : type->contained()) contained.push_back(unshaped_type(t));
  return type->with_contained(std::move(contained));
}

}  // namespace jitctl
