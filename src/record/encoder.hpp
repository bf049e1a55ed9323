#pragma once
/// \file
/// The record encoder (writer side): a typed Record -> the bytes the kernel or
/// perf would have written, for the attr's layout. The inverse of decoder.hpp:
/// decode_record(encode_record(r)) == r for every record type and sample field.
///
///   std::vector<std::byte> out;
///   record::Record r;  r.header.type = PERF_RECORD_COMM;
///   r.body = record::Comm{.pid = 42, .tid = 42, .comm = "worker"};
///   r.sample_id = {.pid = 42, .tid = 42, .time = t};   // trailer, if sample_id_all
///   PERFX_CHECK(record::encode_record(r, layout, out));
///
/// header.type must match the body alternative (or may be 0 to let the body pick it,
/// THROTTLE for Throttle); header.misc is written as given; header.size is computed.
/// For a Sample, the fields written are those of layout.sample_type (the Sample's own
/// sample_type is ignored). The sample_id trailer (non-sample kernel records, when
/// layout.sample_id_all) is taken from Record::sample_id.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "perfx/error.hpp"
#include "record/records.hpp"
#include "record/sample_layout.hpp"

namespace perfx::record {

/// Appends the encoded record to `out`. Errors (kInvalidArgument): the record would
/// exceed 65535 bytes, a field contradicts the layout (e.g. regs count != popcount(mask),
/// dyn_size > size), or type and body disagree.
[[nodiscard]] Result<void> encode_record(const Record& record, const SampleLayout& layout,
                                         std::vector<std::byte>& out);

/// Appends a sample_id trailer for `layout` (no-op without sample_id_all).
void encode_sample_id(const SampleId& id, const SampleLayout& layout, std::vector<std::byte>& out);

/// The record type a body alternative stands for (Throttle -> PERF_RECORD_THROTTLE,
/// Unknown -> 0).
[[nodiscard]] std::uint32_t type_of_body(const Record::Body& body) noexcept;

}  // namespace perfx::record
