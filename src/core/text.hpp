#pragma once
/// \file
/// Small text helpers shared by the parsers of /proc, sysfs and tracefs files and of
/// option strings: trimming, iterating lines, and "key: value" lookups.

#include <cstddef>
#include <iterator>
#include <optional>
#include <string_view>

namespace perfx::core {

/// `s` without the leading and trailing characters found in `chars`.
[[nodiscard]] constexpr std::string_view trim(std::string_view s,
                                              std::string_view chars = " \t\n") noexcept {
  const std::size_t b = s.find_first_not_of(chars);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(chars) - b + 1);
}

/// The '\n'-separated lines of a text, for a range-for: "a\n\nb" has the lines "a", ""
/// and "b"; a final '\n' does not start another line.
class Lines {
 public:
  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = std::string_view;
    using difference_type = std::ptrdiff_t;
    using pointer = const std::string_view*;
    using reference = std::string_view;

    iterator() = default;
    iterator(std::string_view text, std::size_t pos) noexcept : text_(text), pos_(pos) {
      find_end();
    }
    std::string_view operator*() const noexcept { return text_.substr(pos_, end_ - pos_); }
    iterator& operator++() noexcept {
      pos_ = end_ + 1;
      if (pos_ > text_.size()) pos_ = text_.size();
      find_end();
      return *this;
    }
    iterator operator++(int) noexcept {
      iterator old = *this;
      ++*this;
      return old;
    }
    bool operator==(const iterator& o) const noexcept { return pos_ == o.pos_; }

   private:
    void find_end() noexcept {
      end_ = text_.find('\n', pos_);
      if (end_ == std::string_view::npos) end_ = text_.size();
    }
    std::string_view text_;
    std::size_t pos_ = 0;
    std::size_t end_ = 0;
  };

  explicit Lines(std::string_view text) noexcept : text_(text) {}
  [[nodiscard]] iterator begin() const noexcept { return {text_, 0}; }
  [[nodiscard]] iterator end() const noexcept { return {text_, text_.size()}; }

 private:
  std::string_view text_;
};

/// The lines of `text` (see Lines).
[[nodiscard]] inline Lines lines(std::string_view text) noexcept { return Lines(text); }

/// The value of the first line "<key>[blanks]:[blanks]<value>" of a /proc-style text
/// (/proc/<pid>/status "PPid:\t1", /proc/cpuinfo "model name\t: ..."); a key that is only
/// the start of a longer one ("model" in "model name") does not match.
[[nodiscard]] inline std::optional<std::string_view> line_value(std::string_view text,
                                                                std::string_view key) noexcept {
  for (std::string_view line : lines(text)) {
    if (!line.starts_with(key)) continue;
    std::string_view rest = line.substr(key.size());
    const std::size_t colon = rest.find(':');
    if (colon == std::string_view::npos || !trim(rest.substr(0, colon), " \t").empty()) continue;
    rest.remove_prefix(colon + 1);
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
    return rest;
  }
  return std::nullopt;
}

}  // namespace perfx::core
