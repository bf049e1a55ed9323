#pragma once
// SideText: parts of an export formatted on another core (internal to src/report).

#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <system_error>
#include <thread>
#include <utility>

#include "report/text_sink.hpp"

namespace perfx::report::detail {

/// Fewest per-sample rows worth a SideText: starting the thread and handing the text
/// over cost ~0.2 ms, and its memory is whole huge pages.
inline constexpr std::size_t kSideTextMinRows = 20000;

/// Parts of an export formatted on another thread while the caller writes what comes
/// before them. The per-sample text is most of an export's time, and once a recording is
/// loaded the reader's core is idle. `format` runs on a new thread and adds in-memory
/// sinks to its parts (`parts.emplace_back(expected_bytes)`: large ones live in huge-page
/// blocks the process gave back, already faulted in) and fills them; wait() gives them
/// when it is done, append_to() writes them in order. On a single core, or when no
/// thread can be started, `format` runs in the constructor.
class SideText {
 public:
  using Parts = std::deque<TextSink>;  // a TextSink does not move

  explicit SideText(std::function<void(Parts&)> format) : format_(std::move(format)) {
    if (std::thread::hardware_concurrency() > 1) {
      try {
        thread_ = std::thread([this] {
          try {
            format_(parts_);
          } catch (...) {  // (out of memory) rethrown by wait(), on the caller's thread
            error_ = std::current_exception();
          }
        });
        return;
      } catch (const std::system_error&) {  // no thread: format here
      }
    }
    format_(parts_);
  }
  SideText(const SideText&) = delete;
  SideText& operator=(const SideText&) = delete;
  ~SideText() {
    if (thread_.joinable()) thread_.join();
  }

  /// Waits for the parts; rethrows what `format` threw.
  const Parts& wait() {
    if (thread_.joinable()) thread_.join();
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
    return parts_;
  }
  /// Waits for the parts and appends them to `sink`.
  void append_to(TextSink& sink) {
    for (const TextSink& part : wait()) sink += part.text();
  }

 private:
  Parts parts_;
  std::function<void(Parts&)> format_;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace perfx::report::detail
