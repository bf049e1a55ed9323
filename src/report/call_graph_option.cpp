// perf report's -g/--call-graph value (perf's __parse_callchain_report_opt()).

#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

#include "core/error_format.hpp"
#include "perfx/report.hpp"

namespace perfx {
namespace {

// perf's strncmp(value, word, strlen(value)): the token is a prefix of the word.
bool abbreviates(std::string_view token, std::string_view word) {
  return !token.empty() && word.starts_with(token);
}

// The first word of `table` that `tok` abbreviates, into `out`.
template <typename T, std::size_t N>
bool pick(std::string_view tok, const std::pair<std::string_view, T> (&table)[N], T& out) {
  for (const auto& [word, value] : table) {
    if (abbreviates(tok, word)) {
      out = value;
      return true;
    }
  }
  return false;
}

// The words perf tries in its order: print type, order, sort key, value ("branch", for
// LBR branch callstacks, adds nothing without branch stacks).
bool parse_word(std::string_view tok, ReportOptions& o) {
  static constexpr std::pair<std::string_view, CallGraphMode> kModes[] = {
      {"graph", CallGraphMode::kGraph},
      {"flat", CallGraphMode::kFlat},
      {"fractal", CallGraphMode::kFractal},
      {"folded", CallGraphMode::kFolded}};
  static constexpr std::pair<std::string_view, bool> kOrders[] = {{"caller", true},
                                                                  {"callee", false}};
  static constexpr std::pair<std::string_view, CallGraphKey> kKeys[] = {
      {"function", CallGraphKey::kFunction},
      {"address", CallGraphKey::kAddress},
      {"srcline", CallGraphKey::kSrcline}};
  static constexpr std::pair<std::string_view, CallGraphValue> kValues[] = {
      {"percent", CallGraphValue::kPercent},
      {"period", CallGraphValue::kPeriod},
      {"count", CallGraphValue::kCount}};
  bool caller = false;
  if (pick(tok, kModes, o.graph)) return true;
  if (pick(tok, kOrders, caller)) {
    o.caller_order = caller;
    return true;
  }
  return pick(tok, kKeys, o.graph_key) || abbreviates(tok, "branch") ||
         pick(tok, kValues, o.graph_value);
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
