#include "event/event_names.hpp"

#include <linux/perf_event.h>

#include <array>
#include <cctype>

namespace perfx::event {
namespace {

constexpr std::uint32_t kHw = PERF_TYPE_HARDWARE;
constexpr std::uint32_t kSw = PERF_TYPE_SOFTWARE;

// perf's evsel__hw_names / evsel__sw_names with perf's aliases (parse-events.c).
constexpr std::array kHardware = {
    SymbolicEvent{"cpu-cycles", "cycles", kHw, PERF_COUNT_HW_CPU_CYCLES, "CPU cycles"},
    SymbolicEvent{"instructions", "", kHw, PERF_COUNT_HW_INSTRUCTIONS, "Instructions retired"},
    SymbolicEvent{"cache-references", "", kHw, PERF_COUNT_HW_CACHE_REFERENCES,
                  "Cache accesses (usually last-level cache)"},
    SymbolicEvent{"cache-misses", "", kHw, PERF_COUNT_HW_CACHE_MISSES,
                  "Cache misses (usually last-level cache)"},
    SymbolicEvent{"branch-instructions", "branches", kHw, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
                  "Branch instructions retired"},
    SymbolicEvent{"branch-misses", "", kHw, PERF_COUNT_HW_BRANCH_MISSES,
                  "Mispredicted branch instructions"},
    SymbolicEvent{"bus-cycles", "", kHw, PERF_COUNT_HW_BUS_CYCLES, "Bus cycles"},
    SymbolicEvent{"stalled-cycles-frontend", "idle-cycles-frontend", kHw,
                  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "Stalled cycles during issue"},
    SymbolicEvent{"stalled-cycles-backend", "idle-cycles-backend", kHw,
                  PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "Stalled cycles during retirement"},
    SymbolicEvent{"ref-cycles", "", kHw, PERF_COUNT_HW_REF_CPU_CYCLES,
                  "Reference cycles (not affected by CPU frequency scaling)"},
};

constexpr std::array kSoftware = {
    SymbolicEvent{"cpu-clock", "", kSw, PERF_COUNT_SW_CPU_CLOCK,
                  "Per-CPU high-resolution timer (ns)"},
    SymbolicEvent{"task-clock", "", kSw, PERF_COUNT_SW_TASK_CLOCK,
                  "Time the task ran on a CPU (ns)"},
    SymbolicEvent{"page-faults", "faults", kSw, PERF_COUNT_SW_PAGE_FAULTS, "Page faults"},
    SymbolicEvent{"context-switches", "cs", kSw, PERF_COUNT_SW_CONTEXT_SWITCHES,
                  "Context switches"},
    SymbolicEvent{"cpu-migrations", "migrations", kSw, PERF_COUNT_SW_CPU_MIGRATIONS,
                  "Migrations of the task to another CPU"},
    SymbolicEvent{"minor-faults", "", kSw, PERF_COUNT_SW_PAGE_FAULTS_MIN,
                  "Page faults served without I/O"},
    SymbolicEvent{"major-faults", "", kSw, PERF_COUNT_SW_PAGE_FAULTS_MAJ,
                  "Page faults that needed I/O"},
    SymbolicEvent{"alignment-faults", "", kSw, PERF_COUNT_SW_ALIGNMENT_FAULTS,
                  "Unaligned accesses fixed up by the kernel"},
    SymbolicEvent{"emulation-faults", "", kSw, PERF_COUNT_SW_EMULATION_FAULTS,
                  "Instructions emulated by the kernel"},
    SymbolicEvent{"dummy", "", kSw, PERF_COUNT_SW_DUMMY,
                  "Counts nothing; carries side-band records"},
    SymbolicEvent{"bpf-output", "", kSw, PERF_COUNT_SW_BPF_OUTPUT,
                  "Output from BPF programs (bpf_perf_event_output)"},
    SymbolicEvent{"cgroup-switches", "", kSw, 11 /* PERF_COUNT_SW_CGROUP_SWITCHES */,
                  "Context switches to a task in another cgroup"},
};

// Cache ids, ops and results with perf's aliases (evsel.c: evsel__hw_cache*).
struct Aliases {
  std::array<std::string_view, 5> names;
};
constexpr std::array<Aliases, 7> kCacheTypes = {{
    {{"L1-dcache", "l1-d", "l1d", "L1-data", ""}},
    {{"L1-icache", "l1-i", "l1i", "L1-instruction", ""}},
    {{"LLC", "L2", "", "", ""}},
    {{"dTLB", "d-tlb", "Data-TLB", "", ""}},
    {{"iTLB", "i-tlb", "Instruction-TLB", "", ""}},
    {{"branch", "branches", "bpu", "btb", "bpc"}},
    {{"node", "", "", "", ""}},
}};
constexpr std::array<Aliases, 3> kCacheOps = {{
    {{"load", "loads", "read", "", ""}},
    {{"store", "stores", "write", "", ""}},
    {{"prefetch", "prefetches", "speculative-read", "speculative-load", ""}},
}};
constexpr std::array<Aliases, 2> kCacheResults = {{
    {{"refs", "Reference", "ops", "access", ""}},
    {{"misses", "miss", "", "", ""}},
}};

// Which ops each cache supports (perf's hw_cache_stat): bit 0 read, 1 write, 2 prefetch.
constexpr std::array<unsigned, 7> kCacheOpMask = {7, 5, 7, 7, 1, 1, 7};

bool op_valid(std::size_t cache, std::size_t op) noexcept {
  return (kCacheOpMask[cache] >> op) & 1U;
}

bool iequal(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

// Matches the longest alias of any entry of `table` at the start of `text`, followed by
// '-' or the end. Returns the entry index and sets `len`.
template <std::size_t N>
int match_prefix(const std::array<Aliases, N>& table, std::string_view text,
                 std::size_t* len) noexcept {
  int best = -1;
  std::size_t best_len = 0;
  for (std::size_t i = 0; i < N; ++i) {
    for (std::string_view alias : table[i].names) {
      if (alias.empty() || alias.size() > text.size() || alias.size() <= best_len) continue;
      if (!iequal(text.substr(0, alias.size()), alias)) continue;
      if (alias.size() < text.size() && text[alias.size()] != '-') continue;
      best = static_cast<int>(i);
      best_len = alias.size();
    }
  }
  *len = best_len;
  return best;
}

std::string cache_name(std::size_t cache, std::size_t op, std::size_t result) {
  std::string name(kCacheTypes[cache].names[0]);
  if (result == PERF_COUNT_HW_CACHE_RESULT_ACCESS) {
    name += '-';
    name += kCacheOps[op].names[1];  // "loads"
  } else {
    name += '-';
    name += kCacheOps[op].names[0];  // "load"
    name += '-';
    name += kCacheResults[result].names[0];  // "misses"
  }
  return name;
}

}  // namespace

std::span<const SymbolicEvent> hardware_events() noexcept { return kHardware; }
std::span<const SymbolicEvent> software_events() noexcept { return kSoftware; }

std::optional<SymbolicEvent> find_symbolic_event(std::string_view name) noexcept {
  for (auto table : {hardware_events(), software_events()}) {
    for (const auto& e : table) {
      if (e.name == name || (!e.alias.empty() && e.alias == name)) return e;
    }
  }
  return std::nullopt;
}

std::vector<CacheEvent> cache_events() {
  std::vector<CacheEvent> out;
  for (std::size_t c = 0; c < kCacheTypes.size(); ++c) {
    for (std::size_t op = 0; op < kCacheOps.size(); ++op) {
      if (!op_valid(c, op)) continue;
      for (std::size_t r = 0; r < kCacheResults.size(); ++r) {
        out.push_back({cache_name(c, op, r), c | (op << 8) | (r << 16)});
      }
    }
  }
  return out;
}

std::optional<CacheParse> parse_cache_event(std::string_view name, std::string* bad) {
  std::size_t len = 0;
  const int cache = match_prefix(kCacheTypes, name, &len);
  if (cache < 0) return std::nullopt;
  std::string_view rest = name.substr(len);
  int op = -1;
  int result = -1;
  for (int part = 0; part < 2 && !rest.empty(); ++part) {
    rest.remove_prefix(1);  // the '-'
    std::size_t n = 0;
    if (op < 0) {
      op = match_prefix(kCacheOps, rest, &n);
      if (op >= 0) {
        rest.remove_prefix(n);
        continue;
      }
    }
    if (result < 0) {
      result = match_prefix(kCacheResults, rest, &n);
      if (result >= 0) {
        rest.remove_prefix(n);
        continue;
      }
    }
    return std::nullopt;  // an unknown component: not a cache event name
  }
  if (!rest.empty()) return std::nullopt;
  if (op < 0) op = PERF_COUNT_HW_CACHE_OP_READ;
  if (result < 0) result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
  const auto c = static_cast<std::size_t>(cache);
  const auto o = static_cast<std::size_t>(op);
  const auto r = static_cast<std::size_t>(result);
  if (!op_valid(c, o)) {
    if (bad != nullptr) {
      *bad = std::string(kCacheTypes[c].names[0]) + " has no '" +
             std::string(kCacheOps[o].names[0]) + "' operation";
    }
    return std::nullopt;
  }
  return CacheParse{c | (o << 8) | (r << 16), cache_name(c, o, r)};
}

}  // namespace perfx::event
