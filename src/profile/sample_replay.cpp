#include "profile/sample_replay.hpp"

#include <fstream>
#include <unordered_map>

#include "profile/replay.hpp"
#include "profile/symbol_paths.hpp"
#include "record/perf_data_reader.hpp"
#include "record/regs.hpp"
#include "symbol/disassembler.hpp"
#include "symbol/dso.hpp"
#include "symbol/machine.hpp"

namespace perfx::profile {

struct SampleReplay::Impl {
  Impl(record::PerfDataReader& r, const SymbolNaming& naming)
      : reader(r), machine(search_paths(naming)) {}
  record::PerfDataReader& reader;
  symbol::Machine machine;
  LocationTable table;
  RecordCounter counter;                         // of what run() delivered
  const symbol::ThreadState* current = nullptr;  // the thread of the record in the callback
  // insn: the decoder (made on first use) and each location's bytes.
  std::optional<Result<symbol::Disassembler>> disassembler;
  std::unordered_map<std::uint32_t, std::vector<std::uint8_t>> instructions;
  // srccode: each source file's lines (empty when unreadable).
  std::unordered_map<std::string, std::vector<std::string>> sources;
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
const record::PerfDataReader& SampleReplay::reader() const noexcept { return impl_->reader; }
std::uint64_t SampleReplay::file_size() const noexcept { return impl_->reader.file_size(); }
const std::string& SampleReplay::input_name() const noexcept { return impl_->reader.name(); }

Result<TimeFilter> SampleReplay::time_filter(std::string_view spec, bool relative) const {
  return recording_time_filter(impl_->reader, spec, relative);
}
Result<void> SampleReplay::check_cpus(const std::vector<std::uint32_t>& cpus) const {
  return check_cpu_list(impl_->reader, cpus);
}

Result<void> SampleReplay::run(const std::function<bool(const ReplayedRecord&)>& fn,
                               bool as_perf_sees) {
  Impl& im = *impl_;
  ReplayThread thread;
  auto each = [&](const ReplayItem& item) {
    const auto* lost = item.record.get<record::LostSamples>();
    im.counter.add(item.record.header.type, item.record.attr_index, lost ? lost->lost : 0);
    im.current = item.thread;
    const ReplayThread* t = nullptr;
    if (item.thread != nullptr) {
      thread.pid = item.thread->pid;
      thread.tid = item.thread->tid;
      thread.comm = item.thread->comm;
      thread.identity = item.thread;
      t = &thread;
    }
    return fn(ReplayedRecord{item.record, item.raw.offset, t, item.raw.bytes});
  };
  return replay(im.reader, im.machine, each, as_perf_sees);
}

RecordCounts SampleReplay::record_counts(const Result<void>& replayed) const {
  return impl_->counter.finish(impl_->reader, replayed);
}

std::string_view SampleReplay::sample_dso(const ReplayedRecord& item,
                                          const record::Sample& sample) {
  std::vector<std::uint32_t> ids;
  if (item.thread == nullptr) return {};
  (void)sample_locations(item, sample, false, ids, nullptr);
  if (ids.empty()) return {};
  // The map's DSO only: no symbol table is read.
  const Location& loc = impl_->table.location(ids[0]);
  return loc.dso != nullptr ? std::string_view(loc.dso->long_name()) : std::string_view();
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
  v.addr2line_function = res.addr2line_function;
  if (v.addr2line_function && loc.dso != nullptr)
    v.addr2line_file_empty = loc.dso->in_dwarf_unit(res.sym_addr);
  return v;
}

std::size_t SampleReplay::locations() const noexcept { return impl_->table.size(); }

std::vector<InlineScope> SampleReplay::inline_scopes(std::uint32_t id, bool srcline) {
  Impl& im = *impl_;
  const Location& loc = im.table.location(id);
  const Resolved& res = im.table.resolve(id, srcline, InlineMode::kNone);
  std::vector<InlineScope> out;
  if (res.sym == nullptr || loc.dso == nullptr) return out;
  for (auto& scope : loc.dso->inline_chain(res.sym_addr))
    out.push_back({std::move(scope.function), std::move(scope.file), scope.line});
  return out;
}

std::optional<std::pair<std::uint64_t, std::uint64_t>> SampleReplay::clock_reference() const {
  const auto& clock = impl_->reader.features().clock_data;
  if (!clock) return std::nullopt;
  return std::make_pair(clock->wall_clock_ns, clock->clockid_time_ns);
}

std::span<const std::uint8_t> SampleReplay::instruction(std::uint32_t id) {
  Impl& im = *impl_;
  auto [it, inserted] = im.instructions.try_emplace(id);
  std::vector<std::uint8_t>& bytes = it->second;
  if (!inserted) return bytes;
  const Location& loc = im.table.location(id);
  if (loc.dso == nullptr || loc.dso->is_kernel()) return bytes;
  // perf reads up to 16 bytes (MAX_INSN) at the address, fewer at the end of the file.
  std::uint8_t buf[16];
  std::size_t n = sizeof buf;
  while (n > 0 && !loc.dso->read_file(loc.map_addr, buf, n)) --n;
  if (n == 0) return bytes;
  if (!im.disassembler)
    im.disassembler = symbol::Disassembler::open("x86_64", symbol::AsmSyntax::kAtt);
  if (!*im.disassembler) return bytes;
  const auto insns = (*im.disassembler)->disassemble({buf, n}, loc.map_addr);
  if (insns.empty() || insns.front().text == "(bad)" || insns.front().size > n) return bytes;
  bytes.assign(buf, buf + insns.front().size);
  return bytes;
}

std::optional<SampleReplay::SourceCode> SampleReplay::source_code(std::uint32_t id) {
  Impl& im = *impl_;
  const Location& loc = im.table.location(id);
  if (loc.dso == nullptr || loc.dso->is_kernel()) return std::nullopt;
  // Not resolve(): the location may have been resolved without source lines.
  const auto line = loc.dso->srcline(loc.dso->to_symbol_address(loc.map_addr));
  if (!line || line->first.empty() || line->second == 0) return std::nullopt;
  auto [it, inserted] = im.sources.try_emplace(line->first);
  if (inserted) {
    // perf opens the name addr2line gives, relative to the working directory.
    std::ifstream in(line->first, std::ios::binary);
    for (std::string text; std::getline(in, text);) it->second.push_back(std::move(text));
  }
  if (line->second > it->second.size()) return std::nullopt;
  return SourceCode{it->first, line->second, it->second[line->second - 1]};
}

std::vector<std::string> SampleReplay::skipped() const { return describe_skipped(impl_->reader); }
std::string SampleReplay::damage(const Result<void>& replayed) const {
  return describe_damage(impl_->reader, replayed);
}

std::string format_sample_regs(const record::Regs& regs) { return record::format_regs(regs); }

}  // namespace perfx::profile
