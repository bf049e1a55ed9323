// The live side of perfx trace (perfx/trace.hpp run_trace): raw_syscalls tracepoints,
// page-fault software events and extra tracepoints sampled on every CPU through
// perfx::Sampler, records put in time order, sys_enter/sys_exit paired per thread,
// strings read from the traced process (process_vm_readv), events handed to the observer.
// docs/trace.md describes the design and its limits.

#include <fmt/format.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "event/tracepoint_format.hpp"
#include "perfx/sampler.hpp"
#include "perfx/trace.hpp"
#include "sys/explain.hpp"
#include "sys/ioctl.hpp"
#include "sys/process.hpp"
#include "sys/signals.hpp"
#include "sys/system_info.hpp"
#include "sys/tracefs.hpp"
#include "sys/workload.hpp"

namespace perfx {
namespace {

constexpr std::size_t kDefaultPages = 256;
constexpr std::uint32_t kWakeupBytes = 4 * 1024;
constexpr std::size_t kMaxString = 4096;

enum class Role : std::uint8_t { kEnter, kExit, kMajFault, kMinFault, kTracepoint };

// Makes `ev` a call of syscall `nr` ("syscall_<nr>" when the table has no name for it).
void set_syscall(TraceEvent& ev, std::int64_t nr) {
  ev.kind = TraceEventKind::kSyscall;
  ev.nr = nr;
  const std::string_view name = syscall_name(nr);
  ev.name = name.empty() ? fmt::format("syscall_{}", nr) : std::string(name);
}

struct MapEntry {
  std::uint64_t start = 0, end = 0, offset = 0;
  bool exec = false;
  std::string path;
};

// A record copied out of a ring buffer, waiting for its turn in time order.
struct Item {
  std::uint64_t time = 0;
  std::uint64_t seq = 0;  // arrival order: ties keep the buffer's order
  enum Kind : std::uint8_t { kSample, kComm, kFork, kMmap } kind = kSample;
  std::size_t event = 0;  // index into the sampler's events (kSample)
  pid_t pid = 0, tid = 0, ppid = 0, ptid = 0;
  int cpu = -1;
  std::uint64_t ip = 0, addr = 0;
  std::int64_t id = 0;                  // syscall number
  std::array<std::uint64_t, 6> args{};  // sys_enter arguments
  std::int64_t ret = 0;                 // sys_exit return value
  std::vector<std::byte> raw;           // other tracepoints' payload
  std::string comm;                     // kComm; kMmap: the file
  MapEntry map;                         // kMmap
  bool exec = false;                    // kComm: the thread exec'd
};

bool hex(std::string_view s, std::uint64_t& out) {
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out, 16);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

std::uint64_t monotonic_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

// Best effort: a NUL-terminated string at `addr` in `pid`, read page by page so a string
// that ends just before an unmapped page still reads.
std::optional<std::string> read_remote_string(pid_t pid, std::uint64_t addr) {
  if (addr == 0 || pid <= 0) return std::nullopt;
  std::string out;
  char buf[512];
  while (out.size() < kMaxString) {
    const std::uint64_t page_left = 4096 - (addr % 4096);
    const std::size_t want =
        static_cast<std::size_t>(std::min<std::uint64_t>(sizeof buf, page_left));
    iovec local{buf, want};
    iovec remote{reinterpret_cast<void*>(addr), want};
    const ssize_t n = ::process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (n <= 0) return out.empty() ? std::nullopt : std::optional<std::string>(out);
    const void* nul = std::memchr(buf, 0, static_cast<std::size_t>(n));
    if (nul != nullptr) {
      out.append(buf, static_cast<std::size_t>(static_cast<const char*>(nul) - buf));
      return out;
    }
    out.append(buf, static_cast<std::size_t>(n));
    addr += static_cast<std::uint64_t>(n);
  }
  return out;
}

class TraceRun {
 public:
  TraceRun(const TraceOptions& opt, const TraceObserver& observer)
      : opt_(opt), observer_(observer) {}

  Result<TraceResult> run();

 private:
  Result<void> build_events(const std::string& tracefs, SamplerOptions& so);
  std::string syscall_filter() const;
  void collect(Sampler& s);
  void process(std::uint64_t cutoff);
  void handle(Item& it);
  void deliver(const TraceEvent& ev);
  void flush_pending();
  const std::string& comm_of(pid_t pid, pid_t tid);
  void locate(pid_t pid, std::uint64_t addr, std::string& where, char* type);

  const TraceOptions& opt_;
  const TraceObserver& observer_;
  std::optional<SyscallCatalog> own_catalog_;
  const SyscallCatalog* catalog_ = nullptr;
  std::vector<Role> roles_;
  std::vector<TraceFormat> formats_;  // per event (tracepoints)
  std::vector<std::string> names_;    // per event
  event::TracepointFormat enter_fmt_, exit_fmt_;
  const event::TracepointField* enter_id_ = nullptr;
  const event::TracepointField* enter_args_ = nullptr;
  const event::TracepointField* exit_id_ = nullptr;
  const event::TracepointField* exit_ret_ = nullptr;
  std::vector<Item> queue_;
  std::uint64_t seq_ = 0;
  std::unordered_map<pid_t, std::string> comms_;
  std::unordered_map<pid_t, TraceEvent> in_flight_;  // per tid: entered, not yet exited
  std::unordered_map<pid_t, std::vector<MapEntry>> maps_;
  std::unordered_map<pid_t, int> map_reloads_;
  TraceResult result_;
  pid_t self_ = ::getpid();
  bool done_ = false;
};

Result<void> TraceRun::build_events(const std::string& tracefs, SamplerOptions& so) {
  raw::EventAttr base{};
  base.sample_period = 1;
  base.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
  base.disabled = 1;
  base.inherit = opt_.inherit ? 1 : 0;
  base.enable_on_exec = opt_.command.empty() ? 0 : 1;
  base.sample_id_all = 1;
  base.use_clockid = 1;
  base.clockid = CLOCK_MONOTONIC;
  base.watermark = 1;
  base.wakeup_watermark = kWakeupBytes;
  auto add = [&](std::string name, raw::EventAttr attr, Role role, TraceFormat fmt) {
    if (so.events.empty()) {
      attr.comm = 1;  // side band (thread names, forks) from the first event only
      attr.task = 1;
      // Page faults name the mapping of their ip and address: MMAP2 records keep the maps
      // of processes that are gone by the time /proc could be read.
      if (opt_.page_faults != TracePageFaults::kNone) {
        attr.mmap = 1;
        attr.mmap_data = 1;
        attr.mmap2 = 1;
      }
    }
    so.events.push_back(SamplerEvent{name, attr, -1});
    roles_.push_back(role);
    formats_.push_back(std::move(fmt));
    names_.push_back(std::move(name));
  };
  // A tracepoint's attr and the text of its format file.
  auto tracepoint = [&](const std::string& full) -> Result<std::pair<raw::EventAttr, std::string>> {
    const std::size_t colon = full.find(':');
    if (colon == std::string::npos)
      return tl::unexpected(
          Error(Errc::kInvalidArgument, "'" + full + "' is not a tracepoint (subsystem:name)"));
    const std::string subsys = full.substr(0, colon), name = full.substr(colon + 1);
    PERFX_TRY(id, sys::read_tracepoint_id(tracefs, subsys, name));
    auto text = sys::read_text_file(tracefs + "/events/" + subsys + "/" + name + "/format");
    if (!text) return tl::unexpected(text.error());
    raw::EventAttr attr = base;
    attr.type = PERF_TYPE_TRACEPOINT;
    attr.config = id;
    attr.sample_type |= PERF_SAMPLE_RAW;
    return std::pair{attr, std::move(*text)};
  };
  if (opt_.syscalls) {
    PERFX_TRY(enter, tracepoint("raw_syscalls:sys_enter"));
    PERFX_TRY(exit, tracepoint("raw_syscalls:sys_exit"));
    PERFX_TRY(enter_fmt, event::parse_tracepoint_format(enter.second, "raw_syscalls"));
    PERFX_TRY(exit_fmt, event::parse_tracepoint_format(exit.second, "raw_syscalls"));
    enter_fmt_ = std::move(enter_fmt);
    exit_fmt_ = std::move(exit_fmt);
    add("raw_syscalls:sys_enter", enter.first, Role::kEnter, {});
    add("raw_syscalls:sys_exit", exit.first, Role::kExit, {});
    enter_id_ = enter_fmt_.field("id");
    enter_args_ = enter_fmt_.field("args");
    exit_id_ = exit_fmt_.field("id");
    exit_ret_ = exit_fmt_.field("ret");
    if (!enter_id_ || !enter_args_ || !exit_id_ || !exit_ret_ || enter_args_->size != 48)
      return tl::unexpected(
          Error(Errc::kNotSupported, "raw_syscalls formats lack id/args/ret: cannot decode them"));
  }
  const bool maj =
      opt_.page_faults == TracePageFaults::kMajor || opt_.page_faults == TracePageFaults::kAll;
  const bool min =
      opt_.page_faults == TracePageFaults::kMinor || opt_.page_faults == TracePageFaults::kAll;
  for (int pass = 0; pass < 2; ++pass) {
    if (!(pass == 0 ? maj : min)) continue;
    raw::EventAttr attr = base;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = pass == 0 ? PERF_COUNT_SW_PAGE_FAULTS_MAJ : PERF_COUNT_SW_PAGE_FAULTS_MIN;
    attr.sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
    add(pass == 0 ? "major-faults" : "minor-faults", attr,
        pass == 0 ? Role::kMajFault : Role::kMinFault, {});
  }
  for (const auto& tp : opt_.tracepoints) {
    PERFX_TRY(ev, tracepoint(tp));
    auto fmt = parse_trace_format(ev.second);
    if (!fmt) return tl::unexpected(fmt.error().context("format of " + tp));
    add(tp, ev.first, Role::kTracepoint, std::move(*fmt));
  }
  if (so.events.empty())
    return tl::unexpected(Error(Errc::kInvalidArgument,
                                "nothing to trace: no syscalls, page "
                                "faults or tracepoints selected"));
  return {};
}

std::string TraceRun::syscall_filter() const {
  std::string f;
  if (!opt_.only_syscalls.empty()) {
    for (long nr : opt_.only_syscalls) f += fmt::format("{}id == {}", f.empty() ? "" : " || ", nr);
    f = "(" + f + ")";
  } else if (!opt_.skip_syscalls.empty()) {
    for (long nr : opt_.skip_syscalls) f += fmt::format("{}id != {}", f.empty() ? "" : " && ", nr);
  }
  // perf trace -a filters its own pid the same way: tracing our reads of the buffers
  // would feed on itself.
  if (opt_.system_wide || !opt_.cpus.empty())
    f += fmt::format("{}common_pid != {}", f.empty() ? "" : " && ", self_);
  return f;
}

const std::string& TraceRun::comm_of(pid_t pid, pid_t tid) {
  auto it = comms_.find(tid);
  if (it != comms_.end()) return it->second;
  std::string c = sys::thread_comm(tid);
  if (c == "?" && pid != tid) {
    auto p = comms_.find(pid);
    if (p != comms_.end()) c = p->second;
  }
  return comms_.emplace(tid, std::move(c)).first->second;
}

void TraceRun::locate(pid_t pid, std::uint64_t addr, std::string& where, char* type) {
  auto find = [&]() -> const MapEntry* {
    for (const auto& m : maps_[pid])
      if (addr >= m.start && addr < m.end) return &m;
    return nullptr;
  };
  const MapEntry* m = find();
  if (m == nullptr && map_reloads_[pid] < 64) {
    ++map_reloads_[pid];
    std::vector<MapEntry> list;
    std::ifstream in(fmt::format("/proc/{}/maps", pid));
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream ls(line);
      std::string range, perms, off, dev, inode, path;
      ls >> range >> perms >> off >> dev >> inode;
      std::getline(ls >> std::ws, path);
      MapEntry e;
      const std::size_t dash = range.find('-');
      if (dash == std::string::npos || !hex(range.substr(0, dash), e.start) ||
          !hex(range.substr(dash + 1), e.end) || !hex(off, e.offset))
        continue;
      e.exec = perms.size() > 2 && perms[2] == 'x';
      e.path = path;
      list.push_back(std::move(e));
    }
    if (!list.empty()) maps_[pid] = std::move(list);
    m = find();
  }
  if (m == nullptr) return;
  if (type != nullptr) *type = m->exec ? 'x' : 'd';
  if (!m->path.empty() && m->path.front() == '/')
    where = fmt::format("{}@{:#x}", m->path, addr - m->start + m->offset);
}

void TraceRun::collect(Sampler& s) {
  (void)s.for_each_record([&](const record::Record& rec, int cpu) -> Result<void> {
    Item it;
    it.seq = seq_++;
    it.cpu = cpu;
    if (const auto* smp = rec.get<record::Sample>()) {
      if (rec.attr_index < 0 || static_cast<std::size_t>(rec.attr_index) >= roles_.size())
        return {};
      it.kind = Item::kSample;
      it.event = static_cast<std::size_t>(rec.attr_index);
      it.time = smp->time;
      it.pid = static_cast<pid_t>(smp->pid);
      it.tid = static_cast<pid_t>(smp->tid);
      it.cpu = static_cast<int>(smp->cpu);
      it.ip = smp->ip;
      it.addr = smp->addr;
      switch (roles_[it.event]) {
        case Role::kEnter: {
          it.id = event::read_int_field(*enter_id_, smp->raw).value_or(-1);
          event::TracepointField a;  // one of unsigned long args[6] (no string copies)
          a.offset = enter_args_->offset;
          a.size = 8;
          for (std::size_t i = 0; i < 6; ++i, a.offset += 8)
            it.args[i] = static_cast<std::uint64_t>(event::read_int_field(a, smp->raw).value_or(0));
          break;
        }
        case Role::kExit:
          it.id = event::read_int_field(*exit_id_, smp->raw).value_or(-1);
          it.ret = event::read_int_field(*exit_ret_, smp->raw).value_or(0);
          break;
        case Role::kTracepoint:
          it.raw.assign(smp->raw.begin(), smp->raw.end());
          break;
        default:
          break;
      }
      if ((opt_.system_wide || !opt_.cpus.empty()) && it.pid == self_) return {};
    } else if (const auto* c = rec.get<record::Comm>()) {
      it.kind = Item::kComm;
      it.pid = static_cast<pid_t>(c->pid);
      it.tid = static_cast<pid_t>(c->tid);
      it.comm = std::string(c->comm);
      it.exec = (rec.header.misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
      it.time = rec.sample_id.time;
    } else if (const auto* m = rec.get<record::Mmap2>()) {
      it.kind = Item::kMmap;
      it.pid = static_cast<pid_t>(m->pid);
      it.time = rec.sample_id.time;
      it.map = MapEntry{m->addr, m->addr + m->len, m->pgoff, (m->prot & PROT_EXEC) != 0,
                        std::string(m->filename)};
    } else if (const auto* f = rec.get<record::Fork>()) {
      it.kind = Item::kFork;
      it.pid = static_cast<pid_t>(f->pid);
      it.tid = static_cast<pid_t>(f->tid);
      it.ppid = static_cast<pid_t>(f->ppid);
      it.ptid = static_cast<pid_t>(f->ptid);
      it.time = f->time;
    } else {
      return {};
    }
    queue_.push_back(std::move(it));
    return {};
  });
}

void TraceRun::deliver(const TraceEvent& ev) {
  if (done_) return;
  ++result_.events;
  observer_(ev);
  if (opt_.max_events > 0 && result_.events >= opt_.max_events) done_ = true;
}

void TraceRun::handle(Item& it) {
  if (it.kind == Item::kComm) {
    comms_[it.tid] = it.comm;
    if (it.exec) maps_.erase(it.pid);  // a new image: its mappings follow as MMAP2
    return;
  }
  if (it.kind == Item::kFork) {
    auto parent = comms_.find(it.ptid);
    if (parent != comms_.end()) comms_[it.tid] = parent->second;
    if (it.pid != it.ppid) {  // a new process starts with its parent's maps
      auto maps = maps_.find(it.ppid);
      if (maps != maps_.end()) maps_[it.pid] = maps->second;
    }
    return;
  }
  if (it.kind == Item::kMmap) {
    auto& list = maps_[it.pid];
    // The new mapping replaces whatever it overlaps (exec, MAP_FIXED).
    std::erase_if(list,
                  [&](const MapEntry& e) { return e.start < it.map.end && it.map.start < e.end; });
    list.push_back(std::move(it.map));
    return;
  }
  TraceEvent ev;
  ev.time = it.time;
  ev.pid = it.pid;
  ev.tid = it.tid;
  ev.cpu = it.cpu;
  ev.comm = comm_of(it.pid, it.tid);
  switch (roles_[it.event]) {
    case Role::kEnter: {
      set_syscall(ev, it.id);
      ev.entered = true;
      ev.args = it.args;
      if (opt_.read_strings && catalog_ != nullptr) {
        if (const auto* args = catalog_->args(ev.name)) {
          for (std::size_t i = 0; i < args->size() && i < 6; ++i) {
            if (!syscall_arg_is_string((*args)[i]) || ev.args[i] == 0) continue;
            ev.strings[i] = read_remote_string(ev.tid, ev.args[i]);
            ++(ev.strings[i] ? result_.strings_read : result_.strings_failed);
          }
        }
      }
      // A thread enters one syscall at a time: an older one still open never returned.
      if (auto old = in_flight_.find(it.tid); old != in_flight_.end()) {
        deliver(old->second);
        in_flight_.erase(old);
      }
      if (ev.name == "exit" || ev.name == "exit_group") {
        deliver(ev);  // never returns
      } else {
        in_flight_.emplace(it.tid, std::move(ev));
      }
      return;
    }
    case Role::kExit: {
      auto open = in_flight_.find(it.tid);
      if (open != in_flight_.end() && open->second.nr == it.id) {
        TraceEvent done = std::move(open->second);
        in_flight_.erase(open);
        done.exited = true;
        done.exit_time = it.time;
        done.ret = it.ret;
        done.comm = ev.comm;  // execve renamed the thread in between
        deliver(done);
        return;
      }
      if (open != in_flight_.end()) {
        deliver(open->second);
        in_flight_.erase(open);
      }
      ++result_.unpaired_exits;
      set_syscall(ev, it.id);
      ev.exited = true;
      ev.exit_time = it.time;
      ev.ret = it.ret;
      deliver(ev);
      return;
    }
    case Role::kMajFault:
    case Role::kMinFault:
      ev.kind = TraceEventKind::kPageFault;
      ev.major = roles_[it.event] == Role::kMajFault;
      ev.ip = it.ip;
      ev.addr = it.addr;
      locate(it.pid, it.ip, ev.ip_location, nullptr);
      locate(it.pid, it.addr, ev.addr_location, &ev.addr_map_type);
      deliver(ev);
      return;
    case Role::kTracepoint:
      ev.kind = TraceEventKind::kTracepoint;
      ev.event = names_[it.event];
      ev.fields = format_trace_fields(it.raw, formats_[it.event]);
      deliver(ev);
      return;
  }
}

void TraceRun::process(std::uint64_t cutoff) {
  std::stable_sort(queue_.begin(), queue_.end(), [](const Item& a, const Item& b) {
    return a.time != b.time ? a.time < b.time : a.seq < b.seq;
  });
  std::size_t n = 0;
  while (n < queue_.size() && queue_[n].time <= cutoff) handle(queue_[n++]);
  queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
}

void TraceRun::flush_pending() {
  std::vector<TraceEvent> open;
  for (auto& [tid, ev] : in_flight_) open.push_back(std::move(ev));
  in_flight_.clear();
  std::sort(open.begin(), open.end(),
            [](const TraceEvent& a, const TraceEvent& b) { return a.time < b.time; });
  for (const auto& ev : open) deliver(ev);
}

Result<TraceResult> TraceRun::run() {
  const int targets = (opt_.command.empty() ? 0 : 1) + (opt_.pids.empty() ? 0 : 1) +
                      (opt_.tids.empty() ? 0 : 1) + (opt_.system_wide ? 1 : 0);
  if (targets == 0 && opt_.cpus.empty())
    return tl::unexpected(
        Error(Errc::kInvalidArgument, "nothing to trace: give a command, -p, -t, -a or -C"));
  if (targets > 1)
    return tl::unexpected(Error(Errc::kInvalidArgument, "give one of: a command, -p, -t or -a"));
  std::string tracefs = opt_.tracefs;
  if (tracefs.empty()) {
    PERFX_TRY(found, sys::find_tracefs());
    tracefs = found;
  }
  catalog_ = opt_.catalog;
  if (catalog_ == nullptr && opt_.read_strings && opt_.syscalls) {
    if (auto c = SyscallCatalog::load(tracefs)) {
      own_catalog_ = std::move(*c);
      catalog_ = &*own_catalog_;
    }
  }
  SamplerOptions so;
  PERFX_CHECK(build_events(tracefs, so));
  so.data_pages = opt_.mmap_pages ? opt_.mmap_pages : kDefaultPages;
  so.cpus = opt_.cpus;

  std::optional<sys::Workload> workload;
  if (!opt_.command.empty()) {
    auto w = sys::Workload::prepare(opt_.command);
    if (!w) return tl::unexpected(w.error());
    workload.emplace(std::move(*w));
    so.pids = {workload->pid()};
    std::string base = opt_.command.front();
    if (const auto slash = base.rfind('/'); slash != std::string::npos) base.erase(0, slash + 1);
    comms_[workload->pid()] = base.substr(0, 15);  // until its exec's COMM record
    result_.workload = true;
  } else if (!opt_.pids.empty()) {
    so.pids.clear();
    for (pid_t pid : opt_.pids) {
      PERFX_TRY(threads, sys::process_threads(pid));
      so.pids.insert(so.pids.end(), threads.begin(), threads.end());
    }
  } else if (!opt_.tids.empty()) {
    so.pids = opt_.tids;
  } else {
    so.pids = {-1};
  }

  PERFX_TRY(sampler, Sampler::open(std::move(so)));
  if (const std::string filter = syscall_filter(); !filter.empty() && opt_.syscalls) {
    for (std::size_t e = 0; e < 2; ++e)
      for (int fd : sampler.fds(e)) {
        auto ok = sys::ioc_set_filter(fd, filter);
        if (!ok) return tl::unexpected(ok.error().context("syscall filter '" + filter + "'"));
      }
  }
  std::optional<sys::SignalPipe> signals;
  if (opt_.stop_on_signals) {
    auto sp = sys::SignalPipe::install({SIGINT, SIGTERM});
    if (sp) {
      signals.emplace(std::move(*sp));
      PERFX_CHECK(sampler.add_wait_fd(signals->fd()));
    }
  }
  if (workload) {
    if (auto started = workload->start(); !started) {
      result_.exec_error = started.error().message();
      result_.exit_code = sys::exec_failure_exit_code(started.error().sys_errno());
      return result_;
    }
  } else {
    PERFX_CHECK(sampler.enable());
  }

  bool finished = false, reaped = false;
  while (!finished && !done_) {
    auto w = sampler.wait(10);
    if (!w) return tl::unexpected(w.error());
    if (signals && w->extra_ready) {
      if (!signals->take().empty()) {
        result_.stopped_by_signal = true;
        finished = true;
      }
    }
    if (workload) {
      sys::ExitStatus st;
      auto exited = workload->try_wait(st);
      if (!exited) return tl::unexpected(exited.error());
      if (*exited) {
        finished = reaped = true;
        result_.exit_code = st.code;
        result_.signaled = st.signaled;
        result_.signal = st.signal;
      }
    } else if (w->all_hung_up) {
      finished = true;
    }
    // Records stamped before this instant are in their buffers already: a record of
    // another CPU stamped earlier cannot arrive later (docs/trace.md, "Ordering").
    const std::uint64_t cutoff = finished ? ~0ull : monotonic_ns();
    collect(sampler);
    process(cutoff);
  }
  if (workload && !reaped) {
    // Stopped early (a signal, --max-events): end the command as perf trace does.
    (void)workload->kill(SIGTERM);
    sys::ExitStatus st;
    if (auto waited = workload->wait(); waited) {
      st = *waited;
      result_.exit_code = st.code;
      result_.signaled = st.signaled;
      result_.signal = st.signal;
    }
  }
  (void)sampler.disable();
  collect(sampler);
  process(~0ull);
  flush_pending();
  result_.lost = sampler.stats().lost();
  return result_;
}

}  // namespace

Result<TraceResult> run_trace(const TraceOptions& options, const TraceObserver& observer) {
  TraceRun run(options, observer);
  return run.run();
}

}  // namespace perfx
