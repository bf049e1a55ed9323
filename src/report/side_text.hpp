#pragma once
// SideText and SideWriter: parts of an export made on another core (internal to
// src/report).

#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <latch>
#include <system_error>
#include <thread>
#include <utility>

#include "perfx/error.hpp"
#include "report/text_sink.hpp"

namespace perfx::report::detail {

/// Fewest per-sample rows worth a second thread (SideText, SideWriter): starting it and
/// handing the text over cost ~0.2-0.4 ms, and its memory is whole huge pages.
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

/// A second thread that first works out what the caller needs before it can write (an
/// export's totals, for its head), then, once the caller has written what comes before
/// and hands it the stream, writes the next part of the export straight into it while
/// the caller formats the part after into memory. Each thread formats through its own
/// small buffer, which stays in its core's cache (on the development VM, a buffer filled
/// on one core and written on the other made formatting twice as slow).
class SideWriter {
 public:
  SideWriter() = default;
  SideWriter(const SideWriter&) = delete;
  SideWriter& operator=(const SideWriter&) = delete;
  /// Hands over (without writing) if not done yet, and waits for the thread.
  ~SideWriter() {
    if (!thread_.joinable()) return;
    hand_over(false);
    thread_.join();
  }

  /// Runs `prepare` and then, once handed the stream, `write` on a new thread. False
  /// when no thread could be started: the caller does both itself.
  bool start(std::function<void()> prepare, std::function<Result<void>()> write) {
    prepare_ = std::move(prepare);
    write_ = std::move(write);
    try {
      thread_ = std::thread([this] {
        try {
          prepare_();
        } catch (...) {  // (out of memory) rethrown by wait_prepared()
          error_ = std::current_exception();
        }
        prepared_.count_down();
        handed_.wait();
        if (!go_ || error_) return;
        try {
          written_ = write_();
        } catch (...) {  // rethrown by join(), on the caller's thread
          error_ = std::current_exception();
        }
      });
    } catch (const std::system_error&) {
      return false;
    }
    return true;
  }
  /// Waits for `prepare`; rethrows what it threw.
  void wait_prepared() {
    prepared_.wait();
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }
  /// From now until join() the stream is the thread's: `write` runs (or, with go false,
  /// is skipped).
  void hand_over(bool go) {
    if (handed_over_) return;
    handed_over_ = true;
    go_ = go;
    handed_.count_down();
  }
  /// Waits for `write`: its result; rethrows what it threw.
  Result<void> join() {
    hand_over(false);  // (a no-op after hand_over(true))
    if (thread_.joinable()) thread_.join();
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
    return std::move(written_);
  }

 private:
  std::function<void()> prepare_;
  std::function<Result<void>()> write_;
  std::latch prepared_{1};
  std::latch handed_{1};
  bool handed_over_ = false;  // the caller's
  bool go_ = false;           // set before handed_ counts down, read after it did
  Result<void> written_;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace perfx::report::detail
