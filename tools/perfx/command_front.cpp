#include "command_front.hpp"

#include <unistd.h>

namespace perfx::cli {

void CommandFront::say(std::string_view msg) const {
  fmt::print(stderr, "perfx {}: {}\n", name_, msg);
}

int CommandFront::fail(std::string_view msg) const {
  say(msg);
  return 1;
}

void CommandFront::warn(std::string_view msg) const {
  fmt::print(stderr, "perfx {}: warning: {}\n", name_, msg);
}

int CommandFront::usage_error(std::string_view msg) const {
  say(msg);
  return kUsageExit;
}

std::optional<int> CommandFront::parse(CLI::App& app, int argc, char** argv,
                                       const std::function<std::string()>& check) {
  try {
    parse_args(app, argc, argv);
    if (app.get_prefix_command()) reject_unknown_option(app.remaining());
  } catch (const CLI::ParseError& e) {
    return usage_exit(app, e);
  }
  if (check) {
    if (const std::string msg = check(); !msg.empty()) {
      fmt::print(stderr, "{}: {}\n", app.get_name(), msg);
      return kUsageExit;
    }
  }
  if (parse_only) return 0;  // CLI fuzz target: options only (command.hpp)
  return std::nullopt;
}

std::optional<int> CommandFront::parse_workload(CLI::App& app, int argc, char** argv,
                                                std::vector<std::string>& workload) {
  app.prefix_command();
  if (auto rc = parse(app, argc, argv)) return rc;
  workload = app.remaining();
  if (!workload.empty() && workload.front() == "--") workload.erase(workload.begin());
  return std::nullopt;
}

void add_reader_options(CLI::App& app, ReaderArgs& args, unsigned which) {
  if ((which & kInputOption) != 0)
    app.add_option("-i,--input", args.input, "input file ('-' = stdin pipe)")
        ->capture_default_str();
  if ((which & kOutputOption) != 0)
    app.add_option("-o,--output", args.output, "write to this file instead of stdout");
  if ((which & kVerboseOption) != 0)
    app.add_flag("-v,--verbose", args.verbose, "more warnings (accepted for perf's habit)");
  struct Flag {
    unsigned option;
    const char* names;
    bool ReaderArgs::*value;
    const char* help;
  };
  static constexpr Flag kFlags[] = {
      {kForceOption, "-f,--force", &ReaderArgs::force,
       "read a perf.data not owned by the current user or root"},
      {kStdioOption, "--stdio", &ReaderArgs::stdio,
       "text output (the only one; accepted for perf's habit)"},
      {kDemangleParamsOption, "--demangle-params", &ReaderArgs::demangle_params,
       "C++ names with parameter lists (what perf shows with -v)"},
      {kNoDemangleOption, "--no-demangle,!--demangle", &ReaderArgs::no_demangle,
       "symbol names as the binaries have them (--demangle: demangled, the default)"},
      {kFullSourcePathOption, "--full-source-path", &ReaderArgs::full_source_path,
       "srcline with the file's whole path"},
      {kHeaderOptions, "--header", &ReaderArgs::header, "show the recording's header first"},
      {kHeaderOptions, "--header-only", &ReaderArgs::header_only,
       "show only the recording's header"},
  };
  for (const Flag& f : kFlags) {
    if ((which & f.option) != 0) app.add_flag(f.names, args.*f.value, f.help);
  }
  if ((which & kSymbolFileOptions) != 0) {
    app.add_option("--symfs", args.symfs, "look for files with symbols under this directory");
    app.add_option("--kallsyms", args.kallsyms, "kernel symbols from this kallsyms file");
    app.add_option("-k,--vmlinux", args.vmlinux, "kernel symbols from this vmlinux file");
  }
}

std::optional<int> check_symbol_files(const CommandFront& cmd, const ReaderArgs& args) {
  for (const auto* file : {&args.vmlinux, &args.kallsyms})
    if (!file->empty() && ::access(file->c_str(), R_OK) != 0)
      return cmd.fail(fmt::format("Invalid file: {}", *file));
  return std::nullopt;
}

void add_switches(CLI::App& app, std::initializer_list<Switch> switches) {
  for (const Switch& s : switches) app.add_flag(s.names, *s.value, s.help);
}

void add_target_options(CLI::App& app, bool& system_wide, std::string& cpus, std::string& pids,
                        std::string& tids) {
  app.add_flag("-a,--all-cpus", system_wide, "system-wide, on all CPUs");
  app.add_option("-C,--cpu", cpus, "only on these CPUs (0,2-3)");
  app.add_option("-p,--pid", pids, "existing processes (comma separated pids)");
  app.add_option("-t,--tid", tids, "existing threads (comma separated tids)");
}

void add_event_option(CLI::App& app, std::vector<std::string>& events, const std::string& help) {
  app.add_option("-e,--event", events, help)->allow_extra_args(false);
}

}  // namespace perfx::cli
