#pragma once
/// \file
/// The record decoder: bytes of one record (header included) + the attr table
/// -> a typed Record of views into those bytes. Works on any byte span: a
/// perf.data data section, a decompressed block or a (reassembled) ring-buffer
/// record. No allocation.
///
/// Validation (ARCHITECTURE.md): 8 <= size, size <= bytes available, and the
/// decode consumes exactly `size` (strings and RAW padding aside). A violation
/// is Errc::kMalformedData with the offset in the message.
///
///   record::AttrTable attrs;  attrs.add(attr, ids, "cpu-clock");
///   auto rec = record::decode_record(bytes, attrs, {.offset = off});
///   if (auto* s = rec->get<record::Sample>()) use(s->ip, s->callchain);

#include <cstdint>
#include <optional>
#include <span>

#include "perfx/error.hpp"
#include "record/records.hpp"
#include "record/sample_layout.hpp"

namespace perfx::record {

struct DecodeOptions {
  bool swap = false;         ///< the bytes are in the other byte order
  std::uint64_t offset = 0;  ///< where the record starts in its file/stream (for messages)
};

/// Reads the header of the record at the start of `bytes`; nullopt if fewer than 8 bytes.
/// No validation beyond that (and no swap handling beyond `swap`).
/// Inline: it runs several times per record.
[[nodiscard]] inline std::optional<Header> peek_header(std::span<const std::byte> bytes,
                                                       bool swap = false) noexcept {
  if (bytes.size() < kHeaderSize) return std::nullopt;
  Header h;
  std::memcpy(&h.type, bytes.data(), 4);
  std::memcpy(&h.misc, bytes.data() + 4, 2);
  std::memcpy(&h.size, bytes.data() + 6, 2);
  if (swap) {
    h.type = __builtin_bswap32(h.type);
    h.misc = __builtin_bswap16(h.misc);
    h.size = __builtin_bswap16(h.size);
  }
  return h;
}

/// Decodes one whole record. `bytes` may extend past the record (only header.size
/// bytes are used). Kernel records are decoded with the layout of their attr
/// (AttrTable::index_of_record); with an empty table, samples cannot be decoded
/// (kInvalidArgument) and trailers are not parsed.
/// Unknown types decode to `Unknown` (not an error).
[[nodiscard]] Result<Record> decode_record(std::span<const std::byte> bytes, const AttrTable& attrs,
                                           const DecodeOptions& options = {});

/// The same, into `out` (the hot path: a reused Record is filled in place, not copied).
/// On error `out` holds a partly decoded record.
[[nodiscard]] Result<void> decode_record(std::span<const std::byte> bytes, const AttrTable& attrs,
                                         const DecodeOptions& options, Record& out);

/// Decodes one record with a given layout (single-attr callers such as a ring
/// buffer reader that already knows the attr).
[[nodiscard]] Result<Record> decode_record(std::span<const std::byte> bytes,
                                           const SampleLayout& layout,
                                           const DecodeOptions& options = {});

/// Decodes the body of a PERF_RECORD_SAMPLE (hot path for report).
[[nodiscard]] Result<Sample> decode_sample(std::span<const std::byte> record,
                                           const SampleLayout& layout,
                                           const DecodeOptions& options = {});

/// Parses the sample_id trailer at the END of a non-sample record.
[[nodiscard]] Result<SampleId> decode_sample_id(std::span<const std::byte> record,
                                                const SampleLayout& layout,
                                                const DecodeOptions& options = {});

}  // namespace perfx::record
