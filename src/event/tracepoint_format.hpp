#pragma once
/// \file
/// Tracepoint formats as tracefs prints them (events/<sys>/<name>/format) and as perf keeps
/// them in a recording's tracing data (HEADER_TRACING_DATA): the field layout of a
/// PERF_SAMPLE_RAW payload, and typed reads of one field. Pure: text and bytes in.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "perfx/error.hpp"

namespace perfx::event {

/// One `field:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;` line of a format.
struct TracepointField {
  std::string name;  ///< "prev_pid", "prev_comm" (without the array suffix)
  std::string type;  ///< "pid_t", "char[16]" ("__data_loc char[]" for dynamic strings)
  std::uint32_t offset = 0, size = 0;
  bool is_signed = false;
  bool dynamic = false;  ///< __data_loc: the field holds (length << 16 | offset)
  bool array = false;    ///< a fixed array ("char prev_comm[16]")
};

/// A parsed format file.
struct TracepointFormat {
  std::string system;  ///< "sched" (from the caller or the tracing data)
  std::string name;    ///< "sched_switch"
  std::uint64_t id = 0;
  std::vector<TracepointField> fields;  ///< common_* fields included
  std::string print_fmt;

  /// The field called `name`, or nullptr.
  [[nodiscard]] const TracepointField* field(std::string_view name) const noexcept;
};

/// Parses the text of a format file. Errors: kMalformedData (no name, ID or fields).
[[nodiscard]] Result<TracepointFormat> parse_tracepoint_format(std::string_view text,
                                                               std::string_view system = {});

/// The formats in perf's tracing data (version 0.5/0.6 layout of trace-event-info.c),
/// each with its system. Formats that do not parse are skipped.
/// Errors: kMalformedData (bad magic, truncated sections) with the offset.
[[nodiscard]] Result<std::vector<TracepointFormat>> parse_tracing_data(
    std::span<const std::byte> data);

/// An integer field of a RAW payload (sign-extended when the field is signed), or nullopt
/// when it lies outside `raw` or is not 1, 2, 4 or 8 bytes wide. `swap`: the payload is in
/// the other byte order.
[[nodiscard]] std::optional<std::int64_t> read_int_field(const TracepointField& f,
                                                         std::span<const std::byte> raw,
                                                         bool swap = false) noexcept;

/// A string field (char[N] up to its first NUL, or a __data_loc string), empty when it lies
/// outside `raw`.
[[nodiscard]] std::string_view read_string_field(const TracepointField& f,
                                                 std::span<const std::byte> raw,
                                                 bool swap = false) noexcept;

}  // namespace perfx::event
