#pragma once
/// \file
/// Public perf.data API (thin wrappers over the internal record module): open a
/// recording written by perf or perfx (file or pipe mode, compressed or not),
/// walk its typed records (records.hpp: the same types and decoder as the live ring
/// buffer) or just its samples, and print its header like `perf report --header-only`.
///
/// \code
///   auto file = perfx::PerfDataRecords::open("perf.data");
///   while (const perfx::record::Record* rec = file->next()) {
///     if (const auto* s = rec->get<perfx::record::Sample>()) use(s->ip, s->time);
///   }
///   if (file->error()) report(file->error()->message());
/// \endcode

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "perfx/error.hpp"
#include "perfx/export.hpp"
#include "perfx/raw.hpp"
#include "perfx/records.hpp"

namespace perfx {

/// One event (attr) of a recording.
struct PERFX_API PerfDataEvent {
  std::string name;                 ///< "cpu-clock", "sched:sched_switch", ...
  std::uint32_t type = 0;           ///< perf_event_attr.type
  std::uint64_t config = 0;         ///< perf_event_attr.config
  std::uint64_t sample_type = 0;    ///< perf_event_attr.sample_type
  std::uint64_t sample_period = 0;  ///< period or frequency (see freq)
  bool freq = false;
  std::vector<std::uint64_t> ids;  ///< kernel ids of its fds (records carry one of them)
  raw::EventAttr attr{};           ///< the whole attr as recorded (zero-filled past its size)
};

/// What a recording holds (from the header; pipe-mode recordings are read through).
struct PERFX_API PerfDataInfo {
  bool pipe = false;
  bool swapped = false;  ///< recorded on the other byte order
  std::uint64_t file_size = 0;
  std::uint64_t data_size = 0;
  std::vector<PerfDataEvent> events;
  std::string hostname, os_release, perf_version, arch;
  std::uint64_t records = 0;  ///< filled by for_each_sample / read_perf_data_info(count)
  std::uint64_t samples = 0;
  std::uint64_t lost = 0;       ///< sum of PERF_RECORD_LOST counts
  std::uint64_t malformed = 0;  ///< records that failed to decode
  std::uint64_t skipped_bytes = 0;
};

/// A sample as the public API sees it. Spans are valid during the callback only.
struct PERFX_API PerfDataSample {
  std::size_t event = 0;  ///< index into PerfDataInfo::events
  std::uint64_t ip = 0;
  std::uint32_t pid = 0, tid = 0, cpu = 0;
  std::uint64_t time = 0;
  std::uint64_t period = 0;
  std::uint16_t cpumode = 0;                 ///< PERF_RECORD_MISC_{KERNEL,USER,...}
  std::span<const std::uint64_t> callchain;  ///< copied into a reused buffer
  std::span<const std::byte> raw;            ///< tracepoint RAW data
};

/// The typed records of a recording, one at a time in file order: PERF_RECORD_COMPRESSED
/// is expanded, pipe-mode HEADER_ATTR/FEATURE/EVENT_TYPE are applied (and returned too).
/// Each record is decoded with the layout of its attr (found by id, as perf does);
/// Record::attr_index indexes info().events. Move-only.
class PERFX_API PerfDataRecords {
 public:
  /// Opens `path` ("-" = stdin) and reads its header and attrs.
  /// Errors: kNotFound/kIo/kPermission, kMalformedData with the offset.
  [[nodiscard]] static Result<PerfDataRecords> open(const std::string& path);

  PerfDataRecords(PerfDataRecords&&) noexcept;
  PerfDataRecords& operator=(PerfDataRecords&&) noexcept;
  ~PerfDataRecords();

  /// The next record, or nullptr at the end of the data or at a fatal error (error()).
  /// The record and its views are valid until the next call. A record whose body does not
  /// decode is skipped and counted (info().malformed); a damaged stretch of a file is
  /// skipped up to the next plausible record (info().skipped_bytes).
  [[nodiscard]] const record::Record* next();

  /// The bytes of the record last returned (header included).
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept;

  /// What stopped next() early (a truncated or unreadable file), or nullptr.
  [[nodiscard]] const Error* error() const noexcept;

  /// Header, events (pipe mode: those seen so far) and the counters so far.
  [[nodiscard]] PerfDataInfo info() const;

  /// The attr of event `index` (Record::attr_index), as recorded.
  [[nodiscard]] const raw::EventAttr& attr(std::size_t index) const noexcept;

  /// Whether the recording is in the other byte order (views swap on access).
  [[nodiscard]] bool swapped() const noexcept;

 private:
  struct Impl;
  explicit PerfDataRecords(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// One event of a recording to write: its attr and the kernel ids of its fds (for a
/// Sampler: `{options().events[i].name, options().events[i].attr, ids(i)}`).
struct PERFX_API PerfDataWriterEvent {
  std::string name;                ///< event name, written as HEADER_EVENT_DESC
  raw::EventAttr attr{};           ///< the attr the records were produced with
  std::vector<std::uint64_t> ids;  ///< ids of its fds (PERF_EVENT_IOC_ID)
};

/// How to write a recording.
struct PERFX_API PerfDataWriterOptions {
  bool pipe = false;       ///< pipe mode (HEADER_ATTR records up front) instead of file mode
  int compress_level = 0;  ///< 0: none; 1..22: zstd level (PERF_RECORD_COMPRESSED, like -z)
};

/// Writes a perf.data that Linux perf and PerfDataRecords read: the raw records a Sampler
/// drains (drain() hands out exactly these bytes) or typed records. Move-only; a writer
/// destroyed without finalize() leaves a valid file without the feature sections.
class PERFX_API PerfDataWriter {
 public:
  /// Creates `path` as `perf record -o` does, through perfx::OutputFile
  /// (CreateMode::kNewKeepOld): an existing file is renamed to `path.old`, then `path` is
  /// created with O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600 (a symlink is never followed; a lost
  /// race is an error naming the file). "-" writes pipe-mode data to stdout.
  /// Errors: kInvalidArgument (no events, bad level), kPermission/kIo/kSystem from open.
  [[nodiscard]] static Result<PerfDataWriter> create(const std::string& path,
                                                     std::vector<PerfDataWriterEvent> events,
                                                     const PerfDataWriterOptions& options = {});

  PerfDataWriter(PerfDataWriter&&) noexcept;
  PerfDataWriter& operator=(PerfDataWriter&&) noexcept;
  ~PerfDataWriter();

  /// Appends whole records as the kernel wrote them (native byte order); each header is
  /// checked (8 <= size <= what is left). Errors: kInvalidArgument, kIo.
  [[nodiscard]] Result<void> write_bytes(std::span<const std::byte> records);
  /// Encodes and appends a typed record with the layout of event `record.attr_index`
  /// (event 0 when -1). Errors: kInvalidArgument (fields that contradict the attr), kIo.
  [[nodiscard]] Result<void> write(const record::Record& record);
  /// Flushes, writes the feature sections known from the events and records (event
  /// descriptions, the sample time range) and the final header. Idempotent; no writes
  /// after it.
  [[nodiscard]] Result<void> finalize();

 private:
  struct Impl;
  explicit PerfDataWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Calls `fn` for every record of `path` in file order (PerfDataRecords::next()); an error
/// from `fn` stops the walk and is returned. Returns the info with counters filled.
[[nodiscard]] PERFX_API Result<PerfDataInfo> for_each_record(
    const std::string& path, const std::function<Result<void>(const record::Record&)>& fn);

/// Reads the header of `path` ("-" = stdin); with `count_records` also walks the data
/// and fills the counters. Errors: kNotFound/kIo, kMalformedData with the offset.
[[nodiscard]] PERFX_API Result<PerfDataInfo> read_perf_data_info(const std::string& path,
                                                                 bool count_records = false);

/// Calls `fn` for every sample in file order. Returns the info with counters filled.
/// A truncated file gives the samples before the damage and an Error only if nothing
/// could be read; otherwise skipped_bytes says how much was lost.
[[nodiscard]] PERFX_API Result<PerfDataInfo> for_each_sample(
    const std::string& path, const std::function<void(const PerfDataSample&)>& fn);

/// The text `perf report --header-only -i path` prints (for the features present).
[[nodiscard]] PERFX_API Result<std::string> perf_data_header_text(const std::string& path);

}  // namespace perfx
