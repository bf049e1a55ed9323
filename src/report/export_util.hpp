#pragma once
// Helpers shared by the exporters (internal to src/report).

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "perfx/error.hpp"
#include "profile/profile.hpp"
#include "report/export.hpp"

namespace perfx::report::detail {

/// Appends `s` to `out` as a JSON string literal (quotes included, UTF-8 kept).
void append_json_string(std::string& out, std::string_view s);

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

}  // namespace perfx::report::detail
