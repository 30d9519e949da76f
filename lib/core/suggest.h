#pragma once
// "Did you mean ...?" for names a user typed: subcommands, flags, methods, passes.
#include <string>
#include <string_view>
#include <vector>

namespace jitctl {

// The candidate closest to `typed` by edit distance (insertions, deletions, substitutions and
// swaps of neighbours each cost 1), when it is close enough to be what was meant: at most a third
// of the longer name's length, at least 1 (and a typed prefix of a candidate also counts: `inf`
// for `info`). "" when none is.
std::string closest_name(std::string_view typed, const std::vector<std::string>& candidates);

// " (did you mean 'info'?)" or "".
std::string did_you_mean(std::string_view typed, const std::vector<std::string>& candidates);

}  // namespace jitctl
