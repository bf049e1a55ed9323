// The record and live sessions (perfx/record.hpp): a RecordPlan (event/record_plan.hpp)
// run against the kernel, everything worth saying reported to a RecordObserver.
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <optional>

#include "core/build_id_note.hpp"
#include "core/error_format.hpp"
#include "event/record_plan.hpp"
#include "perfx/record.hpp"
#include "perfx/sampler.hpp"
#include "record/perf_data_writer.hpp"
#include "sys/record_target.hpp"
#include "sys/signals.hpp"
#include "sys/synthesize.hpp"
#include "sys/synthesize_tracing.hpp"
#include "sys/system_info.hpp"
#include "sys/system_info_features.hpp"
#include "sys/tracefs.hpp"

namespace perfx {

RecordObserver::~RecordObserver() = default;

namespace {

using Clock = std::chrono::steady_clock;

// perf's fetch_current_timestamp(): local time and hundredths, "2026112609350191".
std::string current_timestamp() {
  timeval tv{};
  ::gettimeofday(&tv, nullptr);
  tm t{};
  ::localtime_r(&tv.tv_sec, &t);
  char dt[32];
  std::strftime(dt, sizeof(dt), "%Y%m%d%H%M%S", &t);
  return fmt::format("{}{:02}", dt, static_cast<unsigned>(tv.tv_usec) / 10000);
}

// The features every file of the recording shares: the system's, -k's clock, the
// command line, the groups and the tracepoint formats.
Result<record::Features> plan_features(const RecordPlan& plan) {
  const auto& o = plan.options;
  record::Features features;
  sys::gather_system_features(features, o.version);
  if (plan.clockid) {
    // perf's record__init_clock(): the clock's resolution and a reference point of it
    // against the time of day.
    timespec res{}, now_clock{};
    timeval tod{};
    if (::clock_getres(*plan.clockid, &res) == 0 && res.tv_sec == 0)
      features.clockid_res_ns = static_cast<std::uint64_t>(res.tv_nsec);
    ::gettimeofday(&tod, nullptr);
    if (::clock_gettime(*plan.clockid, &now_clock) == 0) {
      record::ClockData cd;
      cd.clockid = static_cast<std::uint32_t>(*plan.clockid);
      cd.wall_clock_ns = static_cast<std::uint64_t>(tod.tv_sec) * 1000000000ULL +
                         static_cast<std::uint64_t>(tod.tv_usec) * 1000ULL;
      cd.clockid_time_ns = static_cast<std::uint64_t>(now_clock.tv_sec) * 1000000000ULL +
                           static_cast<std::uint64_t>(now_clock.tv_nsec);
      features.clock_data = cd;
    }
  }
  std::vector<std::string> cmdline{"perfx record"};
  char self[4096];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n > 0) cmdline[0] = std::string(self, static_cast<std::size_t>(n)) + " record";
  cmdline.insert(cmdline.end(), o.cmdline.begin(), o.cmdline.end());
  features.cmdline = cmdline;
  for (const auto& g : plan.groups) features.group_desc.push_back({g.name, g.leader, g.members});
  if (!plan.tracepoints.empty()) {
    PERFX_TRY(root, sys::find_tracefs());
    PERFX_TRY(td, sys::build_tracing_data(root, plan.tracepoints));
    features.tracing_data = std::move(td);
  }
  return features;
}

// Everything of a running recording: the open events, the file being written, what the
// samples hit so far.
class Recorder {
 public:
  Recorder(RecordPlan& plan, sys::RecordTarget& target, Sampler& sampler, RecordObserver& obs)
      : plan_(plan),
        o_(plan.options),
        target_(target),
        sampler_(sampler),
        obs_(obs),
        layout_(record::SampleLayout::from_attr(plan.events[0].attr)),
        tracker_(std::in_place, layout_) {}

  // The file (PerfDataWriter::create() keeps an existing one as <name>.old), its
  // features, and what already runs.
  Result<void> start(int out_fd) {
    for (std::size_t i = 0; i < plan_.events.size(); ++i) {
      const auto& e = plan_.events[i];
      wattrs_.push_back({e.attr_for_open(), e.name, sampler_.ids(i)});
    }
    wo_.pipe = out_fd >= 0;
    wo_.compress_level = plan_.compression_level;
    wo_.compress_mmap_len = static_cast<std::uint32_t>(
        (sampler_.options().data_pages + 1) * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)));
    auto writer = out_fd >= 0 ? record::PerfDataWriter::create_fd(out_fd, true, "-", wattrs_, wo_)
                              : record::PerfDataWriter::create(o_.output, wattrs_, wo_);
    if (!writer) return tl::unexpected(writer.error());
    writer_.emplace(std::move(*writer));
    PERFX_TRY(features, plan_features(plan_));
    features_ = std::move(features);
    // Pipe mode sends the features (and the tracepoint formats) before any record.
    if (writer_->is_pipe()) PERFX_CHECK(writer_->set_features(features_));
    PERFX_TRY(synth, synthesize(true));
    return write_existing(synth);
  }

  // Feeds and writes drained ring-buffer bytes.
  Result<void> write(std::span<const std::byte> bytes) {
    sys::for_each_record(bytes, [&](std::span<const std::byte> rec) { tracker_->feed(rec); });
    return writer_->write_bytes(bytes);
  }
  Result<void> finish_round() { return writer_->finish_round(); }
  Result<void> flush() { return writer_->flush(); }
  [[nodiscard]] std::uint64_t written() const {
    const auto& ws = writer_->stats();
    return ws.compressed_bytes > 0 ? ws.compressed_bytes : ws.data_bytes;
  }
  [[nodiscard]] std::uint64_t last_time() const { return tracker_->last_time(); }
  [[nodiscard]] bool has_samples() const { return tracker_->first_time() != 0; }
  [[nodiscard]] bool is_pipe() const { return writer_->is_pipe(); }
  Result<void> write(const record::Record& r) { return writer_->write(r); }

  // --switch-output: the file so far is finished and renamed with its timestamp, and a
  // new one started with the attrs and what already exists. A workload that is exiting
  // has no maps left to describe: a new file would hold its last samples without them,
  // so the current file goes on instead (false).
  Result<bool> switch_file() {
    PERFX_TRY(synth, synthesize(false));
    if (plan_.follows_workload_only) {
      bool maps = false;
      sys::for_each_record(synth, [&](std::span<const std::byte> rec) {
        std::uint32_t type = 0, pid = 0;
        std::memcpy(&type, rec.data(), 4);
        if (rec.size() >= 12) std::memcpy(&pid, rec.data() + 8, 4);
        maps |= (type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2) &&
                pid == static_cast<std::uint32_t>(target_.workload->pid());
      });
      if (!maps) return false;
    }
    PERFX_CHECK(finish_file());
    PERFX_CHECK(dump(o_.output + "." + current_timestamp()));
    PERFX_TRY(next, record::PerfDataWriter::create(o_.output, wattrs_, wo_));
    *writer_ = std::move(next);
    tracker_.emplace(layout_);
    PERFX_CHECK(write_existing(synth));
    return true;
  }

  // The features of the file written so far (build-ids of the DSOs its samples hit, its
  // sample times), then its header: the end of a recording or of a --switch-output file.
  Result<void> finish_file() {
    if (!writer_->is_pipe()) {
      record::Features file_features = features_;
      if (tracker_->kernel_hit() && o_.build_ids) {
        if (auto id = sys::read_kernel_build_id()) {
          record::BuildIdEntry e;
          e.pid = -1;
          e.misc = PERF_RECORD_MISC_KERNEL;
          e.build_id = *id;
          e.filename = "[kernel.kallsyms]";
          file_features.build_ids.push_back(std::move(e));
        }
      }
      for (const auto& f : o_.build_ids ? tracker_->hit_files() : std::vector<std::string>{}) {
        if (auto id = sys::read_elf_build_id(f)) {
          record::BuildIdEntry e;
          e.pid = -1;
          e.misc = PERF_RECORD_MISC_USER;
          e.build_id = *id;
          e.filename = f;
          obs_.on_build_id(core::build_id_hex(id->data(), id->size()), f);
          file_features.build_ids.push_back(std::move(e));
        }
      }
      if (tracker_->first_time() != 0) {
        file_features.sample_time =
            record::SampleTime{tracker_->first_time(), tracker_->last_time()};
      }
      PERFX_CHECK(writer_->set_features(file_features));
    }
    return writer_->finalize();
  }

  // Renames the file just finished (perf's "Dump" line); the oldest beyond
  // --switch-max-files goes.
  Result<void> dump(const std::string& dumped) {
    if (::rename(o_.output.c_str(), dumped.c_str()) != 0)
      return fail(Errc::kIo, "renaming {} to {}: {}", o_.output, dumped, std::strerror(errno));
    obs_.on_file_dumped(dumped);
    dumped_files_.push_back(dumped);
    if (o_.switch_max_files > 0 && dumped_files_.size() > o_.switch_max_files) {
      (void)::unlink(dumped_files_.front().c_str());
      dumped_files_.erase(dumped_files_.begin());
    }
    return {};
  }
  [[nodiscard]] const std::vector<std::string>& dumped_files() const { return dumped_files_; }

 private:
  // What already exists (again in each new file of --switch-output, where the workload
  // has exec'd: its own maps then, not perf's "perfx-exec" placeholder).
  Result<std::vector<std::byte>> synthesize(bool first) {
    std::vector<std::byte> synth;
    PERFX_CHECK(sys::synthesize_existing(plan_, target_, layout_, first, obs_, synth));
    return synth;
  }
  Result<void> write_existing(const std::vector<std::byte>& synth) {
    sys::for_each_record(synth, [&](std::span<const std::byte> rec) { tracker_->feed(rec); });
    if (!synth.empty()) PERFX_CHECK(writer_->write_bytes(synth));
    return {};
  }

  RecordPlan& plan_;
  const RecordOptions& o_;
  sys::RecordTarget& target_;
  Sampler& sampler_;
  RecordObserver& obs_;
  record::SampleLayout layout_;
  std::optional<sys::HitTracker> tracker_;
  std::vector<record::WriterAttr> wattrs_;
  record::WriterOptions wo_;
  std::optional<record::PerfDataWriter> writer_;
  record::Features features_;
  std::vector<std::string> dumped_files_;
};

// The session's stop conditions, checked after each drain.
struct LoopState {
  bool stop = false;
  bool interrupted = false;
  bool size_limit = false;
  std::optional<sys::ExitStatus> exit_status;
};

// Waits for the workload after the loop: SIGINT from a terminal already reached it;
// make sure it ends.
void reap_workload(sys::RecordTarget& target, LoopState& st) {
  if (!target.workload || st.exit_status) return;
  if (st.interrupted) {
    sys::ExitStatus es;
    auto done = target.workload->try_wait(es);
    if (done && *done) {
      st.exit_status = es;
    } else {
      (void)target.workload->kill(SIGTERM);
      if (auto ws = target.workload->wait(); ws) st.exit_status = *ws;
    }
  } else if (auto ws = target.workload->wait(); ws) {
    st.exit_status = *ws;
  }
}

// perf writes one PERF_RECORD_LOST_SAMPLES per fd that dropped samples (its "Total Lost
// Samples" line counts these), identified by the fd's sample id.
Result<void> write_lost_samples(Sampler& sampler, Recorder& rec) {
  for (const auto& l : sampler.lost_by_fd()) {
    if (l.lost == 0) continue;
    record::Record r;
    r.header.type = PERF_RECORD_LOST_SAMPLES;
    r.attr_index = static_cast<int>(l.event);
    r.sample_id.pid = static_cast<std::uint32_t>(l.pid);
    r.sample_id.tid = static_cast<std::uint32_t>(l.pid);
    r.sample_id.time = rec.last_time();
    r.sample_id.id = l.id;
    r.sample_id.cpu = static_cast<std::uint32_t>(l.cpu < 0 ? 0 : l.cpu);
    r.body = record::LostSamples{l.lost};
    PERFX_CHECK(rec.write(r));
  }
  return {};
}

// Starts the workload and, for -D, enables the events after the delay (whether the
// workload still runs or not; a signal cuts the sleep short). Returns the exec error
// (nothing recorded) as a value.
Result<std::optional<Error>> start_running(const RecordPlan& plan, sys::RecordTarget& target,
                                           Sampler& sampler, int signal_fd, RecordObserver& obs) {
  const auto& o = plan.options;
  if (plan.enable_on_start && o.delay_ms == 0) PERFX_CHECK(sampler.enable());
  if (target.workload) {
    if (auto r = target.workload->start(); !r) return std::optional<Error>(r.error());
  }
  if (o.delay_ms > 0) {
    obs.on_events_enabled(false);
    pollfd p{signal_fd, POLLIN, 0};
    (void)::poll(&p, signal_fd >= 0 ? 1 : 0,
                 static_cast<int>(std::min<unsigned>(o.delay_ms, 86400000U)));
    PERFX_CHECK(sampler.enable());
    obs.on_events_enabled(true);
  }
  return std::optional<Error>{};
}

}  // namespace

Result<RecordResult> run_record_session(RecordPlan plan, RecordObserver& obs) {
  const auto& o = plan.options;
  if (plan.freq_capped && o.strict_freq) {
    return fail(Errc::kInvalidArgument, "Maximum frequency rate ({} Hz) exceeded",
                plan.freq_capped->second);
  }
  // Pipe mode: the data goes to the original stdout; perfx and the workload get stderr as
  // their stdout (as perf does), so nothing else lands in the stream.
  const bool to_stdout = o.output == "-";
  int out_fd = -1;
  if (to_stdout) {
    out_fd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (out_fd < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
      return tl::unexpected(fail_errno(errno, "redirecting stdout for pipe mode").value());
  }
  PERFX_TRY(target, sys::resolve_record_target(plan));
  PERFX_TRY(sampler, sys::open_plan(plan, target, obs));

  // Signals are caught from here on: a Ctrl-C or SIGTERM while the output is created and
  // running tasks are synthesized waits in the pipe, and the loop below then finalizes
  // the file instead of the process dying with a header that says "no data".
  std::optional<sys::SignalPipe> sigpipe;
  if (o.handle_signals) {
    PERFX_TRY(sp, sys::SignalPipe::install({SIGINT, SIGTERM, SIGCHLD, SIGHUP, SIGUSR2}));
    sigpipe.emplace(std::move(sp));
  }
  Recorder rec(plan, target, sampler, obs);
  PERFX_CHECK(rec.start(to_stdout ? out_fd : -1));

  // Ctrl-C reaches the workload through the terminal; perfx itself keeps going until the
  // buffers are drained. A broken output pipe must not kill us silently either.
  ::signal(SIGPIPE, SIG_IGN);
  if (sigpipe) PERFX_CHECK(sampler.add_wait_fd(sigpipe->fd()));
  PERFX_TRY(exec_error, start_running(plan, target, sampler, sigpipe ? sigpipe->fd() : -1, obs));
  if (exec_error) {
    RecordResult r;
    r.exit_code = 127;
    r.exec_error = std::move(exec_error);
    return r;
  }

  std::vector<std::byte> scratch;
  const bool many_buffers = sampler.buffer_count() > 1;
  std::optional<Error> write_error;
  auto sink = [&](std::span<const std::byte> first, std::span<const std::byte> second,
                  int) -> Result<void> {
    return rec.write(sys::contiguous(first, second, scratch));
  };
  auto drain_round = [&]() -> Result<void> {
    PERFX_TRY(n, sampler.drain(sink));
    if (n > 0 && many_buffers) PERFX_CHECK(rec.finish_round());
    return {};
  };

  LoopState st;
  auto& workload = target.workload;
  const auto& sw = plan.switch_output;
  auto next_switch = Clock::now() + std::chrono::seconds(sw.seconds);
  // Write-through: the buffers are drained and the file flushed (its header's data size
  // updated) every quarter second, so a recorder killed with SIGKILL or by the OOM killer
  // leaves all but the last half second or so on disk.
  constexpr int kDrainMs = 250;
  auto next_flush = Clock::now() + std::chrono::milliseconds(kDrainMs);
  auto step = [&]() -> Result<void> {
    PERFX_TRY(w, sampler.wait(kDrainMs));
    PERFX_CHECK(drain_round());
    if (Clock::now() >= next_flush) {
      PERFX_CHECK(rec.flush());
      next_flush = Clock::now() + std::chrono::milliseconds(kDrainMs);
    }
    bool switch_now = false;
    for (int s : sigpipe ? sigpipe->take() : std::vector<int>{}) {
      if (s == SIGINT || s == SIGTERM || s == SIGHUP) {
        st.interrupted = true;
        st.stop = true;
        if (workload && s != SIGINT) (void)workload->kill(s);
      }
      if (s == SIGUSR2 && sw.signal) switch_now = true;
    }
    if (workload && !st.exit_status) {
      sys::ExitStatus es;
      auto done = workload->try_wait(es);
      if (done && *done) {
        st.exit_status = es;
        st.stop = true;
      }
    }
    if (w.all_hung_up && !plan.system_wide) st.stop = true;
    if (plan.max_size > 0 && !st.stop && rec.written() >= plan.max_size) {
      st.size_limit = true;
      st.stop = true;
      obs.on_size_limit(rec.written());
      if (workload) (void)workload->kill(SIGTERM);
    }
    // --switch-output, while the session goes on (a new file after the workload ended
    // could not describe its maps: /proc has forgotten them).
    if (sw.size > 0) switch_now |= rec.written() >= sw.size;
    if (sw.seconds > 0 && Clock::now() >= next_switch) {
      switch_now = true;
      next_switch = Clock::now() + std::chrono::seconds(sw.seconds);
    }
    if (switch_now && !st.stop && !st.exit_status) PERFX_CHECK(rec.switch_file());
    return {};
  };
  while (!st.stop) {
    if (auto r = step(); !r) {
      write_error = r.error();
      break;
    }
  }
  (void)sampler.disable();
  if (!write_error) {
    if (auto r = drain_round(); !r) write_error = r.error();
  }
  reap_workload(target, st);
  (void)sampler.update_lost_from_read();
  const SamplerStats stats = sampler.stats();
  if (!write_error) {
    if (auto r = write_lost_samples(sampler, rec); !r) write_error = r.error();
  }
  // ---- features and build-ids of the DSOs that samples hit
  if (auto r = rec.finish_file(); !r && !write_error) write_error = r.error();
  if (write_error) return tl::unexpected(*write_error);

  RecordResult result = sys::result_of(stats);
  result.bytes = rec.written();
  result.written_name = to_stdout ? std::string("(pipe)") : o.output;
  if (sw.on && !rec.dumped_files().empty() && !rec.has_samples()) {
    // The session ended right after a switch: a last file without samples is not kept.
    (void)::unlink(o.output.c_str());
    result.written_name = o.output + ".<timestamp>";
  } else if (o.timestamp_filename && !to_stdout) {
    // perf writes the file, then renames it: "[ perf record: Dump perf.data.<ts> ]".
    PERFX_CHECK(rec.dump(o.output + "." + current_timestamp()));
    result.written_name = o.output + ".<timestamp>";
  }
  result.dumped_files = rec.dumped_files();
  // A workload stopped for --max-size is not a failure (perf exits 0 then).
  if (st.exit_status && !(st.exit_status->signaled && st.size_limit))
    result.exit_code = st.exit_status->code;
  return result;
}

Result<RecordResult> record_perf_data(const RecordOptions& options, RecordObserver& observer) {
  PERFX_TRY(plan, plan_record(options));
  return run_record_session(std::move(plan), observer);
}

}  // namespace perfx
