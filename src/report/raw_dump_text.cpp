#include "report/raw_dump_text.hpp"

#include "core/error_format.hpp"
#include "profile/sample_replay.hpp"
#include "report/record_stats.hpp"

namespace perfx::report {

ReplayDumper::ReplayDumper(profile::SampleReplay& replay, DumpTool tool) : replay_(replay) {
  // perf's names for a stream: "pipe", offsets from after its header.
  ctx_.path = replay.is_pipe() ? std::string("pipe") : replay.input_name();
  ctx_.offset_base = replay.is_pipe() ? 16 : 0;
  ctx_.tool = tool;
  refresh_context();
}

void ReplayDumper::refresh_context() {
  events_seen_ = replay_.events();
  ctx_.sample_type = 0;
  for (std::size_t i = 0; i < events_seen_; ++i) ctx_.sample_type |= replay_.attr(i).sample_type;
  ctx_.sample_id_all = events_seen_ > 0 && replay_.attr(0).sample_id_all != 0;
}

void ReplayDumper::append(std::string& out, const profile::ReplayedRecord& item) {
  const record::Record& r = item.record;
  const bool known_event =
      r.attr_index >= 0 && static_cast<std::size_t>(r.attr_index) < replay_.events();
  const raw::EventAttr* attr =
      known_event ? &replay_.attr(static_cast<std::size_t>(r.attr_index)) : nullptr;
  std::string name;
  if (known_event && r.header.type == PERF_RECORD_READ)
    name = replay_.event_name(static_cast<std::size_t>(r.attr_index));
  DumpResolved resolved;
  const DumpResolved* resolved_ptr = nullptr;
  if (const auto* s = r.get<record::Sample>(); s != nullptr && item.thread != nullptr) {
    resolved.comm = item.thread->comm;
    resolved.tid = item.thread->tid;
    resolved.dso = replay_.sample_dso(item, *s);
    resolved_ptr = &resolved;
  }
  append_raw_dump(out, ctx_, DumpRecord{r, item.bytes, attr, name, resolved_ptr});
  // A stream's HEADER_ATTR joins the events after perf dumped it.
  if (replay_.events() != events_seen_) refresh_context();
}

std::string_view unordered_warning(const profile::SampleReplay& replay) {
  if (replay.is_pipe() || replay.events() == 0 || replay.attr(0).sample_id_all != 0) return {};
  return "WARNING: No sample_id_all support, falling back to unordered processing\n";
}

Result<void> write_raw_dump(std::ostream& out, profile::SampleReplay& replay, DumpTool tool,
                            bool report_header, bool warn_unordered) {
  if (warn_unordered) out << unordered_warning(replay);
  if (report_header)
    out << "# To display the perf.data header info, please use --header/--header-only "
           "options.\n#\n";
  ReplayDumper dumper(replay, tool);
  std::string text;
  auto ok = replay.run(
      [&](const profile::ReplayedRecord& item) {
        dumper.append(text, item);
        if (text.size() >= (1u << 16)) {
          out << text;
          text.clear();
        }
        return static_cast<bool>(out);
      },
      true);
  out << text;
  if (!out) return fail(Errc::kIo, "writing the raw dump failed");
  if (tool == DumpTool::kDiff) {
    if (auto damage = replay.damage(ok); !damage.empty())
      return fail(ok ? Errc::kMalformedData : ok.error().code(), "{}", damage);
    return {};
  }
  return write_record_stats(out, replay.record_counts(ok), tool != DumpTool::kAnnotate);
}

}  // namespace perfx::report
