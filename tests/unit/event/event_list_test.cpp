// Unit tests for the perfx list model (event_list.hpp) and its text/JSON layouts.

#include "event/event_list.hpp"

#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <algorithm>

#include "fake_resolver.hpp"
#include "report/event_list_format.hpp"

namespace perfx::event {
namespace {

using testing::FakeResolver;

const ListEntry* find(const std::vector<ListEntry>& v, std::string_view name) {
  auto it = std::find_if(v.begin(), v.end(), [&](const ListEntry& e) { return e.name == name; });
  return it == v.end() ? nullptr : &*it;
}

std::vector<ListEntry> list(std::string filter = {}, const Resolver& r = FakeResolver()) {
  ListOptions o;
  o.filter = std::move(filter);
  auto l = list_events(r, o);
  EXPECT_TRUE(l.has_value()) << (l ? "" : l.error().message());
  return l ? *l : std::vector<ListEntry>{};
}

TEST(EventList, HasEveryKindInPerfListOrder) {
  auto l = list();
  const auto* cycles = find(l, "cpu-cycles");
  ASSERT_NE(cycles, nullptr);
  EXPECT_EQ(cycles->aliases, std::vector<std::string>{"cycles"});
  ASSERT_TRUE(cycles->attr);
  EXPECT_EQ(cycles->attr->type, PERF_TYPE_HARDWARE);
  EXPECT_EQ(cycles->attr->config, PERF_COUNT_HW_CPU_CYCLES);

  const auto* pf = find(l, "page-faults");
  ASSERT_NE(pf, nullptr);
  EXPECT_EQ(pf->kind, EventKind::kSoftware);
  EXPECT_EQ(pf->attr->config, PERF_COUNT_SW_PAGE_FAULTS);

  const auto* llc = find(l, "LLC-load-misses");
  ASSERT_NE(llc, nullptr);
  EXPECT_EQ(llc->attr->type, PERF_TYPE_HW_CACHE);
  EXPECT_EQ(llc->attr->config, PERF_COUNT_HW_CACHE_LL | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
                                   (PERF_COUNT_HW_CACHE_RESULT_MISS << 16));

  // sysfs aliases resolve through their format fields (split fields included).
  const auto* tsc = find(l, "msr/tsc/");
  ASSERT_NE(tsc, nullptr);
  EXPECT_EQ(tsc->attr->type, 9u);
  const auto* inst = find(l, "cpu/inst_retired/");
  ASSERT_NE(inst, nullptr);
  EXPECT_EQ(inst->attr->config, 0x1c0u);

  const auto* sw = find(l, "sched:sched_switch");
  ASSERT_NE(sw, nullptr);
  EXPECT_EQ(sw->attr->type, PERF_TYPE_TRACEPOINT);
  EXPECT_EQ(sw->attr->config, 316u);

  const auto* bp = find(l, "mem:<addr>[/len][:access]");
  ASSERT_NE(bp, nullptr);
  EXPECT_TRUE(bp->syntax);
  EXPECT_EQ(bp->attr->type, PERF_TYPE_BREAKPOINT);

  const auto* up = find(l, "uprobe:<path>:<symbol>[+<off>]|<0xoffset>");
  ASSERT_NE(up, nullptr);
  EXPECT_EQ(up->attr->type, 8u);
  const auto* uret = find(l, "uretprobe:<path>:<symbol>[+<off>]|<0xoffset>");
  ASSERT_NE(uret, nullptr);
  EXPECT_EQ(uret->attr->config, 1u);  // the retprobe format bit

  // perf list's order: hardware, software, cache, PMU, raw, breakpoint, tracepoints.
  const auto pos = [&](const ListEntry* e) { return e - l.data(); };
  EXPECT_LT(pos(cycles), pos(pf));
  EXPECT_LT(pos(pf), pos(llc));
  EXPECT_LT(pos(llc), pos(tsc));
  EXPECT_LT(pos(tsc), pos(bp));
  EXPECT_LT(pos(bp), pos(sw));
}

TEST(EventList, FiltersByGlobSubstringAliasAndClass) {
  auto l = list("sched:*");
  ASSERT_EQ(l.size(), 3u);
  for (const auto& e : l) EXPECT_EQ(e.kind, EventKind::kTracepoint);

  l = list("fault");  // plain word: substring
  EXPECT_NE(find(l, "page-faults"), nullptr);
  EXPECT_NE(find(l, "major-faults"), nullptr);
  EXPECT_EQ(find(l, "cpu-clock"), nullptr);

  l = list("cs");  // an alias matches too
  EXPECT_NE(find(l, "context-switches"), nullptr);

  l = list("sw");
  ASSERT_FALSE(l.empty());
  for (const auto& e : l) EXPECT_EQ(e.kind, EventKind::kSoftware);

  l = list("pmu");
  EXPECT_NE(find(l, "msr/tsc/"), nullptr);
  for (const auto& e : l) EXPECT_EQ(e.kind, EventKind::kPmu);

  EXPECT_TRUE(list("no_such_thing_at_all").empty());
}

TEST(EventList, NoTracefsMeansNoTracepointsNotAnError) {
  FakeResolver r;
  r.tracefs_mounted = false;  // tracepoint_id fails; tracepoints() still lists (fake)
  auto l = list("tracepoint", r);
  // Without ids the tracepoints are not usable and perf leaves them out.
  EXPECT_TRUE(l.empty());
}

TEST(EventList, UnresolvableAliasIsListedAsUnavailable) {
  FakeResolver r;
  r.add_pmu("odd", 12, {{"event", "config:0-7"}}, {{"big", "event=0x1ff"}, {"bad", "nope=1"}});
  auto l = list("odd/*", r);
  ASSERT_EQ(l.size(), 2u);
  for (const auto& e : l) {
    EXPECT_FALSE(e.attr.has_value()) << e.name;
    EXPECT_NE(e.unavailable.find("cannot resolve terms"), std::string::npos) << e.name;
  }
}

TEST(EventListFormat, TextLayoutLikePerfList) {
  auto l = list("page-faults");
  ASSERT_EQ(l.size(), 1u);
  l[0].status = "supported";
  const auto text = report::format_event_list_text(l, {.descriptions = true, .banner = false});
  EXPECT_EQ(text.substr(0, 2 + 50 + 1), "  page-faults OR faults" + std::string(29, ' ') + " ");
  EXPECT_NE(text.find("[Software event] [supported]\n"), std::string::npos);
  EXPECT_NE(text.find("\n       "), std::string::npos);  // the description line

  const auto banner = report::format_event_list_text(l, {});
  EXPECT_EQ(banner.rfind("\nList of pre-defined events (to be used in -e):\n\n", 0), 0u);
}

TEST(EventListFormat, JsonIsEscapedAndTyped) {
  auto l = list("msr/*");
  ASSERT_EQ(l.size(), 1u);
  l[0].supported = true;
  l[0].probed = true;
  l[0].status = "say \"yes\"\n";
  const auto json = report::format_event_list_json(l);
  EXPECT_NE(json.find("\"name\":\"msr/tsc/\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"kind\":\"pmu\""), std::string::npos);
  EXPECT_NE(json.find("\"type\":9,\"config\":\"0x0\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"supported\":true,\"probed\":true"), std::string::npos);
  EXPECT_NE(json.find("\"status\":\"say \\\"yes\\\"\\n\""), std::string::npos) << json;

  auto syntax = list("raw");
  const auto sj = report::format_event_list_json(syntax);
  EXPECT_NE(sj.find("\"syntax\":true,\"type\":4,\"config\":null"), std::string::npos) << sj;
  EXPECT_NE(sj.find("\"type\":null"), std::string::npos) << sj;  // the PMU-term template
  EXPECT_EQ(report::format_event_list_json({}), "[\n]\n");
}

}  // namespace
}  // namespace perfx::event
