#pragma once
// Helpers shared by the exporters (internal to src/report).

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "perfx/error.hpp"
#include "profile/profile.hpp"
#include "report/export.hpp"

namespace perfx::report::detail {

/// Appends `s` to `out` as a JSON string literal (quotes included, UTF-8 kept).
void append_json_string(std::string& out, std::string_view s);

/// Appends the decimal digits of `v` to `out` (no fmt/locale machinery: exporters write
/// millions of integers).
void append_uint(std::string& out, std::uint64_t v);

/// Appends a signed integer in decimal to `out`.
void append_int(std::string& out, std::int64_t v);

/// Indices of the samples of `event` (-1 = every event), grouped by (event, thread) in
/// ascending order; each group is in time order (recording order for equal times).
/// Linear for the loader's time-ordered samples (a bucket pass, no comparison sort).
[[nodiscard]] std::vector<std::uint32_t> samples_by_thread(const profile::Profile& profile,
                                                           std::int64_t event);

/// Appends `s` to `out` with XML/HTML special characters escaped.
void append_xml_escaped(std::string& out, std::string_view s);

/// The event index the single-event exporters (folded, flame graphs) use:
/// options.event when set, else the first event that has samples (0 when none).
[[nodiscard]] Result<std::uint32_t> select_event(const profile::Profile& profile,
                                                 const ExportOptions& options);

/// Title for pictures: options.title, else "perfx: <recorded command>" (the part after
/// " -- " when the command line has one), else "perfx profile".
[[nodiscard]] std::string display_title(const profile::Profile& profile,
                                        const ExportOptions& options);

/// Short lower-case name of a frame kind: "user", "kernel", "jit", "unknown".
[[nodiscard]] std::string_view kind_name(profile::FrameKind kind) noexcept;

/// Writes `data` to `out`; kIo error when the stream failed.
[[nodiscard]] Result<void> write_all(std::ostream& out, std::string_view data);

/// Writes `buf` to `out` and empties it once it holds more than 1 MiB: exporters build
/// their text in a buffer and call this as it grows, so memory stays bounded.
[[nodiscard]] Result<void> flush_if_large(std::ostream& out, std::string& buf);

}  // namespace perfx::report::detail
