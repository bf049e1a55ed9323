// Off-CPU analysis without a kernel: the sched_switch payload, prev_state classes, the
// switch-out/switch-in pairing per thread, and how the exports present a profile whose
// event holds off-CPU intervals (weighted folding, blue/purple flame-graph frames,
// Firefox rows spread over each interval).

#include "profile/off_cpu.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <sstream>
#include <vector>

#include "profile/profile.hpp"
#include "report/export.hpp"
#include "report/folded.hpp"

namespace perfx::profile {
namespace {

std::vector<std::byte> sched_switch_payload(std::int32_t prev, std::int64_t state,
                                            std::int32_t next) {
  std::vector<std::byte> raw(68);
  std::memcpy(raw.data() + 24, &prev, 4);
  std::memcpy(raw.data() + 32, &state, 8);
  std::memcpy(raw.data() + 56, &next, 4);
  return raw;
}

TEST(OffCpu, DecodesSchedSwitch) {
  const auto raw = sched_switch_payload(42, 1, 7);
  auto sw = decode_sched_switch(raw);
  ASSERT_TRUE(sw);
  EXPECT_EQ(sw->prev_pid, 42);
  EXPECT_EQ(sw->prev_state, 1);
  EXPECT_EQ(sw->next_pid, 7);
  EXPECT_FALSE(decode_sched_switch(std::span<const std::byte>(raw).first(63)));
}

TEST(OffCpu, PrevStateClasses) {
  EXPECT_FALSE(is_blocked_state(0));      // R: preempted
  EXPECT_FALSE(is_blocked_state(0x100));  // R+: TASK_REPORT_MAX, preempted
  EXPECT_TRUE(is_blocked_state(0x1));     // S
  EXPECT_TRUE(is_blocked_state(0x2));     // D
  EXPECT_TRUE(is_blocked_state(0x80));    // I
}

TEST(OffCpu, PairsSwitchOutWithNextSwitchInPerThread) {
  OffCpuTracker t;
  EXPECT_FALSE(t.switch_in(10, 50));  // no switch-out yet: nothing
  t.switch_out(10, 100, true, 3, 0, 1);
  t.switch_out(11, 120, false, 4, 1, 0);
  t.switch_out(0, 130, true, 5, 2, 0);  // the idle task is never off-CPU
  auto b = t.switch_in(11, 170);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->duration_ns, 50u);
  EXPECT_FALSE(b->blocked);
  EXPECT_EQ(b->stack, 4u);
  auto a = t.switch_in(10, 400);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->start_ns, 100u);
  EXPECT_EQ(a->duration_ns, 300u);
  EXPECT_TRUE(a->blocked);
  EXPECT_EQ(a->cpu, 1);
  EXPECT_FALSE(t.switch_in(10, 500));  // consumed
  t.switch_out(12, 600, true, 1, 3, 0);
  EXPECT_FALSE(t.switch_in(12, 590));  // earlier than its switch-out: dropped, counted
  EXPECT_EQ(t.unpaired_switch_ins(), 1u);
  t.switch_out(13, 700, true, 1, 3, 0);
  EXPECT_EQ(t.open_intervals(), 1u);
}

// A wall profile: on-CPU samples of "spin" (period 100 ns each) and off-CPU intervals
// under "block" ending in the [off-cpu] marker, one [run-queue] wait under "spin".
Profile wall_profile() {
  Profile p;
  auto frame = [&](const char* name, FrameKind kind) {
    Frame f;
    f.function = name;
    f.dso = kind == FrameKind::kOffCpu ? name : "prog";
    f.kind = kind;
    p.frames.push_back(f);
    return static_cast<std::uint32_t>(p.frames.size() - 1);
  };
  const auto main_f = frame("main", FrameKind::kUser);
  const auto spin_f = frame("spin", FrameKind::kUser);
  const auto block_f = frame("block", FrameKind::kUser);
  const auto sched_f = frame("__schedule", FrameKind::kKernel);
  const auto off_f = frame("[off-cpu]", FrameKind::kOffCpu);
  const auto rq_f = frame("[run-queue]", FrameKind::kOffCpu);
  p.stacks = {{main_f, spin_f}, {main_f, block_f, sched_f, off_f}, {main_f, spin_f, sched_f, rq_f}};
  p.threads = {{1, 1, "prog"}};
  Event e{"cpu-clock+offcpu-time", "nanoseconds"};
  e.off_cpu = true;
  p.events = {e};
  std::uint64_t t = 1000;
  for (int i = 0; i < 4; ++i) {  // 4 x 100 ns on CPU, then 600 ns blocked (the last 400)
    p.samples.push_back(Sample{0, 0, t, 100});
    t += 100;
    const std::uint64_t blocked = i == 3 ? 400 : 600;
    p.samples.push_back(Sample{1, 0, t, blocked});
    t += blocked;
  }
  p.samples.push_back(Sample{2, 0, t, 200});  // 200 ns waiting for a CPU in spin
  p.start_time_ns = 1000;
  p.end_time_ns = t;
  return p;
}

TEST(OffCpuExport, FoldsByWeightWithOffCpuShares) {
  const Profile p = wall_profile();
  report::ExportOptions o;
  o.include_comm = false;
  auto folded = report::fold(p, o);
  ASSERT_TRUE(folded) << folded.error().message();
  EXPECT_TRUE(folded->weighted);
  EXPECT_STREQ(folded->unit(), "ns");
  const auto nodes = report::build_flame_tree(*folded, false);
  // on CPU 400 ns + blocked 2200 ns + run-queue 200 ns
  EXPECT_EQ(nodes[0].value, 2800u);
  EXPECT_EQ(nodes[0].off_cpu, 2200u);
  EXPECT_EQ(nodes[0].run_queue, 200u);
  for (const auto& n : nodes) {
    if (n.parent != 0 || &n == &nodes[0]) continue;
    EXPECT_EQ(folded->names[n.name], "main");
  }
  std::ostringstream text;
  ASSERT_TRUE(report::export_profile("folded", p, text, o));
  EXPECT_NE(text.str().find("main;block;__schedule_[k];[off-cpu] 2200\n"), std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("main;spin 400\n"), std::string::npos);
}

TEST(OffCpuExport, SvgColoursBlockedFramesBlue) {
  const Profile p = wall_profile();
  std::ostringstream svg;
  ASSERT_TRUE(report::export_profile("svg", p, svg, {}));
  const std::string s = svg.str();
  const auto block = s.find("<title>block (2200 ns");
  ASSERT_NE(block, std::string::npos) << s.substr(0, 3000);
  const std::string rect = s.substr(block, s.find("/>", block) - block);
  EXPECT_NE(rect.find("off-CPU 100.00%"), std::string::npos) << rect;
  // The off-CPU palette: blue dominates.
  const auto fill = rect.find("fill=\"rgb(");
  ASSERT_NE(fill, std::string::npos);
  int r = 0, g = 0, b = 0;
  ASSERT_EQ(std::sscanf(rect.c_str() + fill, "fill=\"rgb(%d,%d,%d)", &r, &g, &b), 3);
  EXPECT_GT(b, 190);
  EXPECT_LT(r, 110);
  const auto spin = s.find("<title>spin (600 ns");
  ASSERT_NE(spin, std::string::npos);
  EXPECT_NE(s.find("run-queue 33.33%", spin), std::string::npos);
}

TEST(OffCpuExport, FirefoxSpreadsIntervalsAtTheOnCpuPeriod) {
  const Profile p = wall_profile();
  std::ostringstream ff;
  ASSERT_TRUE(report::export_profile("firefox", p, ff, {}));
  const std::string s = ff.str();
  // On-CPU mean period 100 ns: a 600 ns interval is 6 rows (4 intervals: 6+6+6+4), the
  // 200 ns run-queue wait 2, the 4 on-CPU samples 1 each.
  const auto samples = s.find("\"samples\":");
  const auto end = s.find("]},\"frameTable\"", samples);
  ASSERT_NE(samples, std::string::npos);
  std::size_t rows = 0;
  for (std::size_t i = s.find("\"data\":[", samples); i < end; ++i) rows += s[i] == '[';
  EXPECT_EQ(rows - 1, 4u + 22u + 2u) << s.substr(samples, end - samples);
  EXPECT_NE(s.find("\"name\":\"Off-CPU\""), std::string::npos);
}

}  // namespace
}  // namespace perfx::profile
