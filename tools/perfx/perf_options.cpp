#include "perf_options.hpp"

#include <algorithm>
#include <cstddef>

namespace perfx::cli {
namespace {

// Optimal string alignment distance (Levenshtein plus adjacent transpositions).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::string command_of(const CLI::App& app) {
  std::string name = app.get_name();
  if (name.starts_with("perfx ")) name.erase(0, 6);
  return name;
}

// perf's own parser takes a unique prefix and "--no-X" for X, so the table does too.
const PerfOption* perf_long(std::string_view command, std::string_view name) {
  const PerfOption* prefixed = nullptr;
  int prefixes = 0;
  for (const auto& o : perf_options()) {
    if (o.command != command || o.long_name.empty()) continue;
    if (o.long_name == name) return &o;
    if (o.long_name.starts_with(name)) {
      prefixed = &o;
      ++prefixes;
    }
  }
  if (prefixes == 1) return prefixed;
  if (name.starts_with("no-")) return perf_long(command, name.substr(3));
  return nullptr;
}

const PerfOption* perf_short(std::string_view command, char c) {
  for (const auto& o : perf_options())
    if (o.command == command && o.short_name == c) return &o;
  return nullptr;
}

}  // namespace

std::string nearest_name(std::string_view typed, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = std::string::npos;
  std::vector<std::string> prefixed;
  for (const auto& c : candidates) {
    if (!typed.empty() && c.starts_with(typed)) prefixed.push_back(c);
    const std::size_t dist = edit_distance(typed, c);
    if (dist < best_d) {
      best_d = dist;
      best = c;
    }
  }
  if (prefixed.size() == 1) return prefixed[0];
  // A typo is a slip or two: at most 2 edits, and fewer than half the word.
  if (best_d <= 2 && best_d * 2 < std::max(typed.size(), std::size_t{2})) return best;
  return {};
}

std::string perf_not_yet(std::string_view command, std::string_view arg) {
  // perf's sched and lock subcommands take their parent's options too (OPT_PARENT).
  std::string_view parent;
  if (command.starts_with("sched ") || command.starts_with("lock "))
    parent = command.substr(0, command.find(' '));
  if (arg.starts_with("--")) {
    std::string_view name = arg.substr(2);
    name = name.substr(0, name.find('='));
    const PerfOption* p = perf_long(command, name);
    if (p == nullptr && !parent.empty()) p = perf_long(parent, name);
    if (p == nullptr) return {};
    return "perf's `--" + std::string(p->long_name) + "` is not supported by perfx yet";
  }
  if (arg.size() < 2 || arg[0] != '-') return {};
  const PerfOption* p = perf_short(command, arg[1]);
  if (p == nullptr && !parent.empty()) p = perf_short(parent, arg[1]);
  if (p == nullptr) return {};
  std::string msg = "perf's `-" + std::string(1, arg[1]) + "`";
  if (!p->long_name.empty()) msg += " (--" + std::string(p->long_name) + ")";
  return msg + " is not supported by perfx yet";
}

CLI::ParseError unknown_option_error(const CLI::App& app, std::string_view arg) {
  const std::string command = command_of(app);
  if (std::string msg = perf_not_yet(command, arg); !msg.empty())
    return CLI::ParseError(msg, kUsageExit);
  if (arg.starts_with("--")) {
    std::string_view name = arg.substr(2);
    name = name.substr(0, name.find('='));
    std::vector<std::string> longs;
    for (const auto* o : app.get_options())
      for (const auto& l : o->get_lnames()) longs.push_back(l);
    const std::string near = nearest_name(name, longs);
    return CLI::ParseError("unknown option: --" + std::string(name) +
                               (near.empty() ? "" : "; did you mean '--" + near + "'?"),
                           kUsageExit);
  }
  const char c = arg.size() > 1 ? arg[1] : '-';
  return CLI::ParseError("unknown option: -" + std::string(1, c), kUsageExit);
}

bool perf_has_exact(const CLI::App& app, std::string_view name) {
  const std::string command = command_of(app);
  return std::any_of(perf_options().begin(), perf_options().end(), [&](const PerfOption& o) {
    return o.command == command && o.long_name == name;
  });
}

int usage_exit(const CLI::App& app, const CLI::ParseError& e) {
  const int rc = app.exit(e);
  return rc == 0 ? 0 : kUsageExit;
}

}  // namespace perfx::cli
