#include "lib/runtime/op_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <mutex>
#include <string_view>
#include <vector>

namespace jitctl {
namespace {

struct Entry {
  int64_t total_ns = 0;
  int64_t min_ns = 0;  // the fastest call: on a core whose neighbours slow it in bursts, the one to compare
  long calls = 0;
};

struct Profile {
  std::mutex mu;
  std::map<std::string, Entry, std::less<>> entries;

  // Reset alone (the GPU bench resets between settings) creates the table: print only what was measured.
  ~Profile() {
    if (entries.empty()) return;
    std::vector<std::pair<std::string, Entry>> rows(entries.begin(), entries.end());
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.total_ns > b.second.total_ns; });
    double sum = 0;
    for (const auto& [name, e] : rows) sum += 1e-6 * static_cast<double>(e.total_ns);
    std::fputs(fmt::format("{:>10} {:>6} {:>9} {:>10} {:>10}  op (JITCTL_PROFILE)\n", "total ms", "%", "calls", "us/call", "min us").c_str(), stderr);
    for (const auto& [name, e] : rows) {
      const double ms = 1e-6 * static_cast<double>(e.total_ns);
      std::fputs(fmt::format("{:10.2f} {:6.1f} {:9} {:10.2f} {:10.2f}  {}\n", ms, sum > 0 ? 100 * ms / sum : 0.0, e.calls,
                             1e3 * ms / std::max(e.calls, 1L), 1e-3 * static_cast<double>(e.min_ns), name)
                     .c_str(),
                 stderr);
    }
  }
};

Profile& profile() {
  static Profile p;
  return p;
}

const char* profile_setting() {
  const char* e = std::getenv("JITCTL_PROFILE");
  return e ? e : "";
}

}  // namespace

void op_profile_reset() {
  std::lock_guard lock(profile().mu);
  profile().entries.clear();
}

bool op_profile_enabled() {
  static const bool on = *profile_setting() && std::string_view(profile_setting()) != "0";
  return on;
}

namespace {

bool by_shapes() {
  static const bool shapes = std::string_view(profile_setting()) == "shapes";
  return shapes;
}

void add_shapes(std::string& key, const Stack& values) {
  for (const IValue& v : values)
    if (v.is_tensor()) {
      key += " [";
      const auto& sz = v.to_tensor().sizes();
      for (size_t i = 0; i < sz.size(); ++i) {
        if (i) key += ',';
        key += std::to_string(sz[i]);
      }
      key += "]";
    }
}

}  // namespace

std::string op_profile_key(const std::string& name, const Stack& inputs) {
  std::string key = name;
  if (by_shapes()) add_shapes(key, inputs);
  return key;
}

void op_profile_outputs(std::string& key, const Stack& outputs) {
  if (!by_shapes()) return;
  key += " ->";
  add_shapes(key, outputs);
}

void op_profile_describe(std::string& key, const std::string& what) {
  if (by_shapes() && !what.empty()) key += " " + what;
}

int64_t op_profile_clock() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

void op_profile_add(const std::string& name, int64_t ns) {
  Profile& p = profile();
  std::lock_guard<std::mutex> lock(p.mu);
  auto it = p.entries.find(name);
  if (it == p.entries.end()) it = p.entries.emplace(name, Entry{}).first;
  it->second.total_ns += ns;
  it->second.min_ns = it->second.calls ? std::min(it->second.min_ns, ns) : ns;
  ++it->second.calls;
}

}  // namespace jitctl
