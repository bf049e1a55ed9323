// perfx::Sampler: per-CPU ring buffers, SET_OUTPUT sharing, one epoll set.
#include "perfx/sampler.hpp"

#include <linux/perf_event.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <utility>

#include "core/error_format.hpp"
#include "sys/cpu_list.hpp"
#include "sys/explain.hpp"
#include "sys/ioctl.hpp"
#include "sys/perf_event_open.hpp"
#include "sys/ring_buffer.hpp"
#include "sys/signals.hpp"
#include "sys/unique_fd.hpp"

namespace perfx {
namespace {

constexpr std::uint64_t kExtraTag = std::uint64_t{1} << 40;
constexpr std::size_t kDefaultDataPages = 128;

struct FdEntry {
  sys::UniqueFd fd;
  std::size_t event = 0;
  int cpu = -1;
  pid_t pid = -1;
};

struct Buffer {
  sys::RingBuffer rb;
  int cpu = -1;
  bool hung_up = false;
  std::unique_ptr<RingRecordReader> reader;  // typed records (next_record)
  bool in_pass = false;                      // a next_record() pass has not reached head
};

}  // namespace

struct Sampler::Impl {
  SamplerOptions opt;
  std::vector<FdEntry> fds;
  std::vector<Buffer> buffers;
  std::vector<std::vector<std::uint64_t>> ids;
  sys::UniqueFd epoll;
  std::uint64_t wakeups = 0;
  std::vector<Sampler::FdLost> lost_per_fd;  // from the last update_lost_from_read()
  int hung_up = 0;
  RecordDecoder decoder;                 // the events' attrs and ids, in SamplerOptions order
  std::size_t cursor = 0;                // buffer next_record() reads from
  std::size_t finished = 0;              // buffers read to their head in this sweep
  std::uint64_t snapshot_malformed = 0;  // overwrite-mode records that did not decode
  record::Record snapshot_rec;           // reused by for_each_record in overwrite mode

  // Publishes the position of a next_record() pass that has not reached the head.
  void end_pass(Buffer& b) {
    if (!b.in_pass) return;
    b.rb.set_tail(b.reader->position());
    b.in_pass = false;
  }
};

Sampler::Sampler(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Sampler::Sampler(Sampler&&) noexcept = default;
Sampler& Sampler::operator=(Sampler&&) noexcept = default;
Sampler::~Sampler() = default;

Result<Sampler> Sampler::open(SamplerOptions options) {
  auto impl = std::make_unique<Impl>();
  if (options.events.empty()) return fail(Errc::kInvalidArgument, "no events to sample");
  if (options.data_pages == 0) options.data_pages = kDefaultDataPages;
  if ((options.data_pages & (options.data_pages - 1)) != 0) {
    return fail(Errc::kInvalidArgument,
                "ring buffer size must be a power of two number of pages, got {} (-m)",
                options.data_pages);
  }
  if (options.cpus.empty()) {
    PERFX_TRY(online, sys::read_online_cpus());
    options.cpus = std::move(online);
  }
  if (options.cgroup_fd >= 0) options.pids = {options.cgroup_fd};
  if (options.pids.empty()) options.pids = {-1};
  for (std::size_t i = 0; i < options.events.size(); ++i) {
    auto& ev = options.events[i];
    if (ev.attr.size == 0) ev.attr.size = raw::kAttrSizeVer8;
    if (options.overwrite) ev.attr.write_backward = 1;
    if (ev.group_leader >= static_cast<int>(i)) ev.group_leader = -1;
  }
  const unsigned long flags = options.cgroup_fd >= 0 ? PERF_FLAG_PID_CGROUP : 0UL;
  impl->ids.resize(options.events.size());

  std::vector<int> used_cpus;
  for (int cpu : options.cpus) {
    bool cpu_ok = true;
    std::size_t first_fd_of_cpu = impl->fds.size();
    for (pid_t pid : options.pids) {
      std::vector<int> fd_of_event(options.events.size(), -1);
      for (std::size_t i = 0; i < options.events.size(); ++i) {
        auto& ev = options.events[i];
        const int group_fd =
            ev.group_leader >= 0 ? fd_of_event[static_cast<std::size_t>(ev.group_leader)] : -1;
        auto fd = sys::perf_event_open_fallback(ev.attr, pid, cpu, group_fd, flags);
        if (!fd) {
          const int err = fd.error().sys_errno();
          if (options.skip_offline_cpus && cpu >= 0 && options.cpus.size() > 1 &&
              (err == ENODEV || err == ENXIO) && impl->fds.size() == first_fd_of_cpu) {
            cpu_ok = false;
            break;
          }
          sys::OpenRequest req;
          req.attr = ev.attr;
          req.event_name = ev.name;
          req.pid = pid;
          req.cpu = cpu;
          req.group_fd = group_fd;
          req.flags = flags;
          Error e = err != 0 ? sys::explain_open_error(err, req, sys::read_system_readings())
                             : std::move(fd).error();
          return tl::unexpected(std::move(e));
        }
        fd_of_event[i] = fd->get();
        std::uint64_t id = 0;
        if (::ioctl(fd->get(), PERF_EVENT_IOC_ID, &id) != 0) {
          return fail_errno(errno, fmt::format("PERF_EVENT_IOC_ID for '{}'", ev.name));
        }
        impl->ids[i].push_back(id);
        impl->fds.push_back(FdEntry{std::move(*fd), i, cpu, pid});
      }
      if (!cpu_ok) break;
    }
    if (!cpu_ok) {
      impl->fds.resize(first_fd_of_cpu);
      continue;
    }
    used_cpus.push_back(cpu);
  }
  if (impl->fds.empty()) return fail(Errc::kNotFound, "no CPU could open the events");
  // Drop the ids of fds removed for offline CPUs: rebuild from the kept fds.
  for (auto& v : impl->ids) v.clear();
  for (const auto& f : impl->fds) {
    std::uint64_t id = 0;
    if (::ioctl(f.fd.get(), PERF_EVENT_IOC_ID, &id) == 0) impl->ids[f.event].push_back(id);
  }
  options.cpus = used_cpus;
  for (std::size_t i = 0; i < options.events.size(); ++i) {
    impl->decoder.add(options.events[i].attr, impl->ids[i], options.events[i].name);
  }

  // One buffer per CPU (per task for cpu = -1); the other fds write into it.
  const auto mode = options.overwrite ? sys::RingMode::kOverwrite : sys::RingMode::kForward;
  std::map<std::pair<int, pid_t>, int> owner;  // (cpu, pid-if-cpu=-1) -> owner fd
  for (auto& f : impl->fds) {
    const auto key = std::make_pair(f.cpu, f.cpu == -1 ? f.pid : pid_t{0});
    auto it = owner.find(key);
    if (it == owner.end()) {
      auto rb = sys::RingBuffer::map(f.fd.get(), options.data_pages, mode);
      if (!rb) {
        return tl::unexpected(std::move(rb).error().context(
            fmt::format("ring buffer for '{}' on cpu {}", options.events[f.event].name, f.cpu)));
      }
      auto reader = std::make_unique<RingRecordReader>(rb->data(), impl->decoder);
      impl->buffers.push_back(Buffer{std::move(*rb), f.cpu, false, std::move(reader), false});
      owner.emplace(key, f.fd.get());
    } else {
      auto r = sys::set_output(f.fd.get(), it->second);
      if (!r) {
        return tl::unexpected(std::move(r).error().context(
            fmt::format("sharing cpu {}'s buffer with '{}'", f.cpu, options.events[f.event].name)));
      }
    }
  }

  impl->epoll = sys::UniqueFd(::epoll_create1(EPOLL_CLOEXEC));
  if (!impl->epoll) return fail_errno(errno, "epoll_create1");
  for (std::size_t b = 0; b < impl->buffers.size(); ++b) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = b;
    if (::epoll_ctl(impl->epoll.get(), EPOLL_CTL_ADD, impl->buffers[b].rb.fd(), &ev) != 0) {
      return fail_errno(errno, "epoll_ctl(ADD) for a ring buffer");
    }
  }
  impl->opt = std::move(options);
  return Sampler(std::move(impl));
}

Result<void> Sampler::enable() {
  for (const auto& f : impl_->fds) {
    if (::ioctl(f.fd.get(), PERF_EVENT_IOC_ENABLE, 0) != 0) {
      return fail_errno(errno, "PERF_EVENT_IOC_ENABLE");
    }
  }
  return {};
}

Result<void> Sampler::disable() {
  for (const auto& f : impl_->fds) {
    if (::ioctl(f.fd.get(), PERF_EVENT_IOC_DISABLE, 0) != 0) {
      return fail_errno(errno, "PERF_EVENT_IOC_DISABLE");
    }
  }
  return {};
}

Result<SamplerWait> Sampler::wait(int timeout_ms) {
  SamplerWait w;
  epoll_event events[64];
  const int n = ::epoll_wait(impl_->epoll.get(), events, 64, timeout_ms);
  if (n < 0) {
    if (errno == EINTR) {
      w.interrupted = true;
      return w;
    }
    return fail_errno(errno, "epoll_wait");
  }
  for (int i = 0; i < n; ++i) {
    const auto& e = events[i];
    if ((e.data.u64 & kExtraTag) != 0) {
      w.extra_ready = true;
      continue;
    }
    auto& buf = impl_->buffers[static_cast<std::size_t>(e.data.u64)];
    if ((e.events & EPOLLIN) != 0) ++w.readable;
    if ((e.events & (EPOLLHUP | EPOLLERR)) != 0 && !buf.hung_up) {
      // Level-triggered HUP would fire forever: stop watching; drain() still reads it.
      buf.hung_up = true;
      ++w.hung_up;
      ++impl_->hung_up;
      ::epoll_ctl(impl_->epoll.get(), EPOLL_CTL_DEL, buf.rb.fd(), nullptr);
    }
  }
  if (w.readable > 0) ++impl_->wakeups;
  w.all_hung_up = impl_->hung_up == static_cast<int>(impl_->buffers.size());
  return w;
}

Result<std::uint64_t> Sampler::drain(const SamplerSink& sink) { return drain(sink, {}); }

Result<std::uint64_t> Sampler::drain(const SamplerSink& sink, const DrainOptions& options) {
  if (impl_->opt.overwrite) return std::uint64_t{0};
  std::uint64_t total = 0;
  for (auto& buf : impl_->buffers) impl_->end_pass(buf);
  impl_->finished = 0;
  for (auto& buf : impl_->buffers) {
    const record::RingChunk chunk = buf.rb.pending();
    if (chunk.size() > 0 && chunk.size() < options.min_bytes) continue;  // not yet
    if (chunk.size() > 0) {
      if (options.before_buffer) options.before_buffer(buf.cpu);
      auto r = sink(chunk.first, chunk.second, buf.cpu);
      if (!r) return tl::unexpected(std::move(r).error());
      total += chunk.size();
    }
    buf.rb.consume(chunk);
  }
  return total;
}

const record::Record* Sampler::next_record(int* cpu) {
  Impl& m = *impl_;
  if (m.opt.overwrite || m.buffers.empty()) return nullptr;
  while (m.finished < m.buffers.size()) {
    Buffer& b = m.buffers[m.cursor];
    if (!b.in_pass) {
      // The previous record of this buffer was released when its pass ended.
      b.reader->begin(b.rb.head(), b.rb.tail());
      b.in_pass = true;
    }
    if (const record::Record* rec = b.reader->next()) {
      if (cpu != nullptr) *cpu = b.cpu;
      return rec;
    }
    m.end_pass(b);
    ++m.finished;
    m.cursor = (m.cursor + 1) % m.buffers.size();
  }
  m.finished = 0;
  return nullptr;
}

Result<std::uint64_t> Sampler::for_each_record(const SamplerRecordFn& fn) {
  Impl& m = *impl_;
  std::uint64_t n = 0;
  if (m.opt.overwrite) {
    for (auto& buf : m.buffers) {
      PERFX_TRY(recs, buf.rb.snapshot());
      for (const auto& bytes : recs) {
        if (!m.decoder.decode(bytes, m.snapshot_rec)) {
          ++m.snapshot_malformed;
          continue;
        }
        PERFX_CHECK(fn(m.snapshot_rec, buf.cpu));
        ++n;
      }
    }
    return n;
  }
  // One full sweep: end any sweep in progress so every buffer is read to its head once.
  for (auto& buf : m.buffers) m.end_pass(buf);
  m.finished = 0;
  int cpu = -1;
  while (const record::Record* rec = next_record(&cpu)) {
    auto r = fn(*rec, cpu);
    if (!r) {
      // The sweep stops here; the records handed out so far (this one included) are
      // released by the next read.
      return tl::unexpected(std::move(r).error());
    }
    ++n;
  }
  return n;
}

const RecordDecoder& Sampler::decoder() const noexcept { return impl_->decoder; }

Result<std::vector<std::vector<std::byte>>> Sampler::snapshot() {
  std::vector<std::vector<std::byte>> all;
  for (auto& buf : impl_->buffers) {
    PERFX_TRY(recs, buf.rb.snapshot());
    for (auto& r : recs) all.push_back(std::move(r));
  }
  return all;
}

Result<void> Sampler::remove_wait_fd(int fd) {
  if (::epoll_ctl(impl_->epoll.get(), EPOLL_CTL_DEL, fd, nullptr) != 0) {
    return fail_errno(errno, "epoll_ctl(DEL) for an extra fd");
  }
  return {};
}

Result<void> Sampler::add_wait_fd(int fd) {
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kExtraTag | static_cast<std::uint64_t>(fd);
  if (::epoll_ctl(impl_->epoll.get(), EPOLL_CTL_ADD, fd, &ev) != 0) {
    return fail_errno(errno, "epoll_ctl(ADD) for an extra fd");
  }
  return {};
}

Result<void> Sampler::route_signals(int signo, pid_t tid) {
  for (const auto& b : impl_->buffers)
    PERFX_CHECK(sys::route_overflow_signal(b.rb.fd(), signo, tid));
  return {};
}

Result<void> Sampler::refresh(int n) {
  for (const auto& f : impl_->fds) {
    if (::ioctl(f.fd.get(), PERF_EVENT_IOC_REFRESH, n) != 0) {
      return fail_errno(errno, "PERF_EVENT_IOC_REFRESH (not allowed on inherited events)");
    }
  }
  return {};
}

Result<void> Sampler::update_lost_from_read() {
  std::vector<FdLost> out;
  for (const auto& f : impl_->fds) {
    const auto& attr = impl_->opt.events[f.event].attr;
    const std::uint64_t rf = attr.read_format;
    if ((rf & PERF_FORMAT_LOST) == 0 || (rf & PERF_FORMAT_GROUP) != 0) continue;
    // value, [time_enabled], [time_running], [id], lost
    std::uint64_t words[5] = {};
    const ssize_t n = ::read(f.fd.get(), words, sizeof(words));
    if (n < 0) return fail_errno(errno, "reading PERF_FORMAT_LOST");
    std::size_t idx = 1;
    if ((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) != 0) ++idx;
    if ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) != 0) ++idx;
    FdLost l{f.event, 0, f.cpu, f.pid, 0};
    if ((rf & PERF_FORMAT_ID) != 0) {
      l.id = words[idx];
      ++idx;
    } else if (auto id = sys::ioc_id(f.fd.get())) {
      l.id = *id;
    }
    if (static_cast<std::size_t>(n) >= (idx + 1) * 8) l.lost = words[idx];
    out.push_back(l);
  }
  impl_->lost_per_fd = std::move(out);
  return {};
}

const std::vector<Sampler::FdLost>& Sampler::lost_by_fd() const noexcept {
  return impl_->lost_per_fd;
}

SamplerStats Sampler::stats() const {
  SamplerStats s;
  for (const auto& b : impl_->buffers) {
    const auto& c = b.rb.counters();
    s.records += c.records;
    s.samples += c.samples;
    s.bytes += c.bytes;
    s.lost_records += c.lost_records;
    s.lost_samples += c.lost_samples;
    s.throttle += c.throttle;
    s.unthrottle += c.unthrottle;
    s.corrupt_events += c.corrupt_events;
    s.dropped_bytes += c.dropped_bytes;
    s.wrapped_records += c.wrapped_records;
    // The typed readers' walk (next_record / for_each_record), and overwrite snapshots.
    const RingRecordStats r = b.reader->stats();
    s.records += r.records + r.malformed_records;
    s.samples += r.samples;
    s.bytes += r.bytes;
    s.lost_records += r.lost_records;
    s.lost_samples += r.lost_samples;
    s.throttle += r.throttle;
    s.unthrottle += r.unthrottle;
    s.corrupt_events += r.corrupt_events;
    s.dropped_bytes += r.dropped_bytes;
    s.wrapped_records += r.wrapped_records;
    s.malformed_records += r.malformed_records;
  }
  s.malformed_records += impl_->snapshot_malformed;
  for (const auto& l : impl_->lost_per_fd) s.lost_read += l.lost;
  s.wakeups = impl_->wakeups;
  return s;
}

const std::vector<std::uint64_t>& Sampler::ids(std::size_t index) const {
  return impl_->ids.at(index);
}

std::vector<int> Sampler::fds(std::size_t index) const {
  std::vector<int> out;
  for (const auto& f : impl_->fds) {
    if (f.event == index) out.push_back(f.fd.get());
  }
  return out;
}

const std::vector<int>& Sampler::cpus() const { return impl_->opt.cpus; }
std::size_t Sampler::buffer_count() const { return impl_->buffers.size(); }
MmapPageView Sampler::mmap_page(std::size_t buffer) const {
  return MmapPageView(impl_->buffers.at(buffer).rb.control());
}
int Sampler::buffer_fd(std::size_t buffer) const { return impl_->buffers.at(buffer).rb.fd(); }
const SamplerOptions& Sampler::options() const { return impl_->opt; }

}  // namespace perfx
