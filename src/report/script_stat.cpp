#include "report/script_stat.hpp"

#include <fmt/format.h>

#include <iterator>

#include "profile/sample_replay.hpp"
#include "profile/stat_folder.hpp"

namespace perfx::report {

ScriptStatTable::ScriptStatTable(profile::SampleReplay& replay)
    : folder_(std::make_unique<profile::StatFolder>(replay.reader(), replay.input_name(), false)) {}

ScriptStatTable::~ScriptStatTable() = default;

Result<void> ScriptStatTable::on(const record::Record& r, std::uint64_t offset, std::string& out) {
  PERFX_CHECK(folder_->on(r, offset));
  const auto* round = r.get<record::StatRound>();
  if (round == nullptr || !folder_->current) return {};
  auto text = std::back_inserter(out);
  if (!header_printed_) {
    fmt::format_to(text, "{:>3} {:>8} {:>15} {:>15} {:>15} {:>15} {}\n", "CPU", "THREAD", "VAL",
                   "ENA", "RUN", "TIME", "EVENT");
    header_printed_ = true;
  }
  const CounterSnapshot& s = *folder_->current;
  for (const auto& ev : s.events) {
    for (std::size_t t = 0; t < s.threads.size(); ++t) {
      for (std::size_t c = 0; c < s.cpus.size(); ++c) {
        const std::size_t i = c * s.threads.size() + t;
        const RawCount n = i < ev.instances.size() ? ev.instances[i] : RawCount{};
        fmt::format_to(text, "{:>3} {:>8} {:>15} {:>15} {:>15} {:>15} {}\n", s.cpus[c],
                       s.threads[t], n.value, n.time_enabled, n.time_running, round->time, ev.name);
      }
    }
  }
  return {};
}

}  // namespace perfx::report
