#pragma once
/// \file
/// Stable storage for symbol names.
///
/// Symbol::name is a view: a DSO's names live in one arena (or in the mapped kallsyms
/// text), not in a heap string per symbol. A Debian kernel has 120k symbols; one
/// allocation each made loading them the costliest part of a report (page faults on a VM).

#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace perfx::symbol {

/// Append-only string storage; views returned by add() stay valid as long as the arena
/// (moving the arena keeps them valid too). Not thread-safe.
class NameArena {
 public:
  /// A stable copy of `s`.
  std::string_view add(std::string_view s) {
    if (s.empty()) return {};
    if (s.size() > free_) {
      const std::size_t n = s.size() > kChunk / 4 ? s.size() : kChunk;
      chunks_.push_back(std::unique_ptr<char[]>(new char[n]));  // not zeroed
      next_ = chunks_.back().get();
      free_ = n;
    }
    std::memcpy(next_, s.data(), s.size());
    std::string_view out(next_, s.size());
    next_ += s.size();
    free_ -= s.size();
    return out;
  }

 private:
  static constexpr std::size_t kChunk = 64 * 1024;
  std::vector<std::unique_ptr<char[]>> chunks_;
  char* next_ = nullptr;
  std::size_t free_ = 0;
};

}  // namespace perfx::symbol
