#pragma once
/// \file
/// A live profile, as `perf top --stdio` shows it: the events of a RecordPlan (perf top's
/// attrs) drained every few hundred milliseconds, the samples symbolized and counted, and
/// a text screen of the hottest entries handed to an observer every `delay_s` seconds.
///
/// \code
///   struct Screen : perfx::TopObserver {
///     bool on_screen(const std::string& text) override { std::fputs(text.c_str(), stdout); return
///     true; }
///   } screen;
///   perfx::TopOptions opt;
///   opt.record.events = {"cpu-clock"};
///   auto done = perfx::run_top(opt, screen);   // until SIGINT/SIGTERM or quit_requested()
/// \endcode

#include <cstddef>
#include <string>
#include <utility>

#include "perfx/error.hpp"
#include "perfx/export.hpp"
#include "perfx/record.hpp"

namespace perfx {

/// perf top's options.
struct PERFX_API TopOptions {
  /// Events, -F/-c, -C/-p/-t, -m and --call-graph as for a recording (record.style is
  /// set to RecordStyle::kTop; the whole system unless -p/-t).
  RecordOptions record;
  double delay_s = 2;            ///< -d: seconds between screens (0 < delay <= 86400)
  std::size_t entries = 0;       ///< -E: rows shown; 0: the screen's height less 5
  bool hide_kernel = false;      ///< -K
  bool hide_user = false;        ///< -U
  bool zero = false;             ///< -z: each screen counts only its own interval
  bool children = true;          ///< with call graphs: Children and Self columns
  std::string sort = "dso,sym";  ///< -s: comm, pid, dso, sym
  double percent_limit = 0;      ///< --percent-limit: rows below this share are hidden
};

/// Receives the screens. The RecordObserver notices (fallbacks) are passed on to it; its
/// live-session callbacks (on_records, ...) are run_top()'s own and never called.
class PERFX_API TopObserver : public RecordObserver {
 public:
  ~TopObserver() override;
  /// One screen: perf top's header and rows, no clear-screen sequence. False stops.
  virtual bool on_screen(const std::string& text) {
    (void)text;
    return true;
  }
  /// The screen's {rows, columns} for the next screen.
  virtual std::pair<std::size_t, std::size_t> screen_size() { return {25, 80}; }
  /// Checked after each drain (about every few hundred ms): true stops (a 'q' typed).
  virtual bool quit_requested() { return false; }
};

/// Runs until SIGINT/SIGTERM/SIGHUP, quit_requested() or a false on_screen(). Errors:
/// bad options (perf's messages: "-d needs a delay in seconds (> 0)", an unknown sort
/// key), open failures (explained).
[[nodiscard]] PERFX_API Result<void> run_top(const TopOptions& options, TopObserver& observer);

}  // namespace perfx
