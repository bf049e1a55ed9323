#pragma once
// perf's option habit: a long option may be cut to any prefix that names one option
// alone (`perf report --comm sleep` is --comms, `--no-chil` is --no-children;
// tools/lib/subcmd/parse-options.c). CLI11 matches whole names only, so the commands
// parse through parse_args(), which spells such prefixes out first.
// CLI11's inlined std::string code trips GCC 12's -Wnull-dereference at -O2 (a false
// positive inside libstdc++).
#pragma GCC diagnostic ignored "-Wnull-dereference"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace perfx::cli {

/// Rewrites `args` (argv without the program name) in place: every "--name[=value]"
/// whose name is not a long option of `app` but begins exactly one of them is given that
/// option's full name. Option values are passed over; scanning ends at "--", and for a
/// prefix command (record: the workload's own options follow) at the first positional.
/// Throws CLI::ParseError for a prefix of several options, naming them all, as perf does,
/// and for an unknown option (unknown_option_error(): perf's option perfx lacks, or a typo
/// with its nearest option).
void expand_option_prefixes(const CLI::App& app, std::vector<std::string>& args);

/// app.parse(argc, argv) with perf's option prefixes (expand_option_prefixes()).
void parse_args(CLI::App& app, int argc, char** argv);

/// For a prefix command (stat, record), CLI11 takes an unknown option for the workload's
/// first word: `perfx stat --bogus true` would run "--bogus". Throws CLI::ParseError
/// naming it when what the parse left (app.remaining()) starts with an option.
void reject_unknown_option(const std::vector<std::string>& remaining);

}  // namespace perfx::cli
