// perfx top: perf top's --stdio mode. Samples the whole system (or -p/-t/-C), keeps the
// symbolized counts live (profile::LiveCounts) and prints the hottest entries every -d
// seconds (report::top_screen_text) until Ctrl-C or 'q'.

#include <fmt/core.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

// CLI11's inlined std::string code trips GCC 12's -Wnull-dereference at -O2 (a false
// positive inside libstdc++).
#pragma GCC diagnostic ignored "-Wnull-dereference"

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "command.hpp"
#include "option_prefix.hpp"
#include "perf_options.hpp"
#include "profile/live_counts.hpp"
#include "record/sample_layout.hpp"
#include "report/top_screen.hpp"
#include "sampling_setup.hpp"
#include "sys/cpu_list.hpp"
#include "sys/signals.hpp"
#include "sys/synthesize.hpp"

namespace perfx::cli {
namespace {

int error_exit(const std::string& msg) {
  fmt::print(stderr, "perfx top: {}\n", msg);
  return 1;
}

// The terminal in non-canonical mode without echo while top runs, so that a 'q' quits
// at once (perf top's display thread does the same); restored on the way out.
class KeyInput {
 public:
  KeyInput() {
    if (::isatty(STDIN_FILENO) != 1 || ::tcgetattr(STDIN_FILENO, &saved_) != 0) return;
    termios raw = saved_;
    raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    active_ = ::tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
  }
  ~KeyInput() {
    if (active_) ::tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
  }
  KeyInput(const KeyInput&) = delete;
  KeyInput& operator=(const KeyInput&) = delete;
  [[nodiscard]] bool active() const noexcept { return active_; }
  /// True when 'q' or 'Q' was typed.
  [[nodiscard]] bool quit_typed() const {
    if (!active_) return false;
    char buf[32];
    const ssize_t n = ::read(STDIN_FILENO, buf, sizeof(buf));
    for (ssize_t i = 0; i < n; ++i)
      if (buf[i] == 'q' || buf[i] == 'Q') return true;
    return false;
  }

 private:
  termios saved_{};
  bool active_ = false;
};

// perf's get_term_dimensions(): $LINES and $COLUMNS, else the terminal's, else 25x80.
std::pair<std::size_t, std::size_t> term_size() {
  const char* lines = std::getenv("LINES");
  const char* cols = std::getenv("COLUMNS");
  if (lines != nullptr && cols != nullptr && std::atoi(lines) > 0 && std::atoi(cols) > 0)
    return {static_cast<std::size_t>(std::atoi(lines)), static_cast<std::size_t>(std::atoi(cols))};
  winsize ws{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
    return {ws.ws_row, ws.ws_col};
  return {25, 80};
}

int run_top(int argc, char** argv) {
  CLI::App app{"Show the hottest functions of the system, live (like perf top --stdio)",
               "perfx top"};
  std::vector<std::string> events;
  app.add_option("-e,--event", events,
                 "event(s) to sample (perf syntax); default cycles, "
                 "falling back to cpu-clock without a PMU")
      ->allow_extra_args(false);
  std::optional<std::uint64_t> freq, period;
  app.add_option("-F,--freq", freq, "sampling frequency in Hz (default 4000)");
  app.add_option("-c,--count", period, "sample every N events (fixed period)");
  bool all_cpus = false;
  app.add_flag("-a,--all-cpus", all_cpus, "system-wide (the default)");
  std::string cpu_list, pids, tids, mmap_pages;
  app.add_option("-C,--cpu", cpu_list, "only these CPUs (0,2-3)");
  app.add_option("-p,--pid", pids, "only these processes (comma separated)");
  app.add_option("-t,--tid", tids, "only these threads (comma separated)");
  double delay = 2;
  app.add_option("-d,--delay", delay, "seconds between refreshes (default 2)");
  int entries = 0;
  app.add_option("-E,--entries", entries, "rows to show (default: the terminal's height)");
  bool hide_kernel = false, hide_user = false, zero = false, stdio = false;
  app.add_flag("-K,--hide_kernel_symbols", hide_kernel, "leave kernel samples out");
  app.add_flag("-U,--hide_user_symbols", hide_user, "leave user samples out");
  app.add_flag("-z,--zero", zero, "each refresh shows only its own samples (no decay)");
  app.add_flag("--stdio", stdio, "text screens (the only mode)");
  std::string sort = "dso,sym";
  app.add_option("-s,--sort", sort, "sort keys: comm,pid,dso,sym (default dso,sym)");
  double percent_limit = 0;
  app.add_option("--percent-limit", percent_limit, "hide entries below this percentage");
  app.add_option("-m,--mmap-pages", mmap_pages, "ring buffer pages per CPU (or a size: 512K)");
  int verbose = 0;
  app.add_flag("-v,--verbose", verbose, "show the event fallback");
  bool callchain_fp = false;
  app.add_flag("-g", callchain_fp, "callchains (frame pointers), shown as call graphs");
  std::string call_graph;
  app.add_option("--call-graph", call_graph, "callchain mode: fp or dwarf[,size]");
  bool children = true;
  app.add_flag("--children,!--no-children", children,
               "with callchains: Children and Self columns (the default) or Self only");
  try {
    parse_args(app, argc, argv);
  } catch (const CLI::ParseError& e) {
    return usage_exit(app, e);
  }
  if (parse_only) return 0;  // CLI fuzz target: options only (command.hpp)
  (void)stdio;
  (void)all_cpus;
  auto cg = parse_call_graph(callchain_fp, call_graph);
  if (!cg) return error_exit(cg.error().message());
  const bool callchains = cg->mode != CallGraph::kNone;
  if (freq && period) return error_exit("-F and -c are exclusive");
  if ((freq && *freq == 0) || (period && *period == 0)) return error_exit("-F/-c must be > 0");
  if (!(delay > 0) || delay > 86400) return error_exit("-d needs a delay in seconds (> 0)");
  auto keys = profile::parse_live_keys(sort);
  if (!keys) return error_exit(keys.error().message());
  bool rounded = false;
  auto pages = parse_mmap_pages(mmap_pages, rounded);
  if (!pages) return error_exit(pages.error().message());

  auto choices = parse_event_choices(events);
  if (!choices) return error_exit(choices.error().message());
  std::uint64_t hz = freq.value_or(4000);
  if (auto max = max_sample_rate();
      !period && max && *max > 0 && hz > static_cast<std::uint64_t>(*max))
    hz = static_cast<std::uint64_t>(*max);

  // ---- target: every CPU unless -p/-t; -C narrows the CPUs.
  const bool task_target = !pids.empty() || !tids.empty();
  std::vector<pid_t> tasks{-1};
  std::vector<pid_t> synth_pids;
  if (task_target) {
    auto t = resolve_task_target(pids, tids);
    if (!t) return error_exit(t.error().message());
    tasks = std::move(t->tasks);
    synth_pids = std::move(t->synth_pids);
  }
  auto online = sys::read_online_cpus();
  std::vector<int> cpus;
  if (!cpu_list.empty()) {
    auto c = sys::parse_cpus(cpu_list);
    if (!c) return error_exit(c.error().message());
    if (online) {
      if (auto ok = sys::check_cpus_online(*c, *online); !ok)
        return error_exit(ok.error().message());
    }
    cpus = *c;
  }
  const std::size_t nr_cpus = !cpus.empty() ? cpus.size() : (online ? online->size() : 1);

  // ---- attrs: what perf top asks for (ip, tid, time, period; the CPU system-wide)
  auto& evs = choices->events;
  for (std::size_t i = 0; i < evs.size(); ++i) {
    raw::EventAttr& a = evs[i].attr;
    a.size = raw::kAttrSizeVer8;
    a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
                    cg->sample_type();
    cg->configure(a);
    if (!task_target) a.sample_type |= PERF_SAMPLE_CPU;
    if (evs.size() > 1) a.sample_type |= PERF_SAMPLE_IDENTIFIER;
    if (evs[i].kind == event::EventKind::kTracepoint) a.sample_type |= PERF_SAMPLE_RAW;
    a.read_format = PERF_FORMAT_ID;
    a.disabled = 1;
    a.inherit = task_target ? 1 : 0;
    a.sample_id_all = 1;
    if (!evs[i].is_default) a.exclude_guest = 1;
    if (evs[i].period_from_term) {
    } else if (period) {
      a.freq = 0;
      a.sample_period = *period;
    } else if (evs[i].default_period != 0 && !freq) {
      a.freq = 0;
      a.sample_period = evs[i].default_period;
    } else {
      a.freq = 1;
      a.sample_freq = hz;
    }
    if (i == 0) {  // side-band: maps, comms, forks and exits come with the first event
      a.mmap = 1;
      a.comm = 1;
      a.task = 1;
      a.mmap2 = 1;
      a.comm_exec = 1;
    }
  }
  auto options_for = [&] {
    SamplerOptions so;
    for (const auto& e : evs) so.events.push_back({e.name, e.attr, e.group_leader});
    so.pids = tasks;
    so.cpus = cpus;
    so.data_pages = *pages;
    return so;
  };
  auto sampler = open_with_fallback(*choices, options_for, verbose > 0);
  if (!sampler) return error_exit(sampler.error().message());

  record::AttrTable attrs;
  for (std::size_t i = 0; i < evs.size(); ++i) attrs.add(evs[i].attr, sampler->ids(i), evs[i].name);
  profile::LiveCounts counts(attrs, *keys);
  counts.hide(hide_user, hide_kernel);
  counts.set_callchains(callchains);
  {
    const auto layout = record::SampleLayout::from_attr(evs[0].attr);
    std::vector<std::byte> synth;
    (void)sys::synthesize_kernel_mmap(layout, synth);  // kptr_restrict: kernel unresolved
    sys::SynthOptions so;
    if (!task_target) {
      if (auto r = sys::synthesize_all_processes(layout, so, synth); !r)
        return error_exit(r.error().message());
    }
    for (pid_t p : synth_pids) {
      if (auto r = sys::synthesize_process(p, layout, so, synth); !r)
        return error_exit(r.error().message());
    }
    for_each_record(synth, [&](std::span<const std::byte> rec) { counts.add(rec); });
    counts.flush();
  }

  auto sigpipe = sys::SignalPipe::install({SIGINT, SIGTERM, SIGHUP});
  if (!sigpipe) return error_exit(sigpipe.error().message());
  if (auto r = sampler->add_wait_fd(sigpipe->fd()); !r) return error_exit(r.error().message());
  ::signal(SIGPIPE, SIG_IGN);
  KeyInput keys_in;
  if (keys_in.active()) {
    if (auto r = sampler->add_wait_fd(STDIN_FILENO); !r) return error_exit(r.error().message());
  }
  if (auto r = sampler->enable(); !r) return error_exit(r.error().message());

  report::TopScreen screen;
  {
    std::string ev = evs.size() == 1
                         ? (evs[0].attr.freq ? fmt::format("{}Hz ", evs[0].attr.sample_freq)
                                             : fmt::format("{} ", evs[0].attr.sample_period))
                         : std::string();
    screen.event = ev + evs[0].name;
    std::string t = !pids.empty()   ? fmt::format(" (target_pid: {}", pids)
                    : !tids.empty() ? fmt::format(" (target_tid: {}", tids)
                                    : std::string(" (all");
    if (!cpu_list.empty())
      t += fmt::format(", CPU{}: {})", cpus.size() > 1 ? "s" : "", cpu_list);
    else if (!tids.empty())
      t += ")";
    else
      t += fmt::format(", {} CPU{})", nr_cpus, nr_cpus > 1 ? "s" : "");
    screen.target = t;
    screen.percent_limit = percent_limit;
  }
  const bool tty = ::isatty(STDOUT_FILENO) == 1;

  std::vector<std::byte> scratch;
  auto sink = [&](std::span<const std::byte> first, std::span<const std::byte> second,
                  int) -> Result<void> {
    for_each_record(contiguous(first, second, scratch),
                    [&](std::span<const std::byte> rec) { counts.add(rec); });
    return {};
  };

  using Clock = std::chrono::steady_clock;
  const auto interval =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(delay));
  auto next_screen = Clock::now() + interval;
  bool stop = false;
  while (!stop) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(next_screen - Clock::now());
    auto w = sampler->wait(static_cast<int>(std::max<long long>(0, left.count())));
    if (!w) return error_exit(w.error().message());
    if (auto n = sampler->drain(sink); !n) return error_exit(n.error().message());
    counts.flush();
    for (int s : sigpipe->take()) {
      if (s == SIGINT || s == SIGTERM || s == SIGHUP) stop = true;
    }
    if (keys_in.quit_typed()) stop = true;
    if (stop || Clock::now() < next_screen) continue;
    next_screen += interval;
    const auto [rows, cols] = term_size();
    screen.width = cols;
    screen.max_rows = entries > 0 ? static_cast<std::size_t>(entries) : (rows > 5 ? rows - 5 : 1);
    const auto in = counts.take_interval();
    screen.samples = in.samples;
    screen.kernel_samples = in.kernel_samples;
    screen.exact_samples = in.exact_samples;
    screen.samples_per_sec = static_cast<double>(in.samples) / delay;
    screen.lost = in.lost;
    screen.lost_total = counts.lost_total();
    const auto text = callchains
                          ? report::top_chain_screen_text(
                                screen, counts.refresh_profile(zero, evs[0].name), *keys, children)
                          : report::top_screen_text(screen, counts.refresh(zero), *keys);
    // perf's CONSOLE_CLEAR; in a pipe, screens follow each other after a blank line.
    std::fputs(tty ? "\033[H\033[2J\n" : "\n", stdout);
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (std::fflush(stdout) != 0) return 1;  // the reader went away
  }
  (void)sampler->disable();
  return 0;
}

const Registration kReg{{"top", "Show the hottest functions of the system, live", &run_top}};

}  // namespace
}  // namespace perfx::cli
