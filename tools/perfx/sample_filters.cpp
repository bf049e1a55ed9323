#include "sample_filters.hpp"

#include <fmt/core.h>

#include "list_options.hpp"

namespace perfx::cli {

namespace {

tl::unexpected<Error> bad(std::string_view option, const std::string& text) {
  return fail(Errc::kInvalidArgument, fmt::format("bad {} '{}'", option, text));
}

template <typename T>
void put(T* to, T value) {
  if (to != nullptr) *to = std::move(value);
}

}  // namespace

Result<void> SampleFilters::parse(const FilterTargets& to, bool check_time) const {
  ThreadFilter threads;
  threads.comms = split_list(comms);
  std::vector<std::uint32_t> cpu_list;
  if (!parse_int_list(pids, threads.pids)) return bad("--pid", pids);
  if (!parse_int_list(tids, threads.tids)) return bad("--tid", tids);
  if (!parse_cpu_list(cpus, cpu_list)) return bad("--cpu", cpus);
  // Checked before reading for a clear error; percent forms need the recording.
  if (check_time) PERFX_CHECK(check_time_windows(time));
  put(to.threads, std::move(threads));
  put(to.cpus, std::move(cpu_list));
  put(to.dsos, split_list(dsos));
  put(to.symbols, split_list(symbols));
  put(to.time, time);
  return {};
}

void add_filter_options(CLI::App& app, SampleFilters& f, const FilterSpelling& names) {
  if (names.comms != nullptr)
    app.add_option(names.comms, f.comms, "only samples of these commands (comma separated)");
  if (names.threads) {
    app.add_option("--pid", f.pids, "only samples of these process ids");
    app.add_option("--tid", f.tids, "only samples of these thread ids");
  }
  if (names.cpu != nullptr)
    app.add_option(names.cpu, f.cpus, "only samples on these CPUs (0,2 or 0-3)");
  if (names.dsos != nullptr)
    app.add_option(names.dsos, f.dsos, "only samples in these shared objects (comma separated)");
  if (names.symbols != nullptr)
    app.add_option(names.symbols, f.symbols, "only samples in these symbols (comma separated)");
  if (names.time)
    app.add_option("--time", f.time,
                   "time windows (perf syntax): START,STOP [START,STOP..] in seconds, 10%/2, "
                   "0%-10%");
}

}  // namespace perfx::cli
