// The on-disk cache of inflated debug sections (symbol/section_cache.hpp): its file
// format and validation, and a distribution debug file (libc6-dbg) read through it.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cache_dir_fixture.hpp"
#include "symbol/dso.hpp"
#include "symbol/section_cache.hpp"

namespace perfx::symbol {
namespace {

class SectionCacheTest : public CacheDirTest {};

TEST_F(SectionCacheTest, StoredSectionsLoadBackByIndexAndSize) {
  const std::string a(1000, 'a');
  const std::string b = "second section";
  const std::vector<CachedSection> store = {{3, 400, a.size(), a.data()},
                                            {7, 10, b.size(), b.data()}};
  const std::string path = dir_ + "/sub/dir/abcdef";
  store_section_cache(path, store);  // creates the directories
  std::vector<CachedSection> want = {{3, 400, a.size(), nullptr}, {7, 10, b.size(), nullptr}};
  auto file = load_section_cache(path, want);
  ASSERT_TRUE(file.has_value());
  EXPECT_EQ(std::string(want[0].data, want[0].out_size), a);
  EXPECT_EQ(std::string(want[1].data, want[1].out_size), b);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(want[1].data) % 64, 0u);  // aligned
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp." + std::to_string(getpid())));
}

TEST_F(SectionCacheTest, AFileThatDoesNotMatchIsIgnored) {
  const std::string a(5000, 'x');
  const std::string path = dir_ + "/id";
  store_section_cache(path, std::vector<CachedSection>{{2, 100, a.size(), a.data()}});
  auto try_load = [&](CachedSection s) {
    std::vector<CachedSection> want = {s};
    return load_section_cache(path, want).has_value();
  };
  EXPECT_TRUE(try_load({2, 100, a.size(), nullptr}));
  EXPECT_FALSE(try_load({3, 100, a.size(), nullptr}));      // another section
  EXPECT_FALSE(try_load({2, 101, a.size(), nullptr}));      // another compressed stream
  EXPECT_FALSE(try_load({2, 100, a.size() + 1, nullptr}));  // another size
  std::vector<CachedSection> two = {{2, 100, a.size(), nullptr}, {4, 1, 1, nullptr}};
  EXPECT_FALSE(load_section_cache(path, two).has_value());  // another count
  // A truncated file (a crash mid-write of an older version, a full disk) is no cache.
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 1);
  EXPECT_FALSE(try_load({2, 100, a.size(), nullptr}));
  std::ofstream(path, std::ios::trunc) << "garbage";
  EXPECT_FALSE(try_load({2, 100, a.size(), nullptr}));
  EXPECT_FALSE(load_section_cache(dir_ + "/missing", two).has_value());
}

TEST_F(SectionCacheTest, AnUnwritableCacheDirectoryOnlyCostsTheCache) {
  // A read-only home or a file where the directory should be: nothing is stored, the
  // caller is not told (it is a cache), and a later load finds nothing.
  std::ofstream(dir_ + "/file") << "not a directory";
  const std::string path = dir_ + "/file/debug-sections/abcdef";
  const std::string a(2000, 'a');
  store_section_cache(path, std::vector<CachedSection>{{1, 10, a.size(), a.data()}});
  std::vector<CachedSection> want = {{1, 10, a.size(), nullptr}};
  EXPECT_FALSE(load_section_cache(path, want).has_value());
  EXPECT_FALSE(load_section_cache("", want).has_value());
}

TEST_F(SectionCacheTest, PathFollowsTheEnvironment) {
  setenv("PERFX_CACHE_DIR", "/somewhere", 1);
  EXPECT_EQ(section_cache_path("93ac61"), "/somewhere/debug-sections/93ac61");
  EXPECT_EQ(section_cache_path(""), "");                  // no build-id, no cache
  EXPECT_EQ(section_cache_path("../../etc/passwd"), "");  // not a build-id
  setenv("PERFX_CACHE_DIR", "", 1);
  EXPECT_EQ(section_cache_path("93ac61"), "");  // turned off
  unsetenv("PERFX_CACHE_DIR");
  EXPECT_NE(section_cache_path("93ac61").find("perfx/debug-sections/93ac61"), std::string::npos);
}

TEST_F(SectionCacheTest, LibcDebugLinesAreTheSameFromTheCache) {
  // libc6-dbg ships zlib-compressed sections: the first Dso inflates and stores them, the
  // next maps the cache; a damaged cache is ignored and rewritten.
  const std::string libc = "/lib/x86_64-linux-gnu/libc.so.6";
  setenv("PERFX_CACHE_DIR", dir_.c_str(), 1);
  std::vector<std::uint64_t> addrs;
  std::vector<std::pair<std::string, std::uint32_t>> lines;
  {
    Dso dso(libc, DsoKind::kElf, "", {});
    for (const auto& s : dso.symbols()) {
      if (s.name != "malloc" && s.name != "memcpy" && s.name != "qsort" && s.name != "fopen")
        continue;
      if (auto l = dso.srcline(s.start)) {
        addrs.push_back(s.start);
        lines.push_back(*l);
      }
    }
    if (addrs.empty()) GTEST_SKIP() << "no libc6-dbg source lines on this machine";
  }
  std::vector<std::filesystem::path> files;
  for (const auto& e :
       std::filesystem::directory_iterator(std::filesystem::path(dir_) / "debug-sections"))
    files.push_back(e.path());
  ASSERT_EQ(files.size(), 1u) << "libc's inflated sections were not cached";
  auto lines_now = [&] {
    // Without the source-line cache, which would answer without the DWARF.
    std::filesystem::remove_all(std::filesystem::path(dir_) / "srclines");
    Dso dso(libc, DsoKind::kElf, "", {});
    std::vector<std::pair<std::string, std::uint32_t>> out;
    for (auto a : addrs) out.push_back(dso.srcline(a).value_or(std::make_pair("none", 0u)));
    return out;
  };
  const auto stamp = std::filesystem::last_write_time(files[0]);
  EXPECT_EQ(lines_now(), lines);
  EXPECT_EQ(std::filesystem::last_write_time(files[0]), stamp) << "a valid cache was rewritten";
  std::filesystem::resize_file(files[0], std::filesystem::file_size(files[0]) / 2);
  EXPECT_EQ(lines_now(), lines);
  EXPECT_EQ(lines_now(), lines);
  EXPECT_GT(std::filesystem::file_size(files[0]), 1u << 20) << "the damaged cache was not redone";
}

}  // namespace
}  // namespace perfx::symbol
