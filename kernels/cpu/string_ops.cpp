// Python str methods as TorchScript implements them: byte strings with the C locale's ctype
// classes, and PyTorch's own rules where they differ from Python (an `end` of -1 in find/count/
// startswith means "to the end"; split() without a separator ignores `max`).
#include <algorithm>
#include <cctype>
#include <functional>
#include <string>

#include "kernels/cpu/register_cpu.h"
#include "kernels/cpu/value_util.h"

namespace jitctl {
namespace {

using cpu::set_result;

const std::string& str(const IValue& v) { return v.to_string(); }

IValue str_list(std::vector<std::string> parts) {
  auto l = std::make_shared<ListData>();
  l->elem_type = "str";
  for (auto& p : parts) l->items.emplace_back(std::move(p));
  return IValue(std::move(l));
}

IValue str_tuple(std::string a, std::string b, std::string c) {
  auto t = std::make_shared<TupleData>();
  t->items = {IValue(std::move(a)), IValue(std::move(b)), IValue(std::move(c))};
  return IValue(std::move(t));
}

// The [start, end) byte range that find/count/startswith/endswith search: negative start counts
// from the end, negative end counts from one past the end (so -1 is the whole string).
std::pair<size_t, size_t> search_range(size_t size, int64_t start, int64_t end) {
  const int64_t n = static_cast<int64_t>(size);
  if (start < 0) start = std::max<int64_t>(0, n + start);
  if (end < 0) end = std::max<int64_t>(0, n + end + 1);
  start = std::min(start, n);
  end = std::min(end, n);
  return {static_cast<size_t>(start), static_cast<size_t>(std::max(start, end))};
}

int64_t find_in(const std::string& s, const std::string& sub, int64_t start, int64_t end, bool last) {
  const auto [b, e] = search_range(s.size(), start, end);
  const std::string_view hay = std::string_view(s).substr(b, e - b);
  if (hay.size() < sub.size()) return -1;
  const size_t pos = last ? hay.rfind(sub) : hay.find(sub);
  return pos == std::string_view::npos ? -1 : static_cast<int64_t>(pos + b);
}

void find(Stack& s) { set_result(s, find_in(str(s[0]), str(s[1]), s[2].to_int(), s[3].to_int(), false)); }
void rfind(Stack& s) { set_result(s, find_in(str(s[0]), str(s[1]), s[2].to_int(), s[3].to_int(), true)); }

template <bool Last>
void index_str(Stack& s) {
  const int64_t r = find_in(str(s[0]), str(s[1]), s[2].to_int(), s[3].to_int(), Last);
  if (r < 0) throw InvalidInput("ValueError: substring not found");
  set_result(s, r);
}

void count(Stack& s) {
  const std::string& hay = str(s[0]);
  const std::string& sub = str(s[1]);
  const auto [b, e] = search_range(hay.size(), s[2].to_int(), s[3].to_int());
  int64_t n = 0;
  if (sub.empty()) {
    n = static_cast<int64_t>(e - b) + 1;  // Python counts the empty string between every byte
  } else {
    for (size_t pos = hay.find(sub, b); pos != std::string::npos && pos + sub.size() <= e; pos = hay.find(sub, pos + sub.size())) ++n;
  }
  set_result(s, n);
}

void startswith(Stack& s) {
  const auto [b, e] = search_range(str(s[0]).size(), s[2].to_int(), s[3].to_int());
  const std::string_view part = std::string_view(str(s[0])).substr(b, e - b);
  set_result(s, part.starts_with(str(s[1])));
}

void endswith(Stack& s) {
  const auto [b, e] = search_range(str(s[0]).size(), s[2].to_int(), s[3].to_int());
  const std::string_view part = std::string_view(str(s[0])).substr(b, e - b);
  set_result(s, part.ends_with(str(s[1])));
}

void getitem(Stack& s) {
  const std::string& v = str(s[0]);
  int64_t i = s[1].to_int();
  if (i < 0) i += static_cast<int64_t>(v.size());
  // PyTorch indexes with std::string::at and reports its exception text.
  if (i < 0 || static_cast<size_t>(i) >= v.size())
    throw InvalidInput("basic_string::at: __n (which is " + std::to_string(static_cast<uint64_t>(i)) +
                       ") >= this->size() (which is " + std::to_string(v.size()) + ")");
  set_result(s, std::string(1, v[static_cast<size_t>(i)]));
}

void slice(Stack& s) {
  const std::string& v = str(s[0]);
  const auto r = cpu::slice_range(s[1], s[2], s[3].to_int(), static_cast<int64_t>(v.size()));
  std::string out;
  for (int64_t k = 0, i = r.start; k < r.count; ++k, i += r.step) out += v[static_cast<size_t>(i)];
  set_result(s, std::move(out));
}

template <int (*F)(int)>
void map_chars(Stack& s) {
  std::string v = str(s[0]);
  for (char& c : v) c = static_cast<char>(F(static_cast<unsigned char>(c)));
  set_result(s, std::move(v));
}

// <cctype> classes wrapped as plain functions: the std:: names are overloaded with <locale>'s.
int to_lower(int c) { return std::tolower(c); }
int to_upper(int c) { return std::toupper(c); }
int swap_case(int c) { return std::isupper(c) ? std::tolower(c) : std::toupper(c); }
int is_digit(int c) { return std::isdigit(c); }
int is_alpha(int c) { return std::isalpha(c); }
int is_alnum(int c) { return std::isalnum(c); }
int is_space(int c) { return std::isspace(c); }
int is_upper(int c) { return std::isupper(c); }
int is_lower(int c) { return std::islower(c); }

void capitalize(Stack& s) {
  std::string v = str(s[0]);
  for (size_t i = 0; i < v.size(); ++i) {
    const auto c = static_cast<unsigned char>(v[i]);
    v[i] = static_cast<char>(i == 0 ? std::toupper(c) : std::tolower(c));
  }
  set_result(s, std::move(v));
}

void title(Stack& s) {
  std::string v = str(s[0]);
  bool after_alpha = false;
  for (char& ch : v) {
    const auto c = static_cast<unsigned char>(ch);
    ch = static_cast<char>(after_alpha ? std::tolower(c) : std::toupper(c));
    after_alpha = std::isalpha(c) != 0;
  }
  set_result(s, std::move(v));
}

// str.isdigit() and friends: false for "", else every byte in the class.
template <int (*F)(int)>
void all_chars(Stack& s) {
  const std::string& v = str(s[0]);
  set_result(s, !v.empty() && std::all_of(v.begin(), v.end(), [](char c) { return F(static_cast<unsigned char>(c)) != 0; }));
}

// isupper / islower: at least one letter, and every letter of that case.
template <int (*F)(int)>
void cased(Stack& s) {
  bool any_alpha = false, ok = true;
  for (char ch : str(s[0])) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalpha(c)) {
      any_alpha = true;
      ok &= F(c) != 0;
    }
  }
  set_result(s, any_alpha && ok);
}

void istitle(Stack& s) {
  bool result = false, after_alpha = false;
  for (char ch : str(s[0])) {
    const auto c = static_cast<unsigned char>(ch);
    if (after_alpha ? std::isupper(c) : std::islower(c)) {
      result = false;
      break;
    }
    if (!after_alpha && std::isalpha(c)) result = true;
    after_alpha = std::isalpha(c) != 0;
  }
  set_result(s, result);
}

// PyTorch implements Python 2's rule: non-empty, no leading digit, alphanumeric bytes only.
void isidentifier(Stack& s) {
  const std::string& v = str(s[0]);
  set_result(s, !v.empty() && !std::isdigit(static_cast<unsigned char>(v[0])) &&
                    std::all_of(v.begin(), v.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }));
}

void isprintable(Stack& s) {
  const std::string& v = str(s[0]);
  set_result(s, std::all_of(v.begin(), v.end(), [](char ch) {
               const auto c = static_cast<unsigned char>(ch);
               return std::isalnum(c) || std::ispunct(c) || c == ' ';
             }));
}

std::string strip_left(const std::string& v, const std::string& chars) {
  const size_t i = v.find_first_not_of(chars);
  return i == std::string::npos ? std::string() : v.substr(i);
}
std::string strip_right(const std::string& v, const std::string& chars) {
  const size_t i = v.find_last_not_of(chars);
  return i == std::string::npos ? std::string() : v.substr(0, i + 1);
}

// split() without a separator: runs of whitespace separate, leading/trailing ones vanish.
std::vector<std::string> split_whitespace(const std::string& v) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < v.size()) {
    while (i < v.size() && std::isspace(static_cast<unsigned char>(v[i]))) ++i;
    size_t j = i;
    while (j < v.size() && !std::isspace(static_cast<unsigned char>(v[j]))) ++j;
    if (j > i) out.push_back(v.substr(i, j - i));
    i = j;
  }
  return out;
}

void split(Stack& s) {
  const std::string& v = str(s[0]);
  if (s[1].is_none()) return set_result(s, str_list(split_whitespace(v)));
  const std::string& sep = str(s[1]);
  if (sep.empty()) throw InvalidInput("ValueError: empty separator");
  const int64_t max = s[2].to_int();
  std::vector<std::string> out;
  size_t prev = 0;
  for (size_t pos = v.find(sep); pos != std::string::npos; pos = v.find(sep, prev)) {
    if (max >= 0 && static_cast<int64_t>(out.size()) >= max) break;
    out.push_back(v.substr(prev, pos - prev));
    prev = pos + sep.size();
  }
  out.push_back(v.substr(prev));
  set_result(s, str_list(std::move(out)));
}

void rsplit(Stack& s) {
  const std::string& v = str(s[0]);
  const std::string& sep = str(s[1]);
  if (sep.empty()) throw InvalidInput("ValueError: empty separator");
  const int64_t max = s[2].to_int();
  std::vector<std::string> out;  // built back to front
  size_t end = v.size();
  while (end >= sep.size()) {
    if (max >= 0 && static_cast<int64_t>(out.size()) >= max) break;
    const size_t pos = v.rfind(sep, end - sep.size());
    if (pos == std::string::npos) break;
    out.push_back(v.substr(pos + sep.size(), end - pos - sep.size()));
    end = pos;
  }
  out.push_back(v.substr(0, end));
  std::reverse(out.begin(), out.end());
  set_result(s, str_list(std::move(out)));
}

void splitlines(Stack& s) {
  const std::string& v = str(s[0]);
  const bool keepends = s[1].to_bool();
  // PyTorch's delimiter set, byte by byte (its multi-byte entries degrade to their bytes).
  static const std::string delims = "\n\r\v\f\x1c\x1d\x1e\x85\xe2\x80\xa8\xa9";
  std::vector<std::string> out;
  size_t prev = 0;
  for (size_t pos = v.find_first_of(delims); pos != std::string::npos; pos = v.find_first_of(delims, prev)) {
    out.push_back(v.substr(prev, pos - prev));
    if (keepends) out.push_back(v.substr(pos, 1));
    prev = pos + 1;
  }
  if (prev != v.size()) out.push_back(v.substr(prev));
  set_result(s, str_list(std::move(out)));
}

void join(Stack& s) {
  const std::string& sep = str(s[0]);
  std::string out;
  const auto& items = s[1].to_list()->items;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += str(items[i]);
  }
  set_result(s, std::move(out));
}

void replace(Stack& s) {
  const std::string& v = str(s[0]);
  const std::string& old = str(s[1]);
  const std::string& neu = str(s[2]);
  const int64_t max = s[3].to_int();
  std::string out;
  int64_t done = 0;
  if (old.empty()) {  // Python inserts `neu` before every byte and at the end
    for (size_t i = 0; i <= v.size(); ++i) {
      if (max < 0 || done < max) {
        out += neu;
        ++done;
      }
      if (i < v.size()) out += v[i];
    }
    return set_result(s, std::move(out));
  }
  size_t prev = 0;
  for (size_t pos = v.find(old); pos != std::string::npos && (max < 0 || done < max); pos = v.find(old, prev)) {
    out.append(v, prev, pos - prev);
    out += neu;
    prev = pos + old.size();
    ++done;
  }
  out.append(v, prev);
  set_result(s, std::move(out));
}

char fill_char(const IValue& v) {
  if (str(v).size() != 1) throw InvalidInput("TypeError: The fill character must be exactly one character long");
  return str(v)[0];
}

void ljust(Stack& s) {
  const std::string& v = str(s[0]);
  const int64_t pad = std::max<int64_t>(0, s[1].to_int() - static_cast<int64_t>(v.size()));
  set_result(s, v + std::string(static_cast<size_t>(pad), fill_char(s[2])));
}

void rjust(Stack& s) {
  const std::string& v = str(s[0]);
  const int64_t pad = std::max<int64_t>(0, s[1].to_int() - static_cast<int64_t>(v.size()));
  set_result(s, std::string(static_cast<size_t>(pad), fill_char(s[2])) + v);
}

void center(Stack& s) {
  const std::string& v = str(s[0]);
  const int64_t width = s[1].to_int();
  const char fill = fill_char(s[2]);
  if (width <= static_cast<int64_t>(v.size())) return set_result(s, v);
  const int64_t pad = width - static_cast<int64_t>(v.size());
  // Python puts the odd padding byte on the left when the width is odd.
  int64_t left = pad / 2, right = pad - left;
  if (width % 2) std::swap(left, right);
  set_result(s, std::string(static_cast<size_t>(left), fill) + v + std::string(static_cast<size_t>(right), fill));
}

void zfill(Stack& s) {
  const std::string& v = str(s[0]);
  const int64_t pad = std::max<int64_t>(0, s[1].to_int() - static_cast<int64_t>(v.size()));
  set_result(s, std::string(static_cast<size_t>(pad), '0') + v);
}

void expandtabs(Stack& s) {
  const int64_t tab = s[1].to_int();
  std::string out;
  for (char c : str(s[0])) {
    if (c != '\t') {
      out += c;
    } else if (tab > 0) {
      do out += ' ';
      while (static_cast<int64_t>(out.size()) % tab);
    }
  }
  set_result(s, std::move(out));
}

void partition(Stack& s) {
  const std::string& v = str(s[0]);
  const std::string& sep = str(s[1]);
  const size_t pos = v.find(sep);
  if (pos == std::string::npos) return set_result(s, str_tuple(v, "", ""));
  set_result(s, str_tuple(v.substr(0, pos), sep, v.substr(pos + sep.size())));
}

void rpartition(Stack& s) {
  const std::string& v = str(s[0]);
  const std::string& sep = str(s[1]);
  const size_t pos = v.rfind(sep);
  if (pos == std::string::npos) return set_result(s, str_tuple("", "", v));
  set_result(s, str_tuple(v.substr(0, pos), sep, v.substr(pos + sep.size())));
}

void ord(Stack& s) {
  const std::string& v = str(s[0]);
  if (v.size() != 1) throw InvalidInput("String for ord() must be 1 character, found " + std::to_string(v.size()));
  set_result(s, static_cast<int64_t>(static_cast<unsigned char>(v[0])));
}

void chr(Stack& s) {
  const int64_t i = s[0].to_int();
  if (i < 0 || i >= 0x110000) throw InvalidInput("chr() arg not in range(0x110000), found " + std::to_string(i));
  set_result(s, std::string(1, static_cast<char>(i)));
}

// hex() / oct() / bin(): Python's prefix, sign before it.
template <int Base>
void int_to_base(Stack& s) {
  const int64_t i = s[0].to_int();
  uint64_t u = i < 0 ? 0 - static_cast<uint64_t>(i) : static_cast<uint64_t>(i);
  std::string digits;
  do {
    digits += "0123456789abcdef"[u % Base];
    u /= Base;
  } while (u);
  std::reverse(digits.begin(), digits.end());
  const char* prefix = Base == 16 ? "0x" : Base == 8 ? "0o" : "0b";
  set_result(s, std::string(i < 0 ? "-" : "") + prefix + digits);
}

void chars_of(Stack& s) {
  std::vector<std::string> out;
  for (char c : str(s[0])) out.emplace_back(1, c);
  set_result(s, str_list(std::move(out)));
}

template <class Cmp>
void compare(Stack& s) {
  set_result(s, Cmp{}(str(s[0]), str(s[1])));
}

}  // namespace

void register_string_kernels() {
  register_kernel("aten::add.str", [](Stack& s) { set_result(s, str(s[0]) + str(s[1])); });
  register_kernel("aten::len.str", [](Stack& s) { set_result(s, static_cast<int64_t>(str(s[0]).size())); });
  register_kernel("aten::eq.str", &compare<std::equal_to<>>);
  register_kernel("aten::ne.str", &compare<std::not_equal_to<>>);
  register_kernel("aten::lt.str", &compare<std::less<>>);
  register_kernel("aten::le.str", &compare<std::less_equal<>>);
  register_kernel("aten::gt.str", &compare<std::greater<>>);
  register_kernel("aten::ge.str", &compare<std::greater_equal<>>);
  register_kernel("aten::__getitem__.str", &getitem);
  register_kernel("aten::slice.str", &slice);
  register_kernel("aten::list", &chars_of);
  register_kernel("aten::lower", &map_chars<to_lower>);
  register_kernel("aten::upper", &map_chars<to_upper>);
  register_kernel("aten::swapcase", &map_chars<swap_case>);
  register_kernel("aten::capitalize", &capitalize);
  register_kernel("aten::title", &title);
  register_kernel("aten::isdigit", &all_chars<is_digit>);
  register_kernel("aten::isdecimal", &all_chars<is_digit>);
  register_kernel("aten::isnumeric", &all_chars<is_digit>);
  register_kernel("aten::isalpha", &all_chars<is_alpha>);
  register_kernel("aten::isalnum", &all_chars<is_alnum>);
  register_kernel("aten::isspace", &all_chars<is_space>);
  register_kernel("aten::isupper", &cased<is_upper>);
  register_kernel("aten::islower", &cased<is_lower>);
  register_kernel("aten::istitle", &istitle);
  register_kernel("aten::isidentifier", &isidentifier);
  register_kernel("aten::isprintable", &isprintable);
  register_kernel("aten::strip", [](Stack& s) { set_result(s, strip_left(strip_right(str(s[0]), str(s[1])), str(s[1]))); });
  register_kernel("aten::lstrip", [](Stack& s) { set_result(s, strip_left(str(s[0]), str(s[1]))); });
  register_kernel("aten::rstrip", [](Stack& s) { set_result(s, strip_right(str(s[0]), str(s[1]))); });
  register_kernel("aten::split.str", &split);
  register_kernel("aten::rsplit", &rsplit);
  register_kernel("aten::splitlines", &splitlines);
  register_kernel("aten::join", &join);
  register_kernel("aten::replace", &replace);
  register_kernel("aten::find", &find);
  register_kernel("aten::rfind", &rfind);
  register_kernel("aten::index.str", &index_str<false>);
  register_kernel("aten::rindex", &index_str<true>);
  register_kernel("aten::count", &count);
  register_kernel("aten::startswith", &startswith);
  register_kernel("aten::endswith", &endswith);
  register_kernel("aten::ljust", &ljust);
  register_kernel("aten::rjust", &rjust);
  register_kernel("aten::center", &center);
  register_kernel("aten::zfill", &zfill);
  register_kernel("aten::expandtabs", &expandtabs);
  register_kernel("aten::partition", &partition);
  register_kernel("aten::rpartition", &rpartition);
  register_kernel("aten::ord", &ord);
  register_kernel("aten::chr", &chr);
  register_kernel("aten::hex", &int_to_base<16>);
  register_kernel("aten::oct", &int_to_base<8>);
  register_kernel("aten::bin", &int_to_base<2>);

  cpu::register_format_kernels();
}

}  // namespace jitctl
