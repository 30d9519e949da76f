#include "lib/core/suggest.h"

#include <algorithm>
#include <cctype>

namespace jitctl {
namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// Optimal string alignment distance, case-insensitive.
size_t distance(std::string_view a, std::string_view b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1));
  for (size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (size_t i = 1; i <= n; ++i)
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

bool is_prefix(std::string_view typed, std::string_view name) {
  if (typed.size() < 2 || typed.size() >= name.size()) return false;
  for (size_t i = 0; i < typed.size(); ++i)
    if (lower(typed[i]) != lower(name[i])) return false;
  return true;
}

}  // namespace

std::string closest_name(std::string_view typed, const std::vector<std::string>& candidates) {
  // Names typed are short; a very long one (a path, a pasted blob) is no typo of a name.
  if (typed.empty() || typed.size() > 200) return "";
  std::string best;
  size_t best_d = static_cast<size_t>(-1);
  for (const auto& c : candidates) {
    if (c.empty() || c == typed) continue;
    size_t d = distance(typed, c);
    const size_t limit = std::max<size_t>(1, std::max(typed.size(), c.size()) / 3);
    if (d > limit) {
      if (!is_prefix(typed, c)) continue;
      d = limit;  // a prefix ranks after real near-misses
    }
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view typed, const std::vector<std::string>& candidates) {
  const std::string c = closest_name(typed, candidates);
  return c.empty() ? "" : " (did you mean '" + c + "'?)";
}

}  // namespace jitctl
