#pragma once
/// \file
/// perf.data reader, file mode and pipe mode, streaming with bounded memory.
///
/// File mode mmaps the file read-only and walks the data section in place
/// (records are views into the mapping). Pipe mode ("-" = stdin, or a pipe
/// fd) reads records in chunks; attrs (HEADER_ATTR), features
/// (HEADER_FEATURE) and event names (HEADER_EVENT_TYPE) arrive inline and are
/// applied to attrs()/features() as they pass. PERF_RECORD_COMPRESSED
/// records are decompressed (zstd, streaming; records may span compressed
/// records) and the records inside are returned instead of the wrapper.
/// Records come in file order (no FINISHED_ROUND re-sorting).
///
///   PERFX_TRY(reader, record::PerfDataReader::open("perf.data"));
///   record::RawRecord raw;
///   while (reader.next(raw)) {
///     if (raw.header.type != PERF_RECORD_SAMPLE) continue;
///     auto sample = reader.decode_sample(raw);   // views into raw.bytes
///     if (!sample) continue;                      // counted in stats().malformed_records
///     use(sample->ip, sample->callchain);
///   }
///   if (reader.error()) report(*reader.error());  // fatal: truncated / unreadable
///   const auto& st = reader.stats();               // skipped bytes, unknown types, ...
///
/// Malformed records: in file mode, at a record whose header is impossible (size < 8
/// or past the end) the reader skips forward to the next plausible record
/// (ReaderOptions::resync), counting the skipped bytes and adding a warning with the
/// offsets; when none follows (a truncated file) it stops and error() names the offset.
/// Pipe mode cannot resynchronise and stops. A record
/// whose header is sane but whose body does not decode is counted in
/// malformed_records by decode()/decode_sample() callers (the reader moves on
/// by header.size, which is the resynchronisation perf does).

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "perfx/error.hpp"
#include "record/features.hpp"
#include "record/records.hpp"
#include "record/sample_layout.hpp"

namespace perfx::record {

/// One undecoded record as it sits in the file (or decompressed block).
struct RawRecord {
  Header header;
  std::uint64_t offset = 0;  ///< file/stream offset (of the COMPRESSED record if it came
                             ///< from one)
  bool from_compressed = false;
  std::span<const std::byte> bytes;  ///< header.size bytes, header included; valid until
                                     ///< the next call to next()
  std::span<const std::byte> tail;   ///< known variable tail (TRACING_DATA, AUXTRACE data)
};

/// Counters of one pass over the records.
struct ReadStats {
  std::uint64_t records = 0;                 ///< records returned by next()
  std::uint64_t bytes = 0;                   ///< bytes of those records
  std::array<std::uint64_t, 128> by_type{};  ///< count per record type (< 128)
  std::uint64_t unknown_records = 0;         ///< types neither kernel nor perf user types we know
  std::uint64_t malformed_records = 0;       ///< bodies that failed to decode (see decode())
  std::uint64_t skipped_bytes =
      0;  ///< bytes not returned: corrupt, or missing from a truncated file
  /// Bytes of a record torn at the end of an unfinished recording (a killed recorder):
  /// ignored with a warning, not damage (see unfinished()).
  std::uint64_t cut_short_bytes = 0;
  /// The message of the first record that failed to decode (see malformed_records).
  std::string first_malformed;
  std::uint64_t compressed_records = 0;  ///< PERF_RECORD_COMPRESSED records expanded
  std::uint64_t decompressed_bytes = 0;
  std::vector<std::string> warnings;  ///< first few problems, with offsets
};

/// Options for opening a recording.
struct ReaderOptions {
  /// Bytes read per chunk in pipe mode (records larger than this still work).
  std::size_t pipe_chunk = 1 << 20;
  /// File mode: after a corrupt record header, skip forward to the next plausible
  /// record (two consecutive sane headers) instead of stopping; the skipped bytes are
  /// counted and a warning names both offsets. Off: stop with error() at the first one.
  bool resync = true;
};

class PerfDataReader {
 public:
  /// Opens `path` ("-" = stdin). Detects file mode vs pipe mode from the header
  /// (size 16 = pipe mode, any fd). Reads and checks the file header, the attrs
  /// (min(attr_size, sizeof) with zero fill, ids) and the feature sections; every
  /// section offset is checked against the file size.
  /// Errors: kNotFound/kIo/kPermission (open/read), kMalformedData ("perf.data: data
  /// section at offset 0x... extends past end of file (size 0x...)").
  [[nodiscard]] static Result<PerfDataReader> open(const std::string& path,
                                                   const ReaderOptions& options = {});
  /// Reads from an already open fd (file or pipe); takes ownership of `fd` when `owned`.
  [[nodiscard]] static Result<PerfDataReader> open_fd(int fd, bool owned, std::string name,
                                                      const ReaderOptions& options = {});
  /// Reads an in-memory image (tests, fuzzers). `bytes` must outlive the reader.
  [[nodiscard]] static Result<PerfDataReader> from_memory(std::span<const std::byte> bytes,
                                                          std::string name = "<memory>",
                                                          const ReaderOptions& options = {});

  PerfDataReader(PerfDataReader&&) noexcept;
  PerfDataReader& operator=(PerfDataReader&&) noexcept;
  ~PerfDataReader();

  /// Next record in file order; false at the end or on a fatal error (see error()).
  /// PERF_RECORD_COMPRESSED is replaced by the records it contains. Pipe-mode
  /// HEADER_ATTR/HEADER_FEATURE/HEADER_EVENT_TYPE are applied, then returned too.
  [[nodiscard]] bool next(RawRecord& out);

  /// The fatal error that stopped next(), if any (truncation, corrupt header, I/O).
  [[nodiscard]] const std::optional<Error>& error() const noexcept;

  /// Decodes a record with this file's attrs and byte order. Counts failures in
  /// stats().malformed_records.
  [[nodiscard]] Result<Record> decode(const RawRecord& raw);
  /// The same, into a Record the caller reuses (hot path: no copy of the record).
  [[nodiscard]] Result<void> decode(const RawRecord& raw, Record& out);
  /// Decodes a SAMPLE (hot path); attr_index receives the attr of the sample.
  [[nodiscard]] Result<Sample> decode_sample(const RawRecord& raw, int* attr_index = nullptr);

  [[nodiscard]] const AttrTable& attrs() const noexcept;
  [[nodiscard]] const Features& features() const noexcept;
  [[nodiscard]] const ReadStats& stats() const noexcept;
  /// The event name of attr i (EVENT_DESC / HEADER_EVENT_TYPE, else derived from the attr
  /// like perf: "cpu-clock", "sched:sched_switch" needs tracing data, else "raw 0x..").
  [[nodiscard]] std::string event_name(std::size_t attr_index) const;

  /// File mode: the header was never finalized (data size 0, or no feature sections: the
  /// recorder was killed). The data is read to the end of the file and a warning says the
  /// recording was cut short.
  [[nodiscard]] bool unfinished() const noexcept;
  /// Pipe mode: reads the rest of the stream so that every HEADER_ATTR, HEADER_FEATURE,
  /// HEADER_BUILD_ID and EVENT_UPDATE in it is applied to attrs()/features() (what
  /// `evlist` and `buildid-list` show). File mode: nothing to do. Errors: the reader's
  /// error() when the stream is damaged.
  [[nodiscard]] Result<void> read_to_end();
  [[nodiscard]] bool is_pipe() const noexcept;
  [[nodiscard]] bool swapped() const noexcept;
  [[nodiscard]] const std::string& name() const noexcept;
  [[nodiscard]] std::uint64_t file_size() const noexcept;  ///< 0 in pipe mode
  [[nodiscard]] std::uint64_t data_offset() const noexcept;
  [[nodiscard]] std::uint64_t data_size() const noexcept;
  /// Bytes of the input consumed so far (for progress).
  [[nodiscard]] std::uint64_t position() const noexcept;
  /// The caller is done with the file's bytes before `offset` (records and the views
  /// decoded from them): a mapped file gives those pages back, so resident memory stays
  /// at a window of the file instead of all of it. Views into that part stay valid (the
  /// pages come back from the page cache if touched). No-op for pipes and memory.
  void release_before(std::uint64_t offset) noexcept;

  /// `perf report --header-only` text for this recording.
  [[nodiscard]] std::string header_text() const;

 private:
  struct Impl;
  explicit PerfDataReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace perfx::record
