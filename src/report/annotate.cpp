#include "report/annotate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>

#include "core/enum_names.hpp"
#include "core/error_format.hpp"
#include "profile/code_source.hpp"

namespace perfx::report {
namespace {

struct Hits {
  std::uint64_t samples = 0;
  std::uint64_t period = 0;
  void add(const Hits& h) {
    samples += h.samples;
    period += h.period;
  }
};

// One symbol with samples, in its DSO's symbol space.
struct Entry {
  profile::CodeSymbol sym;  // sym.dso null: no code to read (kernel, JIT map, ...)
  std::string name;
  std::string dso_path;
  std::map<std::uint64_t, Hits> hits;
  Hits total;
  std::string problem;  // why it cannot be annotated
};

bool listed(const std::vector<std::string>& list, std::string_view v) {
  return std::find(list.begin(), list.end(), v) != list.end();
}

std::string_view basename_of(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// Why perfx has no code bytes for a frame's DSO ("" = it has).
std::string no_code_reason(const profile::Frame& f) {
  if (f.kind == profile::FrameKind::kKernel)
    return fmt::format("{} has no code to read (the kernel image is not read)", f.dso);
  if (f.kind == profile::FrameKind::kJit || f.dso_path.rfind("/tmp/perf-", 0) == 0)
    return fmt::format("{} is a JIT map: its code was not recorded", f.dso);
  if (f.dso_path.empty() || (f.dso_path.front() == '[' && f.dso_path != "[vdso]"))
    return fmt::format("{} is not a file", f.dso.empty() ? "[unknown]" : f.dso);
  return {};
}

// The source files lines are shown from, each read once.
class SourceFiles {
 public:
  // The text of `line` of `file`; nullopt when the file cannot be read or is shorter.
  std::optional<std::string_view> line(const std::string& file, std::uint32_t line) {
    auto [it, fresh] = files_.try_emplace(file);
    if (fresh) {
      // Regular files of a sane size only: a path from DWARF may name a device or FIFO.
      std::error_code ec;
      constexpr std::uintmax_t kMaxSource = std::uintmax_t{64} << 20;
      if (std::filesystem::is_regular_file(file, ec) &&
          std::filesystem::file_size(file, ec) <= kMaxSource && !ec) {
        std::ifstream in(file);
        for (std::string l; std::getline(in, l);) it->second.push_back(std::move(l));
      }
    }
    if (line == 0 || line > it->second.size()) return std::nullopt;
    return std::string_view(it->second[line - 1]);
  }

 private:
  std::unordered_map<std::string, std::vector<std::string>> files_;
};

// objdump's tab after "addr:", expanded from column 0 of the trimmed line (perf's
// expand_tabs()): spaces up to the next multiple of 8.
std::string after_colon(std::size_t used) { return std::string(8 - used % 8, ' '); }

// Every symbol with samples of event `e`, hottest first.
std::vector<Entry> collect(const profile::Profile& p, std::uint32_t e, profile::CodeSource& code,
                           const AnnotateOptions& o) {
  std::vector<Entry> entries;
  std::map<std::pair<const void*, std::uint64_t>, std::size_t> entry_of_sym;
  std::map<std::pair<std::string, std::string>, std::size_t> entry_of_name;  // no-code ones
  // Per frame: its entry (-1: none) and its address in symbol space.
  std::vector<std::pair<std::int64_t, std::uint64_t>> of_frame(p.frames.size(), {-2, 0});
  using Slot = std::pair<std::int64_t, std::uint64_t>;
  // The index of the entry under `key` in `index`, and the entry itself when it is new
  // (named `name`, in `dso_path`; the caller fills the rest).
  auto entry_at = [&](auto& index, const auto& key, const std::string& name,
                      const std::string& dso_path) -> std::pair<std::int64_t, Entry*> {
    auto [it, fresh] = index.try_emplace(key, entries.size());
    const auto at = static_cast<std::int64_t>(it->second);
    if (!fresh) return {at, nullptr};
    Entry& en = entries.emplace_back();
    en.name = name;
    en.dso_path = dso_path;
    return {at, &en};
  };
  // A named frame perfx has no code for: one entry per DSO and name saying why.
  auto without_code = [&](const profile::Frame& f, std::string problem) -> Slot {
    if (!o.symbols.empty() && !listed(o.symbols, f.function)) return {-1, 0};
    auto [at, made] =
        entry_at(entry_of_name, std::pair(f.dso_path, f.function), f.function, f.dso_path);
    if (made != nullptr) made->problem = std::move(problem);
    return {at, f.address};
  };
  auto resolve = [&](std::uint32_t fi) -> Slot {
    const profile::Frame& f = p.frames[fi];
    if (f.function == "[unknown]") return {-1, 0};  // perf annotates symbols only
    if (!o.dsos.empty() && !listed(o.dsos, f.dso) && !listed(o.dsos, f.dso_path)) return {-1, 0};
    if (std::string why = no_code_reason(f); !why.empty()) return without_code(f, std::move(why));
    const std::string build_id =
        f.mapping >= 0 && static_cast<std::size_t>(f.mapping) < p.mappings.size()
            ? p.mappings[static_cast<std::size_t>(f.mapping)].build_id
            : std::string();
    profile::CodeSymbol sym = code.lookup(f, build_id);
    // The profile named the frame, but this DSO's lookup finds no symbol there: say so
    // rather than leaving the symbol out with nothing printed.
    if (sym.dso == nullptr) return without_code(f, std::move(sym.problem));
    if (!o.symbols.empty() && !listed(o.symbols, sym.name) && !listed(o.symbols, f.function))
      return {-1, 0};
    const std::uint64_t addr = sym.address;
    auto [at, made] =
        entry_at(entry_of_sym, std::pair<const void*, std::uint64_t>(sym.dso, sym.start), sym.name,
                 f.dso_path);
    if (made != nullptr) made->sym = std::move(sym);
    return {at, addr};
  };
  for (const auto& s : p.samples) {
    if (s.event != e) continue;
    const auto leaf = profile::sampled_frame(p, s);
    if (!leaf) continue;
    auto& slot = of_frame[*leaf];
    if (slot.first == -2) slot = resolve(*leaf);
    if (slot.first < 0) continue;
    Entry& en = entries[static_cast<std::size_t>(slot.first)];
    const Hits h{s.count, s.period};
    en.hits[slot.second].add(h);
    en.total.add(h);
  }
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    if (a.total.period != b.total.period) return a.total.period > b.total.period;
    if (a.total.samples != b.total.samples) return a.total.samples > b.total.samples;
    return a.name < b.name;
  });
  return entries;
}

const char* percent_type_name(PercentType t) {
  static constexpr const char* kNames[] = {"local period", "global period", "local hits",
                                           "global hits"};
  static_assert(std::size(kNames) == static_cast<std::size_t>(PercentType::kGlobalHits) + 1);
  return core::enum_name(kNames, t, kNames[0]);
}

// One symbol's listing.
class Listing {
 public:
  Listing(const Entry& en, const profile::Event& ev, const AnnotateOptions& o,
          const profile::CodeSource& code, SourceFiles& sources, fmt::memory_buffer& out)
      : en_(en), ev_(ev), o_(o), code_source_(code), sources_(sources), out_(out) {}

  // false: the code could not be read (the reason in `problem`).
  bool write(std::string& problem) {
    const std::uint64_t size = en_.sym.end - en_.sym.start;
    constexpr std::uint64_t kMaxCode = std::uint64_t{16} << 20;
    if (size == 0 || size > kMaxCode) {
      problem = fmt::format("{} has a size of {} bytes", en_.name, size);
      return false;
    }
    code_.resize(size);
    if (!code_source_.read(en_.sym, en_.dso_path, code_, problem)) return false;
    insns_ = code_source_.disassemble(en_.sym, code_);
    if (insns_.empty()) {
      problem = fmt::format("no instructions in {}", en_.name);
      return false;
    }
    addr_width_ = fmt::formatted_size("{:x}", insns_.back().address);
    compute_shares();
    if (o_.print_line) write_line_summary();
    write_title();
    blank();
    text_line("", fmt::format("{:016x} <{}>:", en_.sym.start, en_.name));
    write_body();
    return true;
  }

 private:
  struct Share {
    Hits hits;
    double percent = 0;
  };

  [[nodiscard]] int column_width() const { return o_.show_total_period ? 12 : 8; }

  void compute_shares() {
    shares_.resize(insns_.size());
    const bool global = o_.percent_type == PercentType::kGlobalPeriod ||
                        o_.percent_type == PercentType::kGlobalHits;
    const bool hits =
        o_.percent_type == PercentType::kLocalHits || o_.percent_type == PercentType::kGlobalHits;
    const std::uint64_t whole = hits ? (global ? ev_.total_samples : en_.total.samples)
                                     : (global ? ev_.total_period : en_.total.period);
    for (std::size_t i = 0; i < insns_.size(); ++i) {
      const std::uint64_t from = insns_[i].address;
      const std::uint64_t to = i + 1 < insns_.size() ? insns_[i + 1].address : en_.sym.end;
      for (auto it = en_.hits.lower_bound(from); it != en_.hits.end() && it->first < to; ++it)
        shares_[i].hits.add(it->second);
      const std::uint64_t part = hits ? shares_[i].hits.samples : shares_[i].hits.period;
      if (whole != 0)
        shares_[i].percent = 100.0 * static_cast<double>(part) / static_cast<double>(whole);
    }
  }

  // " Percent |\tSource code & Disassembly of X for E (N samples, percent: P)" and the
  // rule under it: as long as that line (its tab and newline counting one each), plus 4.
  void write_title() {
    const char* label =
        o_.show_total_period ? "Period" : (o_.show_nr_samples ? "Samples" : "Percent");
    const std::string_view file =
        o_.full_paths ? std::string_view(en_.dso_path) : basename_of(en_.dso_path);
    const std::string title = fmt::format(
        " {:<{}.{}}|\tSource code & Disassembly of {} for {} ({} samples, percent: {})\n", label,
        column_width(), column_width(), file, ev_.name, en_.total.samples,
        percent_type_name(o_.percent_type));
    out_.append(title);
    out_.append(std::string(title.size() + 4, '-'));
    out_.push_back('\n');
  }

  void blank() { fmt::format_to(std::back_inserter(out_), " {:>{}}:\n", "", column_width()); }
  // perf's non-instruction line: " <blank column>: <number> <text>".
  void text_line(std::string_view number, std::string_view text) {
    fmt::format_to(std::back_inserter(out_), " {:>{}}: {:<{}} {}\n", "", column_width(), number,
                   addr_width_, text);
  }

  // The source file:line of an instruction ("" without DWARF).
  std::optional<std::pair<std::string, std::uint32_t>> srcline(std::uint64_t addr) const {
    return code_source_.srcline(en_.sym, addr);
  }
  std::string path_text(const std::pair<std::string, std::uint32_t>& loc) const {
    return fmt::format(
        "{}:{}", o_.full_paths ? std::string_view(loc.first) : basename_of(loc.first), loc.second);
  }

  void write_body() {
    std::optional<std::pair<std::string, std::uint32_t>> shown_src;
    std::string last_path;
    for (std::size_t i = 0; i < insns_.size(); ++i) {
      const auto& in = insns_[i];
      std::optional<std::pair<std::string, std::uint32_t>> loc;
      if (o_.source || o_.print_line) loc = srcline(in.address);
      if (o_.source && loc && loc != shown_src) {
        shown_src = loc;
        const auto text = sources_.line(loc->first, loc->second);
        if (text)
          text_line(fmt::format("{}", loc->second), *text);
        else
          text_line("", fmt::format("{}:{}", loc->first, loc->second));
      }
      const Share& sh = shares_[i];
      if (o_.show_total_period)
        fmt::format_to(std::back_inserter(out_), " {:>11}", sh.hits.period);
      else if (o_.show_nr_samples)
        fmt::format_to(std::back_inserter(out_), " {:>7}", sh.hits.samples);
      else
        fmt::format_to(std::back_inserter(out_), " {:>7.2f}", sh.percent);
      const std::string addr = fmt::format("{:x}:", in.address);
      fmt::format_to(std::back_inserter(out_), " :   {:>{}}{}", addr, addr_width_ + 1,
                     after_colon(addr.size()));
      if (o_.asm_raw) {
        std::string bytes;
        const std::uint64_t at = in.address - en_.sym.start;
        for (std::uint32_t b = 0; b < in.size && at + b < code_.size(); ++b)
          bytes += fmt::format("{:02x} ", code_[at + b]);
        fmt::format_to(std::back_inserter(out_), "{:<21}\t", bytes);
      }
      out_.append(in.text);
      if (o_.print_line && loc) {
        std::string path = path_text(*loc);
        if (path != last_path) {
          fmt::format_to(std::back_inserter(out_), " // {}", path);
          last_path = std::move(path);
        }
      }
      out_.push_back('\n');
    }
  }

  // perf's -l: the source lines of the symbol by their summed percentages, those above
  // 0.5% (perf's MIN_GREEN), before the listing.
  void write_line_summary() {
    std::map<std::string, double> by_line;
    for (std::size_t i = 0; i < insns_.size(); ++i) {
      if (shares_[i].percent <= 0) continue;
      const auto loc = srcline(insns_[i].address);
      if (loc) by_line[path_text(*loc)] += shares_[i].percent;
    }
    std::vector<std::pair<std::string, double>> rows;
    for (auto& [path, pct] : by_line)
      if (pct > 0.5) rows.emplace_back(path, pct);
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    const std::string& file = code_source_.file_path(en_.sym);
    fmt::format_to(std::back_inserter(out_),
                   "\nSorted summary for file {}\n----------------------------------------------"
                   "\n\n",
                   file.empty() ? en_.dso_path : file);
    if (rows.empty()) out_.append(std::string_view(" Nothing higher than 0.5%\n"));
    for (const auto& [path, pct] : rows)
      fmt::format_to(std::back_inserter(out_), " {:7.2f} {}\n", pct, path);
  }

  const Entry& en_;
  const profile::Event& ev_;
  const AnnotateOptions& o_;
  const profile::CodeSource& code_source_;
  SourceFiles& sources_;
  fmt::memory_buffer& out_;
  std::vector<std::uint8_t> code_;
  std::vector<profile::CodeInstruction> insns_;
  std::vector<Share> shares_;
  std::size_t addr_width_ = 0;
};

}  // namespace

}  // namespace perfx::report

namespace perfx {

Result<PercentType> parse_percent_type(std::string_view text) {
  // perf takes both orders: "local-period" and "period-local".
  const auto dash = text.find('-');
  if (dash != std::string_view::npos) {
    std::string_view a = text.substr(0, dash), b = text.substr(dash + 1);
    if (a == "period" || a == "hits") std::swap(a, b);
    const bool local = a == "local", global = a == "global";
    if ((local || global) && (b == "period" || b == "hits")) {
      if (b == "period") return local ? PercentType::kLocalPeriod : PercentType::kGlobalPeriod;
      return local ? PercentType::kLocalHits : PercentType::kGlobalHits;
    }
  }
  return fail(Errc::kInvalidArgument,
              "bad --percent-type '{}': expected local-period, global-period, local-hits or "
              "global-hits",
              text);
}

}  // namespace perfx

namespace perfx::report {

Result<AnnotateSummary> write_annotations(const profile::Profile& profile, std::ostream& out,
                                          const AnnotateOptions& options) {
  PERFX_TRY(code, profile::CodeSource::open(profile.arch, options.syntax == AsmSyntax::kIntel,
                                            options.demangle, options.buildid_dir));
  SourceFiles sources;
  AnnotateSummary summary;
  for (std::uint32_t e = 0; e < profile.events.size(); ++e) {
    if (options.event >= 0 && e != static_cast<std::uint32_t>(options.event)) continue;
    const profile::Event& ev = profile.events[e];
    for (const Entry& en : collect(profile, e, code, options)) {
      if (options.percent_limit > 0 && ev.total_period != 0 &&
          100.0 * static_cast<double>(en.total.period) / static_cast<double>(ev.total_period) <
              options.percent_limit)
        continue;
      std::string problem = en.problem;
      if (problem.empty()) {
        fmt::memory_buffer text;
        Listing listing(en, ev, options, code, sources, text);
        if (listing.write(problem)) {
          out.write(text.data(), static_cast<std::streamsize>(text.size()));
          ++summary.annotated;
          continue;
        }
      }
      summary.problems.push_back(fmt::format("cannot annotate {} ({} sample{}): {}", en.name,
                                             en.total.samples, en.total.samples == 1 ? "" : "s",
                                             problem));
    }
  }
  return summary;
}

}  // namespace perfx::report
