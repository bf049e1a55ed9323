#pragma once
/// \file
/// The perf_event metadata page (`struct perf_event_mmap_page`, man perf_event_open(2),
/// "MMAP layout"): a typed, seqlock-correct view of the first page of an event's mapping.
///
/// The kernel updates the self-monitoring fields (`index`, `offset`, `time_*`,
/// `capabilities`, `pmc_width`) inside a sequence count (`lock`): it increments `lock`,
/// writes, then increments it again. A reader copies the fields and starts over while
/// `lock` was odd (an update in progress) or changed (one happened meanwhile), so a
/// snapshot never mixes two updates. The ring-buffer positions (`data_head`, `aux_head`)
/// are not under the lock: they are loaded with acquire ordering, and the tails the reader
/// writes back are stored with release ordering, as the man page asks (rmb()/mb()).
///
/// \code
///   perfx::MmapPageView page(mapping_base);            // the event fd's mmap(2), offset 0
///   auto snap = page.snapshot();
///   if (snap && snap->capabilities.user_rdpmc) ...      // see self_monitor.hpp
/// \endcode
///
/// The layout below is perfx's own copy of the kernel ABI (it does not follow the installed
/// uapi header), checked against <linux/perf_event.h> when libperfx is built.

#include <cstddef>
#include <cstdint>

#include "perfx/error.hpp"
#include "perfx/export.hpp"

namespace perfx {

/// Byte offsets of the fields of `struct perf_event_mmap_page` (kernel ABI, fixed).
namespace mmap_page_layout {
inline constexpr std::size_t kVersion = 0;         ///< u32
inline constexpr std::size_t kCompatVersion = 4;   ///< u32
inline constexpr std::size_t kLock = 8;            ///< u32, the sequence count
inline constexpr std::size_t kIndex = 12;          ///< u32, hardware counter + 1 (0: none)
inline constexpr std::size_t kOffset = 16;         ///< s64
inline constexpr std::size_t kTimeEnabled = 24;    ///< u64
inline constexpr std::size_t kTimeRunning = 32;    ///< u64
inline constexpr std::size_t kCapabilities = 40;   ///< u64 bit field
inline constexpr std::size_t kPmcWidth = 48;       ///< u16
inline constexpr std::size_t kTimeShift = 50;      ///< u16
inline constexpr std::size_t kTimeMult = 52;       ///< u32
inline constexpr std::size_t kTimeOffset = 56;     ///< u64
inline constexpr std::size_t kTimeZero = 64;       ///< u64 (since 3.12)
inline constexpr std::size_t kSize = 72;           ///< u32, header size up to the reserved area
inline constexpr std::size_t kTimeCycles = 80;     ///< u64 (cap_user_time_short)
inline constexpr std::size_t kTimeMask = 88;       ///< u64 (cap_user_time_short)
inline constexpr std::size_t kDataHead = 1024;     ///< u64
inline constexpr std::size_t kDataTail = 1032;     ///< u64, written by the reader
inline constexpr std::size_t kDataOffset = 1040;   ///< u64 (since 4.1)
inline constexpr std::size_t kDataSize = 1048;     ///< u64 (since 4.1)
inline constexpr std::size_t kAuxHead = 1056;      ///< u64 (since 4.1)
inline constexpr std::size_t kAuxTail = 1064;      ///< u64, written by the reader
inline constexpr std::size_t kAuxOffset = 1072;    ///< u64, written by the reader before mmap
inline constexpr std::size_t kAuxSize = 1080;      ///< u64, written by the reader before mmap
inline constexpr std::size_t kHeaderBytes = 1088;  ///< bytes the kernel defines (of one page)
}  // namespace mmap_page_layout

/// The `capabilities` bit field of the metadata page.
struct PERFX_API MmapCapabilities {
  std::uint64_t bits = 0;  ///< the raw 64-bit word
  /// Bit 0: `cap_usr_time`/`cap_usr_rdpmc` of 3.4-3.11 (one bit for both, ambiguous);
  /// always 0 on kernels with the separate bits below.
  bool bit0 = false;
  bool bit0_is_deprecated = false;  ///< bit 1: the kernel has the separate bits (>= 3.12)
  bool user_rdpmc = false;          ///< bit 2: `cap_user_rdpmc`, rdpmc may read the counter
  bool user_time = false;           ///< bit 3: `cap_user_time`, time_shift/mult/offset are valid
  bool user_time_zero = false;      ///< bit 4: `cap_user_time_zero`, time_zero is valid
  bool user_time_short = false;     ///< bit 5: `cap_user_time_short`, time_cycles/mask valid

  /// Splits a raw capabilities word into its bits.
  [[nodiscard]] static MmapCapabilities from_bits(std::uint64_t bits) noexcept;
};

/// One consistent copy of the metadata page.
struct PERFX_API MmapPageSnapshot {
  std::uint32_t version = 0;         ///< structure version
  std::uint32_t compat_version = 0;  ///< lowest version this one is compatible with
  std::uint32_t lock = 0;            ///< the (even) sequence count the copy was taken under
  std::uint32_t index = 0;           ///< hardware counter + 1; 0: the counter cannot be rdpmc'd now
  std::int64_t offset = 0;           ///< add to the (sign-extended) rdpmc value to get the count
  std::uint64_t time_enabled = 0;    ///< ns the event was enabled, as of the last update
  std::uint64_t time_running = 0;    ///< ns the event was on a counter, as of the last update
  MmapCapabilities capabilities;
  std::uint16_t pmc_width = 0;    ///< bits of the rdpmc value (sign-extend from this width)
  std::uint16_t time_shift = 0;   ///< TSC -> ns: ns = (cyc * time_mult) >> time_shift
  std::uint32_t time_mult = 0;    ///< see time_shift
  std::uint64_t time_offset = 0;  ///< TSC -> ns since time_enabled was last updated
  std::uint64_t time_zero = 0;    ///< TSC -> perf clock (sample time) base
  std::uint32_t size = 0;         ///< bytes of the header the kernel fills (0: old kernel)
  std::uint64_t time_cycles = 0;  ///< short-counter correction base (cap_user_time_short)
  std::uint64_t time_mask = 0;    ///< short-counter mask (cap_user_time_short)
  // Ring-buffer fields: not under the seqlock (the heads are read with acquire).
  std::uint64_t data_head = 0;    ///< bytes ever written to the data area (never wraps)
  std::uint64_t data_tail = 0;    ///< bytes the reader has released
  std::uint64_t data_offset = 0;  ///< where the data area starts in the mapping
  std::uint64_t data_size = 0;    ///< size of the data area (0: only this page is mapped)
  std::uint64_t aux_head = 0;     ///< AUX area head (see aux.hpp)
  std::uint64_t aux_tail = 0;     ///< AUX area tail
  std::uint64_t aux_offset = 0;   ///< AUX area offset in the fd's mapping space
  std::uint64_t aux_size = 0;     ///< AUX area size
  std::uint32_t retries = 0;      ///< times the seqlock read started over
};

/// Attempts a seqlock read makes before giving up (a page whose count stays odd: no kernel
/// does that; a corrupt simulated page can).
inline constexpr std::uint32_t kMaxSeqlockRetries = 1U << 20;

/// A non-owning view of a metadata page: a kernel mapping (an event fd mmapped at offset
/// 0) or, in tests, any 8-byte-aligned buffer of at least mmap_page_layout::kHeaderBytes.
/// Copyable; valid as long as the memory it points at.
class PERFX_API MmapPageView {
 public:
  /// An empty view (valid() is false).
  MmapPageView() = default;
  /// Views `page` (8-byte aligned, at least kHeaderBytes long).
  explicit MmapPageView(void* page) noexcept : page_(static_cast<std::byte*>(page)) {}

  /// True when the view points at a page.
  [[nodiscard]] bool valid() const noexcept { return page_ != nullptr; }
  /// The page's address.
  [[nodiscard]] void* address() const noexcept { return page_; }

  /// A consistent copy of every field: the seqlock loop described in the file comment.
  /// Fields past the header `size` the kernel reports (older kernels) are left 0.
  /// Errors: kInvalidArgument on an empty view; kMalformedData when the count never
  /// settled within kMaxSeqlockRetries attempts.
  [[nodiscard]] Result<MmapPageSnapshot> snapshot() const;

  /// The sequence count, loaded with acquire ordering.
  [[nodiscard]] std::uint32_t lock() const noexcept;
  /// data_head, loaded with acquire (record bytes before it are then visible).
  [[nodiscard]] std::uint64_t data_head() const noexcept;
  /// data_tail as last stored.
  [[nodiscard]] std::uint64_t data_tail() const noexcept;
  /// Stores data_tail with release ordering: the kernel may then reuse the bytes before it.
  /// Only for a writable (forward-mode) mapping.
  void set_data_tail(std::uint64_t tail) noexcept;
  /// aux_head, loaded with acquire.
  [[nodiscard]] std::uint64_t aux_head() const noexcept;
  /// aux_tail as last stored.
  [[nodiscard]] std::uint64_t aux_tail() const noexcept;
  /// Stores aux_tail with release ordering (writable AUX mapping only).
  void set_aux_tail(std::uint64_t tail) noexcept;
  /// Writes aux_offset and aux_size: the first step of mapping an AUX area (aux.hpp).
  void set_aux_area(std::uint64_t offset, std::uint64_t size) noexcept;

 private:
  std::byte* page_ = nullptr;
};

}  // namespace perfx
