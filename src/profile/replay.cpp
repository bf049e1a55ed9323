#include "profile/replay.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>

namespace perfx::profile {
namespace {

struct Pending {
  std::uint64_t time;
  std::uint64_t seq;
  std::size_t offset;     // into the arena
  record::RawRecord raw;  // bytes re-pointed into the arena at delivery
};

std::uint64_t record_time(const record::Record& r) {
  if (const auto* s = r.get<record::Sample>()) return s->time;
  return r.sample_id.time;
}

}  // namespace

std::string build_id_hex(const std::uint8_t* data, std::size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(size * 2);
  for (std::size_t i = 0; i < size; ++i) {
    s += kDigits[data[i] >> 4];
    s += kDigits[data[i] & 0xf];
  }
  return s;
}

Result<void> replay(record::PerfDataReader& reader, symbol::Machine& machine,
                    const std::function<bool(const ReplayItem&)>& fn) {
  // Build-ids known up front (HEADER_BUILD_ID feature).
  for (const auto& b : reader.features().build_ids)
    machine.dsos().set_build_id(b.filename, build_id_hex(b.build_id.data(), b.build_id.size()));

  std::vector<std::byte> arena;
  std::vector<Pending> pending;
  std::uint64_t seq = 0;
  std::uint64_t round_max = 0;  // newest time seen so far
  bool stop = false;

  auto deliver = [&](const record::RawRecord& raw) -> bool {
    auto rec = reader.decode(raw);
    if (!rec) return true;  // counted as malformed by the reader
    symbol::ThreadState* thread = nullptr;
    const auto& r = *rec;
    if (const auto* m = r.get<record::Mmap>()) {
      machine.on_mmap(static_cast<std::int32_t>(m->pid), static_cast<std::int32_t>(m->tid), m->addr,
                      m->len, m->pgoff, std::string(m->filename), {});
      thread = static_cast<std::int32_t>(m->pid) == -1
                   ? &machine.thread(0, 0)  // kernel maps: perf shows the idle "swapper"
                   : &machine.thread(static_cast<std::int32_t>(m->pid),
                                     static_cast<std::int32_t>(m->tid));
    } else if (const auto* m2 = r.get<record::Mmap2>()) {
      std::string bid;
      if (m2->has_build_id)
        bid = build_id_hex(m2->build_id.data(), std::min<std::size_t>(m2->build_id_size, 20));
      machine.on_mmap(static_cast<std::int32_t>(m2->pid), static_cast<std::int32_t>(m2->tid),
                      m2->addr, m2->len, m2->pgoff, std::string(m2->filename), bid);
      thread = static_cast<std::int32_t>(m2->pid) == -1
                   ? &machine.thread(0, 0)
                   : &machine.thread(static_cast<std::int32_t>(m2->pid),
                                     static_cast<std::int32_t>(m2->tid));
    } else if (const auto* c = r.get<record::Comm>()) {
      machine.on_comm(static_cast<std::int32_t>(c->pid), static_cast<std::int32_t>(c->tid),
                      std::string(c->comm), (r.header.misc & PERF_RECORD_MISC_COMM_EXEC) != 0);
      thread =
          &machine.thread(static_cast<std::int32_t>(c->pid), static_cast<std::int32_t>(c->tid));
    } else if (const auto* f = r.get<record::Fork>()) {
      machine.on_fork(static_cast<std::int32_t>(f->pid), static_cast<std::int32_t>(f->ppid),
                      static_cast<std::int32_t>(f->tid), static_cast<std::int32_t>(f->ptid));
      thread =
          &machine.thread(static_cast<std::int32_t>(f->pid), static_cast<std::int32_t>(f->tid));
    } else if (const auto* e = r.get<record::Exit>()) {
      thread =
          &machine.thread(static_cast<std::int32_t>(e->pid), static_cast<std::int32_t>(e->tid));
      machine.on_exit(static_cast<std::int32_t>(e->pid), static_cast<std::int32_t>(e->tid));
    } else if (const auto* s = r.get<record::Sample>()) {
      if (s->has(PERF_SAMPLE_TID))
        thread =
            &machine.thread(static_cast<std::int32_t>(s->pid), static_cast<std::int32_t>(s->tid));
    } else if (r.sample_id.has(PERF_SAMPLE_TID)) {
      thread = &machine.thread(static_cast<std::int32_t>(r.sample_id.pid),
                               static_cast<std::int32_t>(r.sample_id.tid));
    }
    return fn(ReplayItem{r, raw, thread});
  };

  // Delivers buffered records with time <= limit (all when flush_all).
  auto flush = [&](std::uint64_t limit, bool flush_all) {
    std::stable_sort(pending.begin(), pending.end(), [](const Pending& a, const Pending& b) {
      return a.time != b.time ? a.time < b.time : a.seq < b.seq;
    });
    std::size_t i = 0;
    for (; i < pending.size() && !stop; ++i) {
      if (!flush_all && pending[i].time > limit) break;
      record::RawRecord raw = pending[i].raw;
      raw.bytes = std::span<const std::byte>(arena.data() + pending[i].offset, raw.bytes.size());
      raw.tail = {};
      if (!deliver(raw)) stop = true;
    }
    // Keep the rest in a fresh arena.
    std::vector<std::byte> keep_arena;
    std::vector<Pending> keep;
    for (; i < pending.size(); ++i) {
      Pending p = pending[i];
      const std::size_t off = keep_arena.size();
      keep_arena.insert(keep_arena.end(), arena.begin() + static_cast<std::ptrdiff_t>(p.offset),
                        arena.begin() + static_cast<std::ptrdiff_t>(p.offset + p.raw.bytes.size()));
      p.offset = off;
      keep.push_back(p);
    }
    arena = std::move(keep_arena);
    pending = std::move(keep);
  };

  std::uint64_t prev_round_max = 0;
  record::RawRecord raw;
  while (!stop && reader.next(raw)) {
    const std::uint32_t type = raw.header.type;
    if (type == raw::PERF_RECORD_FINISHED_ROUND) {
      flush(prev_round_max, false);
      prev_round_max = round_max;
      continue;
    }
    // Records without a time (user records, attrs) are delivered at once.
    if (type >= 64) {
      if (!deliver(raw)) stop = true;
      continue;
    }
    auto rec = reader.decode(raw);
    if (!rec) continue;
    const std::uint64_t t = record_time(*rec);
    round_max = std::max(round_max, t);
    Pending p{t, seq++, arena.size(), raw};
    arena.insert(arena.end(), raw.bytes.begin(), raw.bytes.end());
    pending.push_back(p);
  }
  if (!stop) flush(0, true);
  if (reader.error()) return tl::unexpected(*reader.error());
  return {};
}

std::uint32_t LocationTable::intern(const Location& loc) {
  auto [it, inserted] = index_.try_emplace(loc, static_cast<std::uint32_t>(locations_.size()));
  if (inserted) {
    locations_.push_back(loc);
    resolved_.emplace_back();
    done_.push_back(0);
  }
  return it->second;
}

void LocationTable::resolve_one(std::uint32_t id, bool source_lines, bool inline_frames) {
  const Location& loc = locations_[id];
  Resolved& r = resolved_[id];
  if (loc.dso == nullptr) return;
  r.sym_addr = loc.dso->to_symbol_address(loc.map_addr);
  r.sym = loc.dso->find(r.sym_addr);
  if (source_lines || inline_frames) {
    if (auto sl = loc.dso->srcline(r.sym_addr)) {
      r.srcfile = std::move(sl->first);
      r.line = sl->second;
    }
  }
  if (inline_frames && r.sym != nullptr) r.inlines = loc.dso->inline_chain(r.sym_addr);
}

const Resolved& LocationTable::resolve(std::uint32_t id, bool source_lines, bool inline_frames) {
  if (!done_[id]) {
    resolve_one(id, source_lines, inline_frames);
    done_[id] = 1;
  }
  return resolved_[id];
}

void LocationTable::resolve_all(bool source_lines, bool inline_frames, unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::uint32_t> todo;
  for (std::uint32_t i = 0; i < locations_.size(); ++i)
    if (!done_[i]) todo.push_back(i);
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
        resolve_one(todo[i], source_lines, inline_frames);
        done_[todo[i]] = 1;
      },
      todo.size());
}

void sample_locations(symbol::Machine& machine, const symbol::ThreadState& thread,
                      const record::Sample& sample, std::uint16_t misc, bool callchains,
                      LocationTable& table, std::vector<std::uint32_t>& out,
                      std::vector<std::uint64_t>* ips) {
  out.clear();
  if (ips != nullptr) ips->clear();
  auto add = [&](std::uint64_t ip, bool kernel) {
    symbol::Location l = machine.resolve(thread, ip, kernel);
    Location loc{l.map != nullptr ? l.map->dso : nullptr, l.map_addr, kernel};
    out.push_back(table.intern(loc));
    if (ips != nullptr) ips->push_back(ip);
  };
  const std::uint16_t mode = static_cast<std::uint16_t>(misc & PERF_RECORD_MISC_CPUMODE_MASK);
  bool kernel = mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL;
  if (callchains && sample.has(PERF_SAMPLE_CALLCHAIN) && !sample.callchain.empty()) {
    for (std::uint64_t ip : sample.callchain) {
      if (ip >= static_cast<std::uint64_t>(PERF_CONTEXT_MAX)) {
        if (ip == static_cast<std::uint64_t>(PERF_CONTEXT_KERNEL) ||
            ip == static_cast<std::uint64_t>(PERF_CONTEXT_GUEST_KERNEL))
          kernel = true;
        else if (ip == static_cast<std::uint64_t>(PERF_CONTEXT_USER) ||
                 ip == static_cast<std::uint64_t>(PERF_CONTEXT_GUEST_USER))
          kernel = false;
        continue;
      }
      add(ip, kernel);
    }
    if (!out.empty()) return;
  }
  if (sample.has(PERF_SAMPLE_IP)) add(sample.ip, kernel);
}

}  // namespace perfx::profile
