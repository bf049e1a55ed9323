#include "progress.hpp"

#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

namespace perfx::cli {
namespace {

std::string_view g_label;  // the label of the reading in progress (one at a time)
int g_last = -1;           // the percentage on screen, -1 when none

void draw(std::uint64_t done, std::uint64_t total) {
  if (total == 0) return;
  if (done >= total) {  // finished: clear the line, so the output starts on a clean one
    if (g_last >= 0) fmt::print(stderr, "\r{:{}}\r", "", g_label.size() + 6);
    g_last = -1;
    return;
  }
  const auto pct = static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(total));
  if (pct == g_last) return;  // a write per percent, not per call
  g_last = pct;
  fmt::print(stderr, "\r{}: {:3}%", g_label, pct);
  std::fflush(stderr);
}

bool stdout_is_pipe() {
  struct stat st {};
  if (::fstat(STDOUT_FILENO, &st) != 0) return false;
  return S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
}

}  // namespace

ProgressFn terminal_progress(std::string_view label, bool streams_to_stdout) {
  if (::isatty(STDERR_FILENO) != 1 || stdout_is_pipe()) return nullptr;
  if (streams_to_stdout && ::isatty(STDOUT_FILENO) == 1) return nullptr;  // lines would mix
  g_label = label;
  g_last = -1;
  return &draw;
}

}  // namespace perfx::cli
