// Pure symbol-module tests: demangling, kallsyms and JIT-map parsing, perf's symbol
// boundary fixups, map overlap handling and the fork/exec process model.
#include <gtest/gtest.h>

#include <fstream>

#include "../temp_dir.hpp"
#include "symbol/demangle.hpp"
#include "symbol/dso.hpp"
#include "symbol/machine.hpp"

namespace perfx::symbol {
namespace {

// perf 6.1 (libiberty, DMGL_NO_OPTS): no parameter lists, return types, cv-qualifiers
// or clone suffixes. Checked with perf report --stdio / perf script on tests'
// C++ fixture: "ns::Box<long>::spin", "outer".
TEST(Demangle, CxxWithoutParametersLikePerf) {
  EXPECT_EQ(demangle("_ZN3foo3barEi"), "foo::bar");
  EXPECT_EQ(demangle("_Z5outerl"), "outer");
  EXPECT_EQ(demangle("_ZNK2ns3BoxIlE4spinEl.isra.0"), "ns::Box<long>::spin");
  EXPECT_EQ(demangle("_ZNSt6vectorIiSaIiEE9push_backERKi"),
            "std::vector<int, std::allocator<int> >::push_back");
  EXPECT_EQ(demangle("_Z3fooIiEvT_"), "foo<int>");
}

// perf report -v / perf script -v: DMGL_PARAMS | DMGL_ANSI.
TEST(Demangle, CxxWithParametersOnRequest) {
  const DemangleOptions full{.params = true};
  EXPECT_EQ(demangle("_ZN3foo3barEi", full), "foo::bar(int)");
  EXPECT_EQ(demangle("_ZNK2ns3BoxIlE4spinEl.isra.0", full),
            "ns::Box<long>::spin(long) const [clone .isra.0]");
  EXPECT_EQ(demangle("_ZNSt6vectorIiSaIiEE9push_backERKi", full),
            "std::vector<int, std::allocator<int> >::push_back(int const&)");
}

// Rust v0 as perf 6.1 shows it (rustc -C symbol-mangling-version=v0, perf report:
// "rv::busy"): crate disambiguators left out.
TEST(Demangle, RustV0) {
  EXPECT_EQ(demangle("_RNvCs3CUbr4axdjZ_2rv4busy"), "rv::busy");
  EXPECT_EQ(demangle("_RINvNtCs3CUbr4axdjZ_2rv5inner4workmEB4_"), "rv::inner::work::<u32>");
  EXPECT_EQ(demangle("_RNvCsgarbage"), "_RNvCsgarbage");
}

TEST(Demangle, CNamesAndGarbageUnchanged) {
  EXPECT_EQ(demangle("main"), "main");
  EXPECT_EQ(demangle("_Zgarbage"), "_Zgarbage");
  EXPECT_EQ(demangle(""), "");
}

TEST(Demangle, RustLegacyHashTrimmed) {
  EXPECT_EQ(demangle("_ZN4core3fmt5write17h0123456789abcdefE"), "core::fmt::write");
  EXPECT_EQ(demangle("_ZN63_$LT$alloc..vec..Vec$LT$T$GT$$u20$as$u20$core..clone..Clone$GT$"
                     "5clone17h1234567890abcdefE"),
            "<alloc::vec::Vec<T> as core::clone::Clone>::clone");
  // Not a hash (15 digits): left as C++ demangled it.
  EXPECT_EQ(demangle("_ZN3foo16h0123456789abcdeE"), "foo::h0123456789abcde");
}

TEST(Kallsyms, KernelAndModuleDsosReadTheFileTheyKeepMapped) {
  // The symbols' names are views into the mapped file: they must stay valid after load()
  // and for each DSO that reads it (the kernel and a module, each with its own mapping).
  test_support::TempDir dir("perfx_kallsyms");
  const std::string path = dir.file("kallsyms");
  {
    std::ofstream out(path);
    out << "ffffffff81000000 T _text\n"
           "ffffffff81000100 t a_rather_long_kernel_function_name_beyond_sso\n"
           "ffffffff81000200 T short_fn\n"
           "ffffffffc0000000 t mod_fn\t[mymod]\n";
  }
  SearchPaths paths;
  paths.kallsyms = path;
  paths.buildid_dir = dir.file("no-cache");
  Dso k("[kernel.kallsyms]", DsoKind::kKernel, "", paths);
  Dso m("[mymod]", DsoKind::kKernelModule, "", paths);
  const Symbol* s = k.find(0xffffffff81000150);
  const Symbol* ms = m.find(0xffffffffc0000010);
  ASSERT_NE(s, nullptr);
  ASSERT_NE(ms, nullptr);
  EXPECT_EQ(s->name, "a_rather_long_kernel_function_name_beyond_sso");
  EXPECT_EQ(ms->name, "mod_fn");
  EXPECT_EQ(k.symbol_count(), 3u);
  EXPECT_TRUE(k.warning().empty()) << k.warning();
}

// A recording of another kernel (its build-id is not the running kernel's, read from
// the notes file) does not take the running kernel's symbols: they would name the wrong
// functions. Its addresses stay unresolved, with a warning, as in perf; the same
// build-id (perf's header pads it with zeros) or no notes to compare: kallsyms is used.
TEST(Kallsyms, ARecordingOfAnotherKernelDoesNotUseTheRunningOnes) {
  test_support::TempDir dir("perfx_kallsyms");
  const std::string path = dir.file("kallsyms");
  const std::string notes = dir.file("notes");
  {
    std::ofstream out(path);
    out << "ffffffff81000000 T _text\nffffffff81000100 T running_fn\n";
    std::ofstream n(notes, std::ios::binary);
    const std::uint32_t head[3] = {4, 4, 3};  // namesz, descsz, NT_GNU_BUILD_ID
    n.write(reinterpret_cast<const char*>(head), sizeof head);
    n.write("GNU\0\xab\xcd\xef\x01", 8);
  }
  SearchPaths paths;
  paths.kallsyms = path;
  paths.kernel_notes = notes;
  paths.buildid_dir = dir.file("no-cache");
  Dso other("[kernel.kallsyms]", DsoKind::kKernel, "11223344", paths);
  EXPECT_EQ(other.find(0xffffffff81000110), nullptr);
  EXPECT_NE(other.warning().find("not the running one (abcdef01)"), std::string::npos)
      << other.warning();
  Dso same("[kernel.kallsyms]", DsoKind::kKernel, "abcdef01000000000000", paths);
  ASSERT_NE(same.find(0xffffffff81000110), nullptr);
  EXPECT_EQ(same.find(0xffffffff81000110)->name, "running_fn");
  paths.kernel_notes = dir.file("missing");
  Dso unknown("[kernel.kallsyms]", DsoKind::kKernel, "11223344", paths);
  EXPECT_NE(unknown.find(0xffffffff81000110), nullptr);
}

TEST(Kallsyms, ParsesTypesModulesAndFixesEnds) {
  const char* text =
      "ffffffff81000000 T _text\n"
      "ffffffff81000000 T _stext\n"
      "ffffffff81000100 t local_fn\n"
      "ffffffff81000200 r some_rodata\n"
      "ffffffff81000300 T last_fn\n"
      "ffffffffc0000000 t mod_fn\t[mymod]\n"
      "ffffffffc0000040 T mod_fn2\t[mymod]\n";
  auto t = parse_kallsyms(text);
  ASSERT_EQ(t.kernel.size(), 4u);  // 'r' is filtered
  EXPECT_EQ(t.kernel[2].name, "local_fn");
  EXPECT_EQ(t.kernel[2].end, 0xffffffff81000300u);  // to the next kept symbol
  ASSERT_EQ(t.modules.size(), 1u);
  EXPECT_EQ(t.modules[0].first, "mymod");
  EXPECT_EQ(t.modules[0].second[0].end, 0xffffffffc0000040u);
  Dso k("[kernel.kallsyms]", DsoKind::kKernel, "", {});
  k.set_symbols(t.kernel);
  const Symbol* s = k.find(0xffffffff81000150);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->name, "local_fn");
  EXPECT_TRUE(k.is_kernel());
}

TEST(JitMap, ParsesPerfMapLines) {
  NameArena names;
  auto syms =
      parse_jit_map("7f0000001000 40 jitted_a\n0x7f0000001040 0x20 Lfoo::bar\nbad line\n", names);
  ASSERT_EQ(syms.size(), 2u);
  EXPECT_EQ(syms[0].start, 0x7f0000001000u);
  EXPECT_EQ(syms[0].end, 0x7f0000001040u);
  EXPECT_EQ(syms[1].name, "Lfoo::bar");
}

TEST(FinalizeSymbols, LastZeroSizeEndsAtNextPagePlusOne) {
  SymbolTable s = {{0x1010, 0x1010, "b"}, {0x1000, 0x1000, "a"}};
  finalize_symbols(s);
  EXPECT_EQ(s[0].name, "a");
  EXPECT_EQ(s[0].end, 0x1010u);
  EXPECT_EQ(s[1].end, 0x3000u);  // roundup(0x1010, 4096) + 4096
}

TEST(ShortName, AsPerf) {
  EXPECT_EQ(dso_short_name("/usr/lib/x86_64-linux-gnu/libc.so.6"), "libc.so.6");
  EXPECT_EQ(dso_short_name("[kernel.kallsyms]_text"), "[kernel.kallsyms]");
  EXPECT_EQ(dso_short_name("[vdso]"), "[vdso]");
  // perf's dso__set_basename(): JIT maps read "[JIT] tid PID" in report and diff.
  EXPECT_EQ(dso_short_name("/tmp/perf-4242.map"), "[JIT] tid 4242");
  EXPECT_EQ(dso_short_name("/tmp/perf-x.map"), "perf-x.map");
}

TEST(MapSet, OverlapCutsOlderMaps) {
  MapSet ms;
  Dso a("/a", DsoKind::kNoFile, "", {});
  Dso b("/b", DsoKind::kNoFile, "", {});
  ms.insert(Map{0x1000, 0x5000, 0x0, &a, false});
  ms.insert(Map{0x2000, 0x3000, 0x100, &b, false});
  ASSERT_EQ(ms.size(), 3u);
  EXPECT_EQ(ms.find(0x1fff)->dso, &a);
  EXPECT_EQ(ms.find(0x2000)->dso, &b);
  EXPECT_EQ(ms.find(0x2fff)->dso, &b);
  const Map* right = ms.find(0x3000);
  ASSERT_NE(right, nullptr);
  EXPECT_EQ(right->dso, &a);
  EXPECT_EQ(right->pgoff, 0x2000u);  // the cut keeps file offsets right
  EXPECT_EQ(right->map_ip(0x3010), 0x2010u);
  EXPECT_EQ(ms.find(0x5000), nullptr);
  EXPECT_EQ(ms.find(0xfff), nullptr);
}

TEST(Machine, ForkCopiesThreadsShareExecKeepsMapsUntilReplaced) {
  Machine m;
  m.on_comm(100, 100, "parent", false);
  m.on_mmap(100, 100, 0x400000, 0x1000, 0, "/bin/parent", "");
  // A thread shares the maps.
  m.on_fork(100, 100, 101, 100);
  m.on_mmap(100, 101, 0x500000, 0x1000, 0, "/lib/libx.so", "");
  ThreadState& t101 = m.thread(100, 101);
  EXPECT_EQ(t101.comm, "parent");
  EXPECT_NE(m.resolve(m.thread(100, 100), 0x500010, false).map, nullptr);
  // A new process gets a copy: later maps of the parent are not seen by the child.
  m.on_fork(200, 100, 200, 100);
  m.on_mmap(100, 100, 0x600000, 0x1000, 0, "/lib/liby.so", "");
  ThreadState& child = m.thread(200, 200);
  EXPECT_NE(m.resolve(child, 0x400010, false).map, nullptr);
  EXPECT_EQ(m.resolve(child, 0x600010, false).map, nullptr);
  // exec keeps the old maps (as perf: a sample still in execve() returns to the old
  // image) until the new image's maps replace them.
  m.on_comm(200, 200, "newprog", true);
  EXPECT_EQ(m.thread(200, 200).comm, "newprog");
  const Map* old_map = m.resolve(m.thread(200, 200), 0x400010, false).map;
  ASSERT_NE(old_map, nullptr);
  EXPECT_EQ(old_map->dso->long_name(), "/bin/parent");
  m.on_mmap(200, 200, 0x400000, 0x1000, 0, "/bin/newprog", "");
  EXPECT_EQ(m.resolve(m.thread(200, 200), 0x400010, false).map->dso->long_name(), "/bin/newprog");
  // Unknown address: no map, address kept.
  auto loc = m.resolve(child, 0x12345, false);
  EXPECT_EQ(loc.map, nullptr);
  EXPECT_EQ(loc.map_addr, 0x12345u);
  // Kernel addresses go to the kernel DSO with identity mapping.
  auto k = m.resolve(child, 0xffffffff81000010ULL, true);
  ASSERT_NE(k.map, nullptr);
  EXPECT_TRUE(k.map->dso->is_kernel());
  EXPECT_EQ(k.map_addr, 0xffffffff81000010ULL);
}

// A thread first seen by a sample is ":TID" as perf's thread__new(), also in a known
// process (perf script shows an exiting task's sample, tid -1, as ":-1"); its maps are
// its process's.
TEST(Machine, AThreadSeenFirstInASampleIsNamedByItsTid) {
  Machine m;
  m.on_comm(100, 100, "leader", false);
  m.on_mmap(100, 100, 0x400000, 0x1000, 0, "/bin/leader", "");
  EXPECT_EQ(m.thread(100, -1).comm, ":-1");
  EXPECT_EQ(m.thread(100, 102).comm, ":102");
  EXPECT_NE(m.resolve(m.thread(100, 102), 0x400010, false).map, nullptr);
  EXPECT_EQ(m.thread(0, 0).comm, "swapper");
  m.on_comm(100, 102, "worker", false);
  EXPECT_EQ(m.thread(100, 102).comm, "worker");
}

// Which maps are JIT code (looked up in /tmp/perf-PID.map): the anonymous memory perf
// tells apart (map.h is_anon_memory()), not a memfd, which perf shows as a DSO.
TEST(Machine, AnonymousMapsAreJitMapsLikePerf) {
  Machine m;
  auto dso_at = [&](std::uint64_t addr, const std::string& file) {
    m.on_mmap(300, 300, addr, 0x1000, 0, file, "");
    const Map* map = m.resolve(m.thread(300, 300), addr + 0x10, false).map;
    return map == nullptr ? nullptr : map->dso;
  };
  for (const char* anon : {"//anon", "/dev/zero (deleted)", "/anon_hugepage (deleted)"}) {
    const Dso* d = dso_at(0x10000, anon);
    ASSERT_NE(d, nullptr) << anon;
    EXPECT_EQ(d->kind(), DsoKind::kJitMap) << anon;
    EXPECT_EQ(d->long_name(), "/tmp/perf-300.map") << anon;
  }
  const Dso* memfd = dso_at(0x20000, "/memfd:sealed-91173221a7ea (deleted)");
  ASSERT_NE(memfd, nullptr);
  EXPECT_EQ(memfd->kind(), DsoKind::kElf);
  EXPECT_EQ(dso_short_name(memfd->long_name()), "memfd:sealed-91173221a7ea (deleted)");
}

}  // namespace
}  // namespace perfx::symbol
