#pragma once
/// \file
/// The output half of `perfx script` (internal): samples are collected by the replay
/// thread as rows of plain values and pointers to text made once per location, and
/// formatted into perf script's text by worker threads, batch by batch, written in order.
/// Replaying has to stay serial (it drives the process model); formatting is half the
/// work and needs nothing from the model, so it runs beside it.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace perfx::report {

/// perf script's -F fields, as bits.
enum ScriptField : std::uint32_t {
  kComm = 1u << 0,
  kTid = 1u << 1,
  kPid = 1u << 2,
  kTime = 1u << 3,
  kCpu = 1u << 4,
  kEvent = 1u << 5,
  kIp = 1u << 6,
  kSym = 1u << 7,
  kSymoff = 1u << 8,
  kDso = 1u << 9,
  kAddr = 1u << 10,
  kPeriod = 1u << 11,
  kSrcline = 1u << 12,
  kTrace = 1u << 13,
  kIregs = 1u << 14,
  kUregs = 1u << 15,
  kInsn = 1u << 16,
  kInsnlen = 1u << 17,
  kFlags = 1u << 18,
  kCallindent = 1u << 19,  ///< accepted: perf indents only branch-trace (BTS/PT) samples
  kSrccode = 1u << 20,
  kMisc = 1u << 21,
  kTod = 1u << 22,
  kWeight = 1u << 23,
  kPhysAddr = 1u << 24,
};

/// A growable byte buffer with the few printf conversions perf script uses, written
/// straight into it (runtime format-string parsing was a fifth of the run).
class TextBuffer {
 public:
  void clear() noexcept { size_ = 0; }
  [[nodiscard]] std::string_view view() const noexcept { return {data_.data(), size_}; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

  void append(std::string_view s) {
    if (!s.empty()) __builtin_memcpy(grow(s.size()), s.data(), s.size());
  }
  void push_back(char c) { *grow(1) = c; }
  /// printf "%*s": `s` right-aligned in `width` bytes.
  void right(std::string_view s, std::size_t width) {
    if (s.size() < width) fill(' ', width - s.size());
    append(s);
  }
  /// printf "%-*s": `s` left-aligned in `width` bytes.
  void left(std::string_view s, std::size_t width) {
    append(s);
    if (s.size() < width) fill(' ', width - s.size());
  }
  /// printf "%0*lu".
  void zero_padded(std::uint64_t v, std::size_t width);
  /// printf "%*lx" (lower case, no prefix).
  void hex_right(std::uint64_t v, std::size_t width);
  void fill(char c, std::size_t n) { __builtin_memset(grow(n), c, n); }

 private:
  char* grow(std::size_t n) {
    if (data_.size() - size_ < n) data_.resize(std::max(data_.size() * 2, size_ + n + 4096));
    char* p = data_.data() + size_;
    size_ += n;
    return p;
  }
  std::vector<char> data_;
  std::size_t size_ = 0;
};

/// Decimal digits of `v` (std::to_chars into `buf`).
std::string_view decimal(std::int64_t v, char (&buf)[24]);
std::string_view decimal(std::uint64_t v, char (&buf)[24]);

/// The recording's clock reference (HEADER_CLOCK_DATA): wall-clock time of `clock_ns`.
struct ScriptClock {
  std::uint64_t tod_ns = 0;
  std::uint64_t clock_ns = 0;
};

/// perf script's tod column (tod_scnprintf()): the local time of `time`, "%F %H:%M:%S"
/// and microseconds (nanoseconds with `ns`).
void append_tod(TextBuffer& out, const ScriptClock& clock, std::uint64_t time, bool ns);

/// perf's -F misc column: K/U/H/G/g by cpumode, then the record type's flag (M for an
/// MMAP of data, E for an exec COMM, S/Sp for a switch out), padded to 6.
void append_misc(TextBuffer& out, std::uint16_t misc, std::uint32_t record_type);

/// The leading columns of a script line: comm, pid/tid, cpu, time, period, event, addr
/// (each when its bit is in `fields`). Pointers stay valid while rows are in flight.
struct ScriptLineHead {
  std::uint32_t fields = 0;
  bool comm_unpadded = false;  ///< callchain layout: "comm " instead of "%16s "
  const std::string* comm = nullptr;
  const std::string* event = nullptr;
  std::int32_t pid = 0;
  std::int32_t tid = 0;
  std::uint32_t cpu = 0;
  std::uint64_t time = 0;
  std::uint64_t period = 0;
  std::uint64_t addr = 0;
  std::uint64_t weight = 0;
  std::uint16_t misc = 0;              ///< the record header's misc (kMisc)
  std::uint32_t record_type = 0;       ///< the record's PERF_RECORD_* (kMisc)
  const ScriptClock* clock = nullptr;  ///< kTod
};

/// perf script's leading columns of `head`, with trailing separators.
void append_line_head(TextBuffer& out, const ScriptLineHead& head, bool ns);

/// One frame of a sample's output, as text made once per location.
struct ScriptFrame {
  enum class Kind : std::uint8_t {
    kWhole,   ///< `text` is the frame's complete line(s)
    kIpTail,  ///< lead, the ip in 16 columns, `text`, newline
    kTail,    ///< lead, `text`, newline
  };
  const std::string* text = nullptr;
  std::uint64_t ip = 0;
  Kind kind = Kind::kWhole;
};

/// One output line (or block) of the script.
struct ScriptRow {
  enum class Body : std::uint8_t {
    kText,     ///< preformatted bytes [begin, end) of the batch's text, head included
    kNewline,  ///< head, newline
    kFrame,    ///< head, frame [begin] with lead ' ' (or a newline when begin == end)
    kChain,    ///< head, newline, frames [begin, end) with lead '\t', blank line
  };
  Body body = Body::kNewline;
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  /// kFrame, kChain: bytes [trace_begin, trace_end) of the batch's text go after the head
  /// (a tracepoint's fields before its callchain, as perf prints them).
  std::uint32_t trace_begin = 0;
  std::uint32_t trace_end = 0;
  /// Bytes [tail_begin, tail_end) of the batch's text end the row, before its last
  /// newline (perf's iregs/uregs: after the ip's frame, or after the callchain).
  std::uint32_t tail_begin = 0;
  std::uint32_t tail_end = 0;
  ScriptLineHead head;
};

/// Rows in output order, with the frames and preformatted text they refer to.
struct ScriptBatch {
  std::vector<ScriptRow> rows;
  std::vector<ScriptFrame> frames;
  TextBuffer text;
  void clear() {
    rows.clear();
    frames.clear();
    text.clear();
  }
};

/// perf script's text of every row of `batch`, appended to `out`.
void format_script_batch(const ScriptBatch& batch, bool ns, TextBuffer& out);

/// Formats batches on worker threads and writes them to a stream in submission order.
/// Memory is bounded: submit() waits while every batch is in flight.
class ScriptPipeline {
 public:
  /// `workers` = 0: formats and writes on the calling thread, in submit().
  ScriptPipeline(std::ostream& out, bool ns, unsigned workers);
  ~ScriptPipeline();
  ScriptPipeline(const ScriptPipeline&) = delete;
  ScriptPipeline& operator=(const ScriptPipeline&) = delete;

  /// The batch the caller fills. Its rows may point at text that must stay valid and
  /// unchanged until finish().
  [[nodiscard]] ScriptBatch& batch() noexcept { return *current_; }
  /// Hands the batch over once it holds enough to be worth a worker's time; false once
  /// writing has failed (the caller stops).
  bool submit_if_full();
  /// Writes everything submitted, and the current batch; false when writing failed.
  bool finish();

 private:
  struct Job {
    std::unique_ptr<ScriptBatch> batch;
    std::uint64_t seq = 0;
  };
  void submit();
  void work();
  void write(std::string_view text);

  std::ostream& out_;
  const bool ns_;
  std::unique_ptr<ScriptBatch> current_;
  TextBuffer inline_text_;  // workers == 0
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Job> queue_;                           // submitted, not yet taken
  std::vector<std::unique_ptr<ScriptBatch>> free_;  // written, for reuse
  std::size_t batches_ = 1;                         // allocated so far
  std::size_t max_batches_ = 1;
  std::uint64_t next_seq_ = 0;
  std::uint64_t next_write_ = 0;
  bool done_ = false;
  std::atomic<bool> failed_{false};  // set by the writer, polled per row by the caller
  bool finished_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace perfx::report
