#pragma once
// Comma-separated option values (perf's --comms, --pid, --tid, --cpu, --dsos ...),
// parsed the same way by every command.

#include <string>
#include <vector>

namespace perfx::cli {

/// The non-empty items of `s` separated by `sep`.
[[nodiscard]] std::vector<std::string> split_list(const std::string& s, char sep = ',');

/// Appends the integers of a comma-separated list to `out`; false at the first item that
/// is not one (whole item, base 10).
[[nodiscard]] bool parse_int_list(const std::string& s, std::vector<int>& out);

/// perf's CPU list: "0,2", "0-3", "0-1,4" (perf_cpu_map__new()); appends to `out`, false
/// on anything else.
[[nodiscard]] bool parse_cpu_list(const std::string& s, std::vector<unsigned>& out);

}  // namespace perfx::cli
