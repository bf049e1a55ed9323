#pragma once
/// \file
/// Typed perf_event records, public: every kernel PERF_RECORD_* type and every
/// PERF_SAMPLE_* field, plus perf's own user records (>= 64) found in perf.data files.
/// These are the very types the library's decoder fills (the same decoder reads the live
/// ring buffer and perf.data), so nothing is converted or copied on the way to the caller.
///
/// Lifetime: a decoded record is plain values plus views (std::span, std::string_view,
/// U64Array, BranchStack, ReadValues) INTO THE SOURCE BYTES. A record handed out by
/// Sampler, RingRecordReader or the perf.data API is valid until the next read from the
/// same source; copy what must outlive it.
///
/// Byte order: perf.data files recorded on the other endianness are read with swap;
/// scalar fields are swapped while decoding and the array views swap on access. `raw`,
/// stack and aux bytes are passed through as recorded.
///
/// \code
///   if (const auto* s = rec.get<perfx::record::Sample>()) use(s->ip, s->tid, s->callchain);
///   else if (const auto* m = rec.get<perfx::record::Mmap2>()) use(m->addr, m->filename);
///   else if (const auto* c = rec.get<perfx::record::Comm>()) use(c->pid, c->comm);
/// \endcode
///
/// RecordDecoder decodes records of any byte span with a set of attrs; RingRecordReader
/// walks a ring buffer's data area (the kernel's, or a simulated one) and decodes as it
/// goes, joining records that wrap in a fixed 64 KiB scratch buffer.

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "perfx/error.hpp"
#include "perfx/raw.hpp"

/// The typed records (shared by the public API and the library's record module).
namespace perfx::record {

/// `struct perf_event_header`.
struct PERFX_API Header {
  std::uint32_t type = 0;
  std::uint16_t misc = 0;
  std::uint16_t size = 0;  ///< whole record size, header included
};
inline constexpr std::size_t kHeaderSize = 8;

/// The cpumode of a record (misc & PERF_RECORD_MISC_CPUMODE_MASK).
[[nodiscard]] constexpr std::uint16_t cpumode(std::uint16_t misc) noexcept {
  return static_cast<std::uint16_t>(misc & PERF_RECORD_MISC_CPUMODE_MASK);
}

/// misc flag helpers (the same bit means different things per record type, §5.2).
[[nodiscard]] constexpr bool misc_exact_ip(std::uint16_t misc) noexcept {  ///< SAMPLE
  return (misc & PERF_RECORD_MISC_EXACT_IP) != 0;
}
[[nodiscard]] constexpr bool misc_comm_exec(std::uint16_t misc) noexcept {  ///< COMM
  return (misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
}
[[nodiscard]] constexpr bool misc_mmap_data(std::uint16_t misc) noexcept {  ///< MMAP/MMAP2
  return (misc & PERF_RECORD_MISC_MMAP_DATA) != 0;
}
[[nodiscard]] constexpr bool misc_switch_out(std::uint16_t misc) noexcept {  ///< SWITCH*
  return (misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;
}
[[nodiscard]] constexpr bool misc_switch_out_preempt(std::uint16_t misc) noexcept {  ///< SWITCH*
  return (misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
}
[[nodiscard]] constexpr bool misc_mmap_build_id(std::uint16_t misc) noexcept {  ///< MMAP2
  return (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) != 0;
}

/// A read-only array of u64 inside a record (callchain, regs, ids ...). Loads
/// go through memcpy (no alignment assumption) and swap when the file is
/// byte-swapped.
class PERFX_API U64Array {
 public:
  U64Array() = default;
  U64Array(std::span<const std::byte> bytes, bool swap) noexcept : bytes_(bytes), swap_(swap) {}
  /// A view over native u64 values (for building records to encode).
  static U64Array of(std::span<const std::uint64_t> values) noexcept {
    return U64Array(std::as_bytes(values), false);
  }

  [[nodiscard]] std::size_t size() const noexcept { return bytes_.size() / 8; }
  [[nodiscard]] bool empty() const noexcept { return bytes_.size() < 8; }
  [[nodiscard]] std::uint64_t operator[](std::size_t i) const noexcept {
    std::uint64_t v;
    std::memcpy(&v, bytes_.data() + i * 8, 8);
    return swap_ ? __builtin_bswap64(v) : v;
  }
  /// The raw bytes (file byte order).
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return bytes_; }
  [[nodiscard]] bool swapped() const noexcept { return swap_; }

  class Iterator {
   public:
    using value_type = std::uint64_t;
    using difference_type = std::ptrdiff_t;
    Iterator() = default;
    Iterator(const U64Array* a, std::size_t i) : a_(a), i_(i) {}
    std::uint64_t operator*() const noexcept { return (*a_)[i_]; }
    Iterator& operator++() noexcept {
      ++i_;
      return *this;
    }
    Iterator operator++(int) noexcept {
      Iterator t = *this;
      ++i_;
      return t;
    }
    bool operator==(const Iterator& o) const noexcept { return i_ == o.i_; }

   private:
    const U64Array* a_ = nullptr;
    std::size_t i_ = 0;
  };
  [[nodiscard]] Iterator begin() const noexcept { return {this, 0}; }
  [[nodiscard]] Iterator end() const noexcept { return {this, size()}; }

 private:
  std::span<const std::byte> bytes_;
  bool swap_ = false;
};

/// The identity fields of a record (`struct sample_id` of non-sample records
/// with sample_id_all, or the same fields of a SAMPLE). `fields` holds the
/// PERF_SAMPLE_* bits that were present; absent fields are 0.
struct PERFX_API SampleId {
  std::uint64_t fields = 0;            ///< subset of TID|TIME|ID|STREAM_ID|CPU|IDENTIFIER
  std::uint32_t pid = 0, tid = 0;      ///< TID
  std::uint64_t time = 0;              ///< TIME (the event's clock: perf_clock or clockid)
  std::uint64_t id = 0;                ///< ID or IDENTIFIER (same value)
  std::uint64_t stream_id = 0;         ///< STREAM_ID (the id of the inherited-from event)
  std::uint32_t cpu = 0, cpu_res = 0;  ///< CPU
  /// Whether PERF_SAMPLE_<bit> was present.
  [[nodiscard]] bool has(std::uint64_t sample_bit) const noexcept {
    return (fields & sample_bit) != 0;
  }
};

/// One value of a read_format block.
struct PERFX_API ReadValue {
  std::uint64_t value = 0;  ///< the count
  std::uint64_t id = 0;     ///< with PERF_FORMAT_ID
  std::uint64_t lost = 0;   ///< with PERF_FORMAT_LOST
};

/// A `struct read_format` (PERF_SAMPLE_READ or PERF_RECORD_READ), single or group.
struct PERFX_API ReadValues {
  std::uint64_t read_format = 0;
  std::uint64_t time_enabled = 0;  ///< with PERF_FORMAT_TOTAL_TIME_ENABLED
  std::uint64_t time_running = 0;  ///< with PERF_FORMAT_TOTAL_TIME_RUNNING
  /// Non-group: the one value. Group: unused (see `entries`).
  ReadValue single;
  /// Group: nr entries of {value, id?, lost?} (file byte order).
  std::uint64_t nr = 0;
  std::span<const std::byte> entries;
  bool swap = false;

  [[nodiscard]] bool group() const noexcept { return (read_format & PERF_FORMAT_GROUP) != 0; }
  /// Number of values: nr for a group, 1 otherwise.
  [[nodiscard]] std::size_t size() const noexcept { return group() ? nr : 1; }
  /// Bytes per group entry.
  [[nodiscard]] std::size_t entry_size() const noexcept {
    return 8u * (1u + ((read_format & PERF_FORMAT_ID) ? 1u : 0u) +
                 ((read_format & PERF_FORMAT_LOST) ? 1u : 0u));
  }
  [[nodiscard]] ReadValue operator[](std::size_t i) const noexcept {
    if (!group()) return single;
    U64Array a(entries.subspan(i * entry_size(), entry_size()), swap);
    ReadValue v;
    std::size_t k = 0;
    v.value = a[k++];
    if (read_format & PERF_FORMAT_ID) v.id = a[k++];
    if (read_format & PERF_FORMAT_LOST) v.lost = a[k++];
    return v;
  }
};

/// `struct perf_branch_entry` {from, to, flags-word}.
struct PERFX_API BranchEntry {
  std::uint64_t from = 0;
  std::uint64_t to = 0;
  std::uint64_t flags = 0;  ///< mispred:1 predicted:1 in_tx:1 abort:1 cycles:16 type:4 ...
  [[nodiscard]] bool mispred() const noexcept { return flags & 1u; }
  [[nodiscard]] bool predicted() const noexcept { return (flags >> 1) & 1u; }
  [[nodiscard]] bool in_tx() const noexcept { return (flags >> 2) & 1u; }
  [[nodiscard]] bool abort() const noexcept { return (flags >> 3) & 1u; }
  [[nodiscard]] std::uint16_t cycles() const noexcept {
    return static_cast<std::uint16_t>((flags >> 4) & 0xffffu);
  }
  [[nodiscard]] std::uint8_t type() const noexcept {
    return static_cast<std::uint8_t>((flags >> 20) & 0xfu);
  }
};

/// PERF_SAMPLE_BRANCH_STACK: nr entries, most recent first.
struct PERFX_API BranchStack {
  std::uint64_t nr = 0;
  bool has_hw_idx = false;  ///< branch_sample_type has PERF_SAMPLE_BRANCH_HW_INDEX
  std::uint64_t hw_idx = 0;
  std::span<const std::byte> entries;  ///< nr * 24 bytes
  bool swap = false;
  [[nodiscard]] std::size_t size() const noexcept { return nr; }
  [[nodiscard]] BranchEntry operator[](std::size_t i) const noexcept {
    U64Array a(entries.subspan(i * 24, 24), swap);
    return BranchEntry{a[0], a[1], a[2]};
  }
};

/// PERF_SAMPLE_REGS_USER / REGS_INTR: abi + one u64 per bit of the mask.
struct PERFX_API Regs {
  std::uint64_t abi = 0;   ///< PERF_SAMPLE_REGS_ABI_NONE/_32/_64; NONE => no regs
  std::uint64_t mask = 0;  ///< sample_regs_user / sample_regs_intr of the attr
  U64Array regs;           ///< popcount(mask) values in bit order (empty if abi NONE)
};

/// PERF_SAMPLE_STACK_USER.
struct PERFX_API StackUser {
  std::uint64_t size = 0;           ///< bytes copied (= attr.sample_stack_user or 0)
  std::span<const std::byte> data;  ///< `size` bytes; only the first dyn_size are valid
  std::uint64_t dyn_size = 0;       ///< valid bytes (absent, 0, when size == 0)
};

/// PERF_RECORD_SAMPLE, every field in the kernel's order. A field not in
/// `sample_type` is 0 / empty.
struct PERFX_API Sample {
  std::uint64_t sample_type = 0;       ///< the attr's sample_type (which fields are valid)
  std::uint64_t identifier = 0;        ///< IDENTIFIER
  std::uint64_t ip = 0;                ///< IP
  std::uint32_t pid = 0, tid = 0;      ///< TID
  std::uint64_t time = 0;              ///< TIME
  std::uint64_t addr = 0;              ///< ADDR
  std::uint64_t id = 0;                ///< ID
  std::uint64_t stream_id = 0;         ///< STREAM_ID
  std::uint32_t cpu = 0, cpu_res = 0;  ///< CPU
  std::uint64_t period = 0;            ///< PERIOD
  ReadValues read;                     ///< READ
  U64Array callchain;                  ///< CALLCHAIN (ips, PERF_CONTEXT_* markers included)
  std::span<const std::byte> raw;      ///< RAW: exactly `size` bytes (padding excluded)
  BranchStack branch_stack;            ///< BRANCH_STACK
  Regs regs_user;                      ///< REGS_USER
  StackUser stack_user;                ///< STACK_USER
  std::uint64_t weight = 0;            ///< WEIGHT, or the WEIGHT_STRUCT u64 (see below)
  std::uint64_t data_src = 0;          ///< DATA_SRC
  std::uint64_t transaction = 0;       ///< TRANSACTION
  Regs regs_intr;                      ///< REGS_INTR
  std::uint64_t phys_addr = 0;         ///< PHYS_ADDR
  std::uint64_t cgroup = 0;            ///< CGROUP
  std::uint64_t data_page_size = 0;    ///< DATA_PAGE_SIZE
  std::uint64_t code_page_size = 0;    ///< CODE_PAGE_SIZE
  std::span<const std::byte> aux;      ///< AUX: `size` bytes

  [[nodiscard]] bool has(std::uint64_t sample_bit) const noexcept {
    return (sample_type & sample_bit) != 0;
  }
  /// WEIGHT_STRUCT parts (little-endian union layout).
  [[nodiscard]] std::uint32_t weight_var1_dw() const noexcept {
    return static_cast<std::uint32_t>(weight);
  }
  [[nodiscard]] std::uint16_t weight_var2_w() const noexcept {
    return static_cast<std::uint16_t>(weight >> 32);
  }
  [[nodiscard]] std::uint16_t weight_var3_w() const noexcept {
    return static_cast<std::uint16_t>(weight >> 48);
  }
};

// ------------------------------------------------------------ kernel records
struct PERFX_API Mmap {                        ///< PERF_RECORD_MMAP
  std::uint32_t pid = 0, tid = 0;              ///< the mapping process and thread
  std::uint64_t addr = 0, len = 0, pgoff = 0;  ///< start, length, file offset
  std::string_view filename;                   ///< the mapped file (or [anon], //anon ...)
};
struct PERFX_API Lost {            ///< PERF_RECORD_LOST
  std::uint64_t id = 0, lost = 0;  ///< the event's id, and how many records were dropped
};
struct PERFX_API Comm {            ///< PERF_RECORD_COMM (exec: misc & PERF_RECORD_MISC_COMM_EXEC)
  std::uint32_t pid = 0, tid = 0;  ///< the renamed (or exec'ing) thread
  std::string_view comm;           ///< its new name
};
struct PERFX_API Exit {                                ///< PERF_RECORD_EXIT
  std::uint32_t pid = 0, ppid = 0, tid = 0, ptid = 0;  ///< the thread and its parent
  std::uint64_t time = 0;                              ///< when it exited
};
struct PERFX_API Fork {                                ///< PERF_RECORD_FORK
  std::uint32_t pid = 0, ppid = 0, tid = 0, ptid = 0;  ///< the new thread and its parent
  std::uint64_t time = 0;                              ///< when it was created
};
struct PERFX_API
    Throttle {  ///< PERF_RECORD_THROTTLE and PERF_RECORD_UNTHROTTLE (see Record::type())
  std::uint64_t time = 0, id = 0, stream_id = 0;  ///< when, and which event
};
struct PERFX_API Read {  ///< PERF_RECORD_READ (inherit_stat: a child's counts at its exit)
  std::uint32_t pid = 0, tid = 0;  ///< the thread the values belong to
  ReadValues values;               ///< laid out by the attr's read_format
};
struct PERFX_API Mmap2 {  ///< PERF_RECORD_MMAP2, inode form or build-id form (misc MMAP_BUILD_ID)
  std::uint32_t pid = 0, tid = 0;              ///< the mapping process and thread
  std::uint64_t addr = 0, len = 0, pgoff = 0;  ///< start, length, file offset
  bool has_build_id = false;                   ///< misc & PERF_RECORD_MISC_MMAP_BUILD_ID
  std::uint32_t maj = 0, min = 0;              ///< device (inode form)
  std::uint64_t ino = 0, ino_generation = 0;   ///< inode (inode form)
  std::uint8_t build_id_size = 0;              ///< valid bytes of build_id (build-id form)
  std::array<std::uint8_t, 20> build_id{};     ///< the file's build-id (build-id form)
  std::uint32_t prot = 0, flags = 0;           ///< PROT_* and MAP_* of the mapping
  std::string_view filename;                   ///< the mapped file
};
struct PERFX_API Aux {                         ///< PERF_RECORD_AUX
  std::uint64_t aux_offset = 0, aux_size = 0;  ///< the new data in the AUX area
  std::uint64_t flags = 0;                     ///< PERF_AUX_FLAG_* (TRUNCATED, OVERWRITE ...)
};
struct PERFX_API ItraceStart {     ///< PERF_RECORD_ITRACE_START
  std::uint32_t pid = 0, tid = 0;  ///< the traced thread
};
struct PERFX_API LostSamples {  ///< PERF_RECORD_LOST_SAMPLES
  std::uint64_t lost = 0;       ///< samples the kernel dropped (e.g. no room in the AUX area)
};
struct PERFX_API Switch {};  ///< PERF_RECORD_SWITCH (direction: misc & PERF_RECORD_MISC_SWITCH_OUT)
struct PERFX_API SwitchCpuWide {                       ///< PERF_RECORD_SWITCH_CPU_WIDE
  std::uint32_t next_prev_pid = 0, next_prev_tid = 0;  ///< the thread switched to / from
};
struct PERFX_API Namespaces {       ///< PERF_RECORD_NAMESPACES
  std::uint32_t pid = 0, tid = 0;   ///< the thread
  std::uint64_t nr_namespaces = 0;  ///< number of {dev, inode} pairs
  U64Array link_info;               ///< 2*nr values: {dev, inode} per namespace (NET_NS_INDEX ...)
  [[nodiscard]] std::uint64_t dev(std::size_t i) const noexcept { return link_info[2 * i]; }
  [[nodiscard]] std::uint64_t inode(std::size_t i) const noexcept { return link_info[2 * i + 1]; }
};
struct PERFX_API Ksymbol {                 ///< PERF_RECORD_KSYMBOL
  std::uint64_t addr = 0;                  ///< start of the kernel symbol
  std::uint32_t len = 0;                   ///< its length
  std::uint16_t ksym_type = 0, flags = 0;  ///< PERF_RECORD_KSYMBOL_TYPE_*, _FLAGS_UNREGISTER
  std::string_view name;                   ///< its name ("bpf_prog_<tag>_<name>")
};
struct PERFX_API BpfEvent {           ///< PERF_RECORD_BPF_EVENT
  std::uint16_t type = 0, flags = 0;  ///< PERF_BPF_EVENT_PROG_LOAD / _UNLOAD
  std::uint32_t id = 0;               ///< the BPF program id
  std::array<std::uint8_t, 8> tag{};  ///< the program tag
};
struct PERFX_API Cgroup {  ///< PERF_RECORD_CGROUP
  std::uint64_t id = 0;    ///< the cgroup id (as in PERF_SAMPLE_CGROUP)
  std::string_view path;   ///< its path under the cgroup root
};
struct PERFX_API TextPoke {                         ///< PERF_RECORD_TEXT_POKE
  std::uint64_t addr = 0;                           ///< the patched kernel text address
  std::uint16_t old_len = 0, new_len = 0;           ///< byte counts
  std::span<const std::byte> old_bytes, new_bytes;  ///< the text before and after
};
struct PERFX_API AuxOutputHwId {  ///< PERF_RECORD_AUX_OUTPUT_HW_ID
  std::uint64_t hw_id = 0;        ///< the hardware id of the AUX output (e.g. Intel PT's)
};

// ------------------------------------------------------------ perf user records
struct PERFX_API HeaderAttr {   ///< PERF_RECORD_HEADER_ATTR (pipe mode): attr + its ids
  raw::EventAttr attr{};        ///< min(attr.size, sizeof) bytes copied, rest zero
  std::uint32_t attr_size = 0;  ///< attr.size as recorded
  U64Array ids;
};
struct PERFX_API HeaderEventType {  ///< PERF_RECORD_HEADER_EVENT_TYPE
  std::uint64_t event_id = 0;
  std::string_view name;
};
struct PERFX_API HeaderTracingData {  ///< PERF_RECORD_HEADER_TRACING_DATA (+ `size` bytes after it)
  std::uint32_t size = 0;
  std::span<const std::byte> data;  ///< the trailing tracing data when available
};
struct PERFX_API HeaderBuildId {  ///< PERF_RECORD_HEADER_BUILD_ID
  std::int32_t pid = 0;
  std::uint8_t build_id_size = 20;  ///< valid with misc & PERF_RECORD_MISC_BUILD_ID_SIZE
  std::array<std::uint8_t, 20> build_id{};
  std::string_view filename;
};
struct PERFX_API FinishedRound {};  ///< PERF_RECORD_FINISHED_ROUND
struct PERFX_API FinishedInit {};   ///< PERF_RECORD_FINISHED_INIT
struct PERFX_API IdIndex {          ///< PERF_RECORD_ID_INDEX: nr * {id, idx, cpu, tid}
  std::uint64_t nr = 0;
  U64Array entries;
};
struct PERFX_API Auxtrace {  ///< PERF_RECORD_AUXTRACE (+ `size` bytes of trace data after it)
  std::uint64_t size = 0, offset = 0, reference = 0;
  std::uint32_t idx = 0, tid = 0, cpu = 0;
  std::span<const std::byte> data;
};
struct PERFX_API TimeConv {  ///< PERF_RECORD_TIME_CONV
  std::uint64_t time_shift = 0, time_mult = 0, time_zero = 0;
  std::uint64_t time_cycles = 0, time_mask = 0;
  std::uint8_t cap_user_time_zero = 0, cap_user_time_short = 0;
  bool extended = false;  ///< the record had the cycles/mask/caps fields
};
struct PERFX_API HeaderFeature {  ///< PERF_RECORD_HEADER_FEATURE (pipe mode feature section)
  std::uint64_t feat_id = 0;
  std::span<const std::byte> data;
};
struct PERFX_API Compressed {  ///< PERF_RECORD_COMPRESSED: zstd stream bytes
  std::span<const std::byte> data;
};
/// One thread of a THREAD_MAP record.
struct PERFX_API ThreadMapEntry {
  std::uint64_t pid = 0;  ///< the thread id (perf writes -1 for "any thread")
  std::string_view comm;  ///< its name, up to 16 bytes (empty when perf did not read it)
};
/// PERF_RECORD_THREAD_MAP (perf stat record): the threads counted, in the order the STAT
/// records' `thread` index refers to. `entries` holds nr * {u64 pid; char comm[16]}.
struct PERFX_API ThreadMap {
  std::uint64_t nr = 0;
  std::span<const std::byte> entries;  ///< nr * 24 bytes (file byte order)
  bool swap = false;
  [[nodiscard]] std::size_t size() const noexcept { return nr; }
  [[nodiscard]] ThreadMapEntry operator[](std::size_t i) const noexcept {
    ThreadMapEntry e;
    e.pid = U64Array(entries.subspan(i * 24, 8), swap)[0];
    const auto* c = reinterpret_cast<const char*>(entries.data() + i * 24 + 8);
    std::size_t n = 0;
    while (n < 16 && c[n] != '\0') ++n;
    e.comm = std::string_view(c, n);
    return e;
  }
};
/// PERF_RECORD_CPU_MAP (perf stat record): the CPUs counted, in the encoding perf chose:
/// `map_type` 0 = list (u16 nr, u16 cpu[nr]; 0xffff is "any CPU", -1), 1 = bitmap
/// (u16 nr, u16 long_size, then nr 32-bit masks, or 4 bytes of padding and nr 64-bit
/// masks), 2 = range (u8 any_cpu, u8 pad, u16 start, u16 end). `data` is everything after
/// the u16 type (padding included); cpus() decodes any of them.
struct PERFX_API CpuMap {
  std::uint16_t map_type = 0;
  std::span<const std::byte> data;
  bool swap = false;
  /// The CPUs in map order (-1 for "any CPU"); empty when the data is too short for its
  /// type or the type is unknown.
  [[nodiscard]] std::vector<int> cpus() const;
};
/// perf's PERF_STAT_CONFIG_TERM__* tags of a STAT_CONFIG record.
enum class StatConfigTag : std::uint64_t { kAggrMode = 0, kInterval = 1, kScale = 2 };
/// PERF_RECORD_STAT_CONFIG: nr {tag, value} pairs (StatConfigTag; perf 6.1's aggr_mode
/// numbering: 0 none (-A), 1 global, 2 socket, 3 die, 4 core, 5 thread, 7 node).
struct PERFX_API StatConfig {
  std::uint64_t nr = 0;
  U64Array terms;  ///< 2*nr values
  /// The value of `tag`, or `fallback` when the record does not carry it.
  [[nodiscard]] std::uint64_t get(StatConfigTag tag, std::uint64_t fallback) const noexcept {
    for (std::size_t i = 0; i + 1 < terms.size() && i / 2 < nr; i += 2) {
      if (terms[i] == static_cast<std::uint64_t>(tag)) return terms[i + 1];
    }
    return fallback;
  }
};
/// PERF_RECORD_STAT: one counter's reading on one CPU and thread (cumulative since the
/// counter was enabled).
struct PERFX_API Stat {
  std::uint64_t id = 0;      ///< the event's id (the attr's ids)
  std::uint32_t cpu = 0;     ///< the CPU number ((u32)-1: any CPU)
  std::uint32_t thread = 0;  ///< index into the THREAD_MAP
  std::uint64_t val = 0;     ///< the count
  std::uint64_t ena = 0;     ///< time enabled (ns)
  std::uint64_t run = 0;     ///< time running (ns)
};
/// PERF_RECORD_STAT_ROUND: the STAT records since the previous round form one reading.
struct PERFX_API StatRound {
  std::uint64_t type = 0;  ///< 0: an -I interval, 1: the final reading (kStatRoundFinal)
  std::uint64_t time = 0;  ///< ns since counting started (the run's wall time for FINAL)
};
inline constexpr std::uint64_t kStatRoundInterval = 0;  ///< PERF_STAT_ROUND_TYPE__INTERVAL
inline constexpr std::uint64_t kStatRoundFinal = 1;     ///< PERF_STAT_ROUND_TYPE__FINAL

/// perf's PERF_EVENT_UPDATE__* kinds of an EVENT_UPDATE record.
enum class EventUpdateType : std::uint64_t { kUnit = 0, kScale = 1, kName = 2, kCpus = 3 };
/// PERF_RECORD_EVENT_UPDATE (perf stat record; a pipe's event names): one property of the
/// event with id `id`, in `data` (everything after `id`): its unit or name (a
/// NUL-terminated string, zero padded to 8), its scale (a double) or its CPUs (a
/// CPU_MAP's data: u16 type, then that type's form).
struct PERFX_API EventUpdate {
  std::uint64_t type = 0;  ///< EventUpdateType
  std::uint64_t id = 0;    ///< the event's id (the attr's ids)
  std::span<const std::byte> data;
  bool swap = false;
  /// kUnit, kName: the string up to its first NUL.
  [[nodiscard]] std::string_view text() const noexcept;
  /// kScale: the double; 0 when `data` is shorter than 8 bytes.
  [[nodiscard]] double scale() const noexcept;
  /// kCpus: the CPU map `data` holds (map_type 0xffff, no CPUs, when it is too short).
  [[nodiscard]] CpuMap cpus() const noexcept;
};

/// Any other record: its payload after the header (unknown types, AUXTRACE_INFO ...).
struct PERFX_API Unknown {
  std::span<const std::byte> payload;
};

/// A decoded record. `body` holds the alternative for `header.type`.
struct PERFX_API Record {
  /// One alternative per record type (Throttle serves THROTTLE and UNTHROTTLE).
  using Body = std::variant<Unknown, Mmap, Lost, Comm, Exit, Throttle, Fork, Read, Sample, Mmap2,
                            Aux, ItraceStart, LostSamples, Switch, SwitchCpuWide, Namespaces,
                            Ksymbol, BpfEvent, Cgroup, TextPoke, AuxOutputHwId, HeaderAttr,
                            HeaderEventType, HeaderTracingData, HeaderBuildId, FinishedRound,
                            FinishedInit, IdIndex, Auxtrace, TimeConv, HeaderFeature, Compressed,
                            ThreadMap, CpuMap, StatConfig, Stat, StatRound, EventUpdate>;
  Header header;             ///< type, misc (cpumode and per-type flags), size
  std::uint64_t offset = 0;  ///< byte offset in the file/stream (of the COMPRESSED record
                             ///< for records that came out of one)
  /// The attr of a kernel record: index into SamplerOptions::events, PerfDataInfo::events
  /// or RecordDecoder::add() order; -1 unknown (and for perf's user records).
  int attr_index = -1;
  SampleId sample_id;  ///< trailer of non-sample records / identity of a SAMPLE
  Body body;           ///< the typed record

  /// header.type (PERF_RECORD_*).
  [[nodiscard]] std::uint32_t type() const noexcept { return header.type; }
  /// The body as T, or nullptr when the record is another type.
  template <typename T>
  [[nodiscard]] const T* get() const noexcept {
    return std::get_if<T>(&body);
  }
};

/// Name of a record type as perf spells it ("MMAP2", "SAMPLE", "FINISHED_ROUND"), or
/// "UNKNOWN".
[[nodiscard]] PERFX_API std::string_view record_type_name(std::uint32_t type) noexcept;

}  // namespace perfx::record

namespace perfx {

/// Decodes whole records (header included) with the attrs they were recorded with. The
/// layout of each attr (where every sample field and sample_id trailer field sits) is
/// computed once in add(); the attr of a record is found by its id like perf does
/// (PERF_SAMPLE_IDENTIFIER, or ID when every attr has the same sample_type; with one attr
/// or one sample_type, no id is needed). Several attrs with different sample_types in one
/// stream need PERF_SAMPLE_IDENTIFIER to be told apart.
/// Copyable by move only; not thread-safe for add() (decode() is const).
class PERFX_API RecordDecoder {
 public:
  RecordDecoder();
  RecordDecoder(RecordDecoder&&) noexcept;
  RecordDecoder& operator=(RecordDecoder&&) noexcept;
  ~RecordDecoder();

  /// Adds an attr with the kernel ids (PERF_EVENT_IOC_ID / PERF_FORMAT_ID) of its fds.
  /// Returns its index, which decoded records carry in Record::attr_index.
  int add(const raw::EventAttr& attr, std::span<const std::uint64_t> ids = {},
          std::string name = {});
  /// Number of attrs added.
  [[nodiscard]] std::size_t size() const noexcept;
  /// The attr at `index` (as given to add()).
  [[nodiscard]] const raw::EventAttr& attr(std::size_t index) const noexcept;
  /// The name given to add() for `index`.
  [[nodiscard]] const std::string& name(std::size_t index) const noexcept;

  /// Decodes the record at the start of `bytes` into `out` (a Record the caller reuses:
  /// it is filled in place). `bytes` may extend past the record. `swap`: the bytes are in
  /// the other byte order. `offset` only goes into error messages.
  /// Errors: kMalformedData (size below 8 or past `bytes`, fields past the record size,
  /// bytes left over) with the offset; kInvalidArgument for a SAMPLE with no attr added.
  /// Unknown record types are not errors: they decode to record::Unknown.
  [[nodiscard]] Result<void> decode(std::span<const std::byte> bytes, record::Record& out,
                                    bool swap = false, std::uint64_t offset = 0) const;

  /// The record module's attr table (opaque outside the library).
  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// Counters of a RingRecordReader (and of Sampler's record reading).
struct PERFX_API RingRecordStats {
  std::uint64_t records = 0;            ///< records handed out (decoded)
  std::uint64_t samples = 0;            ///< of which PERF_RECORD_SAMPLE
  std::uint64_t bytes = 0;              ///< bytes of valid records walked
  std::uint64_t lost_records = 0;       ///< PERF_RECORD_LOST records seen
  std::uint64_t lost_samples = 0;       ///< sum of their `lost` fields
  std::uint64_t throttle = 0;           ///< PERF_RECORD_THROTTLE records
  std::uint64_t unthrottle = 0;         ///< PERF_RECORD_UNTHROTTLE records
  std::uint64_t wrapped_records = 0;    ///< records joined across the end of the area
  std::uint64_t malformed_records = 0;  ///< sane header, body that did not decode: skipped
  std::uint64_t corrupt_events = 0;     ///< passes stopped by an impossible header
  std::uint64_t dropped_bytes = 0;      ///< bytes dropped for that reason
};

/// Walks the records of one ring buffer's data area and decodes them. Pure: the caller
/// supplies data_head/data_tail (Sampler does, from the kernel's mmap page; tests use a
/// simulated area). Keep one per buffer and reuse it. Not thread-safe.
///
///   perfx::RingRecordReader rr(data_area, decoder);
///   rr.begin(head, tail);
///   while (const auto* rec = rr.next()) use(*rec);
///   publish_tail(rr.position());
///
/// A record that is contiguous in the area is decoded in place; one that wraps around the
/// end is copied into a fixed 64 KiB scratch buffer (records are at most 65535 bytes)
/// first. Either way the record is valid until the next call to next() or begin(). A
/// record whose body does not decode is skipped and counted (malformed_records,
/// last_error()); an impossible header (size < 8, not a multiple of 8, past head) ends the
/// pass and drops the rest (corrupt_events, dropped_bytes): the position is then head.
class PERFX_API RingRecordReader {
 public:
  /// `data` is the data area (a non-zero power-of-two size, else every pass is dropped as
  /// corrupt); `decoder` must outlive the reader.
  RingRecordReader(std::span<const std::byte> data, const RecordDecoder& decoder);
  RingRecordReader(RingRecordReader&&) noexcept;
  RingRecordReader& operator=(RingRecordReader&&) noexcept;
  ~RingRecordReader();

  /// Starts a pass over [tail, head) (free-running positions, as in the mmap page).
  /// head - tail larger than the area means the writer overran the reader: dropped.
  void begin(std::uint64_t head, std::uint64_t tail) noexcept;
  /// The next decoded record of the pass, or nullptr at its end.
  [[nodiscard]] const record::Record* next();
  /// The bytes of the record last returned by next() (in the area or the scratch copy).
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept;
  /// Where the pass stands: data_tail to publish once the records are consumed.
  [[nodiscard]] std::uint64_t position() const noexcept;
  /// Counters since construction.
  [[nodiscard]] RingRecordStats stats() const noexcept;
  /// The decode error of the last malformed record, empty if none.
  [[nodiscard]] const std::string& last_error() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace perfx
