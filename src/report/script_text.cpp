#include "report/script_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "core/build_id_note.hpp"
#include "core/error_format.hpp"
#include "profile/sample_replay.hpp"
#include "profile/trace_formats.hpp"
#include "report/raw_dump_text.hpp"
#include "report/record_text.hpp"
#include "report/script_stat.hpp"
#include "report/script_writer.hpp"

namespace perfx::report {
namespace {

struct FieldName {
  std::string_view name;
  std::uint32_t bit;
};
constexpr FieldName kFields[] = {
    {"comm", kComm},
    {"tid", kTid},
    {"pid", kPid},
    {"time", kTime},
    {"cpu", kCpu},
    {"event", kEvent},
    {"ip", kIp},
    {"sym", kSym},
    {"symoff", kSymoff},
    {"dso", kDso},
    {"addr", kAddr},
    {"period", kPeriod},
    {"srcline", kSrcline},
    {"trace", kTrace},
    {"iregs", kIregs},
    {"uregs", kUregs},
    {"insn", kInsn},
    {"insnlen", kInsnlen},
    {"flags", kFlags},
    {"callindent", kCallindent},
    {"srccode", kSrccode},
    {"misc", kMisc},
    {"tod", kTod},
    {"weight", kWeight},
    {"phys_addr", kPhysAddr},
};

std::uint32_t field_bit(std::string_view n) {
  for (const auto& f : kFields)
    if (f.name == n) return f.bit;
  return 0;
}

// C's "%#lx": "0" for zero, "0x..." otherwise.

}  // namespace

namespace {

// perf script's -F grammar: [type:]field,... where a field may be +field (add to the
// defaults) or -field (remove from them); a type prefix (hw, sw, trace, raw, break)
// makes the fields that follow apply to events of that type only.
struct FieldSpec {
  std::uint32_t set = 0;     ///< plain fields: replace the defaults
  std::uint32_t add = 0;     ///< +field
  std::uint32_t remove = 0;  ///< -field
};
struct FieldSpecs {
  FieldSpec all;                                             ///< no type prefix
  std::vector<std::pair<std::uint32_t, FieldSpec>> by_type;  ///< attr.type -> spec
};

std::optional<std::uint32_t> field_type_prefix(std::string_view p) {
  if (p == "hw") return PERF_TYPE_HARDWARE;
  if (p == "sw") return PERF_TYPE_SOFTWARE;
  if (p == "trace") return PERF_TYPE_TRACEPOINT;
  if (p == "raw") return PERF_TYPE_RAW;
  if (p == "break") return PERF_TYPE_BREAKPOINT;
  return std::nullopt;
}

Result<FieldSpecs> parse_script_fields(const std::vector<std::string>& fields) {
  FieldSpecs specs;
  FieldSpec* cur = &specs.all;
  for (std::string_view f : fields) {
    if (const auto colon = f.find(':'); colon != std::string_view::npos) {
      const auto type = field_type_prefix(f.substr(0, colon));
      if (!type) {
        return fail(Errc::kInvalidArgument,
                    "unknown -F event type '{}' (valid: hw, sw, trace, raw, break)",
                    f.substr(0, colon));
      }
      specs.by_type.emplace_back(*type, FieldSpec{});
      cur = &specs.by_type.back().second;
      f.remove_prefix(colon + 1);
      if (f.empty()) continue;
    }
    char mode = 0;
    if (!f.empty() && (f.front() == '+' || f.front() == '-')) {
      mode = f.front();
      f.remove_prefix(1);
    }
    const std::uint32_t bit = field_bit(f);
    if (bit == 0) {
      return fail(Errc::kInvalidArgument,
                  "unknown -F field '{}' (valid: comm, tid, pid, time, cpu, event, ip, sym, "
                  "symoff, dso, addr, period, srcline, trace, iregs, uregs, insn, insnlen, flags, "
                  "callindent, srccode, misc, tod, weight, phys_addr; +field adds to the defaults, "
                  "-field removes)",
                  f);
    }
    (mode == '+' ? cur->add : mode == '-' ? cur->remove : cur->set) |= bit;
    if (cur->set != 0 && (cur->add | cur->remove) != 0) {
      return fail(Errc::kInvalidArgument, "Cannot mix +-field with overridden fields");
    }
  }
  return specs;
}

}  // namespace

Result<void> validate_script_fields(const std::vector<std::string>& fields) {
  PERFX_TRY(specs, parse_script_fields(fields));
  (void)specs;
  return {};
}

namespace {

// The text of each code location for one set of fields, made on the replay thread the
// first time the location is printed and kept at a stable address: rows in flight point
// at it while a worker formats them.
class LocationTexts {
 public:
  LocationTexts(profile::SampleReplay& replay, std::uint32_t fields, bool full_source_path)
      : replay_(replay), fields_(fields), full_source_path_(full_source_path) {}
  [[nodiscard]] std::uint32_t fields() const noexcept { return fields_; }

  /// Location `id` as a line of a callchain block; `scopes`: one line per inline scope
  /// (DWARF-unwound frames, see with_scopes()).
  ScriptFrame chain_frame(std::uint32_t id, std::uint64_t ip, bool scopes) {
    Text& t = text(id);
    // Without a DSO perf shows the raw ip, which the location does not pin down.
    if (!t.in_dso) return {&t.tail, ip, ScriptFrame::Kind::kIpTail};
    return {scopes ? &with_scopes(id, t) : &t.line, 0, ScriptFrame::Kind::kWhole};
  }

  /// Location `id` at the end of the sample's own line, after `ip`.
  ScriptFrame line_frame(std::uint32_t id, std::uint64_t ip) {
    return {&text(id).tail, ip,
            (fields_ & kIp) ? ScriptFrame::Kind::kIpTail : ScriptFrame::Kind::kTail};
  }

 private:
  struct Text {
    std::string tail;    // " sym+0xoff (dso)" (+ "\n  srcline"), what follows the ip
    std::string line;    // "\t<ip> <tail>\n" for a location in a DSO
    std::string scoped;  // line, or one line per inline scope; made on first use
    bool in_dso = false;
    bool scoped_made = false;
  };

  Text& text(std::uint32_t id) {
    if (id < by_id_.size() && by_id_[id] != nullptr) return *by_id_[id];
    if (by_id_.size() <= id) by_id_.resize(replay_.locations(), nullptr);
    Text& t = texts_.emplace_back();
    const profile::LocationView loc = replay_.location(id, (fields_ & kSrcline) != 0);
    t.tail = make_tail(loc, true);
    if (loc.in_dso) {
      t.in_dso = true;
      TextBuffer b;
      b.push_back('\t');
      b.hex_right(loc.map_address, 16);
      b.append(t.tail);
      b.push_back('\n');
      t.line = b.view();
    }
    by_id_[id] = &t;
    return t;
  }

  std::string make_tail(const profile::LocationView& loc, bool with_srcline) {
    const std::uint32_t f =
        with_srcline ? fields_ : fields_ & ~static_cast<std::uint32_t>(kSrcline);
    fmt::memory_buffer t;
    auto ti = fmt::appender(t);
    if (f & kSym) {
      if (loc.has_symbol) {
        fmt::format_to(ti, " {}", loc.symbol);
        if (f & kSymoff) fmt::format_to(ti, "+{:#x}", loc.symbol_offset);
      } else {
        fmt::format_to(ti, " [unknown]");
      }
    }
    if (f & kDso) fmt::format_to(ti, " ({})", loc.in_dso ? loc.dso_long : "[unknown]");
    if (f & kSrcline) {
      if (!loc.srcfile.empty()) {
        fmt::format_to(ti, "\n  {}:{}", source_file(loc.srcfile), loc.line);
      } else if (loc.addr2line_function) {
        // addr2line named only the function: perf's "??:0" is not printed, ":0" is.
        if (loc.addr2line_file_empty) fmt::format_to(ti, "\n  :0");
      } else if (loc.in_dso) {
        fmt::format_to(ti, "\n  {}[{:x}]", loc.dso_short, loc.symbol_address);  // get_srcline()
      }
    }
    return fmt::to_string(t);
  }

  // perf's append_inlines() (6.1: DWARF-unwound frames only, not callchain ones): a frame
  // whose DWARF has inline scopes is shown as one line per scope, innermost first; a
  // scope that DWARF names like the ELF symbol is that symbol (with its DSO), any other
  // is "(inlined)". With srcline, each scope has its own line (the address's for the
  // innermost, the call site of the inner scope for the others), as perf's inline list
  // gives them; where addr2line names the function but knows no line, perf prints
  // "??:0". Looked up only here: resolving inline scopes for every location would read
  // (and decompress) the DWARF of every DSO a frame-pointer chain touches.
  const std::string& with_scopes(std::uint32_t id, Text& t) {
    if (t.scoped_made) return t.scoped;
    t.scoped_made = true;
    const bool srcline = (fields_ & kSrcline) != 0;
    const auto scopes = replay_.inline_scopes(id, srcline);
    const profile::LocationView loc = replay_.location(id, srcline);
    TextBuffer b;
    auto lead = [&] {
      b.push_back('\t');
      b.hex_right(loc.map_address, 16);
    };
    if (scopes.empty()) {
      if (!srcline || !loc.srcfile.empty() || !loc.addr2line_function) {
        t.scoped = t.line;
        return t.scoped;
      }
      lead();
      b.append(make_tail(loc, false));
      b.append(loc.addr2line_file_empty ? "\n  :0\n" : "\n  ??:0\n");
      t.scoped = b.view();
      return t.scoped;
    }
    const std::string symbol_tail = srcline ? make_tail(loc, false) : std::string();
    for (const auto& scope : scopes) {
      const bool inlined = scope.function != loc.symbol;
      if (!inlined && !srcline) {
        b.append(t.line);
        continue;
      }
      lead();
      if (inlined) {
        if (fields_ & kSym) {
          b.push_back(' ');
          b.append(scope.function);
          if (fields_ & kSymoff) b.append(fmt::format("+{:#x}", loc.symbol_offset));
        }
      } else {
        b.append(symbol_tail);
      }
      if (srcline) b.append(fmt::format("\n  {}:{}", source_file(scope.file), scope.line));
      b.append(inlined ? " (inlined)\n" : "\n");
    }
    t.scoped = b.view();
    return t.scoped;
  }

  // The file name as perf prints it: its last component unless --full-source-path.
  [[nodiscard]] std::string_view source_file(std::string_view file) const {
    const auto slash = full_source_path_ ? std::string_view::npos : file.rfind('/');
    return slash == std::string_view::npos ? file : file.substr(slash + 1);
  }

  profile::SampleReplay& replay_;
  const std::uint32_t fields_;
  const bool full_source_path_;
  std::vector<Text*> by_id_;
  std::deque<Text> texts_;  // deque: growing keeps the addresses rows point at
};

// Thread names as of each sample, interned at stable addresses (a thread's comm changes
// on exec while rows naming the old one are still in flight).
class CommNames {
 public:
  const std::string* of(const profile::ReplayThread* t) {
    if (t == nullptr) return &unknown_;
    // Runs of samples come from one thread: skip the hash lookup for those.
    if (t->identity == last_thread_ && *last_ == t->comm) return last_;
    const std::string*& slot = by_thread_[t->identity];
    if (slot == nullptr || *slot != t->comm) slot = &*names_.emplace(t->comm).first;
    last_thread_ = t->identity;
    last_ = slot;
    return slot;
  }

 private:
  const std::string unknown_ = ":-1";
  const void* last_thread_ = nullptr;
  const std::string* last_ = nullptr;
  std::unordered_map<const void*, const std::string*> by_thread_;
  std::unordered_set<std::string> names_;
};

// Per attr: the fields to print and how.
struct AttrInfo {
  std::uint32_t fields = 0;
  std::string name;
  std::string column;  // the name right-aligned to the longest event name (perf's)
  bool tracepoint = false;
  bool callchain = false;
  bool checked = false;
  bool inline_scopes = false;  // unwound callchain frames show their inline scopes
  LocationTexts* texts = nullptr;
};

// Which side-band records are shown (perf script's --show-*-events).
bool shows_side_band(const record::Record& r, const ScriptOptions& o) {
  if (r.get<record::Comm>() || r.get<record::Fork>() || r.get<record::Exit>())
    return o.show_task_events;
  if (r.get<record::Mmap>() || r.get<record::Mmap2>()) return o.show_mmap_events;
  if (r.get<record::Lost>()) return o.show_lost_events;
  if (r.get<record::Switch>() || r.get<record::SwitchCpuWide>()) return o.show_switch_events;
  if (r.get<record::Namespaces>()) return o.show_namespace_events;
  if (r.get<record::Cgroup>()) return o.show_cgroup_events;
  if (r.get<record::Ksymbol>()) return o.show_bpf_events || o.show_text_poke_events;
  if (r.get<record::BpfEvent>()) return o.show_bpf_events;
  if (r.get<record::TextPoke>()) return o.show_text_poke_events;
  return false;
}

// perf script's sample filters (process_sample_event(): --time, filter_cpu(), then
// machine__resolve()'s thread, DSO and symbol tests of the sample's own ip).
class SampleFilter {
 public:
  SampleFilter(const ScriptOptions& o, profile::TimeFilter time) : o_(o), time_(std::move(time)) {}

  /// filter_cpu(): a CPU not listed (a record without one, -1, passes).
  [[nodiscard]] bool skips_cpu(std::uint32_t cpu) const {
    return !o_.cpus.empty() && cpu != 0xffffffffu && !listed(o_.cpus, cpu);
  }
  /// Everything but the DSO and symbol.
  [[nodiscard]] bool keeps(const profile::ReplayThread* t, const record::Sample& s) const {
    if (time_.skip(s.time) || skips_cpu(s.cpu)) return false;
    if (o_.thread_filter.empty()) return true;
    return t != nullptr && o_.thread_filter.keeps(t->comm, t->pid, t->tid);
  }
  [[nodiscard]] bool by_location() const { return !o_.dsos.empty() || !o_.symbols.empty(); }
  /// The DSO and symbol tests of the sample's ip, resolved (`ip`: its runtime address).
  [[nodiscard]] bool keeps_location(const profile::LocationView& loc, std::uint64_t ip) const {
    if (!o_.dsos.empty() && (!loc.in_dso || !(listed(o_.dsos, std::string(loc.dso_short)) ||
                                              listed(o_.dsos, std::string(loc.dso_long)))))
      return false;
    if (o_.symbols.empty()) return true;
    if (!loc.has_symbol) return false;
    return listed(o_.symbols, std::string(loc.symbol)) ||
           listed(o_.symbols, fmt::format("{:#x}", ip - loc.symbol_offset));
  }

 private:
  template <typename T>
  static bool listed(const std::vector<T>& v, const T& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  }
  const ScriptOptions& o_;
  profile::TimeFilter time_;
};

// --reltime / --deltatime: the time column as perf_sample__fprintf_start() shifts it.
class TimeShift {
 public:
  explicit TimeShift(ScriptOptions::TimeBase base) : base_(base) {}
  std::uint64_t operator()(std::uint64_t t) {
    switch (base_) {
      case ScriptOptions::TimeBase::kAbsolute:
        return t;
      case ScriptOptions::TimeBase::kRelative:
        if (initial_ == 0) initial_ = t;
        return t - initial_;
      case ScriptOptions::TimeBase::kDelta: {
        const std::uint64_t d = previous_ != 0 ? t - previous_ : 0;
        previous_ = t;
        return d;
      }
    }
    return t;
  }

 private:
  ScriptOptions::TimeBase base_;
  std::uint64_t initial_ = 0;
  std::uint64_t previous_ = 0;
};

// perf_sample__fprintf_insn(): " ilen: N" and " insn: xx xx ..." (the bytes only when
// there are some).
void append_insn(TextBuffer& out, std::uint32_t fields, std::span<const std::uint8_t> bytes) {
  if (fields & kInsnlen) out.append(fmt::format(" ilen: {}", bytes.size()));
  if ((fields & kInsn) && !bytes.empty()) {
    out.append(" insn:");
    for (const std::uint8_t b : bytes) out.append(fmt::format(" {:02x}", b));
  }
}

// perf's srccode_state: a thread's source line is printed again only after another one.
class SourceCodeState {
 public:
  bool fresh(const profile::ReplayThread* thread, const profile::SampleReplay::SourceCode& code) {
    auto& last = last_[thread->identity];
    if (last.first == code.file && last.second == code.line) return false;
    last = {std::string(code.file), code.line};
    return true;
  }

 private:
  std::unordered_map<const void*, std::pair<std::string, std::uint32_t>> last_;
};

// Worker threads formatting beside the replay thread: one per other core, up to two
// (replay stays the slower half, so more would idle).
unsigned format_workers(unsigned threads) {
  if (threads == 0) threads = std::min(3u, std::max(1u, std::thread::hardware_concurrency()));
  return threads - 1;
}

}  // namespace

Result<void> write_script(std::ostream& out, profile::SampleReplay& replay,
                          const ScriptOptions& options, std::vector<std::string>* warnings) {
  PERFX_TRY(specs, parse_script_fields(options.fields));
  profile::TimeFilter time_filter;
  if (!options.time.empty()) {
    PERFX_TRY(tf, replay.time_filter(options.time,
                                     options.time_base == ScriptOptions::TimeBase::kRelative));
    time_filter = std::move(tf);
  }
  PERFX_CHECK(replay.check_cpus(options.cpus));
  SampleFilter filter(options, std::move(time_filter));
  TimeShift shift_time(options.time_base);
  std::optional<ScriptClock> clock;
  if (auto ref = replay.clock_reference()) clock = ScriptClock{ref->first, ref->second};
  SourceCodeState srccode_state;

  std::deque<AttrInfo> attrs;                         // deque: rows point at the names
  std::vector<std::unique_ptr<LocationTexts>> texts;  // one per distinct field set
  profile::TraceFormats formats;
  Result<void> field_error{};

  auto texts_for = [&](std::uint32_t fields) {
    for (const auto& t : texts)
      if (t->fields() == fields) return t.get();
    return texts
        .emplace_back(std::make_unique<LocationTexts>(replay, fields, options.full_source_path))
        .get();
  };
  // perf script's layout choices over the whole event list: event names right-aligned to
  // the longest (evlist__max_name_len()); and when a tracepoint has callchains, every
  // tracepoint's default fields add ip, sym, symoff and dso (not in pipe mode, where
  // perf knows no events yet when it decides).
  std::size_t name_width = 0;
  bool tracepoint_chains = false;
  for (std::size_t i = 0; i < replay.events(); ++i) {
    name_width = std::max(name_width, replay.event_name(i).size());
    const auto& attr = replay.attr(i);
    if (attr.type == PERF_TYPE_TRACEPOINT && (attr.sample_type & PERF_SAMPLE_CALLCHAIN) &&
        !replay.is_pipe() && !options.hide_call_graph)
      tracepoint_chains = true;
  }
  auto attr_info = [&](int index) -> AttrInfo& {
    const std::size_t i = index < 0 ? 0 : static_cast<std::size_t>(index);
    if (attrs.size() <= i) attrs.resize(i + 1);
    AttrInfo& a = attrs[i];
    if (a.checked || i >= replay.events()) return a;
    a.checked = true;
    const auto& attr = replay.attr(i);
    a.name = replay.event_name(i);
    a.column = fmt::format("{:>{}}", a.name, name_width);
    a.tracepoint = attr.type == PERF_TYPE_TRACEPOINT;
    a.callchain = (attr.sample_type & PERF_SAMPLE_CALLCHAIN) != 0 && !options.hide_call_graph;
    const std::uint64_t st = attr.sample_type;
    FieldSpec spec = specs.all;
    for (const auto& [type, ts] : specs.by_type) {
      if (type == attr.type) spec = ts;
    }
    const std::uint32_t user_fields = spec.set;
    if (user_fields != 0) {
      a.fields = user_fields;
    } else if (a.tracepoint) {
      a.fields = kComm | kTid | kCpu | kTime | kEvent | kTrace;
      if (tracepoint_chains) a.fields |= kIp | kSym | kSymoff | kDso;
    } else {
      a.fields = kComm | kTid | kTime | kEvent | kIp | kSym | kSymoff | kDso | kPeriod;
      if (st & PERF_SAMPLE_CPU) a.fields |= kCpu;
    }
    // Fields the recording lacks are dropped from the defaults (as perf does), but asking
    // for one (plain or +field) is perf's error.
    if (user_fields == 0) {
      if (!(st & PERF_SAMPLE_TIME)) a.fields &= ~static_cast<std::uint32_t>(kTime);
      if (!(st & PERF_SAMPLE_CPU)) a.fields &= ~static_cast<std::uint32_t>(kCpu);
    }
    const std::uint32_t requested = spec.set | spec.add;
    auto need = [&](std::uint32_t bit, std::uint64_t sbit, std::string_view what,
                    std::string_view field) {
      if ((requested & bit) && !(st & sbit) && field_error)
        field_error = fail(Errc::kInvalidArgument,
                           "Samples for '{}' event do not have {} attribute set. Cannot "
                           "print '{}' field.",
                           a.name, what, field);
    };
    need(kCpu, PERF_SAMPLE_CPU, "CPU", "cpu");
    // -C on an event without CPU fields (pipe mode: known only now).
    if (!options.cpus.empty() && !(st & PERF_SAMPLE_CPU) && field_error)
      field_error = fail(Errc::kInvalidArgument, "{}", profile::kNoCpuEvents);
    need(kAddr, PERF_SAMPLE_ADDR, "ADDR", "addr");
    need(kIregs, PERF_SAMPLE_REGS_INTR, "IREGS", "iregs");
    need(kUregs, PERF_SAMPLE_REGS_USER, "UREGS", "uregs");
    need(kWeight, PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT", "weight");
    need(kPhysAddr, PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR", "phys_addr");
    if ((requested & kTod) && !clock && field_error)
      field_error = fail(Errc::kInvalidArgument,
                         "Can't provide 'tod' time, missing clock data. Please record with "
                         "-k/--clockid option.");
    a.fields = (a.fields | spec.add) & ~spec.remove;
    if ((a.fields & (kSrcline | kSrccode)) && !(a.fields & kIp) && field_error) {
      field_error = fail(Errc::kInvalidArgument,
                         "Display of source line number requested but sample IP is not\n"
                         "selected. Hence, no address to lookup the source line number.");
    }
    if ((a.fields & kSymoff) && !(a.fields & kSym) && field_error) {
      field_error =
          fail(Errc::kInvalidArgument, "Display of offsets requested but symbol is not selected.");
    }
    // perf prints sym, symoff and dso as part of the ip column: without ip, none of them.
    if (!(a.fields & kIp)) a.fields &= ~static_cast<std::uint32_t>(kSym | kSymoff | kDso);
    const std::uint32_t f = a.fields;
    // perf's append_inlines() (with or without srcline).
    a.inline_scopes = options.inline_frames && a.callchain && (f & kIp);
    a.texts = texts_for(f);
    if (a.tracepoint) formats.load(options.tracefs, a.name);
    return a;
  };

  // perf checks the fields against every event before the first sample (the first
  // event's error wins); a pipe's events come with its records.
  if (!replay.is_pipe()) {
    for (std::size_t i = 0; i < replay.events() && field_error; ++i)
      (void)attr_info(static_cast<int>(i));
    if (!field_error) return field_error;
  }
  ScriptPipeline pipeline(out, options.ns, format_workers(options.threads));
  CommNames comms;
  std::vector<std::uint32_t> locs;
  std::vector<std::uint64_t> ips;
  std::size_t first_unwound = 0;

  // --stop-bt: perf ends a callchain after a frame whose symbol is listed.
  auto stops_backtrace = [&](std::uint32_t id) {
    const profile::LocationView loc = replay.location(id, false);
    return loc.has_symbol && std::find(options.stop_bt.begin(), options.stop_bt.end(),
                                       loc.symbol) != options.stop_bt.end();
  };
  // The row's body: the sample's frames, its tracepoint fields, or nothing.
  auto add_sample_body = [&](ScriptRow& row, const profile::ReplayedRecord& item, AttrInfo& a,
                             const record::Sample& s) {
    ScriptBatch& batch = pipeline.batch();
    const std::uint32_t f = row.head.fields;
    auto trace_text = [&] { return formats.format(s.raw, static_cast<int>(s.cpu), s.time); };
    if (item.thread != nullptr && (f & (kIp | kSym | kDso | kSrcline))) {
      if (a.tracepoint && (f & kTrace)) {
        row.trace_begin = static_cast<std::uint32_t>(batch.text.size());
        batch.text.append(trace_text());
        row.trace_end = static_cast<std::uint32_t>(batch.text.size());
      }
      const bool chain = row.head.comm_unpadded;
      // A corrupt callchain is discarded whole: perf prints no frame for it.
      if (replay.sample_locations(item, s, chain, locs, &ips, &first_unwound) &&
          first_unwound == locs.size()) {
        locs.clear();
        ips.clear();
        first_unwound = 0;
      }
      if (chain && options.max_stack && locs.size() > *options.max_stack) {
        locs.resize(*options.max_stack);
        ips.resize(*options.max_stack);
        first_unwound = std::min(first_unwound, locs.size());
      }
      row.begin = static_cast<std::uint32_t>(batch.frames.size());
      if (chain) {
        row.body = ScriptRow::Body::kChain;
        for (std::size_t i = 0; i < locs.size(); ++i) {
          batch.frames.push_back(
              a.texts->chain_frame(locs[i], ips[i], a.inline_scopes && i >= first_unwound));
          if (!options.stop_bt.empty() && stops_backtrace(locs[i])) break;  // --stop-bt
        }
      } else {
        row.body = ScriptRow::Body::kFrame;
        if (!locs.empty()) batch.frames.push_back(a.texts->line_frame(locs[0], ips[0]));
      }
      row.end = static_cast<std::uint32_t>(batch.frames.size());
    } else if (a.tracepoint && (f & kTrace)) {
      row.body = ScriptRow::Body::kText;
      row.begin = static_cast<std::uint32_t>(batch.text.size());
      append_line_head(batch.text, row.head, options.ns);
      batch.text.append(trace_text());
      batch.text.push_back('\n');
      row.end = static_cast<std::uint32_t>(batch.text.size());
    }
  };

  std::uint64_t progress_tick = 0;
  std::uint64_t samples = 0;
  // -D: each record's dump goes first, whatever the filters keep of it (perf dumps a
  // record when it delivers it).
  std::optional<ReplayDumper> dumper;
  std::string dump_text;
  auto add_text_row = [&](std::string_view text) {
    ScriptBatch& batch = pipeline.batch();
    ScriptRow row;
    row.body = ScriptRow::Body::kText;
    row.begin = static_cast<std::uint32_t>(batch.text.size());
    batch.text.append(text);
    row.end = static_cast<std::uint32_t>(batch.text.size());
    batch.rows.push_back(row);
  };
  if (options.dump_raw_trace) {
    dumper.emplace(replay, DumpTool::kScript);
    if (auto w = unordered_warning(replay); !w.empty()) add_text_row(w);
  }
  ScriptStatTable stat_table(replay);  // perf stat record's records
  Result<void> stat_error;
  auto on_item = [&](const profile::ReplayedRecord& item) -> bool {
    if (options.progress != nullptr && (++progress_tick & 0x3fff) == 0)
      options.progress(item.offset, replay.file_size());
    if (dumper) {
      dump_text.clear();
      dumper->append(dump_text, item);
      add_text_row(dump_text);
    }
    const auto& r = item.record;
    if (r.type() >= raw::PERF_RECORD_THREAD_MAP && r.type() <= raw::PERF_RECORD_STAT_ROUND) {
      dump_text.clear();
      stat_error = stat_table.on(r, item.offset, dump_text);
      if (!stat_error) return false;
      if (!dump_text.empty()) add_text_row(dump_text);
      return pipeline.submit_if_full();
    }
    const auto* s = r.get<record::Sample>();
    if (s == nullptr ? !shows_side_band(r, options) || filter.skips_cpu(r.sample_id.cpu) ||
                           options.only_event.has_value()
                     : !filter.keeps(item.thread, *s) || options.side_band_only ||
                           !options.graph_function.empty() ||
                           (options.only_event && r.attr_index >= 0 &&
                            static_cast<std::size_t>(r.attr_index) != *options.only_event))
      return true;
    AttrInfo& a = attr_info(r.attr_index);
    if (!field_error) return false;
    if (s != nullptr && filter.by_location()) {
      if (item.thread == nullptr) return true;
      replay.sample_locations(item, *s, false, locs, &ips);
      if (locs.empty() ||
          !filter.keeps_location(replay.location(locs[0], (a.fields & kSrcline) != 0), ips[0]))
        return true;
    }
    ScriptRow row;
    ScriptLineHead& head = row.head;
    head.comm_unpadded = (a.fields & kIp) && a.callchain;
    head.comm = comms.of(item.thread);
    head.event = &a.column;
    if (s != nullptr) {
      head.fields = a.fields;
      head.pid = static_cast<std::int32_t>(s->pid);
      head.tid = static_cast<std::int32_t>(s->tid);
      head.cpu = s->cpu;
      head.time = (head.fields & kTime) ? shift_time(s->time) : s->time;
      // perf_evsel__parse_sample(): without PERIOD in the samples, the attr's period.
      head.period = s->has(PERF_SAMPLE_PERIOD) || r.attr_index < 0 ||
                            static_cast<std::size_t>(r.attr_index) >= replay.events()
                        ? s->period
                        : replay.attr(static_cast<std::size_t>(r.attr_index)).sample_period;
      head.addr = s->addr;
      head.weight = s->has(PERF_SAMPLE_WEIGHT_STRUCT) ? s->weight_var1_dw() : s->weight;
      head.misc = r.header.misc;
      head.record_type = PERF_RECORD_SAMPLE;
      head.clock = clock ? &*clock : nullptr;
      add_sample_body(row, item, a, *s);
      // perf: iregs, uregs, insn, phys_addr end the row (after the ip's frame or the
      // callchain), srccode follows on its own line.
      constexpr std::uint32_t kTail = kIregs | kUregs | kInsn | kInsnlen | kPhysAddr | kSrccode;
      if ((head.fields & kTail) != 0) {
        TextBuffer& text = pipeline.batch().text;
        row.tail_begin = static_cast<std::uint32_t>(text.size());
        if (head.fields & kIregs) text.append(profile::format_sample_regs(s->regs_intr));
        if (head.fields & kUregs) text.append(profile::format_sample_regs(s->regs_user));
        if ((head.fields & (kInsn | kInsnlen | kSrccode)) && item.thread != nullptr)
          replay.sample_locations(item, *s, false, locs, &ips);
        const bool located = item.thread != nullptr && !locs.empty();
        if (head.fields & (kInsn | kInsnlen)) {
          append_insn(text, head.fields,
                      located ? replay.instruction(locs[0]) : std::span<const std::uint8_t>());
        }
        if (head.fields & kPhysAddr) text.hex_right(s->phys_addr, 16);
        if ((head.fields & kSrccode) && located) {
          if (auto code = replay.source_code(locs[0]);
              code && srccode_state.fresh(item.thread, *code)) {
            text.append("\n|");
            text.left(std::to_string(code->line), 8);
            text.push_back(' ');
            text.append(code->text);
          }
        }
        row.tail_end = static_cast<std::uint32_t>(text.size());
      }
    } else {
      const auto& sid = r.sample_id;
      head.fields = a.fields & (kComm | kTid | kPid | kCpu | kTime | kMisc | kTod);
      head.pid = static_cast<std::int32_t>(sid.pid);
      head.tid = static_cast<std::int32_t>(sid.tid);
      head.cpu = sid.cpu;
      head.time = (head.fields & kTime) ? shift_time(sid.time) : sid.time;
      head.misc = r.header.misc;
      head.record_type = r.header.type;
      head.clock = clock ? &*clock : nullptr;
      ScriptBatch& batch = pipeline.batch();
      row.body = ScriptRow::Body::kText;
      row.begin = static_cast<std::uint32_t>(batch.text.size());
      append_line_head(batch.text, head, options.ns);
      batch.text.append(side_band_text(r));
      row.end = static_cast<std::uint32_t>(batch.text.size());
    }
    pipeline.batch().rows.push_back(row);
    if (s != nullptr) ++samples;
    return pipeline.submit_if_full();
  };
  auto ok = replay.run(on_item, options.dump_raw_trace);
  if (options.progress != nullptr) options.progress(replay.file_size(), replay.file_size());
  const bool written = pipeline.finish();
  if (options.samples_written != nullptr) *options.samples_written = samples;
  if (!field_error) return field_error;
  if (!stat_error) return stat_error;
  if (!written || !out) return fail(Errc::kIo, "writing the script output failed");
  if (warnings != nullptr) *warnings = replay.skipped();
  // Damage: everything before it was printed; the error says where it stopped and what
  // was skipped (docs/reliability.md).
  if (auto damage = replay.damage(ok); !damage.empty()) {
    return fail(ok ? Errc::kMalformedData : ok.error().code(), "{}", damage);
  }
  return {};
}

}  // namespace perfx::report
