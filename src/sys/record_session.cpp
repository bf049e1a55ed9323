// The record and live sessions (perfx/record.hpp): a RecordPlan (event/record_plan.hpp)
// run against the kernel, everything worth saying reported to a RecordObserver.
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <optional>

#include "core/error_format.hpp"
#include "perfx/record.hpp"
#include "perfx/sampler.hpp"
#include "sys/reader_affinity.hpp"
#include "sys/record_control.hpp"
#include "sys/record_target.hpp"
#include "sys/record_writer.hpp"
#include "sys/signals.hpp"

namespace perfx {

RecordObserver::~RecordObserver() = default;

namespace {

using Clock = std::chrono::steady_clock;

// The session's stop conditions, checked after each drain.
struct LoopState {
  bool stop = false;
  bool interrupted = false;
  bool size_limit = false;  // --max-size or --control stop: a signaled workload is fine
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
Result<void> write_lost_samples(Sampler& sampler, sys::RecordWriter& rec) {
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

// --overwrite: the backward buffers are read once, at the end (perf's flight recorder).
Result<void> write_snapshot(Sampler& sampler, sys::RecordWriter& rec) {
  PERFX_TRY(records, sampler.snapshot());
  for (const auto& r : records) PERFX_CHECK(rec.write(std::span<const std::byte>(r)));
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
  if (o.start_disabled) {
    obs.on_events_enabled(false);  // -D -1: until --control enables them
  } else if (o.delay_ms > 0) {
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
  sys::RecordWriter rec(plan, target, sampler, obs);
  PERFX_CHECK(rec.start(to_stdout ? out_fd : -1));

  // Ctrl-C reaches the workload through the terminal; perfx itself keeps going until the
  // buffers are drained. A broken output pipe must not kill us silently either.
  ::signal(SIGPIPE, SIG_IGN);
  if (sigpipe) PERFX_CHECK(sampler.add_wait_fd(sigpipe->fd()));
  PERFX_TRY(control, sys::RecordControl::open(plan.control));
  if (control.fd() >= 0) PERFX_CHECK(sampler.add_wait_fd(control.fd()));
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
  sys::ReaderAffinity affinity(o.affinity);  // --affinity
  Sampler::DrainOptions reading;
  if (affinity.active()) reading.before_buffer = [&](int cpu) { affinity.before_buffer(cpu); };
  auto drain_round = [&](bool last) -> Result<void> {
    reading.min_bytes = last ? 1 : plan.mmap_flush;  // --mmap-flush
    PERFX_TRY(n, sampler.drain(sink, reading));
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
    PERFX_CHECK(drain_round(false));
    if (w.extra_ready) {
      PERFX_TRY(stop, control.process(plan, sampler, obs));
      if (stop && !st.stop) {  // perf: the workload gets SIGTERM, the status stays 0
        st.stop = st.size_limit = true;
        if (workload) (void)workload->kill(SIGTERM);
      }
    }
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
    auto r = o.overwrite ? write_snapshot(sampler, rec) : drain_round(true);
    if (!r) write_error = r.error();
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
  if (o.overwrite) result.samples = rec.samples_written();
  result.bytes = rec.written();
  result.written_name = to_stdout ? std::string("(pipe)") : o.output;
  if (sw.on && !rec.dumped_files().empty() && !rec.has_samples()) {
    // The session ended right after a switch: a last file without samples is not kept.
    (void)::unlink(o.output.c_str());
    result.written_name = o.output + ".<timestamp>";
  } else if (o.timestamp_filename && !to_stdout) {
    // perf writes the file, then renames it: "[ perf record: Dump perf.data.<ts> ]".
    PERFX_CHECK(rec.dump(o.output + "." + sys::current_timestamp()));
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
