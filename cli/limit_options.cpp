#include "cli/limit_options.h"

#include <fmt/format.h>

#include <cmath>


namespace jitctl::cli {

void add_limit_options(CLI::App& cmd, LimitOptions& o) {
  cmd.add_option("--timeout", o.timeout_s,
                 "stop with exit 2 once the command has run this many seconds (default: no limit)")
      ->type_name("SECONDS")
      ->check(CLI::Validator(
          [](std::string& s) -> std::string {
            char* end = nullptr;
            const double v = std::strtod(s.c_str(), &end);
            if (s.empty() || *end != '\0' || !std::isfinite(v) || v <= 0 || v > 1e7)
              return fmt::format("'{}' is not a number of seconds above 0 (30, 0.5, ...)", s);
            return "";
          },
          ""));
  cmd.add_option("--max-memory", o.max_memory,
                 "memory the model may allocate while it runs: 512M, 2G, ... (default: half the memory available)")
      ->type_name("SIZE")
      ->check(CLI::Validator(
          [](std::string& s) -> std::string {
            if (!parse_memory_size(s)) return fmt::format("'{}' is not a size (512M, 2G, 1.5GiB, ...)", s);
            return "";
          },
          ""));
}

RunLimits run_limits(const LimitOptions& o, const std::string& subject) {
  RunLimits l;
  l.max_memory = o.max_memory.empty() ? default_max_memory() : *parse_memory_size(o.max_memory);
  l.timeout_s = o.timeout_s;
  l.subject = subject == "-" ? "<stdin>" : subject;
  return l;
}

}  // namespace jitctl::cli
