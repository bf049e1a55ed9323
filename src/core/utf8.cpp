#include "core/utf8.hpp"

namespace perfx::core {

bool is_valid_utf8(std::string_view s) noexcept {
  for (std::size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const Utf8Step step = decode_utf8(s, i);
    if (!step.valid) return false;
    i += step.length;
  }
  return true;
}

std::string to_valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  append_valid_utf8(out, s);
  return out;
}

}  // namespace perfx::core
