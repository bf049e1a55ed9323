#include "report/text_sink.hpp"

namespace perfx::report::detail {
namespace {
// Small enough to stay in cache and to fault in few pages, big enough for few writes.
constexpr std::size_t kCapacity = std::size_t{256} << 10;
}  // namespace

TextSink::TextSink(std::ostream& out)
    : out_(out), buf_(new char[kCapacity]), cur_(buf_.get()), end_(buf_.get() + kCapacity) {}

void TextSink::spill() {
  const auto n = static_cast<std::size_t>(cur_ - buf_.get());
  if (failed_bytes_ == 0 && n > 0) {
    out_.write(buf_.get(), static_cast<std::streamsize>(n));
    if (!out_) failed_bytes_ = n;
  }
  cur_ = buf_.get();
}

TextSink& TextSink::append_long(std::string_view s) {
  spill();
  if (s.size() <= static_cast<std::size_t>(end_ - cur_)) return *this += s;
  if (failed_bytes_ == 0) {  // bigger than the buffer: straight to the stream
    out_.write(s.data(), static_cast<std::streamsize>(s.size()));
    if (!out_) failed_bytes_ = s.size();
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
