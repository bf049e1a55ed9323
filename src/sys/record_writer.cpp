#include "sys/record_writer.hpp"

#include <linux/perf_event.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "core/build_id_note.hpp"
#include "core/error_format.hpp"
#include "sys/synthesize_tracing.hpp"
#include "sys/system_info_features.hpp"
#include "sys/tracefs.hpp"

namespace perfx::sys {
namespace {

// The features every file of the recording shares: the system's, -k's clock, the
// command line, the groups and the tracepoint formats.
Result<record::Features> plan_features(const RecordPlan& plan) {
  const auto& o = plan.options;
  record::Features features;
  gather_system_features(features, o.version);
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
    PERFX_TRY(root, find_tracefs());
    PERFX_TRY(td, build_tracing_data(root, plan.tracepoints));
    features.tracing_data = std::move(td);
  }
  return features;
}

}  // namespace

std::string current_timestamp() {
  timeval tv{};
  ::gettimeofday(&tv, nullptr);
  tm t{};
  ::localtime_r(&tv.tv_sec, &t);
  char dt[32];
  std::strftime(dt, sizeof(dt), "%Y%m%d%H%M%S", &t);
  return fmt::format("{}{:02}", dt, static_cast<unsigned>(tv.tv_usec) / 10000);
}

Result<void> RecordWriter::start(int out_fd) {
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

Result<void> RecordWriter::write(std::span<const std::byte> bytes) {
  for_each_record(bytes, [&](std::span<const std::byte> rec) { tracker_->feed(rec); });
  return writer_->write_bytes(bytes);
}

std::uint64_t RecordWriter::written() const {
  const auto& ws = writer_->stats();
  return ws.compressed_bytes > 0 ? ws.compressed_bytes : ws.data_bytes;
}

Result<bool> RecordWriter::switch_file() {
  PERFX_TRY(synth, synthesize(false));
  if (plan_.follows_workload_only) {
    bool maps = false;
    for_each_record(synth, [&](std::span<const std::byte> rec) {
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

Result<void> RecordWriter::finish_file() {
  if (!writer_->is_pipe()) {
    record::Features file_features = features_;
    if (tracker_->kernel_hit() && o_.build_ids) {
      if (auto id = read_kernel_build_id()) {
        record::BuildIdEntry e;
        e.pid = -1;
        e.misc = PERF_RECORD_MISC_KERNEL;
        e.build_id = *id;
        e.filename = "[kernel.kallsyms]";
        file_features.build_ids.push_back(std::move(e));
      }
    }
    for (const auto& f : o_.build_ids ? tracker_->hit_files() : std::vector<std::string>{}) {
      if (auto id = read_elf_build_id(f)) {
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
      file_features.sample_time = record::SampleTime{tracker_->first_time(), tracker_->last_time()};
    }
    PERFX_CHECK(writer_->set_features(file_features));
  }
  return writer_->finalize();
}

Result<void> RecordWriter::dump(const std::string& dumped) {
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

Result<std::vector<std::byte>> RecordWriter::synthesize(bool first) {
  std::vector<std::byte> synth;
  PERFX_CHECK(synthesize_existing(plan_, target_, layout_, first, obs_, synth));
  return synth;
}

Result<void> RecordWriter::write_existing(const std::vector<std::byte>& synth) {
  for_each_record(synth, [&](std::span<const std::byte> rec) { tracker_->feed(rec); });
  if (!synth.empty()) PERFX_CHECK(writer_->write_bytes(synth));
  return {};
}

}  // namespace perfx::sys
