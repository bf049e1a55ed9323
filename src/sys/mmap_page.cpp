// perfx::MmapPageView: the seqlock reader of the metadata page (man perf_event_open(2),
// "MMAP layout"), and the layout check against the installed uapi header.

#include "perfx/mmap_page.hpp"

#include <linux/perf_event.h>

#include <cstddef>

#include "sys/mmap_page_access.hpp"

namespace perfx {

// perfx's copy of the ABI must match the kernel's: a mismatch is a build failure.
namespace layout = mmap_page_layout;
static_assert(offsetof(perf_event_mmap_page, version) == layout::kVersion);
static_assert(offsetof(perf_event_mmap_page, compat_version) == layout::kCompatVersion);
static_assert(offsetof(perf_event_mmap_page, lock) == layout::kLock);
static_assert(offsetof(perf_event_mmap_page, index) == layout::kIndex);
static_assert(offsetof(perf_event_mmap_page, offset) == layout::kOffset);
static_assert(offsetof(perf_event_mmap_page, time_enabled) == layout::kTimeEnabled);
static_assert(offsetof(perf_event_mmap_page, time_running) == layout::kTimeRunning);
static_assert(offsetof(perf_event_mmap_page, capabilities) == layout::kCapabilities);
static_assert(offsetof(perf_event_mmap_page, pmc_width) == layout::kPmcWidth);
static_assert(offsetof(perf_event_mmap_page, time_shift) == layout::kTimeShift);
static_assert(offsetof(perf_event_mmap_page, time_mult) == layout::kTimeMult);
static_assert(offsetof(perf_event_mmap_page, time_offset) == layout::kTimeOffset);
static_assert(offsetof(perf_event_mmap_page, time_zero) == layout::kTimeZero);
static_assert(offsetof(perf_event_mmap_page, size) == layout::kSize);
static_assert(offsetof(perf_event_mmap_page, time_cycles) == layout::kTimeCycles);
static_assert(offsetof(perf_event_mmap_page, time_mask) == layout::kTimeMask);
static_assert(offsetof(perf_event_mmap_page, data_head) == layout::kDataHead);
static_assert(offsetof(perf_event_mmap_page, data_tail) == layout::kDataTail);
static_assert(offsetof(perf_event_mmap_page, data_offset) == layout::kDataOffset);
static_assert(offsetof(perf_event_mmap_page, data_size) == layout::kDataSize);
static_assert(offsetof(perf_event_mmap_page, aux_head) == layout::kAuxHead);
static_assert(offsetof(perf_event_mmap_page, aux_tail) == layout::kAuxTail);
static_assert(offsetof(perf_event_mmap_page, aux_offset) == layout::kAuxOffset);
static_assert(offsetof(perf_event_mmap_page, aux_size) == layout::kAuxSize);
static_assert(sizeof(perf_event_mmap_page) == layout::kHeaderBytes);

MmapCapabilities MmapCapabilities::from_bits(std::uint64_t bits) noexcept {
  MmapCapabilities c;
  c.bits = bits;
  c.bit0 = (bits & (1ULL << 0)) != 0;
  c.bit0_is_deprecated = (bits & (1ULL << 1)) != 0;
  c.user_rdpmc = (bits & (1ULL << 2)) != 0;
  c.user_time = (bits & (1ULL << 3)) != 0;
  c.user_time_zero = (bits & (1ULL << 4)) != 0;
  c.user_time_short = (bits & (1ULL << 5)) != 0;
  return c;
}

namespace {

namespace pa = sys::page_access;

/// The fields under the seqlock, copied in one pass.
void copy_locked_fields(const void* page, MmapPageSnapshot& s) noexcept {
  s.version = pa::load<std::uint32_t>(page, layout::kVersion);
  s.compat_version = pa::load<std::uint32_t>(page, layout::kCompatVersion);
  s.index = pa::load<std::uint32_t>(page, layout::kIndex);
  s.offset = pa::load<std::int64_t>(page, layout::kOffset);
  s.time_enabled = pa::load<std::uint64_t>(page, layout::kTimeEnabled);
  s.time_running = pa::load<std::uint64_t>(page, layout::kTimeRunning);
  s.capabilities =
      MmapCapabilities::from_bits(pa::load<std::uint64_t>(page, layout::kCapabilities));
  s.pmc_width = pa::load<std::uint16_t>(page, layout::kPmcWidth);
  s.time_shift = pa::load<std::uint16_t>(page, layout::kTimeShift);
  s.time_mult = pa::load<std::uint32_t>(page, layout::kTimeMult);
  s.time_offset = pa::load<std::uint64_t>(page, layout::kTimeOffset);
  s.time_zero = pa::load<std::uint64_t>(page, layout::kTimeZero);
  s.size = pa::load<std::uint32_t>(page, layout::kSize);
  s.time_cycles = pa::load<std::uint64_t>(page, layout::kTimeCycles);
  s.time_mask = pa::load<std::uint64_t>(page, layout::kTimeMask);
}

/// A kernel that reports a header `size` ends its fields there; what lies beyond is
/// reserved space, not data. size 0 comes from kernels older than the field: keep all.
void drop_fields_past_size(MmapPageSnapshot& s) noexcept {
  if (s.size == 0) return;
  if (s.size < layout::kTimeZero + 8) s.time_zero = 0;
  if (s.size < layout::kTimeCycles + 8) s.time_cycles = 0;
  if (s.size < layout::kTimeMask + 8) s.time_mask = 0;
}

}  // namespace

Result<MmapPageSnapshot> MmapPageView::snapshot() const {
  if (page_ == nullptr) {
    return tl::unexpected(Error(Errc::kInvalidArgument, "reading an unmapped metadata page"));
  }
  MmapPageSnapshot s;
  for (std::uint32_t attempt = 0;; ++attempt) {
    if (attempt == kMaxSeqlockRetries) {
      return tl::unexpected(Error(Errc::kMalformedData,
                                  "metadata page: the seqlock count never settled (it stayed "
                                  "odd or kept changing over " +
                                      std::to_string(kMaxSeqlockRetries) + " attempts)"));
    }
    const std::uint32_t seq = pa::seq_begin(page_);
    copy_locked_fields(page_, s);
    if (!pa::seq_retry(page_, seq)) {
      s.lock = seq;
      s.retries = attempt;
      break;
    }
  }
  drop_fields_past_size(s);
  s.data_head = data_head();
  s.data_tail = data_tail();
  s.data_offset = pa::load<std::uint64_t>(page_, layout::kDataOffset);
  s.data_size = pa::load<std::uint64_t>(page_, layout::kDataSize);
  s.aux_head = aux_head();
  s.aux_tail = aux_tail();
  s.aux_offset = pa::load<std::uint64_t>(page_, layout::kAuxOffset);
  s.aux_size = pa::load<std::uint64_t>(page_, layout::kAuxSize);
  return s;
}

std::uint32_t MmapPageView::lock() const noexcept { return pa::seq_begin(page_); }

std::uint64_t MmapPageView::data_head() const noexcept {
  return pa::load_acquire<std::uint64_t>(page_, layout::kDataHead);
}

std::uint64_t MmapPageView::data_tail() const noexcept {
  return pa::load<std::uint64_t>(page_, layout::kDataTail);
}

void MmapPageView::set_data_tail(std::uint64_t tail) noexcept {
  pa::store_release(page_, layout::kDataTail, tail);
}

std::uint64_t MmapPageView::aux_head() const noexcept {
  return pa::load_acquire<std::uint64_t>(page_, layout::kAuxHead);
}

std::uint64_t MmapPageView::aux_tail() const noexcept {
  return pa::load<std::uint64_t>(page_, layout::kAuxTail);
}

void MmapPageView::set_aux_tail(std::uint64_t tail) noexcept {
  pa::store_release(page_, layout::kAuxTail, tail);
}

void MmapPageView::set_aux_area(std::uint64_t offset, std::uint64_t size) noexcept {
  pa::store_release(page_, layout::kAuxOffset, offset);
  pa::store_release(page_, layout::kAuxSize, size);
}

}  // namespace perfx
