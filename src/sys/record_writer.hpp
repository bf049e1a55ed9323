#pragma once
/// \file
/// The perf.data side of a record session (record_session.cpp).

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "perfx/error.hpp"
#include "perfx/record.hpp"
#include "perfx/sampler.hpp"
#include "record/features.hpp"
#include "record/perf_data_writer.hpp"
#include "record/sample_layout.hpp"
#include "sys/record_target.hpp"
#include "sys/synthesize.hpp"

namespace perfx::sys {

/// perf's fetch_current_timestamp(): local time and hundredths, "2026112609350191".
[[nodiscard]] std::string current_timestamp();

/// The file side of a recording: the perf.data being written (features, synthesized
/// records, drained bytes), what its samples hit (build-ids, sample times), and the
/// --switch-output / --timestamp-filename renames. The plan, target, sampler and observer
/// must outlive it.
class RecordWriter {
 public:
  RecordWriter(RecordPlan& plan, RecordTarget& target, Sampler& sampler, RecordObserver& obs)
      : plan_(plan),
        o_(plan.options),
        target_(target),
        sampler_(sampler),
        obs_(obs),
        layout_(record::SampleLayout::from_attr(plan.events[0].attr)),
        tracker_(std::in_place, layout_) {}

  // The file (PerfDataWriter::create() keeps an existing one as <name>.old), its
  // features, and what already runs.
  Result<void> start(int out_fd);

  // Feeds and writes drained ring-buffer bytes.
  Result<void> write(std::span<const std::byte> bytes);
  Result<void> finish_round() { return writer_->finish_round(); }
  Result<void> flush() { return writer_->flush(); }
  [[nodiscard]] std::uint64_t written() const;
  [[nodiscard]] std::uint64_t last_time() const { return tracker_->last_time(); }
  [[nodiscard]] bool has_samples() const { return tracker_->first_time() != 0; }
  [[nodiscard]] std::uint64_t samples_written() const { return tracker_->samples(); }
  [[nodiscard]] bool is_pipe() const { return writer_->is_pipe(); }
  Result<void> write(const record::Record& r) { return writer_->write(r); }

  // --switch-output: the file so far is finished and renamed with its timestamp, and a
  // new one started with the attrs and what already exists. A workload that is exiting
  // has no maps left to describe: a new file would hold its last samples without them,
  // so the current file goes on instead (false).
  Result<bool> switch_file();

  // The features of the file written so far (build-ids of the DSOs its samples hit, its
  // sample times), then its header: the end of a recording or of a --switch-output file.
  Result<void> finish_file();

  // Renames the file just finished (perf's "Dump" line); the oldest beyond
  // --switch-max-files goes.
  Result<void> dump(const std::string& dumped);
  [[nodiscard]] const std::vector<std::string>& dumped_files() const { return dumped_files_; }

 private:
  // What already exists (again in each new file of --switch-output, where the workload
  // has exec'd: its own maps then, not perf's "perfx-exec" placeholder).
  Result<std::vector<std::byte>> synthesize(bool first);
  Result<void> write_existing(const std::vector<std::byte>& synth);

  RecordPlan& plan_;
  const RecordOptions& o_;
  RecordTarget& target_;
  Sampler& sampler_;
  RecordObserver& obs_;
  record::SampleLayout layout_;
  std::optional<HitTracker> tracker_;
  std::vector<record::WriterAttr> wattrs_;
  record::WriterOptions wo_;
  std::optional<record::PerfDataWriter> writer_;
  record::Features features_;
  std::vector<std::string> dumped_files_;
};

}  // namespace perfx::sys
