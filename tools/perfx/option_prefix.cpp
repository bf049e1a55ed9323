#include "option_prefix.hpp"

#include <algorithm>
#include <cstddef>
#include <string_view>

#include "perf_options.hpp"

namespace perfx::cli {
namespace {

// Whether `opt` consumes the argument after it: always when it needs a value; when the
// value is optional, as CLI11 does, if that argument is not an option, except before a
// prefix command's workload (there the scan stops early rather than read too far).
bool takes_value(const CLI::Option* opt, const std::vector<std::string>& args, std::size_t next,
                 bool prefix_command) {
  if (opt->get_items_expected_min() > 0) return true;
  if (opt->get_items_expected_max() == 0 || prefix_command || next >= args.size()) return false;
  return args[next].empty() || args[next][0] != '-';
}

const CLI::Option* find_short(const std::vector<const CLI::Option*>& opts, char c) {
  for (const auto* o : opts) {
    for (const auto& s : o->get_snames())
      if (s.size() == 1 && s[0] == c) return o;
  }
  return nullptr;
}

}  // namespace

void expand_option_prefixes(const CLI::App& app, std::vector<std::string>& args) {
  const std::vector<const CLI::Option*> opts = app.get_options();
  const bool stop_at_positional = app.get_prefix_command();
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") return;
    if (arg.size() < 2 || arg[0] != '-') {
      if (stop_at_positional) return;
      continue;
    }
    if (arg[1] != '-') {  // "-e X", "-F99", "-ag": the value of the last one may follow
      for (std::size_t k = 1; k < arg.size(); ++k) {
        const CLI::Option* o = find_short(opts, arg[k]);
        if (o == nullptr) throw unknown_option_error(app, "-" + std::string(1, arg[k]));
        if (o->get_items_expected_max() == 0) continue;
        if (k + 1 == arg.size() && takes_value(o, args, i + 1, stop_at_positional)) ++i;
        break;  // the rest of the argument is its value
      }
      continue;
    }
    const std::size_t eq = arg.find('=');
    const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    const CLI::Option* exact = nullptr;
    std::vector<std::pair<const CLI::Option*, std::string>> matches;
    for (const auto* o : opts) {
      for (const auto& l : o->get_lnames()) {
        if (l == name) exact = o;
        if (!name.empty() && l.size() > name.size() && std::string_view(l).starts_with(name))
          matches.emplace_back(o, l);
      }
    }
    const CLI::Option* chosen = exact;
    if (chosen == nullptr && (matches.empty() || perf_has_exact(app, name)))
      throw unknown_option_error(app, arg);
    if (chosen == nullptr && !matches.empty()) {
      const bool one = std::all_of(matches.begin(), matches.end(),
                                   [&](const auto& m) { return m.first == matches[0].first; });
      if (!one) {
        std::string names;
        for (const auto& m : matches) names += (names.empty() ? "--" : ", --") + m.second;
        throw CLI::ParseError("Ambiguous option: --" + name + " (could be " + names + ")",
                              kUsageExit);
      }
      chosen = matches[0].first;
      args[i] = "--" + matches[0].second + (eq == std::string::npos ? "" : arg.substr(eq));
    }
    if (chosen != nullptr && eq == std::string::npos &&
        takes_value(chosen, args, i + 1, stop_at_positional))
      ++i;
  }
}

void parse_args(CLI::App& app, int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  expand_option_prefixes(app, args);
  std::reverse(args.begin(), args.end());
  app.parse(args);
}

void reject_unknown_option(const std::vector<std::string>& remaining) {
  if (remaining.empty() || remaining.front() == "--" || remaining.front().size() < 2 ||
      remaining.front()[0] != '-')
    return;
  throw CLI::ParseError("unknown option: " + remaining.front(), kUsageExit);
}

}  // namespace perfx::cli
