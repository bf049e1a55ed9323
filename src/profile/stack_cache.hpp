#pragma once
/// \file
/// Most samples of a recording repeat a callchain seen before (a hot loop samples the
/// same few stacks over and over). StackCache remembers which interned stack each
/// distinct raw callchain became, so a repeat costs one hash of its bytes instead of a
/// map lookup, a symbol-space translation and an intern per address.
///
/// A callchain resolves the same way only while the address spaces stay the same, so
/// entries are keyed by the thread's MapSet and the sample's cpumode and are all
/// dropped when symbol::Machine::maps_generation() moves on (a map added, an exec, a
/// fork). Memory grows with the distinct callchains, not with the samples.

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "record/records.hpp"
#include "symbol/machine.hpp"

namespace perfx::profile {

class StackCache {
 public:
  /// The stack stored for this callchain, or nullopt (then insert() stores one for it).
  [[nodiscard]] std::optional<std::uint32_t> find(std::uint64_t maps_generation,
                                                  const symbol::MapSet* maps, std::uint16_t cpumode,
                                                  const record::U64Array& callchain);
  /// Stores `stack` for the callchain of the last find() that returned nullopt.
  void insert(std::uint32_t stack) { stacks_.try_emplace(key_, stack); }

 private:
  /// Keys are whole u64 words (a pointer, a padded cpumode, callchain entries): mixing a
  /// word at a time is several times cheaper than std::hash's byte-oriented one.
  struct WordHash {
    std::size_t operator()(const std::string& key) const noexcept;
  };
  std::uint64_t generation_ = 0;
  std::string key_;  // maps pointer, cpumode, callchain bytes; reused between calls
  std::unordered_map<std::string, std::uint32_t, WordHash> stacks_;
};

/// True when the stack of `sample` is a function of its callchain, cpumode and the
/// thread's maps alone (what StackCache keys on): callchains are wanted, there is one,
/// and the sample carries no user registers and stack to unwind (--call-graph dwarf).
[[nodiscard]] bool stack_cacheable(const record::Sample& sample, bool callchains);

}  // namespace perfx::profile
