#pragma once
/// \file
/// The one table of perf's symbolic event names (hardware, software, hardware cache),
/// shared by the parser and `perfx list`.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace perfx::event {

/// A hardware or software event with a fixed (type, config).
struct SymbolicEvent {
  std::string_view name;         ///< perf's main spelling ("cpu-cycles")
  std::string_view alias;        ///< second spelling ("cycles"), may be empty
  std::uint32_t type;            ///< PERF_TYPE_HARDWARE or PERF_TYPE_SOFTWARE
  std::uint64_t config;          ///< PERF_COUNT_HW_* / PERF_COUNT_SW_*
  std::string_view description;  ///< one line for `perfx list`
};

/// PERF_TYPE_HARDWARE events, in perf list's order.
std::span<const SymbolicEvent> hardware_events() noexcept;
/// PERF_TYPE_SOFTWARE events, in perf list's order.
std::span<const SymbolicEvent> software_events() noexcept;

/// Looks up a hardware/software name or alias (exact, case-sensitive like perf).
std::optional<SymbolicEvent> find_symbolic_event(std::string_view name) noexcept;

/// A hardware cache event: config = cache | op << 8 | result << 16.
struct CacheEvent {
  std::string name;  ///< perf's spelling: "L1-dcache-loads", "LLC-load-misses"
  std::uint64_t config = 0;
};

/// The combinations perf lists (ops each cache supports), in perf list's order.
std::vector<CacheEvent> cache_events();

/// Result of parsing a cache event name.
struct CacheParse {
  std::uint64_t config = 0;
  std::string canonical;  ///< perf's spelling of the same event
};

/// Parses perf's cache syntax `type[-op][-result]` with every alias perf accepts
/// (L1-dcache|l1-d|l1d|L1-data, LLC|L2, dTLB|d-tlb|Data-TLB, ..., load|loads|read,
/// store|stores|write, prefetch|prefetches|speculative-read|speculative-load,
/// refs|Reference|ops|access, misses|miss; case-insensitive). Missing op = load,
/// missing result = access.
///   std::nullopt          : not a cache name at all
///   CacheParse            : parsed
///   error string (in `bad`): looks like a cache name but the op is not valid for the
///                            cache (e.g. "L1-icache-stores"); the string says why.
std::optional<CacheParse> parse_cache_event(std::string_view name, std::string* bad);

}  // namespace perfx::event
