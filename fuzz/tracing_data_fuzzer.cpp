// Fuzz target: perf's tracing data (HEADER_TRACING_DATA) and tracepoint format files
// (src/event/tracepoint_format.hpp), then typed reads of every parsed field from a RAW
// payload taken from the same input. Invariants: no crash, no read outside the payload
// (a string view lies inside it).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "event/tracepoint_format.hpp"

namespace {

void check(bool cond) {
  if (!cond) __builtin_trap();
}

void read_fields(const perfx::event::TracepointFormat& f, std::span<const std::byte> raw) {
  for (const auto& field : f.fields) {
    (void)perfx::event::read_int_field(field, raw);
    (void)perfx::event::read_int_field(field, raw, true);
    const std::string_view s = perfx::event::read_string_field(field, raw);
    if (!s.empty()) {
      const auto* lo = reinterpret_cast<const char*>(raw.data());
      check(s.data() >= lo && s.data() + s.size() <= lo + raw.size());
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  // First byte: where the RAW payload starts (the rest of the input after it).
  const std::size_t split = std::min<std::size_t>(size - 1, std::size_t{data[0]} * 4);
  const auto all = std::span(reinterpret_cast<const std::byte*>(data + 1), size - 1);
  const auto head = all.first(all.size() - split);
  const auto raw = all.last(split);
  if (auto formats = perfx::event::parse_tracing_data(head)) {
    for (const auto& f : *formats) read_fields(f, raw);
  }
  const std::string_view text(reinterpret_cast<const char*>(head.data()), head.size());
  if (auto f = perfx::event::parse_tracepoint_format(text, "fuzz")) read_fields(*f, raw);
  return 0;
}
