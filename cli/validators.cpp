#include "cli/validators.h"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <optional>

namespace jitctl::cli {
namespace {

// The text as a whole number, or nullopt (empty, a fraction, trailing text, out of int64 range).
std::optional<int64_t> parse_whole(const std::string& s) {
  if (s.empty() || s.size() > 24) return std::nullopt;
  size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i == s.size()) return std::nullopt;
  for (size_t k = i; k < s.size(); ++k)
    if (!std::isdigit(static_cast<unsigned char>(s[k]))) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno == ERANGE || *end) return std::nullopt;
  return v;
}

std::string range_text(int64_t lo, int64_t hi) {
  if (hi == std::numeric_limits<int64_t>::max()) return lo == 0 ? "a whole number, 0 or more" : fmt::format("a whole number, {} or more", lo);
  return fmt::format("a whole number from {} to {}", lo, hi);
}

// The message CLI11 reports as "--flag: <message>"; the value is quoted so that empty text shows.
std::string not_a(const std::string& what, const std::string& value) {
  return fmt::format("'{}' is not {}", value, what);
}

}  // namespace

CLI::Validator whole_number(int64_t lo, int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& s) -> std::string {
        const auto v = parse_whole(s);
        if (!v || *v < lo || *v > hi) return not_a(range_text(lo, hi), s);
        return "";
      },
      "", "WHOLE");
}

CLI::Validator unsigned_number() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        bool ok = !s.empty() && s.size() <= 20;
        for (char c : s) ok = ok && std::isdigit(static_cast<unsigned char>(c));
        if (ok) {
          errno = 0;
          char* end = nullptr;
          (void)std::strtoull(s.c_str(), &end, 10);
          ok = errno != ERANGE && !*end;
        }
        return ok ? "" : not_a("a whole number from 0 to 18446744073709551615", s);
      },
      "", "UNSIGNED");
}

void plain_number_messages(CLI::App& app) {
  for (CLI::Option* opt : app.get_options()) {
    const bool whole = opt->get_type_name().rfind("INT", 0) == 0 || opt->get_type_name().rfind("UINT", 0) == 0;
    // CLI11's PositiveNumber and NonNegativeNumber are Range validators known by their
    // description (their name is empty).
    for (int i = 0;; ++i) {
      CLI::Validator* v = nullptr;
      try {
        v = opt->get_validator(i);
      } catch (const CLI::OptionNotFound&) {
        break;
      }
      const std::string name = v->get_description();
      if (name != "POSITIVE" && name != "NONNEGATIVE") continue;
      const bool positive = name == "POSITIVE";
      v->description("");  // the 309-digit bound would show in --help as well
      v->operation([positive, whole](std::string& s) -> std::string {
        const std::string what = whole ? (positive ? "a whole number, 1 or more" : "a whole number, 0 or more")
                                       : (positive ? "a number above 0" : "a number, 0 or more");
        if (whole) {
          const auto v = parse_whole(s);
          return v && *v >= (positive ? 1 : 0) ? "" : not_a(what, s);
        }
        char* end = nullptr;
        const double d = s.empty() ? 0 : std::strtod(s.c_str(), &end);
        if (s.empty() || *end || !(positive ? d > 0 : d >= 0)) return not_a(what, s);
        return "";
      });
    }
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) plain_number_messages(*sub);
}

}  // namespace jitctl::cli
