// perf report's -g/--call-graph value (perf's __parse_callchain_report_opt()).

#include <cstdlib>
#include <string>
#include <string_view>

#include "core/error_format.hpp"
#include "perfx/report.hpp"

namespace perfx {
namespace {

// perf's strncmp(value, word, strlen(value)): the token is a prefix of the word.
bool abbreviates(std::string_view token, std::string_view word) {
  return !token.empty() && word.starts_with(token);
}

// The words perf tries in its order: print type, order, sort key, value.
bool parse_word(std::string_view tok, ReportOptions& o) {
  constexpr std::pair<std::string_view, CallGraphMode> kModes[] = {
      {"graph", CallGraphMode::kGraph},
      {"flat", CallGraphMode::kFlat},
      {"fractal", CallGraphMode::kFractal},
      {"folded", CallGraphMode::kFolded}};
  for (const auto& [word, mode] : kModes) {
    if (abbreviates(tok, word)) {
      o.graph = mode;
      return true;
    }
  }
  if (abbreviates(tok, "caller") || abbreviates(tok, "callee")) {
    o.caller_order = abbreviates(tok, "caller");
    return true;
  }
  constexpr std::pair<std::string_view, CallGraphKey> kKeys[] = {
      {"function", CallGraphKey::kFunction},
      {"address", CallGraphKey::kAddress},
      {"srcline", CallGraphKey::kSrcline}};
  for (const auto& [word, key] : kKeys) {
    if (abbreviates(tok, word)) {
      o.graph_key = key;
      return true;
    }
  }
  // perf's "branch" (LBR branch callstacks): nothing to add without branch stacks.
  if (abbreviates(tok, "branch")) return true;
  constexpr std::pair<std::string_view, CallGraphValue> kValues[] = {
      {"percent", CallGraphValue::kPercent},
      {"period", CallGraphValue::kPeriod},
      {"count", CallGraphValue::kCount}};
  for (const auto& [word, value] : kValues) {
    if (abbreviates(tok, word)) {
      o.graph_value = value;
      return true;
    }
  }
  return false;
}

}  // namespace

Result<bool> parse_call_graph(std::string_view text, ReportOptions& options) {
  ReportOptions o = options;
  o.graph_requested = true;
  bool threshold_set = false;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find(',', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string tok(text.substr(pos, end - pos));
    pos = end + 1;
    if (tok.empty()) continue;  // strtok_r() skips empty tokens
    if (abbreviates(tok, "none")) {
      o.graph = CallGraphMode::kNone;
      o.graph_requested = false;
      break;  // perf stops at none
    }
    if (parse_word(tok, o)) continue;
    // perf: the first number is the threshold (strtod), the next the print limit
    // (strtoul, base 0); trailing text after a number is ignored, as there.
    char* num_end = nullptr;
    if (!threshold_set) {
      const double th = std::strtod(tok.c_str(), &num_end);
      if (num_end == tok.c_str())
        return fail(Errc::kInvalidArgument,
                    "invalid -g/--call-graph value '{}': '{}' is not a print type, order, sort "
                    "key, value or threshold",
                    text, tok);
      o.graph_threshold = th;
      threshold_set = true;
    } else {
      const unsigned long limit = std::strtoul(tok.c_str(), &num_end, 0);
      if (num_end == tok.c_str())
        return fail(Errc::kInvalidArgument,
                    "invalid -g/--call-graph value '{}': '{}' is not a print type, order, sort "
                    "key, value or print limit",
                    text, tok);
      o.graph_print_limit = static_cast<std::uint32_t>(limit);
    }
  }
  options = o;
  return threshold_set;
}

}  // namespace perfx
