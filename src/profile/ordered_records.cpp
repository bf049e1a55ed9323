#include "profile/ordered_records.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "core/huge_pages.hpp"

namespace perfx::profile {
namespace {

// A record's timestamp without decoding it (0: none).
std::uint64_t peek_time(const record::PerfDataReader& reader, const record::RawRecord& raw) {
  return reader.attrs().time_of_record(raw.bytes, reader.swapped());
}

// Records whose bytes live somewhere reused (a pipe's buffer, decompressed data) are
// copied into an arena; `stored` says where a record's bytes are.
struct Stored {
  record::RawRecord raw;
  std::size_t offset = 0;  // into the arena when in_arena
  bool in_arena = false;   // else raw.bytes point into the file mapping (stable)
};

// Copies raw's bytes (and an adjacent tail) to `arena` unless they are stable.
Stored store(const record::RawRecord& raw, bool stable, std::vector<std::byte>& arena) {
  Stored s{raw, arena.size(), !stable};
  if (stable) return s;
  const bool tail_adjacent =
      !raw.tail.empty() && raw.tail.data() == raw.bytes.data() + raw.bytes.size();
  const std::size_t n = raw.bytes.size() + (tail_adjacent ? raw.tail.size() : 0);
  arena.insert(arena.end(), raw.bytes.begin(), raw.bytes.begin() + static_cast<std::ptrdiff_t>(n));
  if (!tail_adjacent) s.raw.tail = {};
  return s;
}

// The record as stored, with its bytes pointing at their current home.
record::RawRecord stored_raw(const Stored& s, const std::vector<std::byte>& arena) {
  record::RawRecord raw = s.raw;
  if (s.in_arena) {
    raw.bytes = std::span<const std::byte>(arena.data() + s.offset, raw.bytes.size());
    if (!raw.tail.empty())
      raw.tail =
          std::span<const std::byte>(arena.data() + s.offset + raw.bytes.size(), raw.tail.size());
  }
  return raw;
}

// Stable sort for what a round holds: a few ascending runs (one per CPU buffer that perf
// read, plus the previous round's leftovers). Neighbouring runs are merged through
// `scratch`; both vectors keep their capacity between rounds, so sorting allocates (and
// faults in fresh pages) only while rounds grow, unlike std::stable_sort's buffer.
template <typename Vec, typename Less>
void sort_runs(Vec& v, Vec& scratch, std::vector<std::size_t>& runs, Less less) {
  runs.clear();
  runs.push_back(0);
  for (std::size_t i = 1; i < v.size(); ++i)
    if (less(v[i], v[i - 1])) runs.push_back(i);
  runs.push_back(v.size());
  while (runs.size() > 2) {
    scratch.clear();
    std::size_t merged = 1;  // runs[0..merged) are the new bounds, written in place
    for (std::size_t k = 0; k + 1 < runs.size(); k += 2) {
      const auto a = v.begin() + static_cast<std::ptrdiff_t>(runs[k]);
      const auto b = v.begin() + static_cast<std::ptrdiff_t>(runs[k + 1]);
      if (k + 2 < runs.size()) {
        std::merge(std::make_move_iterator(a), std::make_move_iterator(b),
                   std::make_move_iterator(b),
                   std::make_move_iterator(v.begin() + static_cast<std::ptrdiff_t>(runs[k + 2])),
                   std::back_inserter(scratch), less);
      } else {
        std::move(a, b, std::back_inserter(scratch));
      }
      runs[merged++] = scratch.size();
    }
    runs.resize(merged);
    v.swap(scratch);
  }
}

// perf's round rule over the reader. emit(raw, stable) gets each record in delivery
// order: `stable` = its bytes stay valid as long as the reader (file mapping), else only
// during the call. round_done(oldest) follows each round: file bytes before `oldest`
// are no longer needed. Both return false to stop.
template <typename Emit, typename RoundDone>
void order(record::PerfDataReader& reader, const std::atomic<bool>& cancelled, bool as_perf_sees,
           Emit&& emit, RoundDone&& round_done) {
  struct Pending {
    std::uint64_t time;
    std::uint64_t seq;
    Stored stored;
  };
  std::vector<std::byte> arena;
  core::HugeVector<Pending> pending;
  core::HugeVector<Pending> scratch;  // sort_runs()'s
  std::vector<std::size_t> runs;      // sort_runs()'s
  // A round of a busy recording holds thousands of records: room for 32k up front, in
  // huge pages, instead of growing (and faulting in) copy after copy.
  constexpr std::size_t kRoundGuess = 32 * 1024;
  pending.reserve(kRoundGuess);
  scratch.reserve(kRoundGuess);
  std::uint64_t seq = 0;
  std::uint64_t round_max = 0;  // newest time seen so far
  std::uint64_t prev_round_max = 0;
  bool stop = false;

  // Emits buffered records with time <= limit (all when flush_all).
  auto flush = [&](std::uint64_t limit, bool flush_all) {
    auto by_time = [](const Pending& a, const Pending& b) {
      return a.time != b.time ? a.time < b.time : a.seq < b.seq;
    };
    sort_runs(pending, scratch, runs, by_time);
    std::size_t i = 0;
    for (; i < pending.size() && !stop; ++i) {
      if (!flush_all && pending[i].time > limit) break;
      const Stored& s = pending[i].stored;
      if (!emit(stored_raw(s, arena), !s.in_arena)) stop = true;
    }
    // Keep the rest (reusing the buffers: a round is a few thousand records).
    if (arena.empty()) {
      pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
    std::vector<std::byte> keep_arena;
    core::HugeVector<Pending> keep;
    for (; i < pending.size(); ++i) {
      Pending p = pending[i];
      if (p.stored.in_arena) p.stored = store(stored_raw(p.stored, arena), false, keep_arena);
      keep.push_back(p);
    }
    arena = std::move(keep_arena);
    pending = std::move(keep);
  };
  auto oldest_needed = [&] {
    std::uint64_t oldest = reader.position();
    for (const Pending& p : pending)
      if (!p.stored.in_arena) oldest = std::min<std::uint64_t>(oldest, p.stored.raw.offset);
    return oldest;
  };

  record::RawRecord raw;
  while (!stop && !cancelled.load(std::memory_order_relaxed) && reader.next(raw)) {
    // File-mode records outside compressed blocks are views into the file mapping, which
    // lives as long as the reader.
    const bool stable = !reader.is_pipe() && !raw.from_compressed;
    const std::uint32_t type = raw.header.type;
    if (type == raw::PERF_RECORD_FINISHED_ROUND) {
      // perf handles the round record (its -D line) before the flush it triggers.
      if (as_perf_sees && !emit(raw, stable)) stop = true;
      if (!stop) flush(prev_round_max, false);
      prev_round_max = round_max;
      if (!stop && !round_done(oldest_needed())) stop = true;
      continue;
    }
    // Records without a time (user records, attrs) are delivered at once.
    if (type >= 64) {
      if (!emit(raw, stable)) stop = true;
      continue;
    }
    const std::uint64_t t = peek_time(reader, raw);
    // perf's ordered_events__queue(): a record without a time (0 or ~0) is delivered at
    // once (-ETIME). The kernel records keep their order either way; only the user
    // records around them move.
    if (as_perf_sees && (t == 0 || t == ~std::uint64_t{0})) {
      if (!emit(raw, stable)) stop = true;
      continue;
    }
    round_max = std::max(round_max, t);
    pending.push_back(Pending{t, seq++, store(raw, stable, arena)});
  }
  if (!stop && !cancelled.load(std::memory_order_relaxed)) flush(0, true);
}

// Ordered records handed from the reader thread to the consumer.
struct Batch {
  std::vector<Stored> records;
  std::vector<std::byte> arena;
  std::uint64_t release_before = 0;  // file bytes before this are done once consumed
};

// A bounded queue of batches between one producer and one consumer.
class BatchQueue {
 public:
  // Producer: false when the consumer has cancelled.
  bool push(Batch&& b) {
    std::unique_lock lock(mutex_);
    space_.wait(lock, [&] { return queue_.size() < kDepth || cancelled_; });
    if (cancelled_) return false;
    queue_.push_back(std::move(b));
    ready_.notify_one();
    return true;
  }
  // Producer: no more batches.
  void close() { raise(closed_, ready_); }
  // Consumer: false at the end. `out`'s old buffers go back to the producer (spare()).
  bool pop(Batch& out) {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return !queue_.empty() || closed_; });
    if (queue_.empty()) return false;
    if (out.records.capacity() != 0 && spares_.size() < kDepth) {
      out.records.clear();
      out.arena.clear();
      spares_.push_back(std::move(out));
    }
    out = std::move(queue_.front());
    queue_.pop_front();
    space_.notify_one();
    return true;
  }
  // Producer: an empty batch, with the buffers of one already consumed when there is one
  // (fresh pages are costly, on VMs most of all: the batches' memory is reused).
  Batch spare() {
    std::lock_guard lock(mutex_);
    if (spares_.empty()) return Batch{};
    Batch b = std::move(spares_.back());
    spares_.pop_back();
    return b;
  }
  // Consumer: stop the producer.
  void cancel() { raise(cancelled_, space_); }

 private:
  // Sets `flag` under the lock and wakes the other side, which waits on `wake`.
  void raise(bool& flag, std::condition_variable& wake) {
    std::lock_guard lock(mutex_);
    flag = true;
    wake.notify_one();
  }

  static constexpr std::size_t kDepth = 4;
  std::mutex mutex_;
  std::condition_variable ready_, space_;
  std::deque<Batch> queue_;
  std::vector<Batch> spares_;
  bool closed_ = false;
  bool cancelled_ = false;
};

Result<void> reader_error(const record::PerfDataReader& reader) {
  if (reader.error()) return tl::unexpected(*reader.error());
  return {};
}

}  // namespace

Result<void> for_each_ordered(record::PerfDataReader& reader,
                              const std::function<bool(const record::RawRecord&)>& deliver,
                              bool as_perf_sees) {
  std::atomic<bool> cancelled{false};
  if (reader.is_pipe()) {
    order(
        reader, cancelled, as_perf_sees,
        [&](const record::RawRecord& raw, bool) { return deliver(raw); },
        [](std::uint64_t) { return true; });
    return reader_error(reader);
  }

  constexpr std::size_t kBatchRecords = 4096;
  BatchQueue queue;
  std::thread producer([&] {
    Batch batch;
    batch.records.reserve(kBatchRecords);
    std::uint64_t release = 0;
    auto send = [&] {
      batch.release_before = release;
      const bool ok = queue.push(std::move(batch));
      batch = queue.spare();
      batch.records.reserve(kBatchRecords);
      return ok;
    };
    order(
        reader, cancelled, as_perf_sees,
        [&](const record::RawRecord& raw, bool stable) {
          batch.records.push_back(store(raw, stable, batch.arena));
          return batch.records.size() < kBatchRecords || send();
        },
        [&](std::uint64_t oldest) {
          release = oldest;
          return true;
        });
    if (!batch.records.empty()) send();
    queue.close();
  });
  // The reader thread is joined on every way out, exceptions included.
  struct Join {
    std::thread& t;
    BatchQueue& q;
    std::atomic<bool>& cancelled;
    ~Join() {
      cancelled = true;
      q.cancel();
      t.join();
    }
  } join{producer, queue, cancelled};

  Batch batch;
  while (queue.pop(batch)) {
    for (const Stored& s : batch.records)
      if (!deliver(stored_raw(s, batch.arena))) return {};
    reader.release_before(batch.release_before);
  }
  return reader_error(reader);
}

}  // namespace perfx::profile
