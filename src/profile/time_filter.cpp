#include "profile/time_filter.hpp"

#include <charconv>
#include <cmath>
#include <string>

#include "core/error_format.hpp"

namespace perfx::profile {
namespace {

constexpr std::string_view kSyntax =
    "expected START,STOP in seconds (either may be empty; windows separated by spaces) "
    "or a percent form such as 10%/2, 0%-10% or 10%";

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// perf's parse_nsec_time(): "SEC[.FRACTION]", at most 9 fraction digits.
std::optional<std::uint64_t> parse_seconds(std::string_view s) {
  const auto dot = s.find('.');
  const std::string_view a = s.substr(0, dot);
  std::uint64_t sec = 0;
  if (a.empty()) return std::nullopt;
  auto [p, ec] = std::from_chars(a.data(), a.data() + a.size(), sec);
  if (ec != std::errc{} || p != a.data() + a.size()) return std::nullopt;
  std::uint64_t frac = 0;
  if (dot != std::string_view::npos) {
    std::string b(s.substr(dot + 1));
    if (b.empty() || b.size() > 9) return std::nullopt;
    for (char c : b)
      if (c < '0' || c > '9') return std::nullopt;
    b.resize(9, '0');
    std::from_chars(b.data(), b.data() + b.size(), frac);
  }
  if (sec > (~std::uint64_t{0} - frac) / 1000000000ULL) return std::nullopt;
  return sec * 1000000000ULL + frac;
}

// perf's parse_percent(): "12.5%" -> 0.125.
std::optional<double> parse_percent(std::string_view s) {
  if (s.size() < 2 || s.back() != '%') return std::nullopt;
  s.remove_suffix(1);
  double d = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
  return d / 100.0;
}

// perf's set_percent_time().
std::optional<TimeRange> percent_range(double from, double to, std::uint64_t first,
                                       std::uint64_t last) {
  if (!(from >= 0.0 && from <= 1.0 && to >= 0.0 && to <= 1.0)) return std::nullopt;
  const auto total = static_cast<double>(last - first);
  TimeRange r;
  r.start = first + static_cast<std::uint64_t>(std::round(from * total));
  r.end = first + static_cast<std::uint64_t>(std::round(to * total));
  if (r.end > r.start && r.end != last) r.end -= 1;
  return r;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (;;) {
    const auto i = s.find(sep);
    out.push_back(s.substr(0, i));
    if (i == std::string_view::npos) break;
    s.remove_prefix(i + 1);
  }
  return out;
}

Result<TimeFilter> parse_percent_forms(std::string_view spec, std::uint64_t first,
                                       std::uint64_t last) {
  TimeFilter f;
  const bool slash = spec.find('/') != std::string_view::npos;
  const bool dash = !slash && spec.find('-') != std::string_view::npos;
  if (!slash && !dash) {  // "10%": the first 10% slice; '%' must end the text
    auto pc = parse_percent(spec);
    if (!pc || *pc <= 0.0) return fail(Errc::kInvalidArgument, "'{}' is not a percentage", spec);
    auto r = percent_range(0.0, *pc, first, last);
    if (!r) return fail(Errc::kInvalidArgument, "'{}' is beyond 100%", spec);
    f.ranges.push_back(*r);
    return f;
  }
  for (std::string_view piece : split(spec, ',')) {
    std::optional<TimeRange> r;
    if (slash) {  // "10%/2"
      const auto s = piece.find('/');
      auto pc = parse_percent(piece.substr(0, s));
      int idx = 0;
      std::string_view n = s == std::string_view::npos ? std::string_view{} : piece.substr(s + 1);
      auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), idx);
      if (!pc || *pc <= 0.0 || n.empty() || ec != std::errc{} || p != n.data() + n.size())
        return fail(Errc::kInvalidArgument, "'{}' is not PERCENT%/INDEX (e.g. 10%/2)", piece);
      r = percent_range(*pc * (idx - 1), *pc * idx, first, last);
    } else {  // "0%-10%"
      const auto d = piece.find('-');
      auto a = parse_percent(piece.substr(0, d));
      auto b = d == std::string_view::npos ? std::nullopt : parse_percent(piece.substr(d + 1));
      if (!a || !b)
        return fail(Errc::kInvalidArgument, "'{}' is not FROM%-TO% (e.g. 0%-10%)", piece);
      r = percent_range(*a, *b, first, last);
    }
    if (!r) return fail(Errc::kInvalidArgument, "'{}' is outside 0%..100%", piece);
    f.ranges.push_back(*r);
  }
  return f;
}

}  // namespace

bool TimeFilter::skip(std::uint64_t t) const noexcept {
  if (ranges.empty() || t == 0) return false;
  if (ranges.size() == 1) {
    const auto& r = ranges[0];
    return (r.start != 0 && t < r.start) || (r.end != 0 && t > r.end);
  }
  for (const auto& r : ranges)
    if (t >= r.start && (t <= r.end || r.end == 0)) return false;
  return true;
}

Result<TimeFilter> parse_time_filter(
    std::string_view spec, std::optional<std::pair<std::uint64_t, std::uint64_t>> sample_time) {
  auto bad = [&](const Error& e) {
    return fail(Errc::kInvalidArgument, "invalid --time '{}': {}", spec, e.message());
  };
  if (spec.find('%') != std::string_view::npos) {
    if (!sample_time || (sample_time->first == 0 && sample_time->second == 0))
      return fail(Errc::kInvalidArgument,
                  "invalid --time '{}': percent forms need the recording's first/last sample "
                  "time, and this perf.data has none (HEADER_SAMPLE_TIME)",
                  spec);
    auto f = parse_percent_forms(spec, sample_time->first, sample_time->second);
    if (!f) return bad(f.error());
    return f;
  }
  // perf_time__parse_strs(): one window per comma; windows separated by spaces.
  TimeFilter f;
  const std::string_view s = trim(spec);
  if (s.find(',') == std::string_view::npos)
    return fail(Errc::kInvalidArgument, "invalid --time '{}': {}", spec, kSyntax);
  for (std::string_view w : split(s, ' ')) {
    if (w.empty()) continue;
    const auto comma = w.find(',');
    if (comma == std::string_view::npos || w.find(',', comma + 1) != std::string_view::npos)
      return fail(Errc::kInvalidArgument, "invalid --time '{}': '{}' is not START,STOP; {}", spec,
                  w, kSyntax);
    TimeRange r;
    const std::string_view a = w.substr(0, comma);
    const std::string_view b = w.substr(comma + 1);
    for (auto [text, out] : {std::pair{a, &r.start}, std::pair{b, &r.end}}) {
      if (text.empty()) continue;
      auto ns = parse_seconds(text);
      if (!ns)
        return fail(Errc::kInvalidArgument,
                    "invalid --time '{}': '{}' is not a time in seconds (SEC[.FRACTION], at most "
                    "9 fraction digits)",
                    spec, text);
      *out = *ns;
    }
    if (r.end != 0 && r.end < r.start)
      return fail(Errc::kInvalidArgument, "invalid --time '{}': '{}' ends before it starts", spec,
                  w);
    f.ranges.push_back(r);
  }
  for (std::size_t i = 0; i + 1 < f.ranges.size(); ++i)
    if (f.ranges[i].end >= f.ranges[i + 1].start)
      return fail(Errc::kInvalidArgument,
                  "invalid --time '{}': windows must be in increasing order and not overlap", spec);
  // "," alone selects everything, as perf.
  if (f.ranges.size() == 1 && f.ranges[0] == TimeRange{}) f.ranges.clear();
  return f;
}

}  // namespace perfx::profile
