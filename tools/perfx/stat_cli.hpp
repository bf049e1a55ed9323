#pragma once
// What cmd_stat.cpp and cmd_stat_report.cpp share (defined in cmd_stat_report.cpp).
#include <string>
#include <string_view>

namespace perfx::cli {

/// perf's test for `perf stat record|report`: `word` has 3+ letters and starts `sub`.
bool is_stat_subcommand(std::string_view word, std::string_view sub);

/// The locale's thousands separator (perf's setlocale(LC_ALL, "") for "%'"), "" for none.
std::string locale_thousands_sep();

/// `perfx stat report [-i FILE] [-A|--per-*]`; argv[0] is "report".
int run_stat_report(int argc, char** argv);

}  // namespace perfx::cli
