// lock_contention() and load_lock_events() (include/perfx/lock.hpp): perf lock
// contention's model over lock:contention_begin/end.

#include <algorithm>
#include <map>
#include <unordered_map>

#include "core/error_format.hpp"
#include "event/tracepoint_format.hpp"
#include "perfx/lock.hpp"
#include "perfx/raw.hpp"
#include "profile/tracepoint_walk.hpp"

namespace perfx {
namespace {

struct TypeName {
  std::uint32_t flags;
  const char* name;
};
// perf's lock_type_table (builtin-lock.c).
constexpr TypeName kTypes[] = {
    {0, "semaphore"},
    {kLockSpin, "spinlock"},
    {kLockSpin | kLockRead, "rwlock:R"},
    {kLockSpin | kLockWrite, "rwlock:W"},
    {kLockRead, "rwsem:R"},
    {kLockWrite, "rwsem:W"},
    {kLockRt, "rtmutex"},
    {kLockRt | kLockRead, "rwlock-rt:R"},
    {kLockRt | kLockWrite, "rwlock-rt:W"},
    {kLockPercpu | kLockRead, "pcpu-sem:R"},
    {kLockPercpu | kLockWrite, "pcpu-sem:W"},
    {kLockMutex, "mutex"},
    {kLockMutex | kLockSpin, "mutex"},
};

enum class Seq { kUninitialized, kContended, kAcquired };
struct SeqState {
  Seq state = Seq::kUninitialized;
  std::uint64_t since = 0;
};

std::uint64_t sort_value(const LockContentionRow& r, const std::string& key) {
  if (key == "contended") return r.contended;
  if (key == "wait_max") return r.wait_max_ns;
  if (key == "wait_min") return r.wait_min_ns;
  if (key == "avg_wait") return r.wait_avg_ns;
  return r.wait_total_ns;
}

}  // namespace

const char* lock_type_name(std::uint32_t flags) noexcept {
  for (const auto& t : kTypes) {
    if (t.flags == flags) return t.name;
  }
  return "unknown";
}

Result<void> check_lock_sort_key(const std::string& key) {
  if (key == "contended" || key == "wait_total" || key == "wait_max" || key == "wait_min" ||
      key == "avg_wait") {
    return {};
  }
  return fail(Errc::kInvalidArgument,
              "unknown sort key '{}' (keys: contended, wait_total, wait_max, wait_min, avg_wait)",
              key);
}

Result<LockTrace> load_lock_events(const std::string& path, bool force) {
  LockTrace trace;
  std::unordered_map<std::int32_t, std::string> comms;
  bool any = false;
  auto walked = profile::walk_tracepoint_recording(
      path, force, [&](const record::Record& rec, const event::TracepointFormat* format) {
        if (const auto* c = rec.get<record::Comm>()) {
          comms[static_cast<std::int32_t>(c->tid)] = std::string(c->comm);
          return;
        }
        const auto* s = rec.get<record::Sample>();
        if (s == nullptr || format == nullptr || format->system != "lock") return;
        const bool begin = format->name == "contention_begin";
        if (!begin && format->name != "contention_end") return;
        any = true;
        LockEvent ev;
        ev.begin = begin;
        ev.time = s->time;
        ev.pid = static_cast<std::int32_t>(s->pid);
        ev.tid = static_cast<std::int32_t>(s->tid);
        ev.cpu = static_cast<std::int32_t>(s->cpu);
        if (const auto* f = format->field("lock_addr")) {
          ev.addr = static_cast<std::uint64_t>(event::read_int_field(*f, s->raw).value_or(0));
        }
        if (const auto* f = format->field(begin ? "flags" : "ret")) {
          const auto v = event::read_int_field(*f, s->raw).value_or(0);
          if (begin) {
            ev.flags = static_cast<std::uint32_t>(v);
          } else {
            ev.ret = static_cast<std::int32_t>(v);
          }
        }
        for (const std::uint64_t ip : s->callchain) {
          if (ip < static_cast<std::uint64_t>(PERF_CONTEXT_MAX))
            ev.callchain.push_back(ip);  // markers dropped
        }
        trace.events.push_back(std::move(ev));
      });
  if (!walked) return tl::unexpected(std::move(walked).error());
  if (!any) {
    return fail(Errc::kNotFound,
                "{}: no lock:contention_begin/end events (record them with 'perfx lock "
                "record')",
                path);
  }
  trace.lost_events = walked->lost;
  trace.damage = walked->damage;
  trace.malformed = walked->malformed;
  std::stable_sort(trace.events.begin(), trace.events.end(),
                   [](const LockEvent& a, const LockEvent& b) { return a.time < b.time; });
  trace.comms.assign(comms.begin(), comms.end());
  std::sort(trace.comms.begin(), trace.comms.end());
  return trace;
}

LockContention lock_contention(const LockTrace& trace, const LockSymbols& symbols,
                               const LockContentionOptions& options) {
  LockContention out;
  out.by = options.by;
  std::vector<LockContentionRow> rows;
  std::map<std::vector<std::uint64_t>, std::size_t> by_chain;
  std::unordered_map<std::uint64_t, std::size_t> by_key;
  std::map<std::pair<std::int32_t, std::uint64_t>, SeqState> seqs;  // (tid, lock address)
  std::unordered_map<std::int32_t, std::string> comms(trace.comms.begin(), trace.comms.end());

  // The caller key: the callchain past the skipped entries and the lock functions.
  const auto caller_chain = [&](const LockEvent& ev) {
    std::vector<std::uint64_t> chain;
    const std::size_t n = std::min<std::size_t>(ev.callchain.size(), options.max_stack);
    for (std::size_t i = options.stack_skip; i < n; ++i) {
      if (!symbols.is_lock_function(ev.callchain[i])) chain.push_back(ev.callchain[i]);
    }
    return chain;
  };
  // The row of an event; with `create`, made on first sight (named from this event).
  const auto row_of = [&](const LockEvent& ev, bool create) -> LockContentionRow* {
    std::size_t* slot = nullptr;
    std::vector<std::uint64_t> chain;
    if (options.by == LockAggregation::kCaller) {
      chain = caller_chain(ev);
      auto it = by_chain.find(chain);
      if (it != by_chain.end()) return &rows[it->second];
      if (!create) return nullptr;
      slot = &by_chain[chain];
    } else {
      const std::uint64_t key =
          options.by == LockAggregation::kAddress ? ev.addr : static_cast<std::uint64_t>(ev.tid);
      auto it = by_key.find(key);
      if (it != by_key.end()) return &rows[it->second];
      if (!create) return nullptr;
      slot = &by_key[key];
    }
    *slot = rows.size();
    LockContentionRow& r = rows.emplace_back();
    r.flags = ev.flags;
    r.type = lock_type_name(ev.flags);
    r.wait_min_ns = UINT64_MAX;
    switch (options.by) {
      case LockAggregation::kCaller: {
        r.name = "Unknown";
        const std::size_t n = std::min<std::size_t>(ev.callchain.size(), options.max_stack);
        for (std::size_t i = options.stack_skip; i < n; ++i) {
          if (symbols.is_lock_function(ev.callchain[i])) continue;
          if (auto name = symbols.name(ev.callchain[i])) {
            r.name = *name;
            break;
          }
        }
        for (std::size_t i = 0; i < n; ++i) {
          r.callstack.push_back(symbols.name(ev.callchain[i]).value_or("[unknown]"));
        }
        break;
      }
      case LockAggregation::kAddress:
        r.key = ev.addr;
        r.name = symbols.data_name(ev.addr).value_or("");
        break;
      case LockAggregation::kThread: {
        r.key = static_cast<std::uint64_t>(ev.tid);
        auto it = comms.find(ev.tid);
        r.name = it != comms.end() ? it->second : ":" + std::to_string(ev.tid);
        break;
      }
    }
    return &r;
  };

  for (const LockEvent& ev : trace.events) {
    LockContentionRow* row = row_of(ev, ev.begin);
    if (row == nullptr) continue;  // an end whose key no begin made (perf ignores it)
    SeqState& seq = seqs[{ev.tid, ev.addr}];
    if (ev.begin) {
      // A nested begin (a mutex spinning, then sleeping) continues the same wait.
      if (seq.state != Seq::kContended) {
        seq.state = Seq::kContended;
        seq.since = ev.time;
        ++row->contended;
      }
      continue;
    }
    if (seq.state == Seq::kUninitialized) continue;  // its begin was before the recording
    if (seq.state == Seq::kAcquired) {               // an end without a begin
      if (!row->broken) ++out.broken_sequences;
      row->broken = true;
      seqs.erase({ev.tid, ev.addr});
      continue;
    }
    const std::uint64_t wait = ev.time - seq.since;
    row->wait_total_ns += wait;
    row->wait_min_ns = std::min(row->wait_min_ns, wait);
    row->wait_max_ns = std::max(row->wait_max_ns, wait);
    seq.state = Seq::kAcquired;
    ++row->acquired;
    row->wait_avg_ns = row->wait_total_ns / row->acquired;
  }
  for (auto& r : rows) {
    if (r.wait_min_ns == UINT64_MAX) r.wait_min_ns = 0;
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const LockContentionRow& a, const LockContentionRow& b) {
                     return sort_value(a, options.sort) > sort_value(b, options.sort);
                   });
  if (options.entries != 0 && rows.size() > options.entries) rows.resize(options.entries);
  out.rows = std::move(rows);
  return out;
}

}  // namespace perfx
