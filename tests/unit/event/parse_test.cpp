// Unit tests for the event syntax parser (perf-compatible), against canned system data.

#include "event/parse.hpp"

#include <gtest/gtest.h>
#include <linux/hw_breakpoint.h>

#include <set>

#include "event/event_names.hpp"
#include "fake_resolver.hpp"

namespace perfx::event {
namespace {

using testing::FakeResolver;

EventSpec one(std::string_view spec, const Resolver& r = FakeResolver()) {
  auto e = parse_event(spec, r);
  EXPECT_TRUE(e.has_value()) << spec << ": " << (e ? "" : e.error().message());
  return e ? *e : EventSpec{};
}

Error error_of(std::string_view spec, const Resolver& r = FakeResolver()) {
  auto groups = parse_event_list(spec, r);
  EXPECT_FALSE(groups.has_value()) << "'" << spec << "' parsed but should not";
  return groups ? Error(Errc::kSystem, "parsed") : groups.error();
}

constexpr std::uint64_t cache_config(std::uint64_t id, std::uint64_t op, std::uint64_t res) {
  return id | (op << 8) | (res << 16);
}

// ---------------------------------------------------------------- symbolic names

TEST(EventParse, HardwareNamesAndAliases) {
  struct Case {
    const char* name;
    std::uint64_t config;
    const char* canonical;
  };
  const Case cases[] = {
      {"cycles", PERF_COUNT_HW_CPU_CYCLES, "cpu-cycles"},
      {"cpu-cycles", PERF_COUNT_HW_CPU_CYCLES, "cpu-cycles"},
      {"instructions", PERF_COUNT_HW_INSTRUCTIONS, "instructions"},
      {"cache-references", PERF_COUNT_HW_CACHE_REFERENCES, "cache-references"},
      {"cache-misses", PERF_COUNT_HW_CACHE_MISSES, "cache-misses"},
      {"branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "branch-instructions"},
      {"branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "branch-instructions"},
      {"branch-misses", PERF_COUNT_HW_BRANCH_MISSES, "branch-misses"},
      {"bus-cycles", PERF_COUNT_HW_BUS_CYCLES, "bus-cycles"},
      {"stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "stalled-cycles-frontend"},
      {"stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "stalled-cycles-backend"},
      {"ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES, "ref-cycles"},
  };
  for (const auto& c : cases) {
    const EventSpec e = one(c.name);
    EXPECT_EQ(e.kind, EventKind::kHardware) << c.name;
    EXPECT_EQ(e.attr.type, PERF_TYPE_HARDWARE) << c.name;
    EXPECT_EQ(e.attr.config, c.config) << c.name;
    EXPECT_EQ(e.canonical, c.canonical) << c.name;
    EXPECT_EQ(e.name, c.name);
    EXPECT_EQ(e.attr.size, raw::kAttrSizeVer8);
  }
}

TEST(EventParse, SoftwareNamesAndAliases) {
  struct Case {
    const char* name;
    std::uint64_t config;
  };
  const Case cases[] = {
      {"cpu-clock", PERF_COUNT_SW_CPU_CLOCK},
      {"task-clock", PERF_COUNT_SW_TASK_CLOCK},
      {"page-faults", PERF_COUNT_SW_PAGE_FAULTS},
      {"faults", PERF_COUNT_SW_PAGE_FAULTS},
      {"minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN},
      {"major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ},
      {"context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES},
      {"cs", PERF_COUNT_SW_CONTEXT_SWITCHES},
      {"cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS},
      {"migrations", PERF_COUNT_SW_CPU_MIGRATIONS},
      {"alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS},
      {"emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS},
      {"dummy", PERF_COUNT_SW_DUMMY},
      {"bpf-output", PERF_COUNT_SW_BPF_OUTPUT},
      {"cgroup-switches", 11},
  };
  for (const auto& c : cases) {
    const EventSpec e = one(c.name);
    EXPECT_EQ(e.kind, EventKind::kSoftware) << c.name;
    EXPECT_EQ(e.attr.type, PERF_TYPE_SOFTWARE) << c.name;
    EXPECT_EQ(e.attr.config, c.config) << c.name;
  }
  EXPECT_EQ(one("cs").canonical, "context-switches");
  EXPECT_EQ(one("faults").canonical, "page-faults");
}

TEST(EventNames, TablesHaveUniqueNames) {
  std::set<std::string_view> seen;
  for (auto table : {hardware_events(), software_events()}) {
    for (const auto& e : table) {
      EXPECT_TRUE(seen.insert(e.name).second) << e.name;
      if (!e.alias.empty()) {
        EXPECT_TRUE(seen.insert(e.alias).second) << e.alias;
      }
      EXPECT_FALSE(e.description.empty()) << e.name;
    }
  }
  EXPECT_EQ(hardware_events().size(), 10U);
  EXPECT_EQ(software_events().size(), 12U);
}

// ---------------------------------------------------------------- cache events

TEST(EventParse, CacheEventsPerfSpellings) {
  using R = std::uint64_t;
  const R L1D = PERF_COUNT_HW_CACHE_L1D, L1I = PERF_COUNT_HW_CACHE_L1I, LL = PERF_COUNT_HW_CACHE_LL,
          DTLB = PERF_COUNT_HW_CACHE_DTLB, ITLB = PERF_COUNT_HW_CACHE_ITLB,
          BPU = PERF_COUNT_HW_CACHE_BPU, NODE = PERF_COUNT_HW_CACHE_NODE;
  const R rd = PERF_COUNT_HW_CACHE_OP_READ, wr = PERF_COUNT_HW_CACHE_OP_WRITE,
          pf = PERF_COUNT_HW_CACHE_OP_PREFETCH;
  const R acc = PERF_COUNT_HW_CACHE_RESULT_ACCESS, miss = PERF_COUNT_HW_CACHE_RESULT_MISS;
  struct Case {
    const char* name;
    std::uint64_t config;
    const char* canonical;
  };
  const Case cases[] = {
      {"L1-dcache-loads", cache_config(L1D, rd, acc), "L1-dcache-loads"},
      {"L1-dcache-load-misses", cache_config(L1D, rd, miss), "L1-dcache-load-misses"},
      {"L1-dcache-stores", cache_config(L1D, wr, acc), "L1-dcache-stores"},
      {"L1-dcache-prefetch-misses", cache_config(L1D, pf, miss), "L1-dcache-prefetch-misses"},
      {"L1-icache-load-misses", cache_config(L1I, rd, miss), "L1-icache-load-misses"},
      {"L1-icache-prefetches", cache_config(L1I, pf, acc), "L1-icache-prefetches"},
      {"LLC-loads", cache_config(LL, rd, acc), "LLC-loads"},
      {"LLC-store-misses", cache_config(LL, wr, miss), "LLC-store-misses"},
      {"dTLB-load-misses", cache_config(DTLB, rd, miss), "dTLB-load-misses"},
      {"iTLB-loads", cache_config(ITLB, rd, acc), "iTLB-loads"},
      {"branch-loads", cache_config(BPU, rd, acc), "branch-loads"},
      {"branch-load-misses", cache_config(BPU, rd, miss), "branch-load-misses"},
      {"node-stores", cache_config(NODE, wr, acc), "node-stores"},
      {"node-prefetch-misses", cache_config(NODE, pf, miss), "node-prefetch-misses"},
      // perf's other spellings
      {"l1d-miss", cache_config(L1D, rd, miss), "L1-dcache-load-misses"},
      {"L1-dcache", cache_config(L1D, rd, acc), "L1-dcache-loads"},
      {"L2-misses", cache_config(LL, rd, miss), "LLC-load-misses"},
      {"LLC-write-access", cache_config(LL, wr, acc), "LLC-stores"},
      {"Data-TLB-speculative-read-miss", cache_config(DTLB, pf, miss), "dTLB-prefetch-misses"},
      {"l1-i-read-refs", cache_config(L1I, rd, acc), "L1-icache-loads"},
      {"btb-misses", cache_config(BPU, rd, miss), "branch-load-misses"},
      {"llc-load-misses", cache_config(LL, rd, miss), "LLC-load-misses"},
  };
  for (const auto& c : cases) {
    const EventSpec e = one(c.name);
    EXPECT_EQ(e.kind, EventKind::kHwCache) << c.name;
    EXPECT_EQ(e.attr.type, PERF_TYPE_HW_CACHE) << c.name;
    EXPECT_EQ(e.attr.config, c.config) << c.name;
    EXPECT_EQ(e.canonical, c.canonical) << c.name;
  }
}

TEST(EventParse, CacheOpNotValidForCacheIsAnError) {
  const Error err = error_of("L1-icache-stores");
  EXPECT_EQ(err.code(), Errc::kNotFound);
  EXPECT_NE(err.message().find("column 1"), std::string::npos) << err.message();
  EXPECT_NE(err.message().find("'L1-icache-stores'"), std::string::npos) << err.message();
  EXPECT_NE(err.message().find("store"), std::string::npos) << err.message();
  EXPECT_FALSE(parse_event("iTLB-stores", FakeResolver()).has_value());
  EXPECT_FALSE(parse_event("branch-prefetches", FakeResolver()).has_value());
}

TEST(EventNames, CacheListMatchesPerf) {
  const auto list = cache_events();
  // L1D 3 ops, L1I 2, LLC 3, dTLB 3, iTLB 1, branch 1, node 3 = 16 ops x 2 results.
  ASSERT_EQ(list.size(), 32U);
  EXPECT_EQ(list[0].name, "L1-dcache-loads");
  EXPECT_EQ(list[1].name, "L1-dcache-load-misses");
  for (const auto& c : list) {
    const EventSpec e = one(c.name);  // every listed name parses back to its config
    EXPECT_EQ(e.attr.config, c.config) << c.name;
    EXPECT_EQ(e.canonical, c.name);
  }
}

// ---------------------------------------------------------------- raw and PMU events

TEST(EventParse, RawEvent) {
  const EventSpec e = one("r1a8");
  EXPECT_EQ(e.kind, EventKind::kRaw);
  EXPECT_EQ(e.attr.type, PERF_TYPE_RAW);
  EXPECT_EQ(e.attr.config, 0x1a8U);
  EXPECT_EQ(one("rFFFF:u").attr.config, 0xffffU);
  EXPECT_EQ(one("rffffffffffffffff").attr.config, ~std::uint64_t{0});
  const Error err = error_of("r1ffffffffffffffff");
  EXPECT_NE(err.message().find("64 bits"), std::string::npos) << err.message();
  EXPECT_EQ(error_of("rxyz").code(), Errc::kNotFound);
}

TEST(EventParse, PmuEventsFromSysfs) {
  EventSpec tsc = one("msr/tsc/");
  EXPECT_EQ(tsc.kind, EventKind::kPmu);
  EXPECT_EQ(tsc.pmu, "msr");
  EXPECT_EQ(tsc.attr.type, 9U);
  EXPECT_EQ(tsc.attr.config, 0U);
  EXPECT_EQ(tsc.canonical, "msr/tsc/");

  EXPECT_EQ(one("msr/event=0x5/").attr.config, 5U);
  EXPECT_EQ(one("msr/event=12/").attr.config, 12U);
  const EventSpec cfg = one("cpu/config=0x1234,config1=7,config2=0x9,config3=3/");
  EXPECT_EQ(cfg.attr.type, 4U);
  EXPECT_EQ(cfg.attr.config, 0x1234U);
  EXPECT_EQ(cfg.attr.config1, 7U);
  EXPECT_EQ(cfg.attr.config2, 9U);
  EXPECT_EQ(cfg.attr.config3, 3U);

  // Fields are placed at their bits; an alias expands to its terms.
  EXPECT_EQ(one("cpu/event=0x3c,umask=0x2/").attr.config, 0x023cU);
  EXPECT_EQ(one("cpu/inst_retired/").attr.config, 0x01c0U);
  // A split field: low 4 bits at 0-3, next 4 bits at 8-11.
  EXPECT_EQ(one("cpu/ext=0xab/").attr.config1, 0xa0bU);
  // Terms after an alias override it.
  EXPECT_EQ(one("cpu/inst_retired,umask=0x3/").attr.config, 0x03c0U);

  const EventSpec p = one("software/config=1,period=1000,name=tc/");
  EXPECT_EQ(p.attr.type, 1U);
  EXPECT_EQ(p.attr.config, 1U);
  EXPECT_EQ(p.attr.sample_period, 1000U);
  EXPECT_EQ(p.attr.freq, 0U);
  EXPECT_TRUE(p.period_from_term);
  EXPECT_EQ(p.name, "tc");
  const EventSpec f = one("software/config=1,freq=99/");
  EXPECT_EQ(f.attr.sample_freq, 99U);
  EXPECT_EQ(f.attr.freq, 1U);

  // Modifiers after the closing slash, with or without ':'.
  EXPECT_EQ(one("msr/tsc/u").attr.exclude_kernel, 1U);
  EXPECT_EQ(one("msr/tsc/:k").attr.exclude_user, 1U);
  // A bare alias name resolves through the PMU that has it.
  const EventSpec bare = one("tsc");
  EXPECT_EQ(bare.attr.type, 9U);
  EXPECT_EQ(bare.canonical, "msr/tsc/");
  EXPECT_EQ(bare.name, "tsc");
}

TEST(EventParse, PmuErrorsNameTheToken) {
  Error e = error_of("cs,nopmu/event=1/");
  EXPECT_EQ(e.code(), Errc::kNotFound);
  EXPECT_NE(e.message().find("column 4"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("unknown PMU 'nopmu'"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("msr"), std::string::npos) << "lists the PMUs: " << e.message();

  e = error_of("msr/bogus=1/");
  EXPECT_EQ(e.code(), Errc::kNotFound);
  EXPECT_NE(e.message().find("column 5"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("unknown term 'bogus'"), std::string::npos) << e.message();

  // An event alias is not a term: it takes no value.
  e = error_of("msr/tsc=2/");
  EXPECT_EQ(e.code(), Errc::kInvalidArgument);
  EXPECT_NE(e.message().find("column 5"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("'tsc' is an event alias of PMU 'msr' and takes no value"),
            std::string::npos)
      << e.message();
  EXPECT_EQ(e.message().find("unknown term"), std::string::npos) << e.message();

  e = error_of("cpu/event=0x100/");  // 8-bit field
  EXPECT_EQ(e.code(), Errc::kInvalidArgument);
  EXPECT_NE(e.message().find("does not fit"), std::string::npos) << e.message();

  e = error_of("msr/event=zz/");
  EXPECT_NE(e.message().find("column 11"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("'zz'"), std::string::npos) << e.message();

  e = error_of("msr/tsc");
  EXPECT_NE(e.message().find("missing closing '/'"), std::string::npos) << e.message();
  EXPECT_NE(error_of("msr/config/").message().find("needs a value"), std::string::npos);
  EXPECT_NE(error_of("msr/tsc,,event=1/").message().find("empty term"), std::string::npos);
  EXPECT_NE(error_of("msr/tsc/x").message().find("'x' is not a valid modifier"), std::string::npos);
}

// ---------------------------------------------------------------- tracepoints

TEST(EventParse, Tracepoints) {
  const EventSpec e = one("sched:sched_switch");
  EXPECT_EQ(e.kind, EventKind::kTracepoint);
  EXPECT_EQ(e.attr.type, PERF_TYPE_TRACEPOINT);
  EXPECT_EQ(e.attr.config, 316U);
  EXPECT_EQ(e.default_period, 1U);
  EXPECT_EQ(e.canonical, "sched:sched_switch");

  const EventSpec k = one("syscalls:sys_enter_getppid:k");
  EXPECT_EQ(k.attr.config, 305U);
  EXPECT_EQ(k.attr.exclude_user, 1U);
  EXPECT_EQ(k.name, "syscalls:sys_enter_getppid:k");
}

TEST(EventParse, TracepointGlobsExpand) {
  FakeResolver r;
  auto groups = parse_event_list("sched:sched_wak*:u", r);
  ASSERT_TRUE(groups) << groups.error().message();
  ASSERT_EQ(groups->size(), 2U);
  EXPECT_EQ((*groups)[0].events[0].canonical, "sched:sched_wakeup");
  EXPECT_EQ((*groups)[1].events[0].canonical, "sched:sched_waking");
  EXPECT_EQ((*groups)[1].events[0].attr.config, 318U);
  EXPECT_EQ((*groups)[1].events[0].attr.exclude_kernel, 1U);
  // In a group, every match becomes a member.
  groups = parse_event_list("{sched:*}", r);
  ASSERT_TRUE(groups);
  ASSERT_EQ(groups->size(), 1U);
  EXPECT_EQ((*groups)[0].events.size(), 3U);
  EXPECT_EQ(error_of("sched:nomatch*").code(), Errc::kNotFound);
  // parse_event wants exactly one.
  EXPECT_FALSE(parse_event("sched:*", r).has_value());
}

TEST(EventParse, TracepointErrors) {
  Error e = error_of("task-clock,sched:no_such_tp");
  EXPECT_EQ(e.code(), Errc::kNotFound);
  EXPECT_NE(e.message().find("column 12"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("sched:no_such_tp"), std::string::npos) << e.message();

  // A misspelt event with a modifier is reported as an unknown event, not a tracepoint.
  e = error_of("page-fault:u");
  EXPECT_EQ(e.message(),
            "event syntax error at column 1: 'page-fault' is not a known event (see 'perfx "
            "list')");

  FakeResolver unmounted;
  unmounted.tracefs_mounted = false;
  e = error_of("sched:sched_switch", unmounted);
  EXPECT_NE(e.message().find("mount -t tracefs nodev /sys/kernel/tracing"), std::string::npos)
      << e.message();
  EXPECT_NE(e.message().find("sched:sched_switch"), std::string::npos) << e.message();

  EXPECT_NE(error_of("sched:").message().find("expected a tracepoint name"), std::string::npos);
  EXPECT_NE(error_of("sched:a/b").message().find("PMU"), std::string::npos);
  EXPECT_NE(error_of("sched:sched_switch:").message().find("empty modifier"), std::string::npos);
}

// ---------------------------------------------------------------- breakpoints

TEST(EventParse, Breakpoints) {
  EventSpec e = one("mem:0x1000");
  EXPECT_EQ(e.kind, EventKind::kBreakpoint);
  EXPECT_EQ(e.attr.type, PERF_TYPE_BREAKPOINT);
  EXPECT_EQ(e.attr.bp_addr, 0x1000U);
  EXPECT_EQ(e.attr.bp_type, HW_BREAKPOINT_RW);  // perf's default
  EXPECT_EQ(e.attr.bp_len, 4U);                 // perf's default for data
  EXPECT_EQ(e.default_period, 1U);
  EXPECT_EQ(e.canonical, "mem:0x1000/4:rw");

  e = one("mem:0x1000:x");
  EXPECT_EQ(e.attr.bp_type, HW_BREAKPOINT_X);
  EXPECT_EQ(e.attr.bp_len, sizeof(long));

  e = one("mem:0x601040/8:w");
  EXPECT_EQ(e.attr.bp_addr, 0x601040U);
  EXPECT_EQ(e.attr.bp_len, 8U);
  EXPECT_EQ(e.attr.bp_type, HW_BREAKPOINT_W);

  e = one("mem:4096/2:r:u");
  EXPECT_EQ(e.attr.bp_addr, 4096U);
  EXPECT_EQ(e.attr.bp_type, HW_BREAKPOINT_R);
  EXPECT_EQ(e.attr.exclude_kernel, 1U);

  e = one("mem:0x10:wr");
  EXPECT_EQ(e.attr.bp_type, HW_BREAKPOINT_RW);
  e = one("mem:0x10:k");  // no access part, just modifiers
  EXPECT_EQ(e.attr.bp_type, HW_BREAKPOINT_RW);
  EXPECT_EQ(e.attr.exclude_user, 1U);
}

TEST(EventParse, BreakpointErrors) {
  Error e = error_of("mem:0x1000/3");
  EXPECT_NE(e.message().find("column 12"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("1, 2, 4 or 8"), std::string::npos) << e.message();
  e = error_of("mem:xyz");
  EXPECT_NE(e.message().find("column 5"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("'xyz' is not an address"), std::string::npos) << e.message();
  EXPECT_NE(error_of("mem:").message().find("expected an address"), std::string::npos);
  EXPECT_NE(error_of("mem:0x10:rx").message().find("execute"), std::string::npos);
  EXPECT_NE(error_of("mem:0x10:ww").message().find("repeated"), std::string::npos);
  EXPECT_NE(error_of("mem:0x10/4:x").message().find("length"), std::string::npos);
  EXPECT_NE(error_of("mem:0x10:w:").message().find("empty modifier"), std::string::npos);
}

// ---------------------------------------------------------------- uprobes

TEST(EventParse, Uprobes) {
  EventSpec e = one("uprobe:/bin/fake:main");
  EXPECT_EQ(e.kind, EventKind::kUprobe);
  EXPECT_EQ(e.attr.type, 8U);
  EXPECT_EQ(e.attr.config, 0U);
  EXPECT_EQ(e.attr.config1, 0U);
  EXPECT_EQ(e.attr.config2, 0x1130U);
  EXPECT_EQ(e.uprobe_path, "/bin/fake");
  EXPECT_EQ(e.uprobe_symbol, "main");
  EXPECT_EQ(e.default_period, 1U);

  const raw::EventAttr a = e.attr_for_open();
  EXPECT_EQ(a.config1, reinterpret_cast<std::uintptr_t>(e.uprobe_path.c_str()));
  EXPECT_EQ(a.config2, 0x1130U);
  // A copy points at its own string.
  const EventSpec copy = e;
  EXPECT_EQ(copy.attr_for_open().config1,
            reinterpret_cast<std::uintptr_t>(copy.uprobe_path.c_str()));
  EXPECT_STREQ(reinterpret_cast<const char*>(copy.attr_for_open().config1), "/bin/fake");

  EXPECT_EQ(one("uretprobe:/bin/fake:main").attr.config, 1U);  // retprobe = config:0
  EXPECT_EQ(one("uprobe:/bin/fake:main+0x10").attr.config2, 0x1140U);
  EXPECT_EQ(one("uprobe:/bin/fake:0x40").attr.config2, 0x40U);
  EXPECT_EQ(one("uprobe:/anything:128").attr.config2, 128U);
  e = one("uprobe:/bin/fake:foo:u");
  EXPECT_EQ(e.attr.config2, 0x2000U);
  EXPECT_EQ(e.attr.exclude_kernel, 1U);
  // Non-uprobe kinds: attr_for_open() is attr.
  EXPECT_EQ(one("task-clock").attr_for_open().config1, 0U);
}

TEST(EventParse, UprobeErrors) {
  Error e = error_of("uprobe:/bin/fake:nosuch");
  EXPECT_EQ(e.code(), Errc::kNotFound);
  EXPECT_NE(e.message().find("column 18"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("nosuch"), std::string::npos) << e.message();
  // A file that cannot be opened or is not ELF: the path is the problem, the column is
  // the path's.
  e = error_of("uprobe:/nonexistent:main");
  EXPECT_EQ(e.sys_errno(), ENOENT);
  EXPECT_NE(e.message().find("column 8"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("uprobe file '/nonexistent'"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("No such file"), std::string::npos) << e.message();
  e = error_of("cs,uretprobe:/etc/passwd:main");
  EXPECT_NE(e.message().find("column 14"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("uprobe file '/etc/passwd'"), std::string::npos) << e.message();
  EXPECT_NE(error_of("uprobe:").message().find("expected a file path"), std::string::npos);
  EXPECT_NE(error_of("uprobe:/bin/fake").message().find("expected ':symbol'"), std::string::npos);
  EXPECT_NE(error_of("uprobe:/bin/fake:0xzz").message().find("not a file offset"),
            std::string::npos);
}

// ---------------------------------------------------------------- modifiers

TEST(EventParse, Modifiers) {
  EventSpec e = one("page-faults:u");
  EXPECT_EQ(e.attr.exclude_user, 0U);
  EXPECT_EQ(e.attr.exclude_kernel, 1U);
  EXPECT_EQ(e.attr.exclude_hv, 1U);
  EXPECT_EQ(e.attr.exclude_guest, 1U);  // like perf: u also excludes guests
  EXPECT_TRUE(e.explicit_privilege);
  EXPECT_EQ(e.name, "page-faults:u");
  EXPECT_EQ(e.canonical, "page-faults");

  e = one("cs:k");
  EXPECT_EQ(e.attr.exclude_user, 1U);
  EXPECT_EQ(e.attr.exclude_kernel, 0U);
  EXPECT_EQ(e.attr.exclude_hv, 1U);
  EXPECT_EQ(e.attr.exclude_guest, 0U);

  e = one("cs:uk");
  EXPECT_EQ(e.attr.exclude_user, 0U);
  EXPECT_EQ(e.attr.exclude_kernel, 0U);
  EXPECT_EQ(e.attr.exclude_hv, 1U);

  e = one("cs:h");
  EXPECT_EQ(e.attr.exclude_user, 1U);
  EXPECT_EQ(e.attr.exclude_hv, 0U);

  EXPECT_EQ(one("cycles:p").attr.precise_ip, 1U);
  EXPECT_EQ(one("cycles:pp").attr.precise_ip, 2U);
  EXPECT_EQ(one("cycles:ppp").attr.precise_ip, 3U);
  e = one("cycles:upp");
  EXPECT_EQ(e.attr.precise_ip, 2U);
  EXPECT_EQ(e.attr.exclude_kernel, 1U);

  e = one("cs:G");
  EXPECT_EQ(e.attr.exclude_host, 1U);
  EXPECT_EQ(e.attr.exclude_guest, 0U);
  e = one("cs:H");
  EXPECT_EQ(e.attr.exclude_host, 0U);
  EXPECT_EQ(e.attr.exclude_guest, 1U);

  EXPECT_TRUE(one("cs:P").precise_max);  // perf's precise_max: record tries 3, then lower
  EXPECT_EQ(one("cs:P").attr.precise_ip, 0U);
  EXPECT_FALSE(one("cs:p").precise_max);
  EXPECT_TRUE(one("cs:S").sample_read);
  EXPECT_EQ(one("cs:D").attr.pinned, 1U);
  EXPECT_EQ(one("cs:I").attr.exclude_idle, 1U);
  EXPECT_EQ(one("cs:e").attr.exclusive, 1U);
  EXPECT_TRUE(one("cs:W").weak_group);
  EXPECT_FALSE(one("cs").explicit_privilege);
  EXPECT_FALSE(one("cs:S").explicit_privilege);
}

TEST(EventParse, ModifierErrorsNameColumn) {
  Error e = error_of("task-clock:uz");
  EXPECT_EQ(e.code(), Errc::kInvalidArgument);
  EXPECT_NE(e.message().find("column 13"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("'z' is not a valid modifier"), std::string::npos) << e.message();
  e = error_of("cs:uu");
  EXPECT_NE(e.message().find("repeated"), std::string::npos) << e.message();
  EXPECT_NE(error_of("cycles:pppp").message().find("too many 'p'"), std::string::npos);
  EXPECT_NE(error_of("cs:").message().find("empty modifier"), std::string::npos);
  EXPECT_NE(error_of("cs:u:k").message().find("unexpected ':'"), std::string::npos);
}

// ---------------------------------------------------------------- lists and groups

TEST(EventParse, ListsAndGroups) {
  FakeResolver r;
  auto groups = parse_event_list("task-clock, page-faults:u,{cs,msr/tsc/}:k,sched:sched_switch", r);
  ASSERT_TRUE(groups) << groups.error().message();
  ASSERT_EQ(groups->size(), 4U);
  EXPECT_FALSE((*groups)[0].is_group);
  EXPECT_EQ((*groups)[0].events.size(), 1U);
  EXPECT_EQ((*groups)[1].events[0].name, "page-faults:u");
  const EventGroup& g = (*groups)[2];
  EXPECT_TRUE(g.is_group);
  ASSERT_EQ(g.events.size(), 2U);
  EXPECT_EQ(g.events[0].canonical, "context-switches");
  EXPECT_EQ(g.events[1].canonical, "msr/tsc/");
  for (const auto& e : g.events) {
    EXPECT_EQ(e.attr.exclude_user, 1U) << e.name;
    EXPECT_EQ(e.attr.exclude_kernel, 0U) << e.name;
  }
  EXPECT_EQ((*groups)[3].events[0].attr.type, PERF_TYPE_TRACEPOINT);

  // A single braced event is still a group.
  groups = parse_event_list("{cs}", r);
  ASSERT_TRUE(groups);
  EXPECT_TRUE((*groups)[0].is_group);

  // Group modifiers combine with the member's own (perf semantics).
  groups = parse_event_list("{cs:u,faults}:k", r);
  ASSERT_TRUE(groups);
  EXPECT_EQ((*groups)[0].events[0].attr.exclude_user, 0U);
  EXPECT_EQ((*groups)[0].events[0].attr.exclude_kernel, 0U);
  EXPECT_EQ((*groups)[0].events[1].attr.exclude_user, 1U);

  // Leader sampling and pinning: S on all, pinned kept only on the leader.
  groups = parse_event_list("{task-clock,faults}:SD", r);
  ASSERT_TRUE(groups);
  EXPECT_TRUE((*groups)[0].events[0].sample_read);
  EXPECT_TRUE((*groups)[0].events[1].sample_read);
  EXPECT_EQ((*groups)[0].events[0].attr.pinned, 1U);
  EXPECT_EQ((*groups)[0].events[1].attr.pinned, 0U);

  // Commas inside PMU terms do not split events; uprobe paths keep their slashes.
  groups = parse_event_list("cpu/event=1,umask=2/,uprobe:/bin/fake:main,mem:0x10/8:w", r);
  ASSERT_TRUE(groups) << groups.error().message();
  ASSERT_EQ(groups->size(), 3U);
  EXPECT_EQ((*groups)[0].events[0].attr.config, 0x201U);
  EXPECT_EQ((*groups)[1].events[0].attr.config2, 0x1130U);
  EXPECT_EQ((*groups)[2].events[0].attr.bp_len, 8U);
}

TEST(EventParse, MalformedListsNameColumn) {
  const Error e = error_of("cs,no_such_event");
  EXPECT_EQ(e.code(), Errc::kNotFound);
  EXPECT_EQ(e.message(),
            "event syntax error at column 4: 'no_such_event' is not a known event (see 'perfx "
            "list')");
  EXPECT_NE(error_of("").message().find("empty event list"), std::string::npos);
  EXPECT_NE(error_of("cs,,faults").message().find("column 4"), std::string::npos);
  EXPECT_NE(error_of("cs,").message().find("expected an event"), std::string::npos);
  EXPECT_NE(error_of("{cs,faults").message().find("missing '}'"), std::string::npos);
  EXPECT_NE(error_of("{cs,{faults}}").message().find("nested"), std::string::npos);
  EXPECT_NE(error_of("cs}").message().find("column 3"), std::string::npos);
  EXPECT_NE(error_of("{}").message().find("expected an event"), std::string::npos);
  EXPECT_NE(error_of("{cs}:q").message().find("'q' is not a valid modifier"), std::string::npos);
  EXPECT_NE(error_of("{cs} x").message().find("expected ','"), std::string::npos);
  EXPECT_NE(error_of("cs x").message().find("column 3"), std::string::npos);
  EXPECT_NE(error_of(":u").message().find("column 1"), std::string::npos);
}

// perf 6.1's exclude_guest, as `perf record -e X` + `perf evlist -v` show it: set for an
// event without modifiers (event_attr_init), else by u, p, H only; a group's modifiers
// start from what the member already has.
TEST(EventParse, ExcludeGuestAsPerf) {
  const std::pair<const char*, unsigned> table[] = {
      {"task-clock", 1},   {"task-clock:u", 1},       {"task-clock:k", 0},
      {"task-clock:h", 0}, {"task-clock:G", 0},       {"task-clock:H", 1},
      {"task-clock:I", 0}, {"task-clock:S", 0},       {"task-clock:D", 0},
      {"task-clock:e", 0}, {"task-clock:uk", 1},      {"task-clock:ku", 1},
      {"task-clock:p", 1}, {"task-clock:kp", 1},      {"task-clock:P", 0},
      {"mem:0x1000", 1},   {"sched:sched_switch", 1}, {"sched:sched_switch:k", 0},
      {"r1234", 1},
  };
  for (const auto& [spec, want] : table) {
    EXPECT_EQ(one(spec).attr.exclude_guest, want) << spec;
  }
  auto groups = parse_event_list("{task-clock,page-faults}:k", FakeResolver());
  ASSERT_TRUE(groups.has_value());
  for (const auto& e : (*groups)[0].events) EXPECT_EQ(e.attr.exclude_guest, 1U) << e.name;
  groups = parse_event_list("{task-clock:k,page-faults}", FakeResolver());
  ASSERT_TRUE(groups.has_value());
  EXPECT_EQ((*groups)[0].events[0].attr.exclude_guest, 0U);
  EXPECT_EQ((*groups)[0].events[1].attr.exclude_guest, 1U);
}

TEST(EventParse, DescribeAttr) {
  EXPECT_EQ(describe_attr(one("page-faults:u").attr),
            "type=1 (software) config=0x2 exclude_kernel=1 exclude_hv=1 exclude_guest=1");
  EXPECT_EQ(describe_attr(one("mem:0x10/8:w").attr),
            "type=5 (breakpoint) config=0x0 bp_type=2 bp_addr=0x10 bp_len=8 exclude_guest=1");
}

// ---------------------------------------------------------------- sysfs format fields

TEST(FormatField, ParsesSysfsForms) {
  auto f = parse_format_field("event", "config:0-63\n");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->word, ConfigWord::kConfig);
  EXPECT_EQ(f->width(), 64U);
  f = parse_format_field("x", "config1:0-7,32-40");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->word, ConfigWord::kConfig1);
  ASSERT_EQ(f->ranges.size(), 2U);
  EXPECT_EQ(f->width(), 17U);
  f = parse_format_field("retprobe", "config:5");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->width(), 1U);
  EXPECT_EQ(f->ranges[0], (std::pair<unsigned, unsigned>{5, 5}));
  EXPECT_TRUE(parse_format_field("y", "config3:1-2"));
  EXPECT_FALSE(parse_format_field("bad", "foo:1"));
  EXPECT_FALSE(parse_format_field("bad", "config:9-3"));
  EXPECT_FALSE(parse_format_field("bad", "config:0-64"));
  EXPECT_FALSE(parse_format_field("bad", "config"));
  const auto err = parse_format_field("bad", "config:a-b");
  ASSERT_FALSE(err);
  EXPECT_NE(err.error().message().find("'bad'"), std::string::npos);
}

TEST(FormatField, AppliesSplitFields) {
  const auto f = *parse_format_field("x", "config1:0-7,32-40");
  std::uint64_t words[4] = {0, 0xffffffffffffffffULL, 0, 0};
  ASSERT_TRUE(apply_format_field(f, 0x1ab, words));  // 0xab -> bits 0-7, 0x1 -> bit 32
  EXPECT_EQ(words[1], 0xfffffe00ffffffabULL | (std::uint64_t{1} << 32));
  EXPECT_FALSE(apply_format_field(f, std::uint64_t{1} << 17, words));
  const auto full = *parse_format_field("e", "config:0-63");
  ASSERT_TRUE(apply_format_field(full, ~std::uint64_t{0}, words));
  EXPECT_EQ(words[0], ~std::uint64_t{0});
}

}  // namespace
}  // namespace perfx::event
