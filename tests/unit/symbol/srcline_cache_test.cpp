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

#include "cache_dir_fixture.hpp"
#include "symbol/dso.hpp"
#include "symbol/srcline_cache.hpp"

namespace perfx::symbol {
namespace {

namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

class SrclineCacheTest : public CacheDirTest {};

TEST_F(SrclineCacheTest, RecordsLoadBackWithAndWithoutLines) {
  const std::string path = dir_ + "/srclines/abc";
  SrclineMemo memo;
  memo[0x1000] = std::pair{std::string("/src/a.c"), 12u};
  memo[0x2000] = std::nullopt;  // "no line" is an answer too
  memo[0x3000] = std::pair{std::string(""), 0u};
  const std::vector<std::uint64_t> added = {0x1000, 0x2000, 0x3000};
  store_srcline_cache(path, "lib.so\n1\n2", SrclineCacheState::kAbsent, memo, added);
  SrclineMemo back;
  EXPECT_EQ(load_srcline_cache(path, "lib.so\n1\n2", back), SrclineCacheState::kValid);
  EXPECT_EQ(back, memo);
  EXPECT_FALSE(fs::exists(path + ".tmp." + std::to_string(getpid())));
}

TEST_F(SrclineCacheTest, NewAnswersAreAppended) {
  const std::string path = dir_ + "/id";
  SrclineMemo memo{{0x10, std::pair{std::string("x.c"), 1u}}};
  store_srcline_cache(path, "id", SrclineCacheState::kAbsent, memo,
                      std::vector<std::uint64_t>{0x10});
  const auto size = fs::file_size(path);
  SrclineMemo next;
  ASSERT_EQ(load_srcline_cache(path, "id", next), SrclineCacheState::kValid);
  next[0x20] = std::pair{std::string("y.c"), 2u};
  store_srcline_cache(path, "id", SrclineCacheState::kValid, next,
                      std::vector<std::uint64_t>{0x20});
  EXPECT_GT(fs::file_size(path), size);
  SrclineMemo all;
  ASSERT_EQ(load_srcline_cache(path, "id", all), SrclineCacheState::kValid);
  EXPECT_EQ(all, next);
  // A file replaced meanwhile under another identity is not appended to.
  store_srcline_cache(path, "other", SrclineCacheState::kAbsent, memo,
                      std::vector<std::uint64_t>{0x10});
  const auto replaced = fs::file_size(path);
  store_srcline_cache(path, "id", SrclineCacheState::kValid, next,
                      std::vector<std::uint64_t>{0x20});
  EXPECT_EQ(fs::file_size(path), replaced);
  store_srcline_cache(path, "id", SrclineCacheState::kAbsent, all,
                      std::vector<std::uint64_t>{0x10});
  // Nothing new, nothing written.
  const auto stamp = fs::last_write_time(path);
  store_srcline_cache(path, "id", SrclineCacheState::kValid, all, {});
  EXPECT_EQ(fs::last_write_time(path), stamp);
}

TEST_F(SrclineCacheTest, OtherIdentityOrDamageMakesTheFileStale) {
  const std::string path = dir_ + "/id";
  SrclineMemo memo{{0x10, std::pair{std::string("x.c"), 1u}},
                   {0x20, std::pair{std::string("yyyy.c"), 2u}}};
  store_srcline_cache(path, "old debug file", SrclineCacheState::kAbsent, memo,
                      std::vector<std::uint64_t>{0x10, 0x20});
  SrclineMemo out;
  EXPECT_EQ(load_srcline_cache(path, "new debug file", out), SrclineCacheState::kStale);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(load_srcline_cache(dir_ + "/none", "x", out), SrclineCacheState::kAbsent);
  EXPECT_EQ(load_srcline_cache("", "x", out), SrclineCacheState::kAbsent);

  // A torn append (the last record cut short) and garbage: stale; a store replaces the file.
  const std::string whole = slurp(path);
  for (std::size_t cut = 1; cut < 16; ++cut) {
    spit(path, whole.substr(0, whole.size() - cut));
    SrclineMemo part;
    EXPECT_EQ(load_srcline_cache(path, "old debug file", part), SrclineCacheState::kStale) << cut;
  }
  spit(path, whole + std::string(16, '\xff'));
  EXPECT_EQ(load_srcline_cache(path, "old debug file", out), SrclineCacheState::kStale);
  store_srcline_cache(path, "old debug file", SrclineCacheState::kStale, memo,
                      std::vector<std::uint64_t>{0x10});
  SrclineMemo back;
  EXPECT_EQ(load_srcline_cache(path, "old debug file", back), SrclineCacheState::kValid);
  EXPECT_EQ(back, memo);
}

TEST_F(SrclineCacheTest, AnUnwritableCacheDirectoryOnlyCostsTheCache) {
  spit(dir_ + "/file", "not a directory");
  const std::string path = dir_ + "/file/srclines/abc";
  const SrclineMemo memo{{0x10, std::pair{std::string("x.c"), 1u}}};
  for (auto state : {SrclineCacheState::kAbsent, SrclineCacheState::kValid})
    store_srcline_cache(path, "id", state, memo, std::vector<std::uint64_t>{0x10});
  SrclineMemo out;
  EXPECT_EQ(load_srcline_cache(path, "id", out), SrclineCacheState::kAbsent);
  EXPECT_TRUE(out.empty());
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
