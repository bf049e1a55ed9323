#pragma once
/// \file
/// perf.data writer, file mode and pipe mode, optionally zstd-compressed (-z).
/// Linux perf 6.1 reads the result without warnings.
///
/// File mode layout (as perf writes it): file header (104 bytes), the ids of
/// every attr, the attrs (perf_file_attr = 128-byte attr + ids section), the
/// data section (records appended through a buffered writer), then at
/// finalize() the feature section table + feature sections, and the header is
/// rewritten with the final data size and feature bitmap. Before finalize(), every
/// buffer flush (when the buffer is full, or flush()) updates the header's data size, so
/// a recording killed midway is still a valid file (without features) for perf and
/// perfx; perfx's reader then warns that the recording was cut short.
///
/// Pipe mode: 16-byte pipe header, HEADER_ATTR per attr, HEADER_FEATURE per
/// feature (set_features(), call it before the first record), then records.
///
/// Compression: records are buffered and flushed as PERF_RECORD_COMPRESSED
/// records (each zstd frame compresses <= compress_mmap_len bytes of whole
/// records, split into records of < 64 KiB); HEADER_COMPRESSED is written.
///
///   std::vector<record::WriterAttr> attrs{{attr, "cpu-clock", {id0, id1}}};
///   PERFX_TRY(w, record::PerfDataWriter::create("perf.data", attrs, {}));
///   PERFX_CHECK(w.write_bytes(ring_buffer_record));   // raw kernel record bytes
///   PERFX_CHECK(w.write(comm_record));                // or typed records (encoder.hpp)
///   w.set_features(features);                         // hostname, build ids, ...
///   PERFX_CHECK(w.finalize());
///
/// Signals: the writer does no signal handling. The recorder stops on SIGINT,
/// then calls finalize(); partial writes (EINTR) are retried.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "perfx/error.hpp"
#include "perfx/raw.hpp"
#include "record/features.hpp"
#include "record/records.hpp"
#include "record/sample_layout.hpp"

namespace perfx::record {

/// One event of the recording.
struct WriterAttr {
  raw::EventAttr attr{};
  std::string name;                ///< event name for EVENT_DESC ("cpu-clock")
  std::vector<std::uint64_t> ids;  ///< ids of its fds (PERF_EVENT_IOC_ID), one per cpu/thread
};

struct WriterOptions {
  bool pipe = false;                         ///< pipe mode (forced when the target is "-" / a pipe)
  int compress_level = 0;                    ///< 0 = no compression, 1..22 = zstd level (-z = 1)
  std::uint32_t compress_mmap_len = 528384;  ///< max bytes per compressed chunk (perf: mmap size)
  std::size_t buffer_size = 1 << 20;         ///< write buffer
  /// Compute HEADER_SAMPLE_TIME from the samples written (needs PERF_SAMPLE_TIME).
  bool track_sample_time = true;
};

/// Counters of what was written.
struct WriterStats {
  std::uint64_t records = 0;
  std::uint64_t samples = 0;
  std::uint64_t data_bytes = 0;        ///< uncompressed record bytes
  std::uint64_t compressed_bytes = 0;  ///< bytes of COMPRESSED records (when -z)
};

class PerfDataWriter {
 public:
  /// Creates `path` ("-" = stdout, pipe mode) and writes the header part that is known
  /// now. An existing `path` is renamed to `path.old` first, as perf does, and the new
  /// file is created 0600 with O_EXCL|O_NOFOLLOW (perfx::OutputFile, kNewKeepOld): a
  /// symlink is never followed. Errors: kIo/kPermission on open/write (a lost race with
  /// another process creating `path` included), kInvalidArgument for no attrs or a bad
  /// compression level.
  [[nodiscard]] static Result<PerfDataWriter> create(const std::string& path,
                                                     std::vector<WriterAttr> attrs,
                                                     const WriterOptions& options = {});
  /// Same on an open fd (pipe mode is chosen when the fd is a pipe/FIFO or options.pipe).
  [[nodiscard]] static Result<PerfDataWriter> create_fd(int fd, bool owned, std::string name,
                                                        std::vector<WriterAttr> attrs,
                                                        const WriterOptions& options = {});

  PerfDataWriter(PerfDataWriter&&) noexcept;
  PerfDataWriter& operator=(PerfDataWriter&&) noexcept;
  /// Closes the file WITHOUT finalizing if finalize() was not called.
  ~PerfDataWriter();

  /// Appends one or more whole records (kernel byte order = native). Each record's
  /// header is checked (8 <= size <= remaining). Errors: kInvalidArgument, kIo.
  [[nodiscard]] Result<void> write_bytes(std::span<const std::byte> records);
  /// Encodes (encoder.hpp) and appends a typed record with the layout of attr
  /// `record.attr_index` (attr 0 when -1).
  [[nodiscard]] Result<void> write(const Record& record);
  /// Appends a PERF_RECORD_FINISHED_ROUND (perf record writes one after each
  /// pass over the ring buffers).
  [[nodiscard]] Result<void> finish_round();

  /// Sets the feature values. File mode: written at finalize(). Pipe mode: emitted
  /// now as HEADER_FEATURE records (call before the first record, as perf does).
  [[nodiscard]] Result<void> set_features(const Features& features);

  /// Writes what is buffered to the file now (pending records compressed first when -z)
  /// and, in file mode, updates the header's data size. A recorder calls it about once a
  /// second so that a kill -9 or the OOM killer loses at most that much of the recording.
  /// No-op after finalize(). Errors: kIo.
  [[nodiscard]] Result<void> flush();

  /// Flushes (and ends the compression stream), writes the feature sections and the
  /// final header (file mode). Idempotent; no writes are allowed after it.
  [[nodiscard]] Result<void> finalize();

  [[nodiscard]] const AttrTable& attrs() const noexcept;
  [[nodiscard]] const WriterStats& stats() const noexcept;
  [[nodiscard]] bool is_pipe() const noexcept;

 private:
  struct Impl;
  explicit PerfDataWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace perfx::record
