#include "core/cpu_list_text.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "core/error_format.hpp"
#include "core/text.hpp"

namespace perfx::core {
namespace {

bool parse_int(std::string_view s, int& out) {
  s = core::trim(s);
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size() && out >= 0;
}

constexpr int kMaxCpu = 1 << 16;

}  // namespace

Result<std::vector<int>> parse_cpus(std::string_view text) {
  const std::string_view all = core::trim(text);
  if (all.empty()) return fail(Errc::kInvalidArgument, "empty CPU list");
  std::vector<int> cpus;
  std::size_t pos = 0;
  while (pos <= all.size()) {
    std::size_t comma = all.find(',', pos);
    if (comma == std::string_view::npos) comma = all.size();
    const std::string_view item = core::trim(all.substr(pos, comma - pos));
    const std::size_t dash = item.find('-');
    int lo = 0;
    int hi = 0;
    if (dash == std::string_view::npos) {
      if (!parse_int(item, lo)) {
        return fail(Errc::kInvalidArgument, "bad CPU list '{}': '{}' is not a CPU number", all,
                    item);
      }
      hi = lo;
    } else if (!parse_int(item.substr(0, dash), lo) || !parse_int(item.substr(dash + 1), hi)) {
      return fail(Errc::kInvalidArgument, "bad CPU list '{}': '{}' is not a range like 2-3", all,
                  item);
    }
    if (hi < lo) {
      return fail(Errc::kInvalidArgument, "bad CPU list '{}': range '{}' goes backwards", all,
                  item);
    }
    if (hi >= kMaxCpu) {
      return fail(Errc::kInvalidArgument, "bad CPU list '{}': CPU {} is out of range", all, hi);
    }
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
    pos = comma + 1;
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string format_cpus(std::span<const int> cpus) {
  std::string out;
  std::size_t i = 0;
  while (i < cpus.size()) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    if (j == i) {
      out += std::to_string(cpus[i]);
    } else {
      out += fmt::format("{}-{}", cpus[i], cpus[j]);
    }
    i = j + 1;
  }
  return out;
}

}  // namespace perfx::core
