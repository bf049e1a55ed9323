// Symbolization on fixture ELF files built at test time from tests/fixtures/sym_pinned.c
// with pinned section addresses (vaddr 0x900000 lives at file offset != vaddr), then
// stripped with a .gnu_debuglink to a separate debug file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "symbol/dso.hpp"
#include "symbol/machine.hpp"

namespace perfx::symbol {
namespace {

const std::string kSource = std::string(PERFX_TEST_DATA_DIR) + "/../fixtures/sym_pinned.c";
const std::string kAsmSource = std::string(PERFX_TEST_DATA_DIR) + "/../fixtures/asm_aliases.S";

// The name of the symbol holding `addr`, or "(none)".
std::string name_at(const Dso& dso, std::uint64_t addr) {
  const Symbol* s = dso.find(addr);
  return s != nullptr ? std::string(s->name) : "(none)";
}

class SymbolElfTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char tmpl[] = "/tmp/perfx_symtest_XXXXXX";
    if (mkdtemp(tmpl) == nullptr) return;
    dir_ = tmpl;
    const std::string cmd =
        "cc -O2 -g -no-pie -fno-pie "
        "-Wl,--section-start=sym_alpha_sec=0x900000,--section-start=sym_beta_sec=0x900100,"
        "--section-start=sym_gamma_sec=0x900200,--section-start=sym_nosize_sec=0x900400 "
        "-Wl,--build-id -o " +
        dir_ + "/pinned " + kSource + " && cd " + dir_ +
        " && objcopy --only-keep-debug pinned pinned.debug"
        " && objcopy --strip-all --add-gnu-debuglink=pinned.debug pinned stripped"
        " && cp stripped stripped_nodebug && objcopy --remove-section=.gnu_debuglink "
        "stripped_nodebug"
        // clang emits no .debug_aranges by default: the same binary without them.
        " && objcopy --remove-section=.debug_aranges pinned noaranges"
        // Distributions ship zlib-compressed debug sections (SHF_COMPRESSED).
        " && objcopy --compress-debug-sections=zlib-gabi pinned compressed"
        " && cc -g -shared -o asm_aliases.so " +
        kAsmSource;
    built_ = std::system(cmd.c_str()) == 0;
  }
  static void TearDownTestSuite() {
    if (!dir_.empty()) (void)std::system(("rm -rf " + dir_).c_str());
  }
  void SetUp() override {
    if (!built_) GTEST_SKIP() << "cc/objcopy could not build the fixture";
  }
  static SearchPaths paths() {
    SearchPaths p;
    p.buildid_dir = dir_ + "/no-cache";
    p.debug_dir = dir_ + "/no-debug";
    return p;
  }
  static inline std::string dir_;
  static inline bool built_ = false;
};

TEST_F(SymbolElfTest, PinnedAddressesAndBoundaries) {
  Dso dso(dir_ + "/pinned", DsoKind::kElf, "", paths());
  const Symbol* s = dso.find(0x900000);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->name, "sym_alpha");
  EXPECT_EQ(s->start, 0x900000u);
  EXPECT_EQ(name_at(dso, 0x900005), "sym_alpha");
  // A static function is in .symtab.
  EXPECT_EQ(name_at(dso, 0x900100), "sym_local");
  // One past a sized symbol's end is not inside it (gap up to 0x900100).
  const Symbol* alpha = dso.find(0x900000);
  EXPECT_EQ(dso.find(alpha->end), nullptr);
  // _fini has size 0 in crti.o: perf extends it up to the next symbol (sym_alpha).
  s = dso.find(0x8fffff);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->name, "_fini");
  EXPECT_EQ(s->end, 0x900000u);
}

TEST_F(SymbolElfTest, ZeroSizeSymbolExtendsToNext) {
  Dso dso(dir_ + "/pinned", DsoKind::kElf, "", paths());
  const Symbol* s = dso.find(0x900400);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->name, "sym_nosize");
  EXPECT_EQ(s->end, 0x900440u);
  EXPECT_EQ(name_at(dso, 0x90043f), "sym_nosize");
  EXPECT_EQ(name_at(dso, 0x900440), "sym_after");
  EXPECT_EQ(dso.find(0x900441), nullptr);
}

TEST_F(SymbolElfTest, FileOffsetToVaddrThroughPtLoad) {
  Dso dso(dir_ + "/pinned", DsoKind::kElf, "", paths());
  // The pinned segment is at vaddr 0x900000, file offset 0x4000 (see readelf -l).
  const std::uint64_t off = 0x4000 + 0x10;
  EXPECT_EQ(dso.to_symbol_address(off), 0x900010u);
  // A Map as an MMAP record gives it: start 0x900000, pgoff 0x4000.
  Map m{0x900000, 0x901000, 0x4000, &dso, false};
  EXPECT_EQ(dso.to_symbol_address(m.map_ip(0x900123)), 0x900123u);
}

TEST_F(SymbolElfTest, StrippedUsesDebuglink) {
  Dso stripped(dir_ + "/stripped", DsoKind::kElf, "", paths());
  const Symbol* s = stripped.find(0x900100);
  ASSERT_NE(s, nullptr) << "static symbol only in the debug file's .symtab";
  EXPECT_EQ(s->name, "sym_local");
  auto line = stripped.srcline(0x900000);
  ASSERT_TRUE(line.has_value());
  EXPECT_NE(line->first.find("sym_pinned.c"), std::string::npos);
  EXPECT_GT(line->second, 0u);
  // Without the link, only .dynsym is left: a non-PIE static binary has none of ours.
  Dso bare(dir_ + "/stripped_nodebug", DsoKind::kElf, "", paths());
  EXPECT_EQ(bare.find(0x900100), nullptr);
}

TEST_F(SymbolElfTest, BuildIdMismatchWarns) {
  Dso ok(dir_ + "/pinned", DsoKind::kElf, "", paths());
  ASSERT_EQ(ok.file_build_id().size(), 40u);
  EXPECT_TRUE(ok.warning().empty());
  Dso bad(dir_ + "/pinned", DsoKind::kElf, std::string(40, 'a'), paths());
  EXPECT_NE(bad.warning().find("build-id"), std::string::npos) << bad.warning();
  // Symbols are still read from the file on disk.
  EXPECT_NE(bad.find(0x900000), nullptr);
}

TEST_F(SymbolElfTest, InlineFramesFromDwarf) {
  Dso dso(dir_ + "/pinned", DsoKind::kElf, "", paths());
  const Symbol* outer = dso.find(0x900200);
  ASSERT_NE(outer, nullptr);
  ASSERT_EQ(outer->name, "sym_outer");
  bool found = false;
  for (std::uint64_t a = outer->start; a < outer->end && !found; ++a) {
    auto chain = dso.inline_chain(a);
    if (chain.size() >= 2 && chain[0].function == "inl_mix") {
      found = true;
      EXPECT_EQ(chain.back().function, "sym_outer");
      EXPECT_NE(chain[0].file.find("sym_pinned.c"), std::string::npos);
      // The outer frame's line is the call site inside sym_outer's loop.
      EXPECT_GT(chain[1].line, chain[0].line);
    }
  }
  EXPECT_TRUE(found) << "no address of sym_outer expanded to inl_mix";
  auto plain = dso.inline_chain(0x900000);
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(plain[0].function, "sym_alpha");
}

TEST_F(SymbolElfTest, SourceLinesWithoutDebugAranges) {
  // Without .debug_aranges the CU is found from the CU DIEs' own ranges.
  Dso with(dir_ + "/pinned", DsoKind::kElf, "", paths());
  Dso without(dir_ + "/noaranges", DsoKind::kElf, "", paths());
  auto a = with.srcline(0x900200);
  auto b = without.srcline(0x900200);
  ASSERT_TRUE(a.has_value());
  ASSERT_TRUE(b.has_value()) << "no source line without .debug_aranges";
  EXPECT_EQ(*a, *b);
  EXPECT_NE(b->first.find("sym_pinned.c"), std::string::npos) << b->first;
  EXPECT_FALSE(without.inline_chain(0x900000).empty());
  EXPECT_FALSE(without.srcline(0x10).has_value());  // outside every CU
}

TEST_F(SymbolElfTest, SourceLinesOfAUnitMissingFromDebugAranges) {
  // A gcc unit (listed in .debug_aranges) linked with a clang unit (not listed: clang
  // emits none by default): the clang unit is found from its CU DIE, and a miss (the
  // PLT, _start) still misses.
  const std::string dir = dir_ + "/mixed";
  const std::string cmd =
      "mkdir -p " + dir + " && cd " + dir +
      " && printf 'int clang_unit_work(int x) {\\n  int y = x * 3;\\n  return y + 1;\\n}\\n'"
      " > clang_unit.c && printf 'int clang_unit_work(int);\\nint main(int c, char** v) {"
      " (void)v; return clang_unit_work(c); }\\n' > main.c"
      " && clang -g -O1 -c clang_unit.c -o clang_unit.o && gcc -g -O1 main.c clang_unit.o -o mixed";
  if (std::system(cmd.c_str()) != 0) GTEST_SKIP() << "clang/gcc could not build the fixture";
  Dso dso(dir + "/mixed", DsoKind::kElf, "", paths());
  std::uint64_t clang_fn = 0;
  std::uint64_t main_fn = 0;
  for (std::uint64_t a = 0; a < 0x3000 && (clang_fn == 0 || main_fn == 0); ++a) {
    const Symbol* s = dso.find(a);
    if (s == nullptr || s->start != a) continue;
    if (s->name == "clang_unit_work") clang_fn = a;
    if (s->name == "main") main_fn = a;
  }
  ASSERT_NE(clang_fn, 0u);
  ASSERT_NE(main_fn, 0u);
  auto in_main = dso.srcline(main_fn);
  ASSERT_TRUE(in_main.has_value());
  EXPECT_NE(in_main->first.find("main.c"), std::string::npos) << in_main->first;
  auto in_clang = dso.srcline(clang_fn);
  ASSERT_TRUE(in_clang.has_value()) << "the clang unit has no .debug_aranges entry";
  EXPECT_NE(in_clang->first.find("clang_unit.c"), std::string::npos) << in_clang->first;
  EXPECT_GE(in_clang->second, 3u);
  EXPECT_FALSE(dso.srcline(0x10).has_value());  // outside every CU
}

TEST_F(SymbolElfTest, InlineScopeGivenByRangeListIsFound) {
  // clang -O1 (DWARF 5) gives rec_hot.c's second now_ms() call an inlined scope of two
  // address ranges (DW_AT_ranges, DW_FORM_rnglistx). binutils' addr2line 2.40 (perf 6.1's
  // inline source) misses it; perfx reads it (docs/report.md, inline scopes).
  const std::string dir = dir_ + "/rnglist";
  const std::string src = std::string(PERFX_TEST_DATA_DIR) + "/../fixtures/rec_hot.c";
  const std::string cmd = "mkdir -p " + dir + " && clang -O1 -g -gdwarf-5 -o " + dir + "/rec_hot " +
                          src + " 2>/dev/null";
  if (std::system(cmd.c_str()) != 0) GTEST_SKIP() << "clang could not build rec_hot.c";
  Dso dso(dir + "/rec_hot", DsoKind::kElf, "", paths());
  const Symbol* main_fn = nullptr;
  for (std::uint64_t a = 0x1000; a < 0x3000 && main_fn == nullptr; ++a) {
    const Symbol* s = dso.find(a);
    if (s != nullptr && s->name == "main") main_fn = s;
  }
  ASSERT_NE(main_fn, nullptr);
  // Runs of consecutive addresses of main that expand to now_ms inlined into main.
  int runs = 0;
  bool in_run = false;
  for (std::uint64_t a = main_fn->start; a < main_fn->end; ++a) {
    auto chain = dso.inline_chain(a);
    const bool inl =
        chain.size() >= 2 && chain[0].function == "now_ms" && chain.back().function == "main";
    if (inl && !in_run) ++runs;
    in_run = inl;
  }
  // Two calls, one of them in two ranges: at least three runs.
  EXPECT_GE(runs, 3) << "now_ms inlined scopes in main";
}

TEST_F(SymbolElfTest, CompressedDebugSectionsGiveTheSameLinesAndInlines) {
  // SHF_COMPRESSED sections are inflated by perfx (libdeflate) before libdw reads them.
  Dso plain(dir_ + "/pinned", DsoKind::kElf, "", paths());
  Dso packed(dir_ + "/compressed", DsoKind::kElf, "", paths());
  const Symbol* outer = plain.find(0x900200);
  ASSERT_NE(outer, nullptr);
  int lines = 0;
  for (std::uint64_t a = 0x900000; a < outer->end; ++a) {
    auto want = plain.srcline(a);
    auto got = packed.srcline(a);
    ASSERT_EQ(want.has_value(), got.has_value()) << std::hex << a;
    if (!want) continue;
    ++lines;
    EXPECT_EQ(*want, *got) << std::hex << a;
    auto want_chain = plain.inline_chain(a);
    auto got_chain = packed.inline_chain(a);
    ASSERT_EQ(want_chain.size(), got_chain.size()) << std::hex << a;
    for (std::size_t i = 0; i < want_chain.size(); ++i) {
      EXPECT_EQ(want_chain[i].function, got_chain[i].function);
      EXPECT_EQ(want_chain[i].line, got_chain[i].line);
    }
  }
  EXPECT_GT(lines, 0);
}

TEST_F(SymbolElfTest, PltEntriesAreSynthesizedLikePerf) {
  // sym_pinned.c calls printf and strtoul through the PLT: perf 6.1 names the .plt
  // entries after the header printf@plt and strtoul@plt (.rela.plt order), 16 bytes each.
  Dso dso(dir_ + "/pinned", DsoKind::kElf, "", paths());
  std::vector<const Symbol*> plt;
  for (const auto& s : dso.symbols())
    if (s.name.ends_with("@plt")) plt.push_back(&s);
  ASSERT_EQ(plt.size(), 2u);
  EXPECT_EQ(plt[0]->end - plt[0]->start, 16u);
  EXPECT_EQ(plt[1]->start, plt[0]->end);
  std::vector<std::string> names{std::string(plt[0]->name), std::string(plt[1]->name)};
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"printf@plt", "strtoul@plt"}));
  // A lookup inside an entry finds it; the stripped file (symbols from the debug file)
  // gets them from its own .dynsym and .rela.plt.
  EXPECT_EQ(dso.find(plt[1]->start + 5), plt[1]);
  Dso stripped(dir_ + "/stripped", DsoKind::kElf, "", paths());
  const Symbol* s = stripped.find(plt[0]->start);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->name, plt[0]->name);
}

TEST_F(SymbolElfTest, Addr2lineNamesAFunctionAfterTheFilesOwnSymbols) {
  // perf's srcline is "??:0" where GNU addr2line names a function without a line, and
  // symbol+offset where it names none: in .plt (no symbol of the file there), below the
  // first symbol of the address's section, outside every section; never for "[...]"
  // DSOs, which perf does not hand to addr2line.
  Dso dso(dir_ + "/pinned", DsoKind::kElf, "", paths());
  const Symbol* plt = nullptr;
  const Symbol* fn = nullptr;
  for (const auto& s : dso.symbols()) {
    if (plt == nullptr && s.name.ends_with("@plt")) plt = &s;
    if (fn == nullptr && !s.name.ends_with("@plt")) fn = &s;
  }
  ASSERT_NE(plt, nullptr);
  ASSERT_NE(fn, nullptr);
  EXPECT_TRUE(dso.addr2line_names_function(fn->start));
  EXPECT_FALSE(dso.addr2line_names_function(plt->start + 4));
  // PLT0 (the 16 bytes before the first entry) has no symbol of its own, and BFD looks
  // only in the address's section: not _init's, which is the nearest before it.
  EXPECT_FALSE(dso.addr2line_names_function(plt->start - 16 + 6));
  EXPECT_FALSE(dso.addr2line_names_function(fn->end + 0x100000));  // in no section
  EXPECT_FALSE(dso.addr2line_names_function(dso.symbols().front().start - 1));
  Dso vdso("[vdso]", DsoKind::kVdso, "", paths());
  EXPECT_FALSE(vdso.addr2line_names_function(fn->start));
}

// perf's --symfs DIR makes the build-id cache DIR/.debug (not DIR$HOME/.debug, and not
// --buildid-dir): `--symfs /` leaves a recorded [vdso] unresolved, as in perf 6.1.
TEST_F(SymbolElfTest, SymfsMovesTheBuildIdCacheToItsDotDebug) {
  const std::string bid = "0123456789abcdef0123456789abcdef01234567";
  const std::string symfs = dir_ + "/symfs";
  const std::string cached = symfs + "/.debug/[vdso]/" + bid;
  ASSERT_EQ(
      std::system(
          ("mkdir -p '" + cached + "' && cp " + dir_ + "/pinned '" + cached + "/vdso'").c_str()),
      0);
  SearchPaths p = paths();
  p.symfs = symfs;
  p.buildid_dir = symfs + "/.debug";  // --buildid-dir pointing elsewhere is overridden:
  Dso found("[vdso]", DsoKind::kVdso, bid, p);
  EXPECT_GT(found.symbol_count(), 0u);
  p.buildid_dir = "/.debug";
  Dso found_too("[vdso]", DsoKind::kVdso, bid, p);
  EXPECT_GT(found_too.symbol_count(), 0u);
  // The cache under $HOME is not looked at once a symfs is given.
  p.symfs = dir_ + "/empty-symfs";
  p.buildid_dir = symfs + "/.debug";
  Dso missing("[vdso]", DsoKind::kVdso, bid, p);
  EXPECT_EQ(missing.symbol_count(), 0u);
}

TEST_F(SymbolElfTest, AssemblerAliasesNameTheScopeLikeAddr2line) {
  // gas gives each alias of an assembler function its own DW_TAG_subprogram; perf 6.1's
  // inline scopes come from binutils' addr2line, which names the last one.
  Dso dso(dir_ + "/asm_aliases.so", DsoKind::kElf, "", paths());
  const Symbol* s = nullptr;
  for (const auto& sym : dso.symbols())
    if (sym.name == "alias_first") s = &sym;
  ASSERT_NE(s, nullptr);
  auto chain = dso.inline_chain(s->start + 1);
  ASSERT_EQ(chain.size(), 1u);
  EXPECT_EQ(chain[0].function, "alias_last");
}

TEST_F(SymbolElfTest, DsoCacheOpensOnce) {
  DsoCache cache(paths());
  Dso* a = cache.get(dir_ + "/pinned", DsoKind::kElf);
  Dso* b = cache.get(dir_ + "/pinned", DsoKind::kElf);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a->short_name(), "pinned");
}

}  // namespace
}  // namespace perfx::symbol
