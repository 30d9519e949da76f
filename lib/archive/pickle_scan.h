#pragma once
// What a pickle names, found without unpickling it: every GLOBAL (and protocol-4 STACK_GLOBAL)
// in the opcode stream, "module.name", in order. Lets jitctl say what a file is (a state_dict, a
// pickled nn.Module) before the unpickler's allow-list refuses it. Stops quietly at the first
// opcode it does not know or at truncated data; nothing is built or called.
#include <string>
#include <string_view>
#include <vector>

namespace jitctl {

std::vector<std::string> pickle_globals(std::string_view bytes, size_t max_globals = 4096);

}  // namespace jitctl
