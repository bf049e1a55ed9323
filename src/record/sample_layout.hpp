#pragma once
/// \file
/// SampleLayout: what an attr's samples and sample_id trailers look like,
/// computed ONCE per attr (not per record). AttrTable: the attrs of a recording
/// and perf's id -> attr mapping, used to find the attr of any record.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "perfx/error.hpp"
#include "perfx/raw.hpp"

namespace perfx::record {

/// The fixed shape of one attr's records.
struct SampleLayout {
  std::uint64_t sample_type = 0;
  std::uint64_t read_format = 0;
  std::uint64_t branch_sample_type = 0;
  std::uint64_t regs_user_mask = 0;
  std::uint64_t regs_intr_mask = 0;
  std::uint32_t regs_user_count = 0;  ///< popcount(sample_regs_user)
  std::uint32_t regs_intr_count = 0;  ///< popcount(sample_regs_intr)
  bool sample_id_all = false;
  bool branch_hw_idx = false;  ///< branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX

  /// Bytes of the fixed-size prefix of a SAMPLE (IDENTIFIER..PERIOD), after the header.
  std::uint32_t fixed_size = 0;
  /// Offsets (from the record start, header included) of fixed fields; -1 if absent.
  std::int32_t ip_offset = -1;
  std::int32_t tid_offset = -1;
  std::int32_t time_offset = -1;
  std::int32_t id_offset = -1;  ///< IDENTIFIER if set, else ID (perf's id_pos * 8 + 8)
  std::int32_t cpu_offset = -1;
  std::int32_t period_offset = -1;
  /// Size of a sample_id trailer (0 without sample_id_all).
  std::uint32_t id_trailer_size = 0;
  /// Offset of the id in a trailer counted back from the record end; 0 if no id.
  std::uint32_t id_from_end = 0;
  /// Whether the READ block's size is fixed (non-group), and that size.
  std::uint32_t read_size = 0;

  /// Computes the layout for `attr`.
  static SampleLayout from_attr(const raw::EventAttr& attr) noexcept;
};

/// One attr of a recording: the attr, its event name and the ids of its fds.
struct AttrEntry {
  raw::EventAttr attr{};
  SampleLayout layout;
  std::string name;                ///< event name ("cpu-clock"), may be empty
  std::vector<std::uint64_t> ids;  ///< kernel ids (PERF_EVENT_IOC_ID) of its fds
};

/// The attrs of a recording and perf's id -> attr mapping.
///
/// Finding the attr of a record (perf's evlist__event2evsel): with one attr,
/// or when all attrs share sample_type, it is attr 0's layout for decoding and
/// the id picks the attr. Otherwise the id is read at the position every attr
/// agrees on (IDENTIFIER: right after the header for samples, last u64 of the
/// trailer for others) and looked up.
class AttrTable {
 public:
  /// Adds an attr (file attrs section, EVENT_DESC or pipe HEADER_ATTR). Returns its index.
  int add(const raw::EventAttr& attr, std::span<const std::uint64_t> ids, std::string name = {});
  /// Adds ids to an existing attr.
  void add_ids(int index, std::span<const std::uint64_t> ids);
  /// Sets an attr's event name (EVENT_DESC, HEADER_EVENT_TYPE).
  void set_name(int index, std::string name);

  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }
  [[nodiscard]] bool empty() const noexcept { return entries_.empty(); }
  [[nodiscard]] const AttrEntry& operator[](std::size_t i) const noexcept { return entries_[i]; }
  [[nodiscard]] const std::vector<AttrEntry>& entries() const noexcept { return entries_; }

  /// The attr index of an id, -1 if unknown.
  [[nodiscard]] int index_of_id(std::uint64_t id) const noexcept;

  /// The attr index of a record (bytes = whole record, header included). -1 when
  /// the table is empty or the record is a user record (type >= 64). Falls back
  /// to attr 0 when the id is unknown or there is no id.
  [[nodiscard]] int index_of_record(std::span<const std::byte> record, bool swap) const noexcept;

  /// A record's timestamp without decoding it: a SAMPLE's TIME at its fixed offset, other
  /// records' from their sample_id trailer. 0 when the record has none (or is too short).
  [[nodiscard]] std::uint64_t time_of_record(std::span<const std::byte> record,
                                             bool swap) const noexcept;

  /// True when every attr has the same sample_type (perf's "sample_type is consistent").
  [[nodiscard]] bool uniform() const noexcept { return uniform_; }

 private:
  void recompute() noexcept;
  std::vector<AttrEntry> entries_;
  std::unordered_map<std::uint64_t, int> by_id_;
  bool uniform_ = true;
  std::int32_t sample_id_offset_ = -1;     ///< common offset of the id in samples, -1 none
  std::uint32_t trailer_id_from_end_ = 0;  ///< common trailer id position from end, 0 none
};

/// Copies an attr from file bytes: min(bytes.size(), sizeof) with zero fill,
/// byte-swapped field by field when `swap` (perf's perf_event__attr_swap).
[[nodiscard]] raw::EventAttr attr_from_bytes(std::span<const std::byte> bytes, bool swap) noexcept;

}  // namespace perfx::record
