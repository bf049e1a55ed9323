// perfx::SelfMonitor and the man page's self-monitoring loop (perf_event_open(2),
// "cap_user_rdpmc", "time_shift, time_mult, time_offset").

#include "perfx/self_monitor.hpp"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <utility>
#include <vector>

#include "core/enum_names.hpp"
#include "perfx/time_conv.hpp"
#include "sys/cpu_instructions.hpp"
#include "sys/explain.hpp"
#include "sys/ioctl.hpp"
#include "sys/mmap_page_access.hpp"
#include "sys/perf_event_open.hpp"
#include "sys/ring_buffer.hpp"
#include "sys/text_files.hpp"
#include "sys/unique_fd.hpp"

namespace perfx {

const char* rdpmc_unavailable_name(RdpmcUnavailable why) noexcept {
  static constexpr const char* kNames[] = {"none",    "not x86",    "software event",
                                           "no PMU",  "other task", "cap_user_rdpmc=0",
                                           "index=0", "not mapped"};
  static_assert(std::size(kNames) == static_cast<std::size_t>(RdpmcUnavailable::kNotMapped) + 1);
  return core::enum_name(kNames, why, "unknown");
}

CounterReaders CounterReaders::hardware() noexcept {
  CounterReaders r;
  if constexpr (sys::kHaveRdpmc) r.read_pmc = [](std::uint32_t c) { return sys::rdpmc(c); };
  if constexpr (sys::kHaveRdtsc) r.read_tsc = [] { return sys::rdtsc(); };
  return r;
}

std::uint64_t PageCount::scaled() const noexcept {
  if (running == 0 || running == enabled) return count;
  const std::uint64_t quot = count / running;
  const std::uint64_t rem = count % running;
  return quot * enabled + (rem * enabled) / running;
}

std::int64_t sign_extend_pmc(std::uint64_t pmc, std::uint16_t width) noexcept {
  if (width == 0 || width >= 64) return static_cast<std::int64_t>(pmc);
  const unsigned shift = 64U - width;
  // Arithmetic right shift of a signed value (defined in C++20).
  return static_cast<std::int64_t>(pmc << shift) >> shift;
}

Result<PageCount> read_page_count(const MmapPageView& view, const CounterReaders& readers) {
  namespace pa = sys::page_access;
  namespace layout = mmap_page_layout;
  const void* page = view.address();
  if (page == nullptr) {
    return tl::unexpected(Error(Errc::kInvalidArgument, "reading an unmapped metadata page"));
  }
  PageCount out;
  for (std::uint32_t attempt = 0; attempt < kMaxSeqlockRetries; ++attempt) {
    const std::uint32_t seq = pa::seq_begin(page);
    PageCount pc;
    pc.retries = attempt;
    pc.enabled = pa::load<std::uint64_t>(page, layout::kTimeEnabled);
    pc.running = pa::load<std::uint64_t>(page, layout::kTimeRunning);
    const auto caps =
        MmapCapabilities::from_bits(pa::load<std::uint64_t>(page, layout::kCapabilities));
    std::uint64_t delta = 0;
    if (caps.user_time && pc.enabled != pc.running && readers.read_tsc != nullptr) {
      const std::uint64_t cyc = readers.read_tsc();
      const auto mult = pa::load<std::uint32_t>(page, layout::kTimeMult);
      const auto shift = pa::load<std::uint16_t>(page, layout::kTimeShift);
      const auto time_offset = pa::load<std::uint64_t>(page, layout::kTimeOffset);
      delta = cycles_to_ns(cyc, mult, shift, time_offset);
      pc.used_tsc = true;
    }
    pc.index = pa::load<std::uint32_t>(page, layout::kIndex);
    pc.count = static_cast<std::uint64_t>(pa::load<std::int64_t>(page, layout::kOffset));
    if (caps.user_rdpmc && pc.index != 0 && readers.read_pmc != nullptr) {
      const auto width = pa::load<std::uint16_t>(page, layout::kPmcWidth);
      const std::uint64_t pmc = readers.read_pmc(pc.index - 1);
      pc.count += static_cast<std::uint64_t>(sign_extend_pmc(pmc, width));
      pc.used_rdpmc = true;
    }
    if (pa::seq_retry(page, seq)) continue;
    // The time the event ran since the kernel last wrote the page (man page: "enabled +=
    // delta; if (idx) running += delta").
    pc.enabled += delta;
    if (pc.index != 0) pc.running += delta;
    out = pc;
    return out;
  }
  return tl::unexpected(
      Error(Errc::kMalformedData, "metadata page: the seqlock count never settled over " +
                                      std::to_string(kMaxSeqlockRetries) + " attempts"));
}

// ------------------------------------------------------------------ SelfMonitor

namespace {

pid_t this_thread_id() noexcept { return static_cast<pid_t>(::syscall(SYS_gettid)); }

bool is_kernel_counted_type(std::uint32_t type) noexcept {
  return type == PERF_TYPE_SOFTWARE || type == PERF_TYPE_TRACEPOINT || type == PERF_TYPE_BREAKPOINT;
}

bool is_hardware_type(std::uint32_t type) noexcept {
  return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW;
}

/// The reasons that hold for the life of the event (not the per-read index).
std::pair<RdpmcUnavailable, std::string> standing_reason(const raw::EventAttr& attr, pid_t pid) {
  if (!sys::kHaveRdpmc) {
    return {RdpmcUnavailable::kNotX86, std::string("this build has no rdpmc: self-monitoring "
                                                   "reads are implemented for x86, not ") +
                                           sys::kArchName};
  }
  if (pid != 0 && pid != this_thread_id()) {
    return {RdpmcUnavailable::kOtherTask,
            pid < 0 ? "the event counts every task on a CPU: rdpmc reads the counter of "
                      "the thread that executes it, so only an event of the calling thread "
                      "can be read this way"
                    : "the event is attached to another task (tid " + std::to_string(pid) +
                          "): rdpmc reads the counter of the thread that executes it, so only "
                          "an event of the calling thread can be read this way"};
  }
  if (is_kernel_counted_type(attr.type)) {
    return {RdpmcUnavailable::kSoftwareEvent,
            "a software event (type " + std::to_string(attr.type) +
                ") is counted by the kernel: there is no hardware counter for rdpmc to read"};
  }
  return {RdpmcUnavailable::kNone, {}};
}

std::string no_capability_reason() {
  std::string s =
      "cap_user_rdpmc is 0 in the metadata page: the PMU does not let user space "
      "read this counter";
  const std::string sysfs = sys::read_first_line("/sys/bus/event_source/devices/cpu/rdpmc");
  if (!sysfs.empty()) {
    s += " (/sys/bus/event_source/devices/cpu/rdpmc is " + sysfs +
         "; 1 allows it for mmapped self-monitoring events, 2 for any)";
  }
  return s;
}

constexpr const char* kIndexZeroReason =
    "index is 0 in the metadata page: the event is not on a hardware counter right now "
    "(disabled, or multiplexed out)";

std::uint64_t format_lost_bit() noexcept {
#ifdef PERF_FORMAT_LOST
  return PERF_FORMAT_LOST;
#else
  return 1U << 4;
#endif
}

}  // namespace

struct SelfMonitor::Impl {
  sys::UniqueFd owned;  // set by open(); attach() borrows
  int fd = -1;
  raw::EventAttr attr{};
  sys::RingBuffer page_map;
  std::uint64_t id = 0;  // PERF_EVENT_IOC_ID, for a group read format
  RdpmcUnavailable standing = RdpmcUnavailable::kNone;
  std::string standing_text;
  CounterReaders readers = CounterReaders::hardware();
};

SelfMonitor::SelfMonitor(std::unique_ptr<Impl> impl) noexcept : impl_(std::move(impl)) {}
SelfMonitor::SelfMonitor(SelfMonitor&&) noexcept = default;
SelfMonitor& SelfMonitor::operator=(SelfMonitor&&) noexcept = default;
SelfMonitor::~SelfMonitor() = default;

Result<SelfMonitor> SelfMonitor::open(raw::EventAttr attr) {
  attr.disabled = 1;
  attr.inherit = 0;  // an inherited per-task event cannot be mmapped
  attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  auto fd = sys::perf_event_open(attr, 0, -1, -1);
  if (!fd) {
    const int err = fd.error().sys_errno();
    if (err == 0) return tl::unexpected(std::move(fd).error());
    sys::OpenRequest req;
    req.attr = attr;
    Error e = sys::explain_open_error(err, req, sys::read_system_readings());
    if (is_hardware_type(attr.type) && sys::is_unsupported_event_errno(err)) {
      return tl::unexpected(Error(Errc::kNotSupported,
                                  "no hardware PMU for this event, so no rdpmc self-monitoring "
                                  "(" +
                                      e.message() + ")",
                                  err));
    }
    return tl::unexpected(std::move(e));
  }
  const int raw_fd = fd->get();
  auto mon = attach(raw_fd, attr, 0, -1);
  if (!mon) return mon;
  mon->impl_->owned = std::move(*fd);
  return mon;
}

Result<SelfMonitor> SelfMonitor::attach(int fd, const raw::EventAttr& attr, pid_t pid, int cpu) {
  auto impl = std::make_unique<Impl>();
  impl->fd = fd;
  impl->attr = attr;
  auto map = sys::RingBuffer::map(fd, 0, sys::RingMode::kForward);
  if (map) {
    impl->page_map = std::move(*map);
  } else {
    // Not fatal: read() falls back to read(2) and says why.
    impl->standing = RdpmcUnavailable::kNotMapped;
    impl->standing_text =
        "the metadata page could not be mapped (" + map.error().message() +
        (attr.inherit != 0 && cpu < 0 ? "; an inherited per-task event cannot be mmapped: open it "
                                        "with inherit=0)"
                                      : ")");
  }
  if ((attr.read_format & PERF_FORMAT_GROUP) != 0) {
    if ((attr.read_format & PERF_FORMAT_ID) == 0) {
      return tl::unexpected(Error(Errc::kInvalidArgument,
                                  "self-monitoring an event with a group read_format needs "
                                  "PERF_FORMAT_ID to find its value in the group read"));
    }
    PERFX_TRY(id, sys::ioc_id(fd));
    impl->id = id;
  }
  if (impl->standing == RdpmcUnavailable::kNone) {
    auto [why, text] = standing_reason(attr, pid);
    impl->standing = why;
    impl->standing_text = std::move(text);
  }
  return SelfMonitor(std::move(impl));
}

Result<void> SelfMonitor::enable() { return sys::ioc_enable(impl_->fd); }
Result<void> SelfMonitor::disable() { return sys::ioc_disable(impl_->fd); }
Result<void> SelfMonitor::reset() { return sys::ioc_reset(impl_->fd); }

Result<RawCount> SelfMonitor::read_syscall() const {
  const std::uint64_t rf = impl_->attr.read_format;
  const bool group = (rf & PERF_FORMAT_GROUP) != 0;
  const bool has_enabled = (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) != 0;
  const bool has_running = (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) != 0;
  const bool has_id = (rf & PERF_FORMAT_ID) != 0;
  const bool has_lost = (rf & format_lost_bit()) != 0;
  std::vector<std::uint64_t> w(group ? 3 + 3 * 64 : 5, 0);
  ssize_t n = 0;
  do {
    n = ::read(impl_->fd, w.data(), w.size() * sizeof(std::uint64_t));
  } while (n < 0 && errno == EINTR);
  if (n < 0) return fail_errno(errno, "reading the self-monitored counter");
  w.resize(static_cast<std::size_t>(n) / sizeof(std::uint64_t));
  RawCount c;
  std::size_t i = 0;
  auto next = [&](std::uint64_t& out) {
    if (i < w.size()) out = w[i];
    ++i;
  };
  if (!group) {  // { value, [enabled], [running], [id], [lost] }
    next(c.value);
    if (has_enabled) next(c.time_enabled);
    if (has_running) next(c.time_running);
    std::uint64_t id = 0;
    if (has_id) next(id);
    if (has_lost) next(c.lost);
  } else {  // { nr, [enabled], [running], { value, [id], [lost] }[nr] }
    std::uint64_t nr = 0;
    next(nr);
    if (has_enabled) next(c.time_enabled);
    if (has_running) next(c.time_running);
    bool found = false;
    for (std::uint64_t k = 0; k < nr && i < w.size(); ++k) {
      std::uint64_t value = 0;
      std::uint64_t id = 0;
      std::uint64_t lost = 0;
      next(value);
      next(id);
      if (has_lost) next(lost);
      if (id == impl_->id) {
        c.value = value;
        c.lost = lost;
        found = true;
      }
    }
    if (!found) {
      return tl::unexpected(
          Error(Errc::kMalformedData,
                "group read: no value with this event's id " + std::to_string(impl_->id)));
    }
  }
  if (i > w.size()) {
    return tl::unexpected(
        Error(Errc::kMalformedData,
              "reading the self-monitored counter: short read of " + std::to_string(n) + " bytes"));
  }
  if (!has_enabled || !has_running) {
    // read_format lacks the times: take them from the page (as of its last update) so the
    // trust state is not "not counted" for want of data.
    auto snap = page().snapshot();  // an error when the page is not mapped: times stay 0
    if (snap) {
      if (!has_enabled) c.time_enabled = snap->time_enabled;
      if (!has_running) c.time_running = snap->time_running;
    }
  }
  return c;
}

Result<SelfRead> SelfMonitor::read() const {
  SelfRead r;
  if (impl_->standing == RdpmcUnavailable::kNone) {
    PERFX_TRY(pc, read_page_count(page(), impl_->readers));
    if (pc.used_rdpmc) {
      r.raw = RawCount{pc.count, pc.enabled, pc.running, 0};
      r.scaled = scale_count(r.raw);
      r.fast_path = true;
      r.retries = pc.retries;
      return r;
    }
    auto snap = page().snapshot();
    if (snap && !snap->capabilities.user_rdpmc) {
      r.why = RdpmcUnavailable::kNoCapability;
      r.reason = no_capability_reason();
    } else if (impl_->readers.read_pmc == nullptr) {
      r.why = RdpmcUnavailable::kNotX86;
      r.reason = "no counter-read function is set";
    } else {
      r.why = RdpmcUnavailable::kIndexZero;
      r.reason = kIndexZeroReason;
    }
    r.retries = pc.retries;
  } else {
    r.why = impl_->standing;
    r.reason = impl_->standing_text;
  }
  PERFX_TRY(raw, read_syscall());
  r.raw = raw;
  r.scaled = scale_count(raw);
  return r;
}

RdpmcUnavailable SelfMonitor::fast_path_unavailable() const noexcept { return impl_->standing; }
const std::string& SelfMonitor::fast_path_reason() const noexcept { return impl_->standing_text; }

MmapPageView SelfMonitor::page() const noexcept {
  return MmapPageView(static_cast<void*>(impl_->page_map.control()));
}

int SelfMonitor::fd() const noexcept { return impl_->fd; }

void SelfMonitor::set_readers(const CounterReaders& readers) noexcept { impl_->readers = readers; }

}  // namespace perfx
