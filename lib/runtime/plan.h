#pragma once
// A graph lowered for the interpreter (a plan): a flat instruction list over numbered registers.
// Control flow is lowered to jumps; every operand says whether the instruction may move the value
// out of its register (its last use) or must copy it; kernels are function pointers.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/registry.h"
#include "lib/core/ivalue.h"
#include "lib/core/memory_pattern.h"
#include "lib/core/types.h"

namespace jitctl {

struct Plan;
class PreparedKernel;

// Operands are packed into one word: the index, then two flag bits.
namespace operand {
inline constexpr uint32_t kMove = 1;   // last use: the value may be moved out of its register
inline constexpr uint32_t kConst = 2;  // an index into Plan::constants, not a register
inline constexpr uint32_t kNone = 0xffffffffu;  // an output nobody reads
inline uint32_t reg(uint32_t r, bool move) { return (r << 2) | (move ? kMove : 0); }
inline uint32_t constant(uint32_t c) { return (c << 2) | kConst; }
inline uint32_t index(uint32_t op) { return op >> 2; }
}  // namespace operand

enum class OpCode : uint8_t {
  Kernel,        // kernel(stack): inputs pushed, outputs popped
  Moves,         // parallel assignment: outputs[k] = inputs[k]
  Jump,          // to a
  JumpIfFalse,   // inputs[0] is a bool; to a when false
  LoopInit,      // counter register a = 0; then as Moves
  LoopTest,      // counter a, trip register b, condition register c; leaves when done (to `target`),
                 // else sets the iteration register outputs[0] (if read) to the counter
  LoopNext,      // counter a += 1, jump to `target`
  Return,        // the function's outputs, pushed on the stack
  GetAttr,       // outputs[0] = object inputs[0], slot a
  SetAttr,       // object inputs[0], slot a = inputs[1]
  Call,          // callee (static): the call's inputs are its arguments
  CallInterface, // method `name` of the runtime class of inputs[0]
  Fork,          // runs `callee` (the subgraph) on the inter-op pool; outputs[0] is its Future
  CreateObject,  // a new object of class `type`
  Isinstance,    // outputs[0] = inputs[0] is one of `types`
  Raise,         // raise inputs[0] (message), inputs[1] (Python class name)
  Missing,       // an operator without a kernel (only in graphs planned for tests): throws
  Prepared,      // prepared->run(stack): a kernel with state made once (packed weights, fused ops)
};

struct Instr {
  OpCode op = OpCode::Kernel;
  uint32_t in = 0, n_in = 0;    // operands: Plan::operands[in .. in + n_in)
  uint32_t out = 0, n_out = 0;  // output registers: Plan::operands[out .. out + n_out)
  KernelFn kernel = nullptr;
  uint32_t a = 0, b = 0, c = 0;
  uint32_t target = 0;  // jump target
  const Plan* callee = nullptr;
  uint32_t extra = 0;  // index into Plan::extras (names, types)
  const PreparedKernel* prepared = nullptr;  // owned by Plan::prepared
};

// Data an instruction needs beyond registers: a method name, the types of an isinstance, a class.
struct InstrExtra {
  std::string name{};
  std::vector<TypePtr> types{};
  std::shared_ptr<ClassType> cls{};
};

// Where an instruction came from, for errors while running: the node as "%y = aten::mm(%x, %w)"
// and its source position from the archive's debug records ("model.py:12:15"; "" if none).
struct InstrOrigin {
  std::string op;      // "aten::mm"
  std::string node;    // "%y = aten::mm(%x, %w)"
  std::string source;  // "model.py:12:15"
};

struct Plan {
  std::string name;  // "__torch__.Net.forward", for messages
  std::vector<Instr> code;
  std::vector<InstrOrigin> origins;  // per node lowered
  std::vector<uint32_t> origin_of;   // per instruction: index into origins, or operand::kNone
  std::vector<uint32_t> operands;
  std::vector<IValue> constants;
  std::vector<InstrExtra> extras;
  uint32_t num_registers = 0;
  std::vector<uint32_t> input_registers;  // kNone for an input nobody reads
  std::vector<std::shared_ptr<const PreparedKernel>> prepared;  // kernels/prepared.h, lib/runtime/prepare.h
  // Where a call's large tensors go, learned from the calls themselves (a call from outside the
  // interpreter runs under it; calls the plan makes run under their caller's).
  mutable MemoryPatterns memory_patterns;
};

}  // namespace jitctl
