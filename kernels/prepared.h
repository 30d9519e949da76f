#pragma once
// Prepared kernels: state a kernel computes once, when the runtime lowers a method, from the
// arguments that are constants of the graph (a frozen module's weights), instead of on every
// call: weights packed for the CPU's matrix kernels, say.
//
// A kernel opts in by registering a preparer under its schema name. The lowering calls it with
// the node's constant arguments; a non-null result runs that node from then on, with the calling
// convention of registry.h (every input on the stack, constants included, replaced by the
// outputs). A preparer returns nullptr when the constants do not suit it (the node then runs
// its plain kernel); the prepared kernel must give what the plain kernel gives, and fall back to
// it for inputs it cannot take. The runtime's own fusions (lib/runtime/prepare.h) use the same
// class.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/registry.h"

namespace jitctl {

class PreparedKernel {
 public:
  virtual ~PreparedKernel() = default;
  virtual void run(Stack& stack) const = 0;
  // What tells this instance apart from others of its op beyond the input shapes (a convolution's
  // weight shape, groups and stride), for JITCTL_PROFILE=shapes; empty when nothing does.
  virtual std::string describe() const { return {}; }
};

// constants[i]: input i's value when it is a constant of the graph, nullopt when it is computed.
using PrepareFn = std::unique_ptr<PreparedKernel> (*)(const std::vector<std::optional<IValue>>& constants);

// Registering a name twice is a programming error (std::logic_error).
void register_preparer(std::string_view name, PrepareFn fn);
// The preparer for `name`, or nullptr. The first call registers every built-in kernel.
PrepareFn find_preparer(std::string_view name);

}  // namespace jitctl
