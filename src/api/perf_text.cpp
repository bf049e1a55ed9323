// perf's text views of a recording (include/perfx/perf_text.hpp): each reads through the
// Recording (profile/recording_access.hpp), then hands plain data to its printer in
// src/report.
#include "perfx/perf_text.hpp"

#include <fmt/format.h>

#include <set>
#include <sstream>

#include "core/build_id_note.hpp"
#include "core/error_format.hpp"
#include "perfx/output_file.hpp"
#include "profile/load.hpp"
#include "profile/record_counts.hpp"
#include "profile/recording_access.hpp"
#include "profile/sample_replay.hpp"
#include "profile/task_list.hpp"
#include "record/features.hpp"
#include "report/annotate.hpp"
#include "report/buildid_list.hpp"
#include "report/evlist_text.hpp"
#include "report/raw_dump_text.hpp"
#include "report/record_stats.hpp"
#include "report/script_text.hpp"
#include "report/task_tree.hpp"
#include "symbol/dso.hpp"

namespace perfx {
namespace {

using detail::RecordingAccess;

std::vector<report::BuildIdLine> build_id_lines(const record::Features& features) {
  std::vector<report::BuildIdLine> lines;
  for (const auto& e : features.build_ids)
    lines.push_back({core::build_id_hex(e.build_id.data(), e.build_id.size()), e.filename});
  return lines;
}

}  // namespace

Result<void> validate_script_fields(const std::vector<std::string>& fields) {
  return report::validate_script_fields(fields);
}

Result<void> write_script(Recording& recording, std::ostream& out, const ScriptOptions& options,
                          std::vector<std::string>* warnings) {
  // -F is checked before the data is read, as perf does.
  PERFX_CHECK(report::validate_script_fields(options.fields));
  PERFX_TRY(reader, RecordingAccess::pass(recording));
  profile::SampleReplay replay(*reader, {.buildid_dir = options.buildid_dir,
                                         .demangle_params = options.demangle_params,
                                         .demangle = options.demangle,
                                         .symfs = options.symfs,
                                         .kallsyms = options.kallsyms,
                                         .vmlinux = options.vmlinux});
  return report::write_script(out, replay, options, warnings);
}

Result<void> write_raw_dump(Recording& recording, std::ostream& out,
                            const RawDumpOptions& options) {
  PERFX_TRY(reader, RecordingAccess::pass(recording));
  profile::SampleReplay replay(*reader, {});
  using Command = RawDumpOptions::Command;
  const report::DumpTool tool = options.command == Command::kAnnotate ? report::DumpTool::kAnnotate
                                : options.command == Command::kDiff   ? report::DumpTool::kDiff
                                                                      : report::DumpTool::kReport;
  return report::write_raw_dump(out, replay, tool,
                                options.command == Command::kReport && !options.quiet,
                                options.warn_unordered);
}

Result<std::vector<EventDump>> write_script_per_event(Recording& recording,
                                                      const std::string& input,
                                                      std::ostream& side_band,
                                                      const ScriptOptions& options,
                                                      std::vector<std::string>* warnings) {
  if (input == "-")
    return fail(Errc::kInvalidArgument, "--per-event-dump needs a file, not a pipe");
  const bool shows_side_band = options.show_task_events || options.show_mmap_events ||
                               options.show_lost_events || options.show_switch_events ||
                               options.show_namespace_events || options.show_cgroup_events ||
                               options.show_bpf_events || options.show_text_poke_events;
  if (shows_side_band) {
    ScriptOptions so = options;
    so.side_band_only = true;
    PERFX_CHECK(write_script(recording, side_band, so, warnings));
  }
  const auto& reader = RecordingAccess::reader(recording);
  std::vector<EventDump> dumps;
  for (std::size_t i = 0; i < reader.attrs().size(); ++i) {
    ScriptOptions so = options;
    so.only_event = i;
    EventDump dump;
    so.samples_written = &dump.samples;
    std::ostringstream text;
    PERFX_CHECK(write_script(recording, text, so, warnings));
    dump.path = fmt::format("{}.{}.dump", input, reader.event_name(i));
    PERFX_TRY(file, OutputFile::create(dump.path, CreateMode::kWholeFile));
    const std::string bytes = std::move(text).str();
    PERFX_CHECK(file.write(bytes.data(), bytes.size()));
    PERFX_CHECK(file.commit());
    dump.bytes = bytes.size();
    dumps.push_back(std::move(dump));
  }
  return dumps;
}

std::string event_dump_line(const EventDump& dump) {
  const std::uint64_t flushed = dump.bytes - dump.bytes % 4096;
  return fmt::format("[ perf script: Wrote {:.3f} MB {} ({} samples) ]",
                     static_cast<double>(flushed) / 1024.0 / 1024.0, dump.path, dump.samples);
}

Result<void> write_record_stats(Recording& recording, std::ostream& out, bool skip_empty) {
  PERFX_TRY(reader, RecordingAccess::pass(recording));
  return report::write_record_stats(out, profile::count_records(*reader), skip_empty);
}

Result<void> write_task_tree(Recording& recording, std::ostream& out, bool mmaps) {
  PERFX_TRY(reader, RecordingAccess::pass(recording));
  PERFX_TRY(tree, profile::build_task_tree(*reader, mmaps));
  return report::write_task_tree(out, tree, mmaps);
}

Result<std::string> evlist_text(Recording& recording, const EvlistOptions& options) {
  PERFX_TRY(reader, RecordingAccess::pass(recording));
  // Pipe mode: the attrs and their names arrive inside the stream.
  PERFX_CHECK(reader->read_to_end());
  if (reader->attrs().size() == 0)
    return fail(Errc::kInvalidArgument, "{}: no events in it", recording.path());
  std::vector<report::EvlistEvent> events;
  for (const auto& e : reader->attrs().entries())
    events.push_back({e.name, e.attr, record::attr_fields(e.attr, ": ")});
  std::vector<report::EvlistGroup> groups;
  for (const auto& g : reader->features().group_desc)
    groups.push_back({g.name, g.leader_idx, g.nr_members});
  return report::evlist_text(events, groups, options);
}

Result<void> write_buildid_list(Recording& recording, std::ostream& out, bool with_hits) {
  const auto lines = build_id_lines(RecordingAccess::reader(recording).features());
  if (!recording.is_pipe() && !with_hits) {
    out << report::buildid_list_text(lines, nullptr);
    return {};
  }
  // -H: the DSOs the samples' instruction pointers fell in (perf marks those only). A
  // stream can be read once: its build-ids (HEADER_FEATURE / HEADER_BUILD_ID records)
  // come with its samples and, as perf does in pipe mode, those of the DSOs its samples
  // hit are added.
  profile::LoadOptions lo;
  lo.callchains = false;
  lo.aggregate = true;
  PERFX_TRY(reader, RecordingAccess::pass(recording));
  PERFX_TRY(prof, profile::load_profile_from(*reader, lo));
  if (recording.is_pipe()) {
    out << report::buildid_list_text(build_id_lines(reader->features()), prof, with_hits);
    if (!prof.damage.empty()) return fail(Errc::kMalformedData, "{}", prof.damage);
    return {};
  }
  const std::set<std::string> hit = report::sampled_dsos(prof);
  out << report::buildid_list_text(lines, &hit);
  return {};
}

std::string running_kernel_build_id() {
  return symbol::running_kernel_build_id(symbol::SearchPaths{}.kernel_notes);
}

Result<AnnotateSummary> write_annotations(const Profile& profile, std::ostream& out,
                                          const AnnotateOptions& options) {
  return report::write_annotations(profile, out, options);
}

}  // namespace perfx
