// perfx/aux.hpp: the AUX area of a perf_event mapping (man perf_event_open(2),
// "aux_head, aux_tail, aux_offset, aux_size").

#include <linux/perf_event.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <string>

#include "perfx/aux.hpp"
#include "sys/mapping.hpp"
#include "sys/text_files.hpp"

namespace perfx {

AuxFlags AuxFlags::from_bits(std::uint64_t bits) noexcept {
  AuxFlags f;
  f.bits = bits;
  f.truncated = (bits & PERF_AUX_FLAG_TRUNCATED) != 0;
  f.overwrite = (bits & PERF_AUX_FLAG_OVERWRITE) != 0;
  f.partial = (bits & PERF_AUX_FLAG_PARTIAL) != 0;
  f.collision = (bits & PERF_AUX_FLAG_COLLISION) != 0;
  f.pmu_format = static_cast<std::uint8_t>((bits & 0xff00U) >> 8);
  return f;
}

Result<AuxArea> plan_aux_area(const MmapPageSnapshot& page, std::size_t page_size,
                              std::size_t aux_pages) {
  if (page_size == 0 || !std::has_single_bit(page_size)) {
    return tl::unexpected(
        Error(Errc::kInvalidArgument,
              "AUX area: page size " + std::to_string(page_size) + " is not a power of two"));
  }
  if (aux_pages == 0 || !std::has_single_bit(aux_pages)) {
    return tl::unexpected(Error(Errc::kInvalidArgument,
                                "AUX area: the size must be a power-of-two number of pages, got " +
                                    std::to_string(aux_pages)));
  }
  if (page.data_size == 0) {
    return tl::unexpected(Error(Errc::kInvalidArgument,
                                "AUX area: the event's ring buffer has no data area (map it with "
                                "data pages first; the AUX area goes after it)"));
  }
  const std::uint64_t end = page.data_offset + page.data_size;
  AuxArea a;
  a.offset = (end + page_size - 1) & ~static_cast<std::uint64_t>(page_size - 1);
  a.size = static_cast<std::uint64_t>(aux_pages) * page_size;
  return a;
}

std::vector<std::byte> AuxChunk::copy() const {
  std::vector<std::byte> out(first.begin(), first.end());
  out.insert(out.end(), second.begin(), second.end());
  return out;
}

AuxChunk aux_slices(std::span<const std::byte> ring, std::uint64_t begin,
                    std::uint64_t end) noexcept {
  AuxChunk c;
  c.begin = begin;
  c.end = end;
  const std::uint64_t size = ring.size();
  if (size == 0 || end <= begin) return c;
  std::uint64_t len = end - begin;
  if (len > size) {  // the writer lapped the reader: only the newest `size` bytes remain
    c.lapped = len - size;
    c.begin = end - size;
    len = size;
  }
  const std::uint64_t mask = size - 1;  // ring sizes are powers of two
  const std::uint64_t start = c.begin & mask;
  const std::uint64_t first_len = len < size - start ? len : size - start;
  c.first = ring.subspan(start, first_len);
  if (first_len < len) c.second = ring.subspan(0, len - first_len);
  return c;
}

struct AuxBuffer::Impl {
  sys::Mapping map;
  MmapPageView page;
  AuxArea area;
  AuxMode mode = AuxMode::kTruncate;
  std::uint64_t tail = 0;
};

AuxBuffer::AuxBuffer(std::unique_ptr<Impl> impl) noexcept : impl_(std::move(impl)) {}
AuxBuffer::AuxBuffer(AuxBuffer&&) noexcept = default;
AuxBuffer& AuxBuffer::operator=(AuxBuffer&&) noexcept = default;
AuxBuffer::~AuxBuffer() = default;

Result<AuxBuffer> AuxBuffer::map(int fd, MmapPageView page, std::size_t aux_pages, AuxMode mode) {
  PERFX_TRY(snap, page.snapshot());
  const auto page_size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  PERFX_TRY(area, plan_aux_area(snap, page_size, aux_pages));
  page.set_aux_area(area.offset, area.size);
  const int prot = mode == AuxMode::kTruncate ? (PROT_READ | PROT_WRITE) : PROT_READ;
  void* addr = ::mmap(nullptr, area.size, prot, MAP_SHARED, fd, static_cast<off_t>(area.offset));
  if (addr == MAP_FAILED) {
    const int err = errno;
    page.set_aux_area(0, 0);
    const std::string what = "mapping a " + std::to_string(area.size / 1024) + " KiB AUX area";
    // The errors the man page gives for an AUX mmap, in words; others as fail_errno says.
    Errc code = Errc::kIo;
    std::string why;
    if (err == EOPNOTSUPP) {
      code = Errc::kNotSupported;
      why =
          "the event's PMU has no AUX area support (EOPNOTSUPP; AUX needs a tracing PMU "
          "such as intel_pt or cs_etm, not a software event)";
    } else if (err == EPERM || err == ENOMEM) {
      code = Errc::kResourceLimit;
      why = std::string(err == EPERM ? "EPERM" : "ENOMEM") +
            " (AUX pages count against perf_event_mlock_kb, " +
            sys::read_first_line("/proc/sys/kernel/perf_event_mlock_kb") +
            " KiB per user, and RLIMIT_MEMLOCK: use fewer pages or raise them)";
    } else if (err == EINVAL) {
      code = Errc::kInvalidArgument;
      why =
          "EINVAL (the AUX area must be a power-of-two number of pages after the data area, "
          "and an existing AUX mapping of the event must have the same size)";
    }
    if (!why.empty()) return tl::unexpected(Error(code, what + ": " + why, err));
    return fail_errno(err, what);
  }
  auto impl = std::make_unique<Impl>();
  impl->map = sys::Mapping(addr, area.size);
  impl->page = page;
  impl->area = area;
  impl->mode = mode;
  impl->tail = page.aux_tail();
  return AuxBuffer(std::move(impl));
}

std::span<const std::byte> AuxBuffer::data() const noexcept {
  return {static_cast<const std::byte*>(impl_->map.data()), impl_->map.size()};
}

AuxArea AuxBuffer::area() const noexcept { return impl_->area; }
AuxMode AuxBuffer::mode() const noexcept { return impl_->mode; }
std::uint64_t AuxBuffer::head() const noexcept { return impl_->page.aux_head(); }
std::uint64_t AuxBuffer::tail() const noexcept { return impl_->tail; }

AuxChunk AuxBuffer::pending() const noexcept {
  const std::uint64_t head = this->head();
  if (impl_->mode == AuxMode::kOverwrite) {
    const std::uint64_t size = impl_->area.size;
    return aux_slices(data(), head > size ? head - size : 0, head);
  }
  return aux_slices(data(), impl_->tail, head);
}

void AuxBuffer::consume(const AuxChunk& chunk) noexcept {
  impl_->tail = chunk.end;
  if (impl_->mode == AuxMode::kTruncate) impl_->page.set_aux_tail(chunk.end);
}

AuxChunk AuxBuffer::record_data(std::uint64_t aux_offset, std::uint64_t aux_size) const noexcept {
  return aux_slices(data(), aux_offset, aux_offset + aux_size);
}

}  // namespace perfx
