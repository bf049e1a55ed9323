#include "profile/replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <thread>

#include "core/build_id_note.hpp"
#include "core/error_format.hpp"
#include "profile/ordered_records.hpp"
#include "symbol/unwind.hpp"

namespace perfx::profile {

Result<TimeFilter> recording_time_filter(const record::PerfDataReader& reader,
                                         std::string_view spec, bool relative) {
  std::optional<std::pair<std::uint64_t, std::uint64_t>> span;
  if (const auto& st = reader.features().sample_time) span = std::pair{st->first_ns, st->last_ns};
  PERFX_TRY(filter, parse_time_filter(spec, span));
  if (!relative || spec.find('%') != std::string_view::npos) return filter;
  if (!span)
    return fail(Errc::kInvalidArgument,
                "--reltime with --time needs the first sample's time, which this recording "
                "does not have (no HEADER_SAMPLE_TIME)");
  for (auto& r : filter.ranges) {  // 0 stays open
    if (r.start != 0) r.start += span->first;
    if (r.end != 0) r.end += span->first;
  }
  return filter;
}

Result<void> check_cpu_list(const record::PerfDataReader& reader,
                            const std::vector<std::uint32_t>& cpus) {
  if (cpus.empty()) return {};
  for (std::size_t i = 0; i < reader.attrs().size(); ++i) {
    if (!(reader.attrs()[i].attr.sample_type & PERF_SAMPLE_CPU))
      return fail(Errc::kInvalidArgument, "{}", kNoCpuEvents);
  }
  if (const auto& n = reader.features().nrcpus; n && n->available > 0) {
    for (const auto cpu : cpus) {
      if (cpu >= n->available)
        return fail(Errc::kInvalidArgument,
                    "Requested CPU {} too large (the recording's machine had {} CPUs)", cpu,
                    n->available);
    }
  }
  return {};
}

std::string describe_damage(const record::PerfDataReader& reader, const Result<void>& replayed) {
  const auto& stats = reader.stats();
  if (stats.skipped_bytes == 0) return replayed ? std::string() : replayed.error().message();
  const auto skipped = fmt::format("{} corrupt or missing bytes skipped", stats.skipped_bytes);
  if (!replayed) return fmt::format("{} ({})", replayed.error().message(), skipped);
  if (stats.warnings.empty()) return skipped;
  return fmt::format("{}; first: {}", skipped, stats.warnings.front());
}

std::vector<std::string> describe_skipped(const record::PerfDataReader& reader) {
  const auto& stats = reader.stats();
  std::vector<std::string> out = stats.warnings;
  if (stats.malformed_records != 0) {
    out.push_back(fmt::format(
        "{} record{} could not be decoded and {} left out (first: {})", stats.malformed_records,
        stats.malformed_records == 1 ? "" : "s", stats.malformed_records == 1 ? "was" : "were",
        stats.first_malformed.empty() ? "see the warnings above" : stats.first_malformed));
  }
  if (stats.unknown_records != 0) {
    out.push_back(fmt::format("{} record{} of unknown types skipped", stats.unknown_records,
                              stats.unknown_records == 1 ? "" : "s"));
  }
  return out;
}

symbol::ThreadState* apply_record(symbol::Machine& machine, const record::Record& r) {
  symbol::ThreadState* thread = nullptr;
  if (const auto* m = r.get<record::Mmap>()) {
    // perf's map of an MMAP (no prot): PROT_EXEC unless it is a data map.
    machine.on_mmap(static_cast<std::int32_t>(m->pid), static_cast<std::int32_t>(m->tid), m->addr,
                    m->len, m->pgoff, std::string(m->filename), {},
                    (r.header.misc & PERF_RECORD_MISC_MMAP_DATA) ? 0u : 4u /* PROT_EXEC */);
    thread =
        static_cast<std::int32_t>(m->pid) == -1
            ? &machine.thread(0, 0)  // kernel maps: perf shows the idle "swapper"
            : &machine.thread(static_cast<std::int32_t>(m->pid), static_cast<std::int32_t>(m->tid));
  } else if (const auto* m2 = r.get<record::Mmap2>()) {
    std::string bid;
    if (m2->has_build_id)
      bid = core::build_id_hex(m2->build_id.data(), std::min<std::size_t>(m2->build_id_size, 20));
    machine.on_mmap(static_cast<std::int32_t>(m2->pid), static_cast<std::int32_t>(m2->tid),
                    m2->addr, m2->len, m2->pgoff, std::string(m2->filename), bid, m2->prot,
                    m2->flags, m2->has_build_id ? 0 : m2->ino);
    thread = static_cast<std::int32_t>(m2->pid) == -1
                 ? &machine.thread(0, 0)
                 : &machine.thread(static_cast<std::int32_t>(m2->pid),
                                   static_cast<std::int32_t>(m2->tid));
  } else if (const auto* c = r.get<record::Comm>()) {
    machine.on_comm(static_cast<std::int32_t>(c->pid), static_cast<std::int32_t>(c->tid),
                    std::string(c->comm), (r.header.misc & PERF_RECORD_MISC_COMM_EXEC) != 0);
    thread = &machine.thread(static_cast<std::int32_t>(c->pid), static_cast<std::int32_t>(c->tid));
  } else if (const auto* f = r.get<record::Fork>()) {
    machine.on_fork(static_cast<std::int32_t>(f->pid), static_cast<std::int32_t>(f->ppid),
                    static_cast<std::int32_t>(f->tid), static_cast<std::int32_t>(f->ptid),
                    (r.header.misc & PERF_RECORD_MISC_FORK_EXEC) == 0);
    thread = &machine.thread(static_cast<std::int32_t>(f->pid), static_cast<std::int32_t>(f->tid));
  } else if (const auto* e = r.get<record::Exit>()) {
    thread = &machine.thread(static_cast<std::int32_t>(e->pid), static_cast<std::int32_t>(e->tid));
    machine.on_exit(static_cast<std::int32_t>(e->pid), static_cast<std::int32_t>(e->tid));
  } else if (const auto* ns = r.get<record::Namespaces>()) {
    // perf's process_namespaces_event(): the record's own thread.
    thread =
        &machine.thread(static_cast<std::int32_t>(ns->pid), static_cast<std::int32_t>(ns->tid));
  } else if (const auto* s = r.get<record::Sample>()) {
    if (s->has(PERF_SAMPLE_TID))
      thread =
          &machine.thread(static_cast<std::int32_t>(s->pid), static_cast<std::int32_t>(s->tid));
  } else if (r.sample_id.has(PERF_SAMPLE_TID)) {
    thread = &machine.thread(static_cast<std::int32_t>(r.sample_id.pid),
                             static_cast<std::int32_t>(r.sample_id.tid));
  }
  return thread;
}

Result<void> replay(record::PerfDataReader& reader, symbol::Machine& machine,
                    const std::function<bool(const ReplayItem&)>& fn, bool as_perf_sees) {
  // Build-ids known up front (HEADER_BUILD_ID feature).
  for (const auto& b : reader.features().build_ids)
    machine.dsos().set_build_id(b.filename,
                                core::build_id_hex(b.build_id.data(), b.build_id.size()));

  record::Record decoded;  // reused: filled in place for each record
  auto deliver = [&](const record::RawRecord& raw) -> bool {
    if (!reader.decode(raw, decoded)) return true;  // counted as malformed by the reader
    symbol::ThreadState* thread = apply_record(machine, decoded);
    const auto& r = decoded;
    return fn(ReplayItem{r, raw, thread});
  };

  return for_each_ordered(reader, deliver, as_perf_sees);
}

std::uint32_t LocationTable::intern(const Location& loc, const symbol::Map* map) {
  auto [it, inserted] = index_.try_emplace(loc, static_cast<std::uint32_t>(locations_.size()));
  if (inserted) {
    Location plain = loc;
    plain.bias = 0;
    canon_.push_back(canon_index_.try_emplace(plain, it->second).first->second);
    locations_.push_back(loc);
    maps_.push_back(map != nullptr ? MapRange{map->start, map->end, map->pgoff, map->identity}
                                   : MapRange{});
    resolved_.emplace_back();
    done_.push_back(0);
  }
  return it->second;
}

void LocationTable::resolve_one(std::uint32_t id, bool source_lines, InlineMode inlines) {
  const Location& loc = locations_[id];
  const bool inline_frames =
      inlines == InlineMode::kAll || (inlines == InlineMode::kUnwound && loc.unwound);
  Resolved& r = resolved_[id];
  if (loc.dso == nullptr) return;
  r.sym_addr = loc.dso->to_symbol_address(loc.map_addr);
  r.sym = loc.dso->find(r.sym_addr);
  if (source_lines || inline_frames) {
    if (auto sl = loc.dso->srcline(r.sym_addr)) {
      r.srcfile = std::move(sl->first);
      r.line = sl->second;
    } else {
      r.addr2line_function = loc.dso->addr2line_names_function(r.sym_addr);
    }
  }
  if (inline_frames && r.sym != nullptr) r.inlines = loc.dso->inline_chain(r.sym_addr);
}

const Resolved& LocationTable::resolve(std::uint32_t id, bool source_lines, InlineMode inlines) {
  id = canon_[id];
  if (!done_[id]) {
    resolve_one(id, source_lines, inlines);
    done_[id] = 1;
  }
  return resolved_[id];
}

void LocationTable::resolve_all(bool source_lines, InlineMode inlines, unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::uint32_t> todo;
  for (std::uint32_t i = 0; i < locations_.size(); ++i)
    if (!done_[i] && canon_[i] == i) todo.push_back(i);
  // Load every DSO first, one per worker, so symbol tables are read in parallel.
  std::vector<const symbol::Dso*> dsos;
  for (auto id : todo)
    if (locations_[id].dso != nullptr) dsos.push_back(locations_[id].dso);
  std::sort(dsos.begin(), dsos.end());
  dsos.erase(std::unique(dsos.begin(), dsos.end()), dsos.end());
  auto run = [&](auto&& work, std::size_t n) {
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
      for (std::size_t i = next++; i < n; i = next++) work(i);
    };
    const unsigned nthreads = static_cast<unsigned>(std::min<std::size_t>(threads, n));
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < nthreads; ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
  };
  run([&](std::size_t i) { dsos[i]->load(); }, dsos.size());
  // Group by DSO so DWARF work (serialized per DSO) spreads across workers.
  std::stable_sort(todo.begin(), todo.end(), [&](std::uint32_t a, std::uint32_t b) {
    return locations_[a].dso < locations_[b].dso;
  });
  run(
      [&](std::size_t i) {
        resolve_one(todo[i], source_lines, inlines);
        done_[todo[i]] = 1;
      },
      todo.size());
}

bool sample_locations(symbol::Machine& machine, const symbol::ThreadState& thread,
                      const record::Sample& sample, std::uint16_t misc, bool callchains,
                      LocationTable& table, std::vector<std::uint32_t>& out,
                      std::vector<std::uint64_t>* ips, std::size_t* first_unwound) {
  out.clear();
  std::size_t unwound_at = SIZE_MAX;  // no unwound frames
  if (ips != nullptr) ips->clear();
  auto add = [&](std::uint64_t ip, bool kernel, bool unwound = false) {
    symbol::Location l = machine.resolve(thread, ip, kernel);
    const bool relocated = l.map != nullptr && !l.map->identity && !kernel;
    Location loc{l.map != nullptr ? l.map->dso : nullptr, l.map_addr, kernel, unwound,
                 relocated ? ip - l.map_addr : 0};
    out.push_back(table.intern(loc, l.map));
    if (ips != nullptr) ips->push_back(ip);
  };
  const std::uint16_t mode = static_cast<std::uint16_t>(misc & PERF_RECORD_MISC_CPUMODE_MASK);
  const bool kernel_mode = mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL;
  bool kernel = kernel_mode;
  bool user_frames = false;  // the callchain has user entries (no DWARF unwinding then)
  bool corrupt = false;
  if (callchains && sample.has(PERF_SAMPLE_CALLCHAIN) && !sample.callchain.empty()) {
    for (std::uint64_t ip : sample.callchain) {
      if (ip >= static_cast<std::uint64_t>(PERF_CONTEXT_MAX)) {
        if (ip == static_cast<std::uint64_t>(PERF_CONTEXT_KERNEL) ||
            ip == static_cast<std::uint64_t>(PERF_CONTEXT_GUEST_KERNEL)) {
          kernel = true;
        } else if (ip == static_cast<std::uint64_t>(PERF_CONTEXT_USER) ||
                   ip == static_cast<std::uint64_t>(PERF_CONTEXT_GUEST_USER)) {
          kernel = false;
        } else if (ip != static_cast<std::uint64_t>(PERF_CONTEXT_HV) &&
                   ip != static_cast<std::uint64_t>(PERF_CONTEXT_GUEST)) {
          corrupt = true;  // (a frame-pointer walk through code built without them)
          break;
        }
        continue;
      }
      add(ip, kernel);
      user_frames = user_frames || !kernel;
    }
  }
  if (corrupt) {  // perf resets the cursor, then unwinds a user stack copy as usual
    out.clear();
    if (ips != nullptr) ips->clear();
    kernel = kernel_mode;
    user_frames = false;
  }
  // --call-graph dwarf: the kernel gave registers and a stack copy instead of the user
  // callchain (exclude_callchain_user); unwind them after the kernel frames, as perf's
  // thread__resolve_callchain_unwind() does.
  if (callchains && !user_frames && thread.maps != nullptr && sample.has(PERF_SAMPLE_REGS_USER) &&
      sample.has(PERF_SAMPLE_STACK_USER) && sample.regs_user.abi != 0 &&
      sample.stack_user.dyn_size != 0) {
    std::array<std::uint64_t, 64> values{};
    const std::size_t n = std::min<std::size_t>(sample.regs_user.regs.size(), values.size());
    for (std::size_t i = 0; i < n; ++i) values[i] = sample.regs_user.regs[i];
    const symbol::UserRegs regs{sample.regs_user.abi, sample.regs_user.mask,
                                std::span<const std::uint64_t>(values.data(), n)};
    const std::size_t dyn = static_cast<std::size_t>(
        std::min<std::uint64_t>(sample.stack_user.dyn_size, sample.stack_user.data.size()));
    static thread_local std::vector<std::uint64_t> unwound;  // reused across samples
    unwound.clear();
    machine.unwinder().unwind(thread.maps, thread.tid, regs, sample.stack_user.data.first(dyn),
                              unwound);
    if (!unwound.empty()) unwound_at = out.size();
    for (std::uint64_t ip : unwound) add(ip, false, true);
  }
  if (out.empty() && sample.has(PERF_SAMPLE_IP)) add(sample.ip, kernel);
  if (first_unwound != nullptr) *first_unwound = std::min(unwound_at, out.size());
  return corrupt;
}

}  // namespace perfx::profile
