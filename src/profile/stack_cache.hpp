#pragma once
/// \file
/// Most samples of a recording repeat a callchain (or ip) seen before (a hot loop samples the
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
#include <span>
#include <string>
#include <unordered_map>

#include "record/records.hpp"
#include "symbol/machine.hpp"

namespace perfx::profile {

class StackCache {
 public:
  /// The stack stored for these key bytes (stack_key()), or nullopt (then insert()
  /// stores one for them).
  [[nodiscard]] std::optional<std::uint32_t> find(std::uint64_t maps_generation,
                                                  const symbol::MapSet* maps, std::uint16_t cpumode,
                                                  std::span<const std::byte> key);
  /// Stores `stack` for the key of the last find() that returned nullopt.
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

/// The bytes that, with the thread's maps and the cpumode, determine the stack
/// sample_locations() gives `sample`: its callchain, or its ip when callchains are not
/// wanted or it has none. Empty when the stack also depends on a user stack copy to
/// unwind (--call-graph dwarf): such samples are not cached.
[[nodiscard]] std::span<const std::byte> stack_key(const record::Sample& sample, bool callchains);

}  // namespace perfx::profile
