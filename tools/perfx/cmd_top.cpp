// perfx top: perf top's --stdio mode. Samples the whole system (or -p/-t/-C) and prints
// the hottest entries every -d seconds until Ctrl-C or 'q'; the session, the counts and
// the screens are the library's (perfx/top.hpp). This file turns argv into TopOptions and
// owns the terminal.

#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "command_front.hpp"
#include "perfx/system.hpp"
#include "perfx/top.hpp"

namespace perfx::cli {
namespace {

// The terminal in non-canonical mode without echo while top runs, so that a 'q' quits
// at once (perf top's display thread does the same); restored on the way out. The
// screens go to stdout: cleared on a terminal, one after the other in a pipe.
class Terminal : public TopObserver {
 public:
  explicit Terminal(int verbose) : verbose_(verbose) {
    tty_ = ::isatty(STDOUT_FILENO) == 1;
    if (::isatty(STDIN_FILENO) != 1 || ::tcgetattr(STDIN_FILENO, &saved_) != 0) return;
    termios raw = saved_;
    raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    active_ = ::tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
  }
  ~Terminal() override {
    if (active_) ::tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
  }
  Terminal(const Terminal&) = delete;
  Terminal& operator=(const Terminal&) = delete;

  int input_fd() override { return active_ ? STDIN_FILENO : -1; }
  bool quit_requested() override {
    if (!active_) return false;
    char buf[32];
    const ssize_t n = ::read(STDIN_FILENO, buf, sizeof(buf));
    for (ssize_t i = 0; i < n; ++i)
      if (buf[i] == 'q' || buf[i] == 'Q') return true;
    return false;
  }
  // perf's get_term_dimensions(): $LINES and $COLUMNS, else the terminal's, else 25x80.
  std::pair<std::size_t, std::size_t> screen_size() override {
    const char* lines = std::getenv("LINES");
    const char* cols = std::getenv("COLUMNS");
    if (lines != nullptr && cols != nullptr && std::atoi(lines) > 0 && std::atoi(cols) > 0)
      return {static_cast<std::size_t>(std::atoi(lines)),
              static_cast<std::size_t>(std::atoi(cols))};
    winsize ws{};
    if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
      return {ws.ws_row, ws.ws_col};
    return {25, 80};
  }
  bool on_screen(const std::string& text) override {
    // perf's CONSOLE_CLEAR; in a pipe, screens follow each other after a blank line.
    std::fputs(tty_ ? "\033[H\033[2J\n" : "\n", stdout);
    std::fwrite(text.data(), 1, text.size(), stdout);
    reader_gone_ = std::fflush(stdout) != 0;
    return !reader_gone_;
  }
  void on_cycles_fallback() override {
    if (verbose_ > 0) {
      fmt::print(stderr,
                 "Warning:\nThe cycles event is not supported, trying to fall back to "
                 "cpu-clock\n");
    }
  }
  void on_user_space_only(long long paranoid, const std::string& events) override {
    fmt::print(stderr,
               "perfx: perf_event_paranoid is {}, which does not let this user sample the "
               "kernel: recording user space only ({}), as perf does. For kernel samples "
               "too, run as root or lower kernel.perf_event_paranoid to 1.\n",
               paranoid, events);
  }
  [[nodiscard]] bool reader_gone() const noexcept { return reader_gone_; }

 private:
  int verbose_ = 0;
  bool tty_ = false;
  termios saved_{};
  bool active_ = false;
  bool reader_gone_ = false;
};

int run_top(int argc, char** argv) {
  CLI::App app{"Show the hottest functions of the system, live (like perf top --stdio)",
               "perfx top"};
  TopOptions t;
  RecordOptions& o = t.record;
  add_event_option(app, o.events,
                   "event(s) to sample (perf syntax); default cycles, "
                   "falling back to cpu-clock without a PMU");
  app.add_option("-F,--freq", o.freq, "sampling frequency in Hz (default 4000)");
  app.add_option("-c,--count", o.period, "sample every N events (fixed period)");
  bool all_cpus = false;
  add_target_options(app, all_cpus, o.cpus, o.pids, o.tids);  // -a: the default
  app.add_option("-d,--delay", t.delay_s, "seconds between refreshes (default 2)");
  int entries = 0;
  app.add_option("-E,--entries", entries, "rows to show (default: the terminal's height)");
  bool stdio = false, callchain_fp = false, no_inherit = false;
  int verbose = 0;
  add_switches(app, {{"-K,--hide_kernel_symbols", &t.hide_kernel, "leave kernel samples out"},
                     {"-U,--hide_user_symbols", &t.hide_user, "leave user samples out"},
                     {"-z,--zero", &t.zero, "each refresh shows only its own samples (no decay)"},
                     {"--stdio", &stdio, "text screens (the only mode)"},
                     {"-g", &callchain_fp, "callchains (frame pointers), shown as call graphs"},
                     {"-i,--no-inherit", &no_inherit, "child tasks of -p/-t are not counted"},
                     {"--children,!--no-children", &t.children,
                      "with callchains: Children and Self columns (the default) or Self only"}});
  app.add_option("-s,--sort", t.sort, "sort keys: comm,pid,dso,sym (default dso,sym)");
  app.add_option("--percent-limit", t.percent_limit, "hide entries below this percentage");
  app.add_option("-m,--mmap-pages", o.mmap_pages, "ring buffer pages per CPU (or a size: 512K)");
  app.add_flag("-v,--verbose", verbose, "show the event fallback");
  app.add_option("--call-graph", o.call_graph, "callchain mode: fp or dwarf[,size]");
  if (auto rc = CommandFront::parse(app, argc, argv)) return *rc;
  if (callchain_fp && o.call_graph.empty()) o.call_graph = "fp";
  o.inherit = !no_inherit;
  t.entries = entries > 0 ? static_cast<std::size_t>(entries) : 0;

  latch_stop_signals();  // the terminal is restored however many signals come
  Terminal terminal(verbose);
  if (auto r = perfx::run_top(t, terminal); !r)
    return CommandFront("top").fail(r.error().message());
  return terminal.reader_gone() ? 1 : 0;
}

const Registration kReg{{"top", "Show the hottest functions of the system, live", &run_top}};

}  // namespace
}  // namespace perfx::cli
