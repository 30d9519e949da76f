#include "lib/runtime/inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "lib/archive/file_kind.h"
#include "lib/archive/npy.h"
#include "lib/archive/torch_save.h"
#include "lib/archive/zip_reader.h"
#include "lib/core/error.h"
#include "lib/runtime/input_spec.h"

namespace jitctl {
namespace {

// "arg3" or numpy's default "arr_3" -> 3.
std::optional<size_t> positional_index(const std::string& name) {
  std::string_view digits;
  if (name.rfind("arg", 0) == 0) digits = std::string_view(name).substr(3);
  else if (name.rfind("arr_", 0) == 0) digits = std::string_view(name).substr(4);
  if (digits.empty() || digits.size() > 6) return std::nullopt;
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return std::nullopt;
  if (digits.size() > 1 && digits[0] == '0') return std::nullopt;
  return std::stoul(std::string(digits));
}

// The leaves of one argument, by their path below it ("" for the argument itself).
struct Node;
struct Child;
struct Node {
  std::optional<Tensor> leaf;
  std::vector<Child> children;  // in the file's order
  Node& child(const std::string& key);
};
// Not a std::pair: pair<string, Node> may not name the incomplete Node (clang refuses it).
struct Child {
  std::string first;
  Node second;
};
Node& Node::child(const std::string& key) {
  for (auto& [k, n] : children)
    if (k == key) return n;
  children.push_back(Child{key, Node{}});
  return children.back().second;
}

bool is_index(const std::string& s) {
  return !s.empty() && s.size() <= 6 && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) &&
         (s.size() == 1 || s[0] != '0');
}

// Children named 0..n-1 make a tuple, any other names a dict of str keys.
IValue build(const Node& n, const std::string& where) {
  if (n.leaf) {
    if (!n.children.empty()) throw InvalidInput(fmt::format("{}: is both an array and a container of arrays", where));
    return IValue(*n.leaf);
  }
  bool indices = std::all_of(n.children.begin(), n.children.end(), [](const auto& c) { return is_index(c.first); });
  if (indices) {
    std::vector<const Node*> items(n.children.size(), nullptr);
    for (const auto& [k, c] : n.children) {
      const size_t i = std::stoul(k);
      if (i >= items.size()) throw InvalidInput(fmt::format("{}.{}: element {} is missing (elements are numbered from 0)", where, k, items.size() - 1));
      items[i] = &c;
    }
    auto t = std::make_shared<TupleData>();
    for (size_t i = 0; i < items.size(); ++i) t->items.push_back(build(*items[i], fmt::format("{}.{}", where, i)));
    return IValue(std::move(t));
  }
  auto d = std::make_shared<DictData>();
  for (const auto& [k, c] : n.children) d->set(IValue(k), build(c, where + "." + k));
  return IValue(std::move(d));
}

std::vector<IValue> npz_inputs(const std::string& path) {
  std::vector<std::pair<size_t, Node>> args;  // by index
  auto arg = [&](size_t i) -> Node& {
    for (auto& [k, n] : args)
      if (k == i) return n;
    args.emplace_back(i, Node{});
    return args.back().second;
  };
  for (auto& [name, t] : load_npz(path)) {
    const size_t dot = name.find('.');
    const std::string head = name.substr(0, dot);
    const auto i = positional_index(head);
    if (!i)
      throw InvalidInput(fmt::format("{}: member '{}' is not a positional argument (name them arg0, arg1, ... or arr_0, arr_1, ...)",
                                     path, name));
    Node* n = &arg(*i);
    for (size_t start = dot; start != std::string::npos;) {
      const size_t next = name.find('.', start + 1);
      n = &n->child(name.substr(start + 1, next == std::string::npos ? std::string::npos : next - start - 1));
      start = next;
    }
    if (n->leaf) throw InvalidInput(fmt::format("{}: argument {} appears twice", path, name));
    n->leaf = std::move(t);
  }
  std::sort(args.begin(), args.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<IValue> out;
  for (auto& [i, n] : args) {
    if (i != out.size()) throw InvalidInput(fmt::format("{}: argument {} is missing (arguments must be numbered from 0)", path, out.size()));
    out.push_back(build(n, fmt::format("{}: arg{}", path, i)));
  }
  return out;
}

}  // namespace

std::vector<IValue> load_inputs(const std::string& path) {
  const auto file = MappedFile::open(path);
  const std::string& name = file->path();
  const FileIdentity id = identify_file(file);
  refuse_unless_inputs(name, id);
  // The extension decides only for content of no known kind, so that a damaged .npy file gets
  // the .npy parser's precise message.
  const auto lower_ends = [&](std::string_view suffix) {
    if (name.size() < suffix.size()) return false;
    for (size_t i = 0; i < suffix.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(name[name.size() - suffix.size() + i])) != suffix[i]) return false;
    return true;
  };
  if (id.kind == FileKind::Npy || (id.kind == FileKind::Unknown && lower_ends(".npy")))
    return {IValue(parse_npy(file->data(), file->size(), name))};
  if (id.kind == FileKind::Npz) return npz_inputs(path);
  if (id.kind == FileKind::Unknown)
    throw InvalidInput(fmt::format("{}: not a torch.save, .npy or .npz file (inputs are torch.save((x, y), 'inputs.pt') files, "
                                   ".npy or .npz arrays, or --input-spec)",
                                   name));
  IValue v = load_torch_save(*Archive::open(ZipReader::open(file)));
  if (v.is(IValue::Kind::Tuple)) return v.to_tuple()->items;
  return {std::move(v)};
}

std::vector<IValue> resolve_inputs(const std::string& inputs_path, const std::vector<std::string>& specs, uint64_t seed) {
  if (!inputs_path.empty() && !specs.empty()) throw InvalidInput("give either --inputs or --input-spec, not both");
  if (!inputs_path.empty()) return load_inputs(inputs_path);
  return spec_inputs(specs, seed);
}

}  // namespace jitctl
