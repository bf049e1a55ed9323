#include "report/script_writer.hpp"

#include <linux/perf_event.h>

#include <algorithm>
#include <charconv>
#include <ctime>

namespace perfx::report {
namespace {

// Enough rows per batch to amortize the hand-over, few enough that the batches in flight
// stay small (a callchain row is ~200 bytes of text, ~15 frames).
constexpr std::size_t kBatchRows = 512;
constexpr std::size_t kBatchFrames = 8192;
constexpr std::size_t kBatchText = 64 * 1024;

// A frame's line; `tail` goes before its newline.
void append_frame(TextBuffer& out, const ScriptFrame& frame, char lead,
                  std::string_view tail = {}) {
  if (frame.kind == ScriptFrame::Kind::kWhole) {
    std::string_view text = *frame.text;
    if (!tail.empty() && !text.empty() && text.back() == '\n') {
      out.append(text.substr(0, text.size() - 1));
      out.append(tail);
      out.push_back('\n');
    } else {
      out.append(text);
    }
    return;
  }
  out.push_back(lead);
  if (frame.kind == ScriptFrame::Kind::kIpTail) out.hex_right(frame.ip, 16);
  out.append(*frame.text);
  out.append(tail);
  out.push_back('\n');
}

void append_row(TextBuffer& out, const ScriptBatch& batch, const ScriptRow& row, bool ns) {
  if (row.body == ScriptRow::Body::kText) {
    out.append(batch.text.view().substr(row.begin, row.end - row.begin));
    return;
  }
  append_line_head(out, row.head, ns);
  out.append(batch.text.view().substr(row.trace_begin, row.trace_end - row.trace_begin));
  const std::string_view tail =
      batch.text.view().substr(row.tail_begin, row.tail_end - row.tail_begin);
  switch (row.body) {
    case ScriptRow::Body::kFrame:
      if (row.begin == row.end) {
        out.append(tail);
        out.push_back('\n');
      } else {
        append_frame(out, batch.frames[row.begin], ' ', tail);
      }
      break;
    case ScriptRow::Body::kChain:
      out.push_back('\n');
      for (std::uint32_t i = row.begin; i < row.end; ++i) append_frame(out, batch.frames[i], '\t');
      out.append(tail);
      out.push_back('\n');
      break;
    default:
      out.append(tail);
      out.push_back('\n');
      break;
  }
}

}  // namespace

std::string_view decimal(std::int64_t v, char (&buf)[24]) {
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return {buf, static_cast<std::size_t>(r.ptr - buf)};
}

std::string_view decimal(std::uint64_t v, char (&buf)[24]) {
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return {buf, static_cast<std::size_t>(r.ptr - buf)};
}

void TextBuffer::zero_padded(std::uint64_t v, std::size_t width) {
  char buf[24];
  const auto digits = decimal(v, buf);
  if (digits.size() < width) fill('0', width - digits.size());
  append(digits);
}

void TextBuffer::hex_right(std::uint64_t v, std::size_t width) {
  char buf[16];
  std::size_t n = 0;
  do {
    buf[sizeof buf - ++n] = "0123456789abcdef"[v & 0xf];
    v >>= 4;
  } while (v != 0);
  right({buf + sizeof buf - n, n}, width);
}

void append_line_head(TextBuffer& out, const ScriptLineHead& head, bool ns) {
  const std::uint32_t f = head.fields;
  char buf[24];
  if (f & kComm) {
    const std::string_view comm = head.comm != nullptr ? std::string_view(*head.comm) : ":-1";
    if (head.comm_unpadded) {
      out.append(comm);
    } else {
      out.right(comm, 16);
    }
    out.push_back(' ');
  }
  if ((f & kPid) && (f & kTid)) {
    out.right(decimal(std::int64_t{head.pid}, buf), 5);
    out.push_back('/');
    out.left(decimal(std::int64_t{head.tid}, buf), 5);
    out.push_back(' ');
  } else if (f & (kPid | kTid)) {
    out.right(decimal(std::int64_t{(f & kPid) ? head.pid : head.tid}, buf), 5);
    out.push_back(' ');
  }
  if (f & kCpu) {
    out.push_back('[');
    out.zero_padded(head.cpu, 3);
    out.append("] ");
  }
  if (f & kMisc) append_misc(out, head.misc, head.record_type);
  if ((f & kTod) && head.clock != nullptr) {
    append_tod(out, *head.clock, head.time, ns);
    out.push_back(' ');
  }
  if (f & kTime) {
    constexpr std::uint64_t kNsPerSec = 1000000000;
    out.right(decimal(head.time / kNsPerSec, buf), 5);
    out.push_back('.');
    if (ns) {
      out.zero_padded(head.time % kNsPerSec, 9);
    } else {
      out.zero_padded(head.time % kNsPerSec / 1000, 6);
    }
    out.append(": ");
  }
  if (f & kPeriod) {
    out.right(decimal(head.period, buf), 10);
    out.push_back(' ');
  }
  if (f & kEvent) {
    out.append(*head.event);
    out.append(": ");
  }
  // perf_sample__fprintf_flags(): "  %-21s " of the branch flags, none outside branch
  // tracing.
  if (f & kFlags) out.fill(' ', 24);
  if (f & kAddr) out.hex_right(head.addr, 16);  // perf_sample__fprintf_addr()
  if (f & kWeight) {
    char wbuf[24];
    out.right(decimal(head.weight, wbuf), 16);
  }
}

void append_misc(TextBuffer& out, std::uint16_t misc, std::uint32_t record_type) {
  const std::size_t before = out.size();
  // perf's has(): all bits of the mode set (K and U both for the hypervisor's 3).
  auto has = [misc](unsigned m) { return (misc & m) == m; };
  if (has(PERF_RECORD_MISC_KERNEL)) out.push_back('K');
  if (has(PERF_RECORD_MISC_USER)) out.push_back('U');
  if (has(PERF_RECORD_MISC_HYPERVISOR)) out.push_back('H');
  if (has(PERF_RECORD_MISC_GUEST_KERNEL)) out.push_back('G');
  if (has(PERF_RECORD_MISC_GUEST_USER)) out.push_back('g');
  switch (record_type) {
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2:
      if (has(PERF_RECORD_MISC_MMAP_DATA)) out.push_back('M');
      break;
    case PERF_RECORD_COMM:
      if (has(PERF_RECORD_MISC_COMM_EXEC)) out.push_back('E');
      break;
    case PERF_RECORD_SWITCH:
    case PERF_RECORD_SWITCH_CPU_WIDE:
      if (has(PERF_RECORD_MISC_SWITCH_OUT)) {
        out.push_back('S');
        if (misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) out.push_back('p');
      }
      break;
    default:
      break;
  }
  // "%*s" with 6 - written as the width and " " as the text: at least one blank.
  const std::size_t written = out.size() - before;
  out.fill(' ', written < 5 ? 6 - written : 1);
}

void append_tod(TextBuffer& out, const ScriptClock& clock, std::uint64_t time, bool ns) {
  const std::uint64_t tod = time > clock.clock_ns ? clock.tod_ns + (time - clock.clock_ns)
                                                  : clock.tod_ns - (clock.clock_ns - time);
  constexpr std::uint64_t kNsPerSec = 1000000000;
  const auto sec = static_cast<std::time_t>(tod / kNsPerSec);
  const std::uint64_t nsec = tod % kNsPerSec;
  std::tm tm{};
  if (localtime_r(&sec, &tm) == nullptr) {
    out.append("failed");
    return;
  }
  char date[64];
  const std::size_t n = std::strftime(date, sizeof date, "%F %H:%M:%S", &tm);
  out.append({date, n});
  out.push_back('.');
  if (ns) {
    out.zero_padded(nsec, 9);
  } else {
    out.zero_padded(nsec / 1000, 6);
  }
}

void format_script_batch(const ScriptBatch& batch, bool ns, TextBuffer& out) {
  for (const auto& row : batch.rows) append_row(out, batch, row, ns);
}

ScriptPipeline::ScriptPipeline(std::ostream& out, bool ns, unsigned workers)
    : out_(out), ns_(ns), current_(std::make_unique<ScriptBatch>()) {
  // Two batches per worker (one formatting, one queued) and the one being filled.
  max_batches_ = 2 * std::size_t{workers} + 1;
  for (unsigned i = 0; i < workers; ++i) workers_.emplace_back([this] { work(); });
}

ScriptPipeline::~ScriptPipeline() { finish(); }

bool ScriptPipeline::submit_if_full() {
  const ScriptBatch& b = *current_;
  if (b.rows.size() >= kBatchRows || b.frames.size() >= kBatchFrames || b.text.size() >= kBatchText)
    submit();
  return !failed_;
}

void ScriptPipeline::submit() {
  if (workers_.empty()) {
    inline_text_.clear();
    format_script_batch(*current_, ns_, inline_text_);
    write(inline_text_.view());
    current_->clear();
    return;
  }
  std::unique_lock lock(mutex_);
  queue_.push_back(Job{std::move(current_), next_seq_++});
  changed_.notify_all();
  if (free_.empty() && batches_ < max_batches_) {
    ++batches_;
    current_ = std::make_unique<ScriptBatch>();
    return;
  }
  changed_.wait(lock, [&] { return !free_.empty(); });
  current_ = std::move(free_.back());
  free_.pop_back();
}

void ScriptPipeline::work() {
  TextBuffer text;
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return done_ || !queue_.empty(); });
    if (queue_.empty()) return;
    Job job = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    text.clear();
    format_script_batch(*job.batch, ns_, text);
    job.batch->clear();
    lock.lock();
    // In submission order: a worker that finished early waits for its turn.
    changed_.wait(lock, [&] { return next_write_ == job.seq; });
    lock.unlock();
    write(text.view());
    lock.lock();
    ++next_write_;
    free_.push_back(std::move(job.batch));
    changed_.notify_all();
  }
}

void ScriptPipeline::write(std::string_view text) {
  // Only one writer at a time: the batch whose turn it is.
  if (failed_) return;
  out_.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out_) failed_ = true;
}

bool ScriptPipeline::finish() {
  if (!finished_) {
    finished_ = true;
    if (!current_->rows.empty()) submit();
    {
      std::lock_guard lock(mutex_);
      done_ = true;
      changed_.notify_all();
    }
    for (auto& t : workers_) t.join();
  }
  return !failed_;
}

}  // namespace perfx::report
