#include "report/text_sink.hpp"

#include <algorithm>

#include "core/error_format.hpp"

namespace perfx::report::detail {
namespace {
// Small enough to stay in cache and to fault in few pages, big enough for few writes.
constexpr std::size_t kCapacity = std::size_t{256} << 10;

// In memory: from 256 KiB on, whole huge pages, which the process recycles (fresh pages
// cost most); a small text from the heap.
std::size_t memory_capacity(std::size_t expected_bytes) {
  if (expected_bytes < kCapacity) return std::max<std::size_t>(expected_bytes, 4096);
  return (expected_bytes + core::kHugePage - 1) / core::kHugePage * core::kHugePage;
}
}  // namespace

// The buffer is the head of a huge block: one the process used before and gave back
// when there is one (its pages are in: no page faults).
TextSink::TextSink(std::ostream& out)
    : out_(&out),
      buf_(core::allocate_huge(core::kHugePage)),
      cur_(buf_.get()),
      end_(buf_.get() + kCapacity) {}

TextSink::TextSink(std::size_t expected_bytes)
    : out_(nullptr),
      buf_(core::allocate_huge(memory_capacity(expected_bytes))),
      cur_(buf_.get()),
      end_(buf_.get() + memory_capacity(expected_bytes)) {}

void TextSink::grow(std::size_t room) {
  const auto used = static_cast<std::size_t>(cur_ - buf_.get());
  const auto capacity = static_cast<std::size_t>(end_ - buf_.get());
  const std::size_t wanted = std::max(capacity * 2, used + room);
  core::HugeBuffer bigger = core::allocate_huge(wanted);
  std::memcpy(bigger.get(), buf_.get(), used);
  buf_ = std::move(bigger);
  cur_ = buf_.get() + used;
  end_ = buf_.get() + wanted;
}

void TextSink::spill() {
  if (out_ == nullptr) return grow(kCapacity);
  const auto n = static_cast<std::size_t>(cur_ - buf_.get());
  if (failed_bytes_ == 0 && n > 0) {
    out_->write(buf_.get(), static_cast<std::streamsize>(n));
    if (!*out_) failed_bytes_ = n;
  }
  cur_ = buf_.get();
}

TextSink& TextSink::append_long(std::string_view s) {
  if (out_ == nullptr) {
    grow(s.size());
    return *this += s;
  }
  spill();
  if (s.size() <= static_cast<std::size_t>(end_ - cur_)) return *this += s;
  if (failed_bytes_ == 0) {  // bigger than the buffer: straight to the stream
    out_->write(s.data(), static_cast<std::streamsize>(s.size()));
    if (!*out_) failed_bytes_ = s.size();
  }
  return *this;
}

Result<void> TextSink::finish() {
  spill();
  if (failed_bytes_ != 0)
    return fail(Errc::kIo, "writing {} bytes of export output failed", failed_bytes_);
  return {};
}

}  // namespace perfx::report::detail
