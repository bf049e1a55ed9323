// perfx/probe.hpp without the kernel: perf probe's PROBEDEF syntax, the tracefs
// definition lines both ways, perf's default names, and kprobes/uprobes defined, listed
// and deleted in a fake tracefs tree (this kernel has no kprobes: the live test skips).

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "../temp_dir.hpp"
#include "../test_files.hpp"
#include "event/probe_syntax.hpp"
#include "perfx/probe.hpp"

namespace perfx {
namespace {

namespace fs = std::filesystem;

using test_support::slurp;

ProbeRequest req(std::string binary, std::string spec, bool force = false) {
  ProbeRequest r;
  r.binary = std::move(binary);
  r.spec = std::move(spec);
  r.force = force;
  return r;
}

TEST(ProbeSyntax, PerfProbedefForms) {
  auto p = event::parse_probe_point("work");
  ASSERT_TRUE(p) << p.error().message();
  EXPECT_EQ(p->function, "work");
  EXPECT_EQ(p->offset, 0u);
  EXPECT_FALSE(p->retprobe);

  p = event::parse_probe_point("grp:ev=work+0x10 x y=%di:u32");
  ASSERT_TRUE(p) << p.error().message();
  EXPECT_EQ(p->group, "grp");
  EXPECT_EQ(p->event, "ev");
  EXPECT_EQ(p->function, "work");
  EXPECT_EQ(p->offset, 16u);
  ASSERT_EQ(p->args.size(), 2u);
  EXPECT_EQ(p->args[1], "y=%di:u32");

  p = event::parse_probe_point("work%return $retval");
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->retprobe);
  EXPECT_EQ(event::default_probe_event(*p, {}), "work__return");

  p = event::parse_probe_point("src/prog.c:42");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->source, "src/prog.c");
  EXPECT_EQ(p->line, 42u);
  EXPECT_EQ(event::default_probe_event(*p, "main"), "main");
}

TEST(ProbeSyntax, BadInputIsNamed) {
  for (const char* bad : {"", "work%entry", "work+zz", "1ev=work", "prog.c:0", "work%return+4",
                          "func:12", "prog.c:12%return"}) {
    auto p = event::parse_probe_point(bad);
    EXPECT_FALSE(p) << bad;
    if (!p) {
      EXPECT_EQ(p.error().code(), Errc::kInvalidArgument) << bad;
    }
  }
}

TEST(ProbeSyntax, PerfDefaultNames) {
  EXPECT_EQ(event::default_probe_group("/usr/lib/x86_64-linux-gnu/libc.so.6"), "probe_libc");
  EXPECT_EQ(event::default_probe_group("/tmp/my-prog"), "probe_my_prog");
  EXPECT_EQ(event::probe_event_name("operator new"), "operator_new");
  EXPECT_TRUE(event::is_raw_fetch_arg("%di"));
  EXPECT_TRUE(event::is_raw_fetch_arg("cnt=+8(%sp):u32"));
  EXPECT_FALSE(event::is_raw_fetch_arg("count"));
}

TEST(ProbeDefinitionText, FormatsAndParsesTracefsLines) {
  // uprobe_events shows offsets as 0x%016lx; definitions are written in short hex.
  auto d = parse_probe_definition("p:probe_pp/f /tmp/pp:0x0000000000001139 x=%di:s32",
                                  ProbeType::kUprobe);
  ASSERT_TRUE(d) << d.error().message();
  EXPECT_EQ(d->name(), "probe_pp:f");
  EXPECT_EQ(d->target, "/tmp/pp");
  EXPECT_EQ(d->offset, 0x1139u);
  EXPECT_EQ(d->definition(), "p:probe_pp/f /tmp/pp:0x1139 x=%di:s32");

  d = parse_probe_definition("r:probe/vfs_read__return vfs_read+0 arg1=$retval",
                             ProbeType::kKprobe);
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->retprobe);
  EXPECT_EQ(d->target, "vfs_read");
  EXPECT_EQ(d->definition(), "r:probe/vfs_read__return vfs_read arg1=$retval");

  EXPECT_FALSE(parse_probe_definition("garbage", ProbeType::kUprobe));
  EXPECT_FALSE(parse_probe_definition("p:nogroup /x:0x1", ProbeType::kUprobe));

  EXPECT_TRUE(d->matches("probe:*"));
  EXPECT_TRUE(d->matches("vfs_*"));
  EXPECT_FALSE(d->matches("probe_x:*"));
}

/// A fake tracefs: kprobe_events and uprobe_events as plain files (an append lands at
/// the end, as the kernel's definition does; a delete line "-:g/e" is appended too).
class FakeTracefs : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_.file("tracing/events"));
    std::ofstream(dir_.file("tracing/uprobe_events"))
        << "p:probe_pp/f /tmp/pp:0x0000000000001139\n";
    std::ofstream(dir_.file("tracing/kprobe_events")) << "p:probe/vfs_read vfs_read+0\n";
    paths_.tracefs = dir_.file("tracing");
  }
  test_support::TempDir dir_{"perfx_probe"};
  SystemPaths paths_;
};

TEST_F(FakeTracefs, KprobeAddListDelete) {
  auto d = add_probe(req("", "vfs_write+4 %di"), paths_);
  ASSERT_TRUE(d) << d.error().message();
  EXPECT_EQ(d->name(), "probe:vfs_write");
  auto r = add_probe(req("", "ev=do_sys_open%return $retval"), paths_);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(slurp(dir_.file("tracing/kprobe_events")),
            "p:probe/vfs_read vfs_read+0\n"
            "p:probe/vfs_write vfs_write+4 %di\n"
            "r:probe/ev do_sys_open $retval\n");

  // The name is taken: refused, or suffixed with -f as perf does.
  auto dup = add_probe(req("", "vfs_read"), paths_);
  ASSERT_FALSE(dup);
  EXPECT_NE(dup.error().message().find("already exists"), std::string::npos);
  auto forced = add_probe(req("", "vfs_read", true), paths_);
  ASSERT_TRUE(forced);
  EXPECT_EQ(forced->name(), "probe:vfs_read_1");

  auto all = list_probes(paths_);
  ASSERT_TRUE(all) << all.error().message();
  ASSERT_EQ(all->size(), 5u);
  EXPECT_EQ((*all)[0].type, ProbeType::kUprobe);
  EXPECT_EQ((*all)[2].name(), "probe:vfs_write");
  EXPECT_EQ((*all)[2].type, ProbeType::kKprobe);

  auto gone = delete_probes("probe:vfs_w*", paths_);
  ASSERT_TRUE(gone) << gone.error().message();
  ASSERT_EQ(gone->size(), 1u);
  EXPECT_EQ((*gone)[0], "probe:vfs_write");
  const std::string text = slurp(dir_.file("tracing/kprobe_events"));
  EXPECT_NE(text.find("-:probe/vfs_write\n"), std::string::npos);
  auto none = delete_probes("nothing_*", paths_);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code(), Errc::kNotFound);
}

TEST_F(FakeTracefs, KprobeArgumentsNeedFetchSyntax) {
  auto d = add_probe(req("", "vfs_read count"), paths_);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().code(), Errc::kNotSupported);
  d = add_probe(req("", "fs/read_write.c:600"), paths_);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().code(), Errc::kNotSupported);
}

TEST_F(FakeTracefs, NoKprobeEventsFileIsTheKernelsReason) {
  fs::remove(dir_.file("tracing/kprobe_events"));
  auto d = add_probe(req("", "vfs_read"), paths_);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().code(), Errc::kNotSupported);
  EXPECT_NE(d.error().message().find("CONFIG_KPROBE"), std::string::npos);
  auto all = list_probes(paths_);  // the uprobes alone
  ASSERT_TRUE(all);
  EXPECT_EQ(all->size(), 1u);
}

TEST_F(FakeTracefs, UprobeOnThisTestBinary) {
  // The test binary itself is an ELF file with a symtab: main's file offset.
  const std::string self = fs::read_symlink("/proc/self/exe");
  auto d = add_probe(req(self, "main"), paths_);
  ASSERT_TRUE(d) << d.error().message();
  EXPECT_EQ(d->group.rfind("probe_", 0), 0u);
  EXPECT_EQ(d->event, "main");
  EXPECT_GT(d->offset, 0u);
  const std::string text = slurp(dir_.file("tracing/uprobe_events"));
  EXPECT_NE(text.find(d->definition() + "\n"), std::string::npos);
  auto missing = resolve_probe(req(self, "no_such_function_here"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), Errc::kNotFound);
  EXPECT_NE(missing.error().message().find("no_such_function_here"), std::string::npos);
}

}  // namespace
}  // namespace perfx
