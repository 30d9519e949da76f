#include "lib/ir/symbol.h"

#include <fmt/format.h>

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "lib/core/error.h"

namespace jitctl {
namespace {

struct Entry {
  std::string qual;
  uint32_t ns_len = 0;  // where "::" starts
  uint32_t ns_id = 0;
};

// Entries live in fixed-size chunks that never move, so reading a name by id needs no lock: an id
// is only handed out after its entry is written, under the mutex that interning takes.
class SymbolTable {
 public:
  static constexpr uint32_t kChunkBits = 10;
  static constexpr uint32_t kChunkSize = 1u << kChunkBits;
  static constexpr uint32_t kMaxChunks = 1u << 14;

  SymbolTable() {
    std::lock_guard lock(mu_);
    add_locked("");  // the empty symbol
#define JITCTL_NS_ENTRY(ns) add_locked("namespaces::" #ns);
    JITCTL_FORALL_NAMESPACES(JITCTL_NS_ENTRY)
#undef JITCTL_NS_ENTRY
#define JITCTL_SYM_ENTRY(ns, s) add_locked(#ns "::" #s);
    JITCTL_FORALL_BUILTIN_SYMBOLS(JITCTL_SYM_ENTRY)
#undef JITCTL_SYM_ENTRY
    if (size_ != static_cast<uint32_t>(detail::SymbolKey::num_builtin))
      throw std::logic_error("symbol table: builtin list has a duplicate");
  }

  uint32_t intern(std::string_view qual) {
    std::lock_guard lock(mu_);
    auto it = ids_.find(std::string(qual));
    if (it != ids_.end()) return it->second;
    return add_locked(std::string(qual));
  }

  const Entry& get(uint32_t id) const {
    return chunks_[id >> kChunkBits].load(std::memory_order_acquire)[id & (kChunkSize - 1)];
  }

 private:
  uint32_t add_locked(std::string qual) {
    Entry e;
    if (!qual.empty()) {
      const auto pos = qual.find("::");
      e.ns_len = static_cast<uint32_t>(pos);
      // A namespace's own namespace is `namespaces`; interning it here would recurse forever.
      const std::string ns_qual = "namespaces::" + qual.substr(0, pos);
      if (ns_qual == qual) e.ns_id = static_cast<uint32_t>(detail::SymbolKey::ns_namespaces);
      else {
        auto it = ids_.find(ns_qual);
        e.ns_id = it != ids_.end() ? it->second : add_locked(ns_qual);
      }
    }
    const uint32_t slot = size_;  // after the namespace, which add_locked may have just added
    if ((slot >> kChunkBits) >= kMaxChunks) throw InvalidInput("too many distinct symbols");
    auto* chunk = chunks_[slot >> kChunkBits].load(std::memory_order_relaxed);
    if (!chunk) {
      owned_.push_back(std::make_unique<Entry[]>(kChunkSize));
      chunk = owned_.back().get();
      chunks_[slot >> kChunkBits].store(chunk, std::memory_order_release);
    }
    chunk[slot & (kChunkSize - 1)] = e;
    chunk[slot & (kChunkSize - 1)].qual = qual;
    ids_.emplace(std::move(qual), slot);
    size_ = slot + 1;
    return slot;
  }

  std::mutex mu_;
  std::unordered_map<std::string, uint32_t> ids_;
  std::array<std::atomic<Entry*>, kMaxChunks> chunks_{};
  std::vector<std::unique_ptr<Entry[]>> owned_;
  uint32_t size_ = 0;
};

SymbolTable& table() {
  static SymbolTable t;
  return t;
}

}  // namespace

Symbol Symbol::from_qual_string(std::string_view qual) {
  const auto pos = qual.find("::");
  if (pos == std::string_view::npos || pos == 0 || pos + 2 >= qual.size())
    throw InvalidInput(fmt::format("'{}' is not a qualified name (ns::name)", qual));
  Symbol s;
  s.id_ = table().intern(qual);
  return s;
}

Symbol Symbol::from_domain_and_name(std::string_view ns, std::string_view name) {
  return from_qual_string(fmt::format("{}::{}", ns, name));
}

std::string_view Symbol::qual_string() const { return table().get(id_).qual; }

std::string_view Symbol::unqual_string() const {
  const auto& e = table().get(id_);
  return id_ == 0 ? std::string_view() : std::string_view(e.qual).substr(e.ns_len + 2);
}

std::string_view Symbol::ns_string() const {
  const auto& e = table().get(id_);
  return std::string_view(e.qual).substr(0, e.ns_len);
}

Symbol Symbol::ns() const {
  Symbol s;
  s.id_ = table().get(id_).ns_id;
  return s;
}

bool Symbol::is_in(detail::SymbolKey ns) const {
  return id_ != 0 && table().get(id_).ns_id == static_cast<uint32_t>(ns);
}

}  // namespace jitctl
