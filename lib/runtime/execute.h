#pragma once
// The dispatch loop: runs one Plan. On entry `stack` holds the arguments; on return
// it holds the outputs (the kernels' calling convention, so a call passes its stack on).
#include <memory>
#include <string>

#include "kernels/registry.h"
#include "lib/runtime/plan.h"

namespace jitctl {

struct RuntimeState;

// `rt` resolves interface calls (may be null for standalone graphs).
void execute_function(const Plan& f, Stack& stack, RuntimeState* rt);

// isinstance(v, t) as prim::isinstance answers it (for the tracer, which runs graphs itself).
bool value_is_instance(const IValue& v, const TypePtr& t);
// Keeps `rt` (and so the plans a forked task runs) alive: a task may outlive the call that
// forked it, when that call fails before waiting for it. Defined with RuntimeState.
std::shared_ptr<const void> runtime_keep_alive(RuntimeState* rt);

// Defined with RuntimeState (interpreter.cpp): the method `name` of obj's runtime class.
const Plan* runtime_interface_method(RuntimeState* rt, const ObjectData& obj, const std::string& name);

}  // namespace jitctl
