#include "profile/sample_replay.hpp"

#include "profile/replay.hpp"
#include "record/perf_data_reader.hpp"
#include "record/regs.hpp"
#include "symbol/dso.hpp"
#include "symbol/machine.hpp"

namespace perfx::profile {

struct SampleReplay::Impl {
  Impl(record::PerfDataReader& r, const SymbolNaming& naming)
      : reader(r), machine(paths_of(naming)) {}
  static symbol::SearchPaths paths_of(const SymbolNaming& naming) {
    symbol::SearchPaths paths;
    paths.buildid_dir = naming.buildid_dir;
    paths.demangle_params = naming.demangle_params;
    paths.demangle = naming.demangle;
    return paths;
  }
  record::PerfDataReader& reader;
  symbol::Machine machine;
  LocationTable table;
  const symbol::ThreadState* current = nullptr;  // the thread of the record in the callback
};

SampleReplay::SampleReplay(record::PerfDataReader& reader, const SymbolNaming& naming)
    : impl_(std::make_unique<Impl>(reader, naming)) {}
SampleReplay::~SampleReplay() = default;

std::size_t SampleReplay::events() const noexcept { return impl_->reader.attrs().size(); }
const raw::EventAttr& SampleReplay::attr(std::size_t index) const noexcept {
  return impl_->reader.attrs()[index].attr;
}
std::string SampleReplay::event_name(std::size_t index) const {
  return impl_->reader.event_name(index);
}
bool SampleReplay::is_pipe() const noexcept { return impl_->reader.is_pipe(); }
std::uint64_t SampleReplay::file_size() const noexcept { return impl_->reader.file_size(); }

Result<TimeFilter> SampleReplay::time_filter(std::string_view spec, bool relative) const {
  return recording_time_filter(impl_->reader, spec, relative);
}
Result<void> SampleReplay::check_cpus(const std::vector<std::uint32_t>& cpus) const {
  return check_cpu_list(impl_->reader, cpus);
}

Result<void> SampleReplay::run(const std::function<bool(const ReplayedRecord&)>& fn) {
  Impl& im = *impl_;
  ReplayThread thread;
  return replay(im.reader, im.machine, [&](const ReplayItem& item) {
    im.current = item.thread;
    const ReplayThread* t = nullptr;
    if (item.thread != nullptr) {
      thread.pid = item.thread->pid;
      thread.tid = item.thread->tid;
      thread.comm = item.thread->comm;
      thread.identity = item.thread;
      t = &thread;
    }
    return fn(ReplayedRecord{item.record, item.raw.offset, t});
  });
}

bool SampleReplay::sample_locations(const ReplayedRecord& item, const record::Sample& sample,
                                    bool callchains, std::vector<std::uint32_t>& out,
                                    std::vector<std::uint64_t>* ips, std::size_t* first_unwound) {
  Impl& im = *impl_;
  return profile::sample_locations(im.machine, *im.current, sample, item.record.header.misc,
                                   callchains, im.table, out, ips, first_unwound);
}

LocationView SampleReplay::location(std::uint32_t id, bool srcline) {
  Impl& im = *impl_;
  const Location& loc = im.table.location(id);
  const Resolved& res = im.table.resolve(id, srcline, InlineMode::kNone);
  LocationView v;
  v.map_address = loc.map_addr;
  if (loc.dso != nullptr) {
    v.in_dso = true;
    v.dso_long = loc.dso->long_name();
    v.dso_short = loc.dso->short_name();
    if (srcline && res.srcfile.empty()) v.symbol_address = loc.dso->to_symbol_address(loc.map_addr);
  }
  if (res.sym != nullptr) {
    v.has_symbol = true;
    v.symbol = res.sym->name;
    v.symbol_offset = res.sym_addr - res.sym->start;
  }
  v.srcfile = res.srcfile;
  v.line = res.line;
  return v;
}

std::size_t SampleReplay::locations() const noexcept { return impl_->table.size(); }

std::vector<std::string> SampleReplay::inline_scopes(std::uint32_t id, bool srcline) {
  Impl& im = *impl_;
  const Location& loc = im.table.location(id);
  const Resolved& res = im.table.resolve(id, srcline, InlineMode::kNone);
  std::vector<std::string> out;
  if (res.sym == nullptr || loc.dso == nullptr) return out;
  for (auto& scope : loc.dso->inline_chain(res.sym_addr)) out.push_back(std::move(scope.function));
  return out;
}

std::vector<std::string> SampleReplay::skipped() const { return describe_skipped(impl_->reader); }
std::string SampleReplay::damage(const Result<void>& replayed) const {
  return describe_damage(impl_->reader, replayed);
}

std::string format_sample_regs(const record::Regs& regs) { return record::format_regs(regs); }

}  // namespace perfx::profile
