// sysfs PMU format fields ("config1:0-7,32-40") and writing values into them.

#include <charconv>
#include <iterator>
#include <optional>
#include <string>

#include "core/error_format.hpp"
#include "core/text.hpp"
#include "event/resolver.hpp"

namespace perfx::event {
namespace {

bool parse_uint(std::string_view s, unsigned* out) {
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

}  // namespace

unsigned FormatField::width() const noexcept {
  unsigned w = 0;
  for (auto [lo, hi] : ranges) w += hi - lo + 1;
  return w;
}

std::optional<ConfigWord> config_word(std::string_view name) noexcept {
  static constexpr std::string_view kNames[] = {"config", "config1", "config2", "config3"};
  for (std::size_t i = 0; i < std::size(kNames); ++i) {
    if (name == kNames[i]) return static_cast<ConfigWord>(i);
  }
  return std::nullopt;
}

Result<FormatField> parse_format_field(std::string_view name, std::string_view text) {
  const std::string_view original = core::trim(text);
  std::string_view t = original;
  const auto bad = [&](std::string_view why) {
    return fail(Errc::kMalformedData, "PMU format field '{}': cannot parse '{}': {}", name,
                original, why);
  };
  const auto colon = t.find(':');
  if (colon == std::string_view::npos) return bad("expected '<config word>:<bits>'");
  FormatField field;
  field.name = std::string(name);
  const std::string_view word = t.substr(0, colon);
  const std::optional<ConfigWord> config = config_word(word);
  if (!config) return bad("unknown config word '" + std::string(word) + "'");
  field.word = *config;
  t.remove_prefix(colon + 1);
  while (true) {
    const auto comma = t.find(',');
    const std::string_view range = t.substr(0, comma);
    const auto dash = range.find('-');
    unsigned lo = 0;
    unsigned hi = 0;
    if (dash == std::string_view::npos) {
      if (!parse_uint(range, &lo)) return bad("bad bit number '" + std::string(range) + "'");
      hi = lo;
    } else if (!parse_uint(range.substr(0, dash), &lo) ||
               !parse_uint(range.substr(dash + 1), &hi)) {
      return bad("bad bit range '" + std::string(range) + "'");
    }
    if (lo > hi || hi > 63) return bad("bit range '" + std::string(range) + "' out of 0-63");
    field.ranges.emplace_back(lo, hi);
    if (comma == std::string_view::npos) break;
    t.remove_prefix(comma + 1);
  }
  if (field.width() > 64) return bad("more than 64 bits");
  return field;
}

Result<void> apply_format_field(const FormatField& field, std::uint64_t value,
                                std::uint64_t (&words)[4]) {
  const unsigned width = field.width();
  if (width < 64 && (value >> width) != 0) {
    return fail(Errc::kInvalidArgument, "value {:#x} does not fit term '{}' ({} bits)", value,
                field.name, width);
  }
  std::uint64_t& word = words[static_cast<std::size_t>(field.word)];
  for (auto [lo, hi] : field.ranges) {
    const unsigned n = hi - lo + 1;
    const std::uint64_t mask = n == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << n) - 1);
    word = (word & ~(mask << lo)) | ((value & mask) << lo);
    value = n == 64 ? 0 : value >> n;
  }
  return {};
}

}  // namespace perfx::event
