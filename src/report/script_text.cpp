#include "report/script_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>

#include "profile/replay.hpp"
#include "record/perf_data_reader.hpp"
#include "symbol/dso.hpp"
#include "symbol/machine.hpp"

#ifdef PERFX_HAVE_TRACEEVENT
#include <event-parse.h>
#include <trace-seq.h>
#endif

namespace perfx::report {
namespace {

enum Field : std::uint32_t {
  kComm = 1u << 0,
  kTid = 1u << 1,
  kPid = 1u << 2,
  kTime = 1u << 3,
  kCpu = 1u << 4,
  kEvent = 1u << 5,
  kIp = 1u << 6,
  kSym = 1u << 7,
  kSymoff = 1u << 8,
  kDso = 1u << 9,
  kAddr = 1u << 10,
  kPeriod = 1u << 11,
  kSrcline = 1u << 12,
  kTrace = 1u << 13,
};

struct FieldName {
  std::string_view name;
  std::uint32_t bit;
};
constexpr FieldName kFields[] = {
    {"comm", kComm},       {"tid", kTid},     {"pid", kPid},   {"time", kTime},
    {"cpu", kCpu},         {"event", kEvent}, {"ip", kIp},     {"sym", kSym},
    {"symoff", kSymoff},   {"dso", kDso},     {"addr", kAddr}, {"period", kPeriod},
    {"srcline", kSrcline}, {"trace", kTrace},
};

std::uint32_t field_bit(std::string_view n) {
  for (const auto& f : kFields)
    if (f.name == n) return f.bit;
  return 0;
}

#ifdef PERFX_HAVE_TRACEEVENT
// libtraceevent handle with the formats of the recording's tracepoints.
class TraceFormats {
 public:
  TraceFormats() : tep_(tep_alloc()) {
    if (tep_ != nullptr) tep_set_long_size(tep_, 8);
  }
  ~TraceFormats() {
    if (tep_ != nullptr) tep_free(tep_);
  }
  TraceFormats(const TraceFormats&) = delete;
  TraceFormats& operator=(const TraceFormats&) = delete;

  /// Loads "sys:name"'s format from tracefs; false when it is not there.
  bool load(const std::string& tracefs, const std::string& event) {
    if (tep_ == nullptr) return false;
    auto colon = event.find(':');
    if (colon == std::string::npos) return false;
    const std::string sys = event.substr(0, colon);
    const std::string name = event.substr(colon + 1);
    auto text = symbol::read_text_file(tracefs + "/events/" + sys + "/" + name + "/format");
    if (!text) return false;
    return tep_parse_event(tep_, text->data(), text->size(), sys.c_str()) == TEP_ERRNO__SUCCESS;
  }

  /// The formatted fields of a RAW payload ("fd: 0x00000001, buf: ...").
  std::string format(std::span<const std::byte> raw, int cpu, std::uint64_t time) {
    if (tep_ == nullptr || raw.size() < 2) return {};
    tep_record rec{};
    rec.ts = time;
    rec.cpu = cpu;
    rec.size = static_cast<int>(raw.size());
    rec.record_size = rec.size;
    buf_.assign(raw.begin(), raw.end());
    rec.data = buf_.data();
    trace_seq seq;
    trace_seq_init(&seq);
    tep_print_event(tep_, &seq, &rec, "%s", TEP_PRINT_INFO);
    trace_seq_terminate(&seq);
    std::string out(seq.buffer, seq.len);
    trace_seq_destroy(&seq);
    return out;
  }

 private:
  tep_handle* tep_;
  std::vector<std::byte> buf_;
};
#endif

// C's "%#lx": "0" for zero, "0x..." otherwise.
std::string alt_hex(std::uint64_t v) { return v == 0 ? std::string("0") : fmt::format("{:#x}", v); }

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
                  "symoff, dso, addr, period, srcline, trace; +field adds to the defaults, "
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

Result<void> write_script(std::ostream& out, const std::string& path,
                          const ScriptOptions& options) {
  PERFX_TRY(specs, parse_script_fields(options.fields));
  PERFX_TRY(reader, record::PerfDataReader::open(path));
  symbol::SearchPaths paths;
  paths.buildid_dir = options.buildid_dir;
  paths.demangle_params = options.demangle_params;
  symbol::Machine machine(paths);
  profile::LocationTable table;

  // Per attr: the fields to print.
  struct AttrInfo {
    std::uint32_t fields = 0;
    std::string name;
    bool tracepoint = false;
    bool callchain = false;
    bool checked = false;
  };
  std::vector<AttrInfo> attrs;
#ifdef PERFX_HAVE_TRACEEVENT
  TraceFormats formats;
#endif
  Result<void> field_error{};

  // Inline scopes of callchain frames (perf's append_inlines), in the default layout.
  auto expand_inlines = [&](const AttrInfo& a, std::uint32_t f) {
    return options.inline_frames && a.callchain && (f & kIp) && (f & kSym) && !(f & kSrcline);
  };
  auto attr_info = [&](int index) -> AttrInfo& {
    const std::size_t i = index < 0 ? 0 : static_cast<std::size_t>(index);
    if (attrs.size() <= i) attrs.resize(i + 1);
    AttrInfo& a = attrs[i];
    if (a.checked || i >= reader.attrs().size()) return a;
    a.checked = true;
    const auto& attr = reader.attrs()[i].attr;
    a.name = reader.event_name(i);
    a.tracepoint = attr.type == PERF_TYPE_TRACEPOINT;
    a.callchain = (attr.sample_type & PERF_SAMPLE_CALLCHAIN) != 0;
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
    } else {
      a.fields = kComm | kTid | kTime | kEvent | kIp | kSym | kSymoff | kDso | kPeriod;
      if (st & PERF_SAMPLE_CPU) a.fields |= kCpu;
    }
    // Fields the recording lacks are dropped from the defaults (as perf does), but asking
    // for one (plain or +field) is perf's error.
    if (user_fields == 0) {
      if (!(st & PERF_SAMPLE_TIME)) a.fields &= ~static_cast<std::uint32_t>(kTime);
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
    need(kAddr, PERF_SAMPLE_ADDR, "ADDR", "addr");
    a.fields = (a.fields | spec.add) & ~spec.remove;
    if ((a.fields & kSymoff) && !(a.fields & kSym) && field_error) {
      field_error =
          fail(Errc::kInvalidArgument, "Display of offsets requested but symbol is not selected.");
    }
#ifdef PERFX_HAVE_TRACEEVENT
    if (a.tracepoint) formats.load(options.tracefs, a.name);
#endif
    return a;
  };

  std::vector<std::uint32_t> locs;
  std::vector<std::uint64_t> ips;
  std::size_t first_unwound = 0;
  std::vector<std::string> loc_text;           // per location id, see loc_tail
  std::vector<std::uint32_t> loc_text_fields;  // the fields loc_text was made for
  std::string line;
  fmt::memory_buffer buf;
  // Inline scopes are looked up only for the frames that show them (DWARF-unwound ones):
  // resolving them for every location would read (and decompress) the DWARF of every DSO
  // hit, which costs more than the rest of a frame-pointer callchain script together.
  std::unordered_map<std::uint32_t, std::vector<symbol::InlineFrame>> inline_chains;
  auto inline_scopes = [&](std::uint32_t loc_id) -> const std::vector<symbol::InlineFrame>& {
    auto [it, inserted] = inline_chains.try_emplace(loc_id);
    if (inserted) {
      const auto& res = table.resolve(loc_id, false, false);
      it->second = table.location(loc_id).dso->inline_chain(res.sym_addr);
    }
    return it->second;
  };

  auto start_line = [&](std::uint32_t fields, const symbol::ThreadState* t, std::int32_t pid,
                        std::int32_t tid, std::uint32_t cpu, std::uint64_t time,
                        bool callchain_mode) {
    auto it = fmt::appender(buf);
    if (fields & kComm) {
      const std::string comm = t != nullptr ? t->comm : std::string(":-1");
      if (callchain_mode)
        fmt::format_to(it, "{} ", comm);
      else
        fmt::format_to(it, "{:>16} ", comm);
    }
    if ((fields & kPid) && (fields & kTid))
      fmt::format_to(it, "{:>5}/{:<5} ", pid, tid);
    else if (fields & kPid)
      fmt::format_to(it, "{:>5} ", pid);
    else if (fields & kTid)
      fmt::format_to(it, "{:>5} ", tid);
    if (fields & kCpu) fmt::format_to(it, "[{:03}] ", cpu);
    if (fields & kTime) {
      if (options.ns)
        fmt::format_to(it, "{:>5}.{:09}: ", time / 1000000000ULL, time % 1000000000ULL);
      else
        fmt::format_to(it, "{:>5}.{:06}: ", time / 1000000000ULL, (time % 1000000000ULL) / 1000);
    }
  };

  auto on_item = [&](const profile::ReplayItem& item) -> bool {
    const auto& r = item.record;
    const auto& sid = r.sample_id;
    if (const auto* s = r.get<record::Sample>()) {
      AttrInfo& a = attr_info(r.attr_index);
      if (!field_error) return false;
      // perf prints sym, symoff and dso as part of the ip column: without ip, none of them.
      const std::uint32_t f = (a.fields & kIp) != 0
                                  ? a.fields
                                  : a.fields & ~static_cast<std::uint32_t>(kSym | kSymoff | kDso);
      const bool chain_mode = (f & kIp) && a.callchain;
      buf.clear();
      start_line(f, item.thread, static_cast<std::int32_t>(s->pid),
                 static_cast<std::int32_t>(s->tid), s->cpu, s->time, chain_mode);
      auto it = fmt::appender(buf);
      if (f & kPeriod) fmt::format_to(it, "{:>10} ", s->period);
      if (f & kEvent) fmt::format_to(it, "{}: ", a.name);
      if (f & kAddr) fmt::format_to(it, "{:>16x} ", s->addr);
      // " sym+0xoff (dso)" (+ srcline) of a location, formatted once per location.
      auto loc_tail = [&](std::uint32_t loc_id) -> const std::string& {
        if (loc_text.size() <= loc_id) {
          loc_text.resize(table.size());
          loc_text_fields.resize(table.size(), ~0u);
        }
        if (loc_text_fields[loc_id] == f) return loc_text[loc_id];
        fmt::memory_buffer t;
        auto ti = fmt::appender(t);
        const auto& loc = table.location(loc_id);
        const auto& res = table.resolve(loc_id, (f & kSrcline) != 0, false);
        if (f & kSym) {
          if (res.sym != nullptr) {
            fmt::format_to(ti, " {}", res.sym->name);
            if (f & kSymoff) fmt::format_to(ti, "+{:#x}", res.sym_addr - res.sym->start);
          } else {
            fmt::format_to(ti, " [unknown]");
          }
        }
        if (f & kDso)
          fmt::format_to(ti, " ({})", loc.dso != nullptr ? loc.dso->long_name() : "[unknown]");
        if (f & kSrcline) {
          if (!res.srcfile.empty()) {
            auto slash = res.srcfile.rfind('/');
            fmt::format_to(ti, "\n  {}:{}",
                           slash == std::string::npos ? res.srcfile : res.srcfile.substr(slash + 1),
                           res.line);
          } else if (loc.dso != nullptr) {
            fmt::format_to(ti, "\n  {}[{:x}]", loc.dso->short_name(),
                           loc.dso->to_symbol_address(loc.map_addr));
          }
        }
        loc_text[loc_id] = fmt::to_string(t);
        loc_text_fields[loc_id] = f;
        return loc_text[loc_id];
      };
      auto print_ip = [&](std::uint64_t addr_shown) {
        if (f & kIp) {
          char hex[17];
          int n = 0;
          char tmp[16];
          do {
            tmp[n++] = "0123456789abcdef"[addr_shown & 0xf];
            addr_shown >>= 4;
          } while (addr_shown != 0);
          int k = 0;
          for (int pad = 16 - n; pad > 0; --pad) hex[k++] = ' ';
          while (n > 0) hex[k++] = tmp[--n];
          buf.append(hex, hex + k);
        }
      };
      auto print_loc = [&](std::uint32_t loc_id, std::uint64_t addr_shown) {
        print_ip(addr_shown);
        const std::string& tail = loc_tail(loc_id);
        buf.append(tail.data(), tail.data() + tail.size());
      };
      if (item.thread != nullptr && (f & (kIp | kSym | kDso | kSrcline))) {
        profile::sample_locations(machine, *item.thread, *s, r.header.misc, chain_mode, table, locs,
                                  &ips, &first_unwound);
        if (chain_mode) {
          buf.push_back('\n');
          const bool inl = expand_inlines(a, f);
          for (std::size_t i = 0; i < locs.size(); ++i) {
            const auto& loc = table.location(locs[i]);
            const std::uint64_t shown = loc.dso != nullptr ? loc.map_addr : ips[i];
            // perf's append_inlines() (6.1: DWARF-unwound frames only, not callchain
            // ones): a frame whose DWARF has inline scopes is shown as
            // one line per scope, innermost first; a scope that DWARF names like the
            // ELF symbol is that symbol (with its DSO), any other is "(inlined)".
            const auto& res = table.resolve(locs[i], (f & kSrcline) != 0, false);
            const auto* scopes =
                inl && i >= first_unwound && res.sym != nullptr ? &inline_scopes(locs[i]) : nullptr;
            if (scopes != nullptr && !scopes->empty()) {
              for (std::size_t k = 0; k < scopes->size(); ++k) {
                const auto& fn = (*scopes)[k].function;
                buf.push_back('\t');
                if (fn == res.sym->name) {
                  print_loc(locs[i], shown);
                } else {
                  print_ip(shown);
                  auto bi = fmt::appender(buf);
                  fmt::format_to(bi, " {}", fn);
                  if (f & kSymoff) fmt::format_to(bi, "+{:#x}", res.sym_addr - res.sym->start);
                  fmt::format_to(bi, " (inlined)");
                }
                buf.push_back('\n');
              }
              continue;
            }
            buf.push_back('\t');
            print_loc(locs[i], shown);
            buf.push_back('\n');
          }
          buf.push_back('\n');
        } else if (!locs.empty()) {
          buf.push_back(' ');
          print_loc(locs[0], ips[0]);
          buf.push_back('\n');
        } else {
          buf.push_back('\n');
        }
      } else if (a.tracepoint && (f & kTrace)) {
#ifdef PERFX_HAVE_TRACEEVENT
        buf.append(formats.format(s->raw, static_cast<int>(s->cpu), s->time));
#endif
        buf.push_back('\n');
      } else {
        buf.push_back('\n');
      }
      out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
      return static_cast<bool>(out);
    }
    const bool task = r.get<record::Comm>() || r.get<record::Fork>() || r.get<record::Exit>();
    const bool mmap = r.get<record::Mmap>() || r.get<record::Mmap2>();
    if (!((task && options.show_task_events) || (mmap && options.show_mmap_events))) return true;
    AttrInfo& a = attr_info(r.attr_index);
    buf.clear();
    const std::uint32_t f = a.fields & (kComm | kTid | kPid | kCpu | kTime);
    start_line(f, item.thread, static_cast<std::int32_t>(sid.pid),
               static_cast<std::int32_t>(sid.tid), sid.cpu, sid.time,
               (a.fields & kIp) && a.callchain);
    auto it = fmt::appender(buf);
    if (const auto* c = r.get<record::Comm>()) {
      fmt::format_to(it, "PERF_RECORD_COMM{}: {}:{}/{}\n",
                     (r.header.misc & PERF_RECORD_MISC_COMM_EXEC) ? " exec" : "", c->comm, c->pid,
                     c->tid);
    } else if (const auto* fk = r.get<record::Fork>()) {
      fmt::format_to(it, "PERF_RECORD_FORK({}:{}):({}:{})\n", fk->pid, fk->tid, fk->ppid, fk->ptid);
    } else if (const auto* e = r.get<record::Exit>()) {
      fmt::format_to(it, "PERF_RECORD_EXIT({}:{}):({}:{})\n", e->pid, e->tid, e->ppid, e->ptid);
    } else if (const auto* m = r.get<record::Mmap>()) {
      fmt::format_to(it, "PERF_RECORD_MMAP {}/{}: [{}({}) @ {}]: {} {}\n",
                     static_cast<std::int32_t>(m->pid), m->tid, alt_hex(m->addr), alt_hex(m->len),
                     alt_hex(m->pgoff), (r.header.misc & PERF_RECORD_MISC_MMAP_DATA) ? 'r' : 'x',
                     m->filename);
    } else if (const auto* m2 = r.get<record::Mmap2>()) {
      std::string prot;
      prot += (m2->prot & 1u) ? 'r' : '-';
      prot += (m2->prot & 2u) ? 'w' : '-';
      prot += (m2->prot & 4u) ? 'x' : '-';
      prot += (m2->flags & 1u) ? 's' : 'p';
      if (m2->has_build_id) {
        fmt::format_to(it, "PERF_RECORD_MMAP2 {}/{}: [{}({}) @ {} <{}>]: {} {}\n",
                       static_cast<std::int32_t>(m2->pid), m2->tid, alt_hex(m2->addr),
                       alt_hex(m2->len), alt_hex(m2->pgoff),
                       profile::build_id_hex(m2->build_id.data(),
                                             std::min<std::size_t>(m2->build_id_size, 20)),
                       prot, m2->filename);
      } else {
        fmt::format_to(it, "PERF_RECORD_MMAP2 {}/{}: [{}({}) @ {} {:02x}:{:02x} {} {}]: {} {}\n",
                       static_cast<std::int32_t>(m2->pid), m2->tid, alt_hex(m2->addr),
                       alt_hex(m2->len), alt_hex(m2->pgoff), m2->maj, m2->min, m2->ino,
                       m2->ino_generation, prot, m2->filename);
      }
    }
    out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
    return static_cast<bool>(out);
  };
  auto ok = profile::replay(reader, machine, on_item);
  if (!field_error) return field_error;
  if (!out) return fail(Errc::kIo, "writing the script output failed");
  // Damage: everything before it was printed; the error says where it stopped and what
  // was skipped (docs/reliability.md).
  if (auto damage = profile::describe_damage(reader, ok); !damage.empty()) {
    return fail(ok ? Errc::kMalformedData : ok.error().code(), "{}", damage);
  }
  return {};
}

}  // namespace perfx::report
