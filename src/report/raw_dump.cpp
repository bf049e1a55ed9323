// perf 6.1's -D text: dump_event() and dump_sample() of util/session.c, and what the
// tools' handlers print for each record type with dump_trace set.
#include "report/raw_dump.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstring>
#include <iterator>
#include <vector>

#include "core/c_hex.hpp"
#include "core/cpu_list_text.hpp"
#include "perfx/regs.hpp"
#include "report/record_text.hpp"

namespace perfx::report {
namespace {

using core::c_alt_hex;

template <typename... Args>
void put(std::string& out, fmt::format_string<Args...> f, Args&&... args) {
  fmt::format_to(std::back_inserter(out), f, std::forward<Args>(args)...);
}

constexpr std::uint64_t kSampleWeightType = PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT;

// ------------------------------------------------------------ the record's header line

// evlist__print_tstamp(): the cpu and time columns of the combined sample_type.
void append_tstamp(std::string& out, const DumpContext& ctx, const record::Record& r) {
  const std::uint32_t type = r.header.type;
  if (type != PERF_RECORD_SAMPLE && !ctx.sample_id_all) {
    out += "-1 -1 ";
    return;
  }
  // perf's perf_sample starts with cpu and time -1 (a user record's: 0).
  std::uint32_t cpu = UINT32_MAX;
  std::uint64_t time = UINT64_MAX;
  if (type >= 64) {
    cpu = 0;
    time = 0;
  } else if (const auto* s = r.get<record::Sample>()) {
    if (s->has(PERF_SAMPLE_CPU)) cpu = s->cpu;
    if (s->has(PERF_SAMPLE_TIME)) time = s->time;
  } else {
    if (r.sample_id.has(PERF_SAMPLE_CPU)) cpu = r.sample_id.cpu;
    if (r.sample_id.has(PERF_SAMPLE_TIME)) time = r.sample_id.time;
  }
  if (ctx.sample_type & PERF_SAMPLE_CPU) put(out, "{} ", cpu);
  if (ctx.sample_type & PERF_SAMPLE_TIME) put(out, "{} ", time);
}

// ------------------------------------------------------------ samples

// perf's branch_type_name() (PERF_BR_*).
std::string_view branch_type_name(unsigned type) {
  static constexpr std::string_view kNames[] = {
      "N/A",    "COND",      "UNCOND",   "IND",  "CALL", "IND_CALL", "RET",   "SYSCALL",
      "SYSRET", "COND_CALL", "COND_RET", "ERET", "IRQ",  "SERROR",   "NO_TX", "EXTEND_ABI"};
  return type < std::size(kNames) ? kNames[type] : "";
}

void append_branch_stack(std::string& out, const record::Sample& s, bool callstack) {
  const auto& bs = s.branch_stack;
  put(out, "{}: nr:{}\n", callstack ? "... branch callstack" : "... branch stack",
      callstack ? bs.nr + 1 : bs.nr);
  for (std::size_t i = 0; i < bs.size(); ++i) {
    const record::BranchEntry e = bs[i];
    if (callstack) {
      if (i == 0) put(out, "..... {:2}: {:016x}\n", i, e.to);
      put(out, "..... {:2}: {:016x}\n", i + 1, e.from);
      continue;
    }
    put(out, "..... {:2}: {:016x} -> {:016x} {} cycles {}{}{}{} {:x} {}\n", i, e.from, e.to,
        e.cycles(), e.mispred() ? "M" : " ", e.predicted() ? "P" : " ", e.abort() ? "A" : " ",
        e.in_tx() ? "T" : " ", static_cast<unsigned>(e.flags >> 33),
        e.type() != 0 ? branch_type_name(e.type()) : "");
  }
}

void append_regs(std::string& out, std::string_view which, const record::Regs& regs) {
  if (regs.abi == 0) return;  // perf keeps no registers for ABI_NONE
  static constexpr std::string_view kAbi[] = {"none", "32-bit", "64-bit"};
  put(out, "... {} regs: mask {:#x} ABI {}\n", which, regs.mask,
      regs.abi < std::size(kAbi) ? kAbi[regs.abi] : "unknown");
  std::size_t i = 0;
  for (unsigned bit = 0; bit < 64; ++bit) {
    if (!((regs.mask >> bit) & 1u)) continue;
    const std::uint64_t v = i < regs.regs.size() ? regs.regs[i] : 0;
    ++i;
    put(out, ".... {:<5} 0x{:016x}\n", x86_64_reg_name(bit), v);
  }
}

// unit_number__scnprintf(), "N/A" for 0.
std::string page_size_name(std::uint64_t size) {
  if (size == 0) return "N/A";
  static constexpr char kUnits[] = "BKMGTPEZY";
  std::size_t i = 0;
  while (size >= 1024 && i + 2 < sizeof(kUnits)) {
    size /= 1024;
    ++i;
  }
  return fmt::format("{}{}", size, kUnits[i]);
}

void append_sample_read(std::string& out, const record::ReadValues& rv) {
  out += "... sample_read:\n";
  if (rv.read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
    put(out, "...... time enabled {:016x}\n", rv.time_enabled);
  if (rv.read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
    put(out, "...... time running {:016x}\n", rv.time_running);
  if (rv.group()) put(out, ".... group nr {}\n", rv.nr);
  for (std::size_t i = 0; i < rv.size(); ++i) {
    const record::ReadValue v = rv[i];
    put(out, "..... id {:016x}, value {:016x}", v.id, v.value);
    if (rv.read_format & PERF_FORMAT_LOST) put(out, ", lost {}", v.lost);
    out += '\n';
  }
}

// dump_sample(), then machine__resolve()'s thread and DSO lines.
void append_sample(std::string& out, const DumpRecord& d, const record::Sample& s) {
  const raw::EventAttr* attr = d.attr;
  // evsel__parse_sample(): pid/tid -1 and the attr's period when not sampled.
  const auto pid = s.has(PERF_SAMPLE_TID) ? static_cast<std::int32_t>(s.pid) : -1;
  const auto tid = s.has(PERF_SAMPLE_TID) ? static_cast<std::int32_t>(s.tid) : -1;
  const std::uint64_t period =
      s.has(PERF_SAMPLE_PERIOD) || attr == nullptr ? s.period : attr->sample_period;
  put(out, "(IP, {:#x}): {}/{}: {} period: {} addr: {}\n", d.record.header.misc, pid, tid,
      c_alt_hex(s.ip), period, c_alt_hex(s.addr));
  if (s.has(PERF_SAMPLE_CALLCHAIN)) {
    put(out, "... FP chain: nr:{}\n", s.callchain.size());
    for (std::size_t i = 0; i < s.callchain.size(); ++i)
      put(out, "..... {:2}: {:016x}\n", i, s.callchain[i]);
  }
  if (s.has(PERF_SAMPLE_BRANCH_STACK)) {
    const bool callstack =
        attr != nullptr && (attr->branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK) != 0;
    append_branch_stack(out, s, callstack);
  }
  if (s.has(PERF_SAMPLE_REGS_USER)) append_regs(out, "user", s.regs_user);
  if (s.has(PERF_SAMPLE_REGS_INTR)) append_regs(out, "intr", s.regs_intr);
  if (s.has(PERF_SAMPLE_STACK_USER)) {
    // perf's size is the dynamic size; its offset that of the copy's size field (the
    // u64 before the copy) in the record.
    const std::uint64_t size = s.stack_user.size == 0 ? 0 : s.stack_user.dyn_size;
    std::size_t offset = 0;
    if (s.stack_user.size != 0 && !d.bytes.empty())
      offset = static_cast<std::size_t>(s.stack_user.data.data() - d.bytes.data()) - 8;
    put(out, "... ustack: size {}, offset {:#x}\n", size, offset);
  }
  if (s.sample_type & kSampleWeightType) {
    if (s.has(PERF_SAMPLE_WEIGHT_STRUCT))
      put(out, "... weight: {},{:#x},{:#x}\n", s.weight_var1_dw(), s.weight_var2_w(),
          s.weight_var3_w());
    else
      put(out, "... weight: {}\n", s.weight);
  }
  if (s.has(PERF_SAMPLE_DATA_SRC)) put(out, " . data_src: 0x{:x}\n", s.data_src);
  if (s.has(PERF_SAMPLE_PHYS_ADDR)) put(out, " .. phys_addr: 0x{:x}\n", s.phys_addr);
  if (s.has(PERF_SAMPLE_DATA_PAGE_SIZE))
    put(out, " .. data page size: {}\n", page_size_name(s.data_page_size));
  if (s.has(PERF_SAMPLE_CODE_PAGE_SIZE))
    put(out, " .. code page size: {}\n", page_size_name(s.code_page_size));
  if (s.has(PERF_SAMPLE_TRANSACTION)) put(out, "... transaction: {:x}\n", s.transaction);
  if (s.has(PERF_SAMPLE_READ)) append_sample_read(out, s.read);
  if (d.resolved != nullptr) {
    put(out, " ... thread: {}:{}\n", d.resolved->comm, d.resolved->tid);
    put(out, " ...... dso: {}\n", d.resolved->dso.empty() ? "<not found>" : d.resolved->dso);
  }
}

// ------------------------------------------------------------ perf's user records

// cpu_map__snprint(): runs of consecutive CPUs as "a-b", joined by ",".
// cpu_map__snprint() of perf's map (cpu_map__new_data() keeps the record's order): an
// empty map is perf's single "-1" (perf_cpu_map__cpu() past the end).
std::string cpu_map_text(const record::CpuMap& map) {
  const std::vector<int> cpus = map.cpus();
  return cpus.empty() ? std::string("-1") : core::format_cpus(cpus);
}

// perf_event__fprintf_event_update()
void append_event_update(std::string& out, const record::EventUpdate& u) {
  using record::EventUpdateType;
  put(out, "\n... id:    {}\n", u.id);
  switch (static_cast<EventUpdateType>(u.type)) {
    case EventUpdateType::kUnit:
      put(out, "... unit:  {}\n", u.text());
      break;
    case EventUpdateType::kScale:
      put(out, "... scale: {:f}\n", u.scale());
      break;
    case EventUpdateType::kName:
      put(out, "... name:  {}\n", u.text());
      break;
    case EventUpdateType::kCpus:
      put(out, "... {}\n", cpu_map_text(u.cpus()));
      break;
    default:
      out += "... unknown type\n";
  }
}

// perf_event__fprintf_thread_map(): " nr: 2 threads: 10, 11".
void append_thread_map(std::string& out, const record::ThreadMap& map) {
  put(out, " nr: {} thread{}: ", map.size(), map.size() > 1 ? "s" : "");
  for (std::size_t i = 0; i < map.size(); ++i)
    put(out, "{}{}", i != 0 ? ", " : "", static_cast<std::int32_t>(map[i].pid));
  out += '\n';
}

// perf_event__fprintf_stat_config(): perf_event__read_stat_config()'s three values (perf's
// uninitialised defaults for a missing tag: 0 here).
void append_stat_config(std::string& out, const record::StatConfig& sc) {
  using record::StatConfigTag;
  put(out, "\n... aggr_mode {}\n... scale     {}\n... interval  {}\n",
      static_cast<std::int32_t>(sc.get(StatConfigTag::kAggrMode, 0)),
      static_cast<std::int32_t>(sc.get(StatConfigTag::kScale, 0) != 0),
      static_cast<std::uint32_t>(sc.get(StatConfigTag::kInterval, 0)));
}

void append_id_index(std::string& out, const record::IdIndex& idx) {
  put(out, " nr: {}\n", idx.nr);
  for (std::size_t i = 0; i + 3 < idx.entries.size() && i / 4 < idx.nr; i += 4) {
    put(out, " ... id: {}  idx: {}  cpu: {}  tid: {}\n", idx.entries[i], idx.entries[i + 1],
        static_cast<std::int64_t>(idx.entries[i + 2]),
        static_cast<std::int64_t>(idx.entries[i + 3]));
  }
}

void append_time_conv(std::string& out, const record::TimeConv& tc) {
  put(out, "\n... Time Shift      {}\n... Time Muliplier  {}\n... Time Zero       {}\n",
      tc.time_shift, tc.time_mult, tc.time_zero);
  if (tc.extended) {
    put(out, "... Time Cycles     {}\n... Time Mask       {:#x}\n", tc.time_cycles, tc.time_mask);
    put(out, "... Cap Time Zero   {}\n... Cap Time Short  {}\n", tc.cap_user_time_zero,
        tc.cap_user_time_short);
  }
}

// perf stat record's records: the default tools' stubs print them and ": unhandled!"
// (report, annotate, diff); perf script's handlers print THREAD_MAP and CPU_MAP only (its
// stat table follows a STAT_ROUND). False for other records.
bool append_stat_records(std::string& out, const record::Record& r, DumpTool tool) {
  const bool script = tool == DumpTool::kScript;
  if (const auto* m = r.get<record::ThreadMap>()) {
    append_thread_map(out, *m);
  } else if (const auto* c = r.get<record::CpuMap>()) {
    put(out, ": {}\n", cpu_map_text(*c));
  } else if (const auto* sc = r.get<record::StatConfig>()) {
    if (!script) append_stat_config(out, *sc);
  } else if (const auto* st = r.get<record::Stat>()) {
    if (!script) {
      put(out, "\n... id {}, cpu {}, thread {}\n", st->id, static_cast<std::int32_t>(st->cpu),
          static_cast<std::int32_t>(st->thread));
      put(out, "... value {}, enabled {}, running {}\n", st->val, st->ena, st->run);
    }
  } else if (const auto* round = r.get<record::StatRound>()) {
    if (!script) {
      put(out, "\n... time {}, type {}\n", round->time,
          round->type == record::kStatRoundFinal ? "FINAL" : "INTERVAL");
    }
  } else {
    return false;
  }
  if (!script) out += ": unhandled!\n";
  return true;
}

// The text after "PERF_RECORD_<TYPE>" of a record perf handles in its session (user
// records) or through the tool's handlers (kernel records).
void append_body(std::string& out, const DumpContext& ctx, const DumpRecord& d) {
  const record::Record& r = d.record;
  const std::uint32_t type = r.header.type;
  constexpr std::string_view kUnhandled = ": unhandled!\n";
  if (const auto* s = r.get<record::Sample>()) return append_sample(out, d, *s);
  if (type == PERF_RECORD_LOST) {
    if (const auto* l = r.get<record::Lost>()) put(out, ": id:{}: lost:{}\n", l->id, l->lost);
    return;
  }
  if (type == PERF_RECORD_CGROUP && ctx.tool == DumpTool::kAnnotate) {
    out += kUnhandled;  // perf annotate has no cgroup handler
    return;
  }
  if (std::string text = side_band_text(r); !text.empty()) {
    // side_band_text() starts with "PERF_RECORD_<TYPE>", which the caller printed.
    const std::size_t name_end =
        std::string_view("PERF_RECORD_").size() + record::record_type_name(type).size();
    out.append(text, std::min(name_end, text.size()));
    return;
  }
  if (const auto* ls = r.get<record::LostSamples>()) {
    put(out, ": id:{}: lost samples :{}\n", r.sample_id.id, ls->lost);
    return;
  }
  if (const auto* a = r.get<record::Aux>()) {
    put(out, " offset: {} size: {} flags: {} [{}{}{}]\n", c_alt_hex(a->aux_offset),
        c_alt_hex(a->aux_size), c_alt_hex(a->flags), (a->flags & 1u) ? "T" : "",
        (a->flags & 2u) ? "O" : "", (a->flags & 4u) ? "P" : "");
    return;
  }
  if (const auto* it = r.get<record::ItraceStart>()) {
    put(out, " pid: {} tid: {}\n", it->pid, it->tid);
    return;
  }
  if (const auto* hw = r.get<record::AuxOutputHwId>()) {
    put(out, " hw_id: {}\n", c_alt_hex(hw->hw_id));
    return;
  }
  if (const auto* rd = r.get<record::Read>()) {
    // dump_read(): the first value (perf's event->read.value), then the read_format's.
    const auto& v = rd->values;
    const record::ReadValue first = v.size() > 0 ? v[0] : record::ReadValue{};
    put(out, ": {} {} {} {}\n", static_cast<std::int32_t>(rd->pid),
        static_cast<std::int32_t>(rd->tid), d.event_name, first.value);
    if (v.read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
      put(out, "... time enabled : {}\n", v.time_enabled);
    if (v.read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
      put(out, "... time running : {}\n", v.time_running);
    if (v.read_format & PERF_FORMAT_ID) put(out, "... id           : {}\n", first.id);
    if (v.read_format & PERF_FORMAT_LOST) put(out, "... lost         : {}\n", first.lost);
    return;
  }
  if (const auto* idx = r.get<record::IdIndex>()) {
    if (ctx.tool == DumpTool::kDiff) {
      out += kUnhandled;
      return;
    }
    return append_id_index(out, *idx);
  }
  if (const auto* a = r.get<record::Auxtrace>()) {
    put(out, " size: {}  offset: {}  ref: {}  idx: {}  tid: {}  cpu: {}\n", c_alt_hex(a->size),
        c_alt_hex(a->offset), c_alt_hex(a->reference), a->idx, static_cast<std::int32_t>(a->tid),
        static_cast<std::int32_t>(a->cpu));
    return;
  }
  if (const auto* tc = r.get<record::TimeConv>()) {
    append_time_conv(out, *tc);
    out += kUnhandled;
    return;
  }
  if (append_stat_records(out, r, ctx.tool)) return;
  if (const auto* u = r.get<record::EventUpdate>()) {
    append_event_update(out, *u);
    if (ctx.tool == DumpTool::kAnnotate || ctx.tool == DumpTool::kDiff) out += kUnhandled;
    return;
  }
  switch (type) {
    case PERF_RECORD_THROTTLE:
    case PERF_RECORD_UNTHROTTLE:
    case raw::PERF_RECORD_FINISHED_INIT:
    case raw::PERF_RECORD_AUXTRACE_INFO:
    case raw::PERF_RECORD_AUXTRACE_ERROR:
      out += kUnhandled;
      return;
    case raw::PERF_RECORD_FINISHED_ROUND:
      out += '\n';
      return;
    default:
      // HEADER_ATTR, EVENT_TYPE, TRACING_DATA, BUILD_ID, FEATURE: perf's handlers print
      // nothing, the next record's blank line ends the line.
      return;
  }
}

}  // namespace

void append_hex_block(std::string& out, std::span<const std::byte> bytes) {
  put(out, ".\n. ... raw event: size {} bytes\n", bytes.size());
  for (std::size_t line = 0; line < bytes.size(); line += 16) {
    const std::size_t n = std::min<std::size_t>(16, bytes.size() - line);
    put(out, ".  {:04x}: ", line);
    for (std::size_t i = 0; i < 16; ++i) {
      if (i < n)
        put(out, " {:02x}", static_cast<unsigned>(bytes[line + i]));
      else
        out += "   ";
    }
    out += "  ";
    for (std::size_t i = 0; i < 16; ++i) {
      if (i >= n) {
        out += ' ';
        continue;
      }
      const auto c = static_cast<unsigned char>(bytes[line + i]);
      out += (c < 0x80 && std::isprint(c)) ? static_cast<char>(c) : '.';
    }
    out += '\n';
  }
  out += '\n';
}

void append_raw_dump(std::string& out, const DumpContext& ctx, const DumpRecord& d) {
  const record::Record& r = d.record;
  const std::uint64_t offset = r.offset - std::min(r.offset, ctx.offset_base);
  put(out, "\n{}@{} [{:#x}]: event: {}\n", c_alt_hex(offset), ctx.path, r.header.size,
      r.header.type);
  append_hex_block(out, d.bytes);
  append_tstamp(out, ctx, r);
  const std::string_view name = record::record_type_name(r.header.type);
  put(out, "{} [{:#x}]: PERF_RECORD_{}", c_alt_hex(offset), r.header.size,
      name.empty() ? "UNKNOWN" : name);
  append_body(out, ctx, d);
}

}  // namespace perfx::report
