#pragma once
/// \file
/// The byte layout of the records, written once for both directions: decoder.cpp reads
/// records through it and encoder.cpp writes them through it.
///  - kBodyTypes / body_index(): the PERF_RECORD_* type of each Record::Body alternative,
///    and the alternative of each type;
///  - kFields<T>: the fields of a fixed-form record in the kernel's order. A member's type
///    is its size on the wire (u8..u64); a std::array<u8, N> is N bytes; a
///    std::string_view is a NUL-terminated string, zero padded to 8, that ends the body.
///    Records with optional or counted parts (MMAP2, NAMESPACES, TEXT_POKE, AUXTRACE, ...)
///    have code of their own in both files;
///  - for_each_sample_head_field(), for_each_sample_id_field(): the fixed head of a
///    sample, and the sample_id trailer of the other records.

#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <variant>

#include "perfx/records.hpp"

namespace perfx::record {

/// The record type of each Record::Body alternative, by variant index (0: Unknown).
inline constexpr std::uint32_t kBodyTypes[] = {
    0,
    PERF_RECORD_MMAP,
    PERF_RECORD_LOST,
    PERF_RECORD_COMM,
    PERF_RECORD_EXIT,
    PERF_RECORD_THROTTLE,
    PERF_RECORD_FORK,
    PERF_RECORD_READ,
    PERF_RECORD_SAMPLE,
    PERF_RECORD_MMAP2,
    PERF_RECORD_AUX,
    PERF_RECORD_ITRACE_START,
    PERF_RECORD_LOST_SAMPLES,
    PERF_RECORD_SWITCH,
    PERF_RECORD_SWITCH_CPU_WIDE,
    PERF_RECORD_NAMESPACES,
    PERF_RECORD_KSYMBOL,
    PERF_RECORD_BPF_EVENT,
    PERF_RECORD_CGROUP,
    PERF_RECORD_TEXT_POKE,
    PERF_RECORD_AUX_OUTPUT_HW_ID,
    raw::PERF_RECORD_HEADER_ATTR,
    raw::PERF_RECORD_HEADER_EVENT_TYPE,
    raw::PERF_RECORD_HEADER_TRACING_DATA,
    raw::PERF_RECORD_HEADER_BUILD_ID,
    raw::PERF_RECORD_FINISHED_ROUND,
    raw::PERF_RECORD_FINISHED_INIT,
    raw::PERF_RECORD_ID_INDEX,
    raw::PERF_RECORD_AUXTRACE,
    raw::PERF_RECORD_TIME_CONV,
    raw::PERF_RECORD_HEADER_FEATURE,
    raw::PERF_RECORD_COMPRESSED,
    raw::PERF_RECORD_THREAD_MAP,
    raw::PERF_RECORD_CPU_MAP,
    raw::PERF_RECORD_STAT_CONFIG,
    raw::PERF_RECORD_STAT,
    raw::PERF_RECORD_STAT_ROUND,
    raw::PERF_RECORD_EVENT_UPDATE,
};
static_assert(std::size(kBodyTypes) == std::variant_size_v<Record::Body>);

namespace detail {
inline constexpr std::size_t kTypeSpan = 128;  // every known type is below this
inline constexpr auto kIndexOfType = [] {
  std::array<std::uint8_t, kTypeSpan> index{};  // 0: Unknown
  for (std::size_t i = 1; i < std::size(kBodyTypes); ++i) {
    index[kBodyTypes[i]] = static_cast<std::uint8_t>(i);
  }
  index[PERF_RECORD_UNTHROTTLE] = index[PERF_RECORD_THROTTLE];  // one body for both
  return index;
}();
}  // namespace detail

/// The Record::Body alternative that holds a record of `type` (0, Unknown, for types this
/// library does not know).
[[nodiscard]] constexpr std::size_t body_index(std::uint32_t type) noexcept {
  return type < detail::kTypeSpan ? detail::kIndexOfType[type] : 0;
}

/// No kFields: the record's layout is code of its own.
template <typename T>
inline constexpr auto kFields = nullptr;

// clang-format off
template <> inline constexpr auto kFields<Mmap> =
    std::tuple(&Mmap::pid, &Mmap::tid, &Mmap::addr, &Mmap::len, &Mmap::pgoff, &Mmap::filename);
template <> inline constexpr auto kFields<Lost> = std::tuple(&Lost::id, &Lost::lost);
template <> inline constexpr auto kFields<Comm> = std::tuple(&Comm::pid, &Comm::tid, &Comm::comm);
template <> inline constexpr auto kFields<Exit> =
    std::tuple(&Exit::pid, &Exit::ppid, &Exit::tid, &Exit::ptid, &Exit::time);
template <> inline constexpr auto kFields<Throttle> =
    std::tuple(&Throttle::time, &Throttle::id, &Throttle::stream_id);
template <> inline constexpr auto kFields<Fork> =
    std::tuple(&Fork::pid, &Fork::ppid, &Fork::tid, &Fork::ptid, &Fork::time);
template <> inline constexpr auto kFields<Aux> =
    std::tuple(&Aux::aux_offset, &Aux::aux_size, &Aux::flags);
template <> inline constexpr auto kFields<ItraceStart> =
    std::tuple(&ItraceStart::pid, &ItraceStart::tid);
template <> inline constexpr auto kFields<LostSamples> = std::tuple(&LostSamples::lost);
template <> inline constexpr auto kFields<Switch> = std::tuple();
template <> inline constexpr auto kFields<SwitchCpuWide> =
    std::tuple(&SwitchCpuWide::next_prev_pid, &SwitchCpuWide::next_prev_tid);
template <> inline constexpr auto kFields<Ksymbol> = std::tuple(
    &Ksymbol::addr, &Ksymbol::len, &Ksymbol::ksym_type, &Ksymbol::flags, &Ksymbol::name);
template <> inline constexpr auto kFields<BpfEvent> =
    std::tuple(&BpfEvent::type, &BpfEvent::flags, &BpfEvent::id, &BpfEvent::tag);
template <> inline constexpr auto kFields<Cgroup> = std::tuple(&Cgroup::id, &Cgroup::path);
template <> inline constexpr auto kFields<AuxOutputHwId> = std::tuple(&AuxOutputHwId::hw_id);
template <> inline constexpr auto kFields<FinishedRound> = std::tuple();
template <> inline constexpr auto kFields<FinishedInit> = std::tuple();
template <> inline constexpr auto kFields<Stat> = std::tuple(
    &Stat::id, &Stat::cpu, &Stat::thread, &Stat::val, &Stat::ena, &Stat::run);
template <> inline constexpr auto kFields<StatRound> =
    std::tuple(&StatRound::type, &StatRound::time);
// clang-format on

/// A record whose body is its kFields.
template <typename T>
concept FixedLayout = !std::is_null_pointer_v<std::remove_cvref_t<decltype(kFields<T>)>>;

// The fixed parts of the records with code of their own, in wire order (the comment says
// what follows them).
// clang-format off
inline constexpr auto kReadHead = std::tuple(&Read::pid, &Read::tid);  // the read_format values
inline constexpr auto kMmap2Head =  // then the build-id form or kMmap2Inode, then kMmap2Tail
    std::tuple(&Mmap2::pid, &Mmap2::tid, &Mmap2::addr, &Mmap2::len, &Mmap2::pgoff);
inline constexpr auto kMmap2Inode =
    std::tuple(&Mmap2::maj, &Mmap2::min, &Mmap2::ino, &Mmap2::ino_generation);
inline constexpr auto kMmap2Tail = std::tuple(&Mmap2::prot, &Mmap2::flags, &Mmap2::filename);
inline constexpr auto kNamespacesHead =  // then nr_namespaces {dev, inode} pairs
    std::tuple(&Namespaces::pid, &Namespaces::tid, &Namespaces::nr_namespaces);
inline constexpr auto kTextPokeHead =  // then the old and new bytes, padded to 8
    std::tuple(&TextPoke::addr, &TextPoke::old_len, &TextPoke::new_len);
inline constexpr auto kAuxtraceHead = std::tuple(  // then a reserved u32
    &Auxtrace::size, &Auxtrace::offset, &Auxtrace::reference, &Auxtrace::idx, &Auxtrace::tid,
    &Auxtrace::cpu);
inline constexpr auto kTimeConvBase =  // then, in newer perf, kTimeConvExtended
    std::tuple(&TimeConv::time_shift, &TimeConv::time_mult, &TimeConv::time_zero);
inline constexpr auto kTimeConvExtended = std::tuple(  // then 6 bytes of padding
    &TimeConv::time_cycles, &TimeConv::time_mask, &TimeConv::cap_user_time_zero,
    &TimeConv::cap_user_time_short);
// clang-format on

/// Calls `f(member)` for each member of `rec` that `fields` (a tuple of member pointers)
/// lists, in order; `rec` may be const.
template <typename T, typename Fields, typename F>
void for_each_field(T& rec, const Fields& fields, F&& f) {
  std::apply([&](auto... member) { (f(rec.*member), ...); }, fields);
}

/// The fixed head of a SAMPLE record in the kernel's order, up to PERIOD (READ and the
/// variable parts follow): `f(bit, members...)` for each part, present when sample_type
/// has `bit`.
template <typename S, typename F>
void for_each_sample_head_field(S& s, F&& f) {
  f(PERF_SAMPLE_IDENTIFIER, s.identifier);
  f(PERF_SAMPLE_IP, s.ip);
  f(PERF_SAMPLE_TID, s.pid, s.tid);
  f(PERF_SAMPLE_TIME, s.time);
  f(PERF_SAMPLE_ADDR, s.addr);
  f(PERF_SAMPLE_ID, s.id);
  f(PERF_SAMPLE_STREAM_ID, s.stream_id);
  f(PERF_SAMPLE_CPU, s.cpu, s.cpu_res);
  f(PERF_SAMPLE_PERIOD, s.period);
}

/// The sample_id trailer (attr.sample_id_all) in the kernel's order: `f(bit, members...)`
/// for each part, present when sample_type has `bit`.
template <typename Id, typename F>
void for_each_sample_id_field(Id& id, F&& f) {
  f(PERF_SAMPLE_TID, id.pid, id.tid);
  f(PERF_SAMPLE_TIME, id.time);
  f(PERF_SAMPLE_ID, id.id);
  f(PERF_SAMPLE_STREAM_ID, id.stream_id);
  f(PERF_SAMPLE_CPU, id.cpu, id.cpu_res);
  f(PERF_SAMPLE_IDENTIFIER, id.id);
}

}  // namespace perfx::record
