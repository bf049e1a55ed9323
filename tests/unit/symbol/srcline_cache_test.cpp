// The on-disk cache of source lines by address (symbol/srcline_cache.hpp): its records,
// appends, validation by identity, and a Dso answering from it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../test_files.hpp"
#include "cache_dir_fixture.hpp"
#include "symbol/dso.hpp"
#include "symbol/srcline_cache.hpp"

namespace perfx::symbol {
namespace {

namespace fs = std::filesystem;

using test_support::slurp;
using test_support::spit;

class SrclineCacheTest : public CacheDirTest {};

// Every answer of `memo` found in `cache`, and nothing more.
void expect_holds(const SrclineCache& cache, const SrclineMemo& memo) {
  EXPECT_EQ(cache.state(), SrclineCacheState::kValid);
  EXPECT_EQ(cache.size(), memo.size());
  for (const auto& [addr, answer] : memo) {
    const auto found = cache.find(addr);
    ASSERT_TRUE(found.has_value()) << addr;
    EXPECT_EQ(*found, answer) << addr;
  }
}

TEST_F(SrclineCacheTest, RecordsLoadBackWithAndWithoutLines) {
  const std::string path = dir_ + "/srclines/abc";
  SrclineMemo memo;
  memo[0x1000] = std::pair{std::string("/src/a.c"), 12u};
  memo[0x2000] = std::nullopt;  // "no line" is an answer too
  memo[0x3000] = std::pair{std::string(""), 0u};
  const std::vector<std::uint64_t> added = {0x1000, 0x2000, 0x3000};
  store_srcline_cache(path, "lib.so\n1\n2", SrclineCache{}, memo, added);
  const auto back = SrclineCache::load(path, "lib.so\n1\n2");
  expect_holds(back, memo);
  EXPECT_FALSE(back.find(0x1001).has_value());
  EXPECT_FALSE(back.find(0).has_value());
  EXPECT_FALSE(fs::exists(path + ".tmp." + std::to_string(getpid())));
}

TEST_F(SrclineCacheTest, NewAnswersAreAppended) {
  const std::string path = dir_ + "/id";
  SrclineMemo memo{{0x10, std::pair{std::string("x.c"), 1u}}};
  store_srcline_cache(path, "id", SrclineCache{}, memo, std::vector<std::uint64_t>{0x10});
  const auto size = fs::file_size(path);
  ASSERT_EQ(SrclineCache::load(path, "id").state(), SrclineCacheState::kValid);
  SrclineMemo next = memo;
  next[0x20] = std::pair{std::string("y.c"), 2u};
  store_srcline_cache(path, "id", SrclineCache::load(path, "id"), next,
                      std::vector<std::uint64_t>{0x20});
  EXPECT_GT(fs::file_size(path), size);
  expect_holds(SrclineCache::load(path, "id"), next);
  // Two runs that looked the same address up both append it: the first answer holds.
  SrclineMemo again{{0x10, std::pair{std::string("later.c"), 9u}}};
  store_srcline_cache(path, "id", SrclineCache::load(path, "id"), again,
                      std::vector<std::uint64_t>{0x10});
  const auto twice = SrclineCache::load(path, "id");
  EXPECT_EQ(twice.size(), 3u);
  EXPECT_EQ(twice.find(0x10), SrclineAnswer(std::pair{std::string("x.c"), 1u}));
  const SrclineMemo& all = next;
  // A file replaced meanwhile under another identity is not appended to.
  const auto read_before = SrclineCache::load(path, "id");
  store_srcline_cache(path, "other", SrclineCache{}, memo, std::vector<std::uint64_t>{0x10});
  const auto replaced = fs::file_size(path);
  store_srcline_cache(path, "id", read_before, next, std::vector<std::uint64_t>{0x20});
  EXPECT_EQ(fs::file_size(path), replaced);
  store_srcline_cache(path, "id", SrclineCache{}, all, std::vector<std::uint64_t>{0x10});
  // Nothing new, nothing written.
  const auto stamp = fs::last_write_time(path);
  store_srcline_cache(path, "id", SrclineCache::load(path, "id"), all, {});
  EXPECT_EQ(fs::last_write_time(path), stamp);
}

TEST_F(SrclineCacheTest, OtherIdentityOrDamageMakesTheFileStale) {
  const std::string path = dir_ + "/id";
  SrclineMemo memo{{0x10, std::pair{std::string("x.c"), 1u}},
                   {0x20, std::pair{std::string("yyyy.c"), 2u}}};
  store_srcline_cache(path, "old debug file", SrclineCache{}, memo,
                      std::vector<std::uint64_t>{0x10, 0x20});
  const auto other = SrclineCache::load(path, "new debug file");
  EXPECT_EQ(other.state(), SrclineCacheState::kStale);
  EXPECT_EQ(other.size(), 0u);
  EXPECT_FALSE(other.find(0x10).has_value());
  EXPECT_EQ(SrclineCache::load(dir_ + "/none", "x").state(), SrclineCacheState::kAbsent);
  EXPECT_EQ(SrclineCache::load("", "x").state(), SrclineCacheState::kAbsent);

  // A torn append (the last record cut short) and garbage: stale; a store replaces the file.
  const std::string whole = slurp(path);
  for (std::size_t cut = 1; cut < 16; ++cut) {
    spit(path, whole.substr(0, whole.size() - cut));
    const auto part = SrclineCache::load(path, "old debug file");
    EXPECT_EQ(part.state(), SrclineCacheState::kStale) << cut;
    EXPECT_FALSE(part.find(0x10).has_value()) << cut;
  }
  spit(path, whole + std::string(16, '\xff'));
  EXPECT_EQ(SrclineCache::load(path, "old debug file").state(), SrclineCacheState::kStale);
  store_srcline_cache(path, "old debug file", SrclineCache::load(path, "old debug file"), memo,
                      std::vector<std::uint64_t>{0x10});
  expect_holds(SrclineCache::load(path, "old debug file"), memo);
}

TEST_F(SrclineCacheTest, AnUnwritableCacheDirectoryOnlyCostsTheCache) {
  spit(dir_ + "/file", "not a directory");
  const std::string path = dir_ + "/file/srclines/abc";
  const SrclineMemo memo{{0x10, std::pair{std::string("x.c"), 1u}}};
  store_srcline_cache(path, "id", SrclineCache{}, memo, std::vector<std::uint64_t>{0x10});
  store_srcline_cache(path, "id", SrclineCache::load(path, "id"), memo,
                      std::vector<std::uint64_t>{0x10});
  const auto out = SrclineCache::load(path, "id");
  EXPECT_EQ(out.state(), SrclineCacheState::kAbsent);
  EXPECT_EQ(out.size(), 0u);
}

TEST_F(SrclineCacheTest, ManyAppendsAreSortedIntoTheFile) {
  const std::string path = dir_ + "/id";
  SrclineMemo memo;
  std::vector<std::uint64_t> first;
  for (std::uint64_t a = 0; a < 1000; ++a) {
    memo[0x1000 + 8 * a] = std::pair{"file" + std::to_string(a % 7) + ".c", std::uint32_t(a)};
    first.push_back(0x1000 + 8 * a);
  }
  store_srcline_cache(path, "id", SrclineCache{}, memo, first);
  auto back = SrclineCache::load(path, "id");
  EXPECT_EQ(back.appended(), 0u);
  expect_holds(back, memo);
  // Runs add 100 answers each (below the entries, above them, one of them without a
  // line): appended while they are a few, then the file is rewritten sorted.
  std::vector<std::size_t> appended;
  for (std::uint64_t run = 0; run < 4; ++run) {
    std::vector<std::uint64_t> added;
    for (std::uint64_t a = 0; a < 100; ++a) {
      const std::uint64_t addr = (run % 2 ? 0x100000 : 0x10) + 0x100 * run + a;
      memo[addr] = a == 5 ? SrclineAnswer{} : SrclineAnswer{std::pair{std::string("n.c"), 3u}};
      added.push_back(addr);
    }
    store_srcline_cache(path, "id", back, memo, added);
    back = SrclineCache::load(path, "id");
    expect_holds(back, memo);
    appended.push_back(back.appended());
    EXPECT_LE(back.appended(), 128 + back.size() / 16);  // the limit of appended answers
  }
  EXPECT_EQ(appended[0], 100u);                 // the first run's answers, appended
  EXPECT_EQ(appended[1], 0u);                   // the second's would pass the limit: all sorted
  EXPECT_FALSE(back.find(0x1004).has_value());  // between two entries
  EXPECT_FALSE(back.find(0x1000 + 8000).has_value());  // past the last
}

TEST_F(SrclineCacheTest, EntriesOutOfOrderOrNamesOutsideMakeTheFileStale) {
  const std::string path = dir_ + "/id";
  const SrclineMemo memo{{0x10, std::pair{std::string("x.c"), 1u}},
                         {0x20, std::pair{std::string("y.c"), 2u}}};
  store_srcline_cache(path, "id", SrclineCache{}, memo, std::vector<std::uint64_t>{0x10, 0x20});
  const std::string whole = slurp(path);
  // "PERFXSL4", build-id "id", identity "id", count and names size, then the entries.
  const std::size_t entries = 8 + 4 + 2 + 4 + 2 + 8;
  ASSERT_GE(whole.size(), entries + 32);
  std::string swapped = whole;
  swapped.replace(entries, 16, whole.substr(entries + 16, 16));
  swapped.replace(entries + 16, 16, whole.substr(entries, 16));
  spit(path, swapped);
  EXPECT_EQ(SrclineCache::load(path, "id").state(), SrclineCacheState::kStale);
  std::string outside = whole;
  outside[entries + 12] = '\x7f';  // the first entry's name offset, far past the names
  spit(path, outside);
  EXPECT_EQ(SrclineCache::load(path, "id").state(), SrclineCacheState::kStale);
  std::string longer = whole;
  longer[entries - 4] = '\x60';  // a names size past the end of the file
  spit(path, longer);
  EXPECT_EQ(SrclineCache::load(path, "id").state(), SrclineCacheState::kStale);
  spit(path, whole);
  expect_holds(SrclineCache::load(path, "id"), memo);
}

TEST_F(SrclineCacheTest, PathFollowsTheEnvironment) {
  setenv("PERFX_CACHE_DIR", "/somewhere", 1);
  EXPECT_EQ(srcline_cache_path("93ac61"), "/somewhere/srclines/93ac61");
  EXPECT_EQ(srcline_cache_path("not/hex"), "");
  setenv("PERFX_CACHE_DIR", "", 1);
  EXPECT_EQ(srcline_cache_path("93ac61"), "");
}

TEST_F(SrclineCacheTest, ADsoAnswersFromItsCacheUntilTheFileChanges) {
  const std::string src = dir_ + "/prog.c";
  spit(src,
       "int work(int n) {\n  int s = 0;\n  for (int i = 0; i < n; ++i) s += i * i;\n"
       "  return s;\n}\nint main(void) { return work(3) == 5; }\n");
  const std::string prog = dir_ + "/prog";
  if (std::system(("cc -g -O0 -Wl,--build-id -o " + prog + " " + src).c_str()) != 0)
    GTEST_SKIP() << "cc could not build the fixture";
  setenv("PERFX_CACHE_DIR", (dir_ + "/cache").c_str(), 1);
  std::uint64_t addr = 0;
  std::pair<std::string, std::uint32_t> line;
  {
    Dso dso(prog, DsoKind::kElf, "", {});
    for (const auto& s : dso.symbols())
      if (s.name == "work") addr = s.start;
    ASSERT_NE(addr, 0u);
    auto l = dso.srcline(addr);
    ASSERT_TRUE(l.has_value());
    line = *l;
    EXPECT_EQ(line.first, src);
  }
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(dir_) / "cache" / "srclines"))
    files.push_back(e.path());
  ASSERT_EQ(files.size(), 1u) << "the answer was not cached";
  // Rename the source file inside the cache: a Dso that shows the new name read it there.
  std::string bytes = slurp(files[0]);
  const auto at = bytes.rfind(src);
  ASSERT_NE(at, std::string::npos);
  const std::string renamed = std::string(src.size() - 2, 'z') + ".c";
  bytes.replace(at, src.size(), renamed);
  spit(files[0], bytes);
  {
    Dso dso(prog, DsoKind::kElf, "", {});
    auto l = dso.srcline(addr);
    ASSERT_TRUE(l.has_value());
    EXPECT_EQ(l->first, renamed);
    EXPECT_EQ(l->second, line.second);
  }
  {
    // Inline chains are not cached: a line from the cache must not leave them without
    // the DWARF (a non-inlined address gives its function).
    Dso dso(prog, DsoKind::kElf, "", {});
    const auto chain = dso.inline_chain(addr);
    ASSERT_EQ(chain.size(), 1u);
    EXPECT_EQ(chain[0].function, "work");
  }
  // A rebuilt file (here: a new modification time) is another identity: DWARF again,
  // and the cache rewritten with the real answer.
  fs::last_write_time(prog, fs::last_write_time(prog) + std::chrono::seconds(5));
  {
    Dso dso(prog, DsoKind::kElf, "", {});
    EXPECT_EQ(dso.srcline(addr), line);
  }
  EXPECT_NE(slurp(files[0]).find(src), std::string::npos);
  EXPECT_EQ(slurp(files[0]).find(renamed), std::string::npos);
}

}  // namespace
}  // namespace perfx::symbol
