#pragma once
/// \file
/// Tracepoint formats from tracefs through libtraceevent: the text of a RAW payload
/// (perf script's trace field) and each event's field names (perf evlist
/// --trace-fields). Without libtraceevent at build time every lookup finds nothing.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace perfx::profile {

/// The formats of the tracepoints loaded so far. Move-only.
class TraceFormats {
 public:
  TraceFormats();
  ~TraceFormats();
  TraceFormats(TraceFormats&&) noexcept;
  TraceFormats& operator=(TraceFormats&&) noexcept;
  TraceFormats(const TraceFormats&) = delete;
  TraceFormats& operator=(const TraceFormats&) = delete;

  /// Loads "sys:name"'s format from `tracefs`/events/sys/name/format; false when it is
  /// not there (or cannot be parsed).
  bool load(const std::string& tracefs, const std::string& event);

  /// The formatted fields of a RAW payload of a loaded event ("fd: 0x00000001, ...");
  /// `raw_fields`: each field as its raw value instead (" name=value ...", perf's
  /// --raw-trace: tep_print_fields()).
  [[nodiscard]] std::string format(std::span<const std::byte> raw, int cpu, std::uint64_t time,
                                   bool raw_fields = false);

  /// The fields of "sys:name" (loading it from `tracefs` when needed), in the format's
  /// order, without the common_* ones; nullopt when its format cannot be had.
  [[nodiscard]] std::optional<std::vector<std::string>> fields(const std::string& tracefs,
                                                               const std::string& event);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace perfx::profile
