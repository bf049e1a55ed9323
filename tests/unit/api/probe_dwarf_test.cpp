// perfx/probe.hpp's DWARF rules on the uprobe_calls fixture compiled here by gcc and clang
// at several -O levels: perf 6.1's prologue skip for the arguments of a function in an
// unoptimized unit (no DW_FORM_sec_offset location list: gcc -O0, clang with DWARF 5 at
// any level), the entry otherwise; SRC:LINE in clang's binaries (no .debug_aranges);
// perf's types (none for clang's size-less pointer types). tests/cli/probe_live.sh
// compares the same definitions with `perf probe -D` on the build's own fixture.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <string>

#include "../temp_dir.hpp"
#include "perfx/probe.hpp"

namespace perfx {
namespace {

const std::string kSource = std::string(PERFX_TEST_DATA_DIR) + "/../fixtures/uprobe_calls.c";

/// The source line of uprobe_target's body ("uprobe_sink += i").
int body_line() {
  std::ifstream in(kSource);
  std::string s;
  for (int n = 1; std::getline(in, s); ++n) {
    if (s.find("uprobe_sink += i") != std::string::npos) return n;
  }
  return 0;
}

class ProbeDwarf : public ::testing::Test {
 protected:
  /// The fixture built by `cc_flags` (compiler first), or "" when that compiler is missing.
  std::string build(const std::string& name, const std::string& cc_flags) {
    const std::string out = dir_.file(name);
    const std::string cmd = cc_flags + " -g -o " + out + " " + kSource + " >/dev/null 2>&1";
    return std::system(cmd.c_str()) == 0 ? out : "";
  }
  /// fn(binary) for the fixture built by each of `ccs` that is installed (clang may not
  /// be: the gcc rows still run).
  template <typename Fn>
  void each_build(std::initializer_list<const char*> ccs, Fn&& fn) {
    for (const char* cc : ccs) {
      SCOPED_TRACE(cc);
      const std::string bin = build("fixture", cc);
      if (!bin.empty()) fn(bin);
    }
  }
  static ProbeDefinition resolve(const std::string& bin, const std::string& spec) {
    ProbeRequest r;
    r.binary = bin;
    r.spec = spec;
    auto d = resolve_probe(r);
    EXPECT_TRUE(d) << spec << ": " << (d ? "" : d.error().message());
    return d ? *d : ProbeDefinition{};
  }
  test_support::TempDir dir_{"perfx_probe_dwarf"};
};

TEST_F(ProbeDwarf, UnoptimizedUnitsReadArgumentsAfterThePrologue) {
  const std::string line = "uprobe_calls.c:" + std::to_string(body_line());
  // clang -O1 with DWARF 5: its location lists are DW_FORM_loclistx, which perf 6.1 does
  // not count as "optimized", so it skips the prologue there too.
  each_build({"gcc -O0", "clang -O0", "clang -O0 -gdwarf-4", "clang -O1 -fno-omit-frame-pointer"},
             [&](const std::string& bin) {
               const auto entry = resolve(bin, "uprobe_target");
               const auto with_arg = resolve(bin, "uprobe_target i");
               // The prologue ends where the body's first line starts, in these builds.
               EXPECT_EQ(with_arg.offset, resolve(bin, line).offset);
               EXPECT_GT(with_arg.offset, entry.offset);
               ASSERT_EQ(with_arg.args.size(), 1u);
               EXPECT_EQ(with_arg.event, "uprobe_target");
               // Raw fetch arguments and return probes stay at the entry, as perf.
               EXPECT_EQ(resolve(bin, "uprobe_target %di").offset, entry.offset);
               EXPECT_EQ(resolve(bin, "uprobe_target%return $retval").offset, entry.offset);
             });
}

TEST_F(ProbeDwarf, OptimizedUnitsReadArgumentsAtTheEntry) {
  each_build({"gcc -O1", "gcc -O2", "clang -O1 -gdwarf-4"}, [&](const std::string& bin) {
    const auto with_arg = resolve(bin, "uprobe_target i");
    EXPECT_EQ(with_arg.offset, resolve(bin, "uprobe_target").offset);
    EXPECT_EQ(with_arg.args, std::vector<std::string>{"i=%di:x64"});
  });
}

TEST_F(ProbeDwarf, FrameSlotsThroughTheFrameBase) {
  // gcc -O0 without frame pointer: DW_OP_fbreg on DW_OP_call_frame_cfa, the CFA from
  // .eh_frame at the probe address (%sp based); with it, %bp based.
  const std::string nofp = build("nofp", "gcc -O0 -fomit-frame-pointer");
  ASSERT_FALSE(nofp.empty());
  auto d = resolve(nofp, "uprobe_target i");
  ASSERT_EQ(d.args.size(), 1u);
  EXPECT_NE(d.args[0].find("(%sp):x64"), std::string::npos) << d.args[0];
  d = resolve(build("fp", "gcc -O0 -fno-omit-frame-pointer"), "main argc argv");
  ASSERT_EQ(d.args.size(), 2u);
  EXPECT_NE(d.args[0].find("(%bp):s32"), std::string::npos) << d.args[0];
  EXPECT_NE(d.args[1].find("(%bp):x64"), std::string::npos) << d.args[1];
}

TEST_F(ProbeDwarf, ClangPointersHaveNoSizeSoNoType) {
  const std::string bin = build("clang", "clang -O0");
  if (bin.empty()) GTEST_SKIP() << "clang is not installed";
  const auto d = resolve(bin, "main argc argv");
  ASSERT_EQ(d.args.size(), 2u);
  EXPECT_EQ(d.args[0].substr(d.args[0].size() - 4), ":s32");
  EXPECT_EQ(d.args[1].find(':'), std::string::npos) << d.args[1];  // "argv=-16(%bp)", as perf
}

TEST_F(ProbeDwarf, SourceLinesInClangBinaries) {
  const std::string line = "uprobe_calls.c:" + std::to_string(body_line());
  each_build({"clang -O0", "clang -O2 -fno-omit-frame-pointer", "clang -O0 -gdwarf-4", "gcc -O0"},
             [&](const std::string& bin) {
               const auto d = resolve(bin, line + " i");
               EXPECT_EQ(d.event, "uprobe_target");
               EXPECT_GT(d.offset, resolve(bin, "uprobe_target").offset);
               ASSERT_EQ(d.args.size(), 1u);
               EXPECT_EQ(d.args[0].rfind("i=", 0), 0u);
             });
  ProbeRequest r;
  r.binary = build("none", "gcc -O0");
  r.spec = "uprobe_calls.c:1";  // a comment line: no code
  auto d = resolve_probe(r);
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().message().find("uprobe_calls.c:1"), std::string::npos);
}

}  // namespace
}  // namespace perfx
