// The caches are private and distrustful (symbol/cache_dir.hpp, docs/reliability.md):
// 0700 directories and 0600 files; a directory of another user (or writable by others,
// or $HOME of another user under `sudo -E`) is neither read nor written; a file of
// another user, one naming another build-id, and one whose sizes lie are ignored, each
// with a warning. Tests that hand a file to another user need root (chown).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../test_files.hpp"
#include "cache_dir_fixture.hpp"
#include "symbol/cache_dir.hpp"
#include "symbol/section_cache.hpp"
#include "symbol/srcline_cache.hpp"

namespace perfx::symbol {
namespace {

namespace fs = std::filesystem;
constexpr uid_t kNobody = 65534;

using test_support::slurp;
using test_support::spit;

unsigned mode_of(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & 07777;
}

// The warnings so far, in one string (and none left for the next test).
std::string warnings() {
  std::string all;
  for (const auto& w : take_cache_warnings()) all += w + "\n";
  return all;
}

class CacheSafetyTest : public CacheDirTest {
 protected:
  void SetUp() override {
    CacheDirTest::SetUp();
    (void)take_cache_warnings();
    ::chmod(dir_.c_str(), 0700);
  }
  static void need_root() {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to hand files to another user (chown)";
  }
  const SrclineMemo memo_{{0x10, std::pair{std::string("x.c"), 1u}}};
  const std::vector<std::uint64_t> added_{0x10};
};

TEST_F(CacheSafetyTest, DirectoriesAre0700AndFiles0600WhateverTheUmask) {
  const mode_t old = ::umask(0);
  setenv("PERFX_CACHE_DIR", (dir_ + "/new/cache").c_str(), 1);
  const std::string path = srcline_cache_path("abcd");
  ASSERT_EQ(path, dir_ + "/new/cache/srclines/abcd");
  store_srcline_cache(path, "id", SrclineCache{}, memo_, added_);
  const std::string a(300, 'a');
  store_section_cache(section_cache_path("abcd"),
                      std::vector<CachedSection>{{1, 10, a.size(), a.data()}});
  ::umask(old);
  EXPECT_EQ(mode_of(dir_ + "/new"), 0700u);
  EXPECT_EQ(mode_of(dir_ + "/new/cache"), 0700u);
  EXPECT_EQ(mode_of(dir_ + "/new/cache/srclines"), 0700u);
  EXPECT_EQ(mode_of(dir_ + "/new/cache/debug-sections"), 0700u);
  EXPECT_EQ(mode_of(path), 0600u);
  EXPECT_EQ(mode_of(dir_ + "/new/cache/debug-sections/abcd"), 0600u);
  EXPECT_EQ(SrclineCache::load(path, "id").state(), SrclineCacheState::kValid);
  EXPECT_EQ(warnings(), "");
  // A 0644 file of ours from an older perfx is replaced by a 0600 one.
  ::chmod(path.c_str(), 0644);
  store_srcline_cache(path, "other", SrclineCache{}, memo_, added_);
  EXPECT_EQ(mode_of(path), 0600u);
}

TEST_F(CacheSafetyTest, ADirectoryOfAnotherUserIsNeitherReadNorWritten) {
  need_root();
  const std::string root = dir_ + "/theirs";
  setenv("PERFX_CACHE_DIR", root.c_str(), 1);
  // A valid cache of theirs, made before the directory changes hands.
  const std::string planted = srcline_cache_path("abcd");
  store_srcline_cache(planted, "id", SrclineCache{}, memo_, added_);
  ASSERT_EQ(SrclineCache::load(planted, "id").state(), SrclineCacheState::kValid);
  for (const char* d : {"", "/srclines"})
    ASSERT_EQ(::chown((root + d).c_str(), kNobody, kNobody), 0);
  ASSERT_EQ(::chown(planted.c_str(), kNobody, kNobody), 0);

  EXPECT_EQ(srcline_cache_path("abcd"), "");  // not read
  EXPECT_EQ(section_cache_path("abcd"), "");  // not written
  const std::string w = warnings();
  EXPECT_NE(w.find("belongs to uid 65534"), std::string::npos) << w;
  EXPECT_NE(w.find(root), std::string::npos) << w;
  // Even with the path in hand, nothing is written into it.
  store_srcline_cache(planted, "other", SrclineCache{}, memo_, added_);
  const std::string a(300, 'a');
  store_section_cache(root + "/debug-sections/abcd",
                      std::vector<CachedSection>{{1, 10, a.size(), a.data()}});
  EXPECT_FALSE(fs::exists(root + "/debug-sections"));
  EXPECT_EQ(std::distance(fs::directory_iterator(root + "/srclines"), {}), 1);
  // One warning per text: asking again says nothing new.
  EXPECT_EQ(srcline_cache_path("abcd"), "");
  EXPECT_EQ(warnings(), "");
}

TEST_F(CacheSafetyTest, ADirectoryWritableByOthersIsRefused) {
  const std::string root = dir_ + "/open";
  fs::create_directories(root + "/srclines");
  ::chmod(root.c_str(), 0700);
  ::chmod((root + "/srclines").c_str(), 0777);
  setenv("PERFX_CACHE_DIR", root.c_str(), 1);
  EXPECT_EQ(srcline_cache_path("abcd"), "");
  EXPECT_NE(warnings().find("writable by other users"), std::string::npos);
  store_srcline_cache(root + "/srclines/abcd", "id", SrclineCache{}, memo_, added_);
  EXPECT_FALSE(fs::exists(root + "/srclines/abcd"));
  EXPECT_NE(section_cache_path("abcd"), "");  // its sibling is fine
}

TEST_F(CacheSafetyTest, HomeOfAnotherUserUnderSudoIsNotWrittenInto) {
  need_root();
  // `sudo -E perfx report`: root with HOME=/home/alice, whose ~/.cache does not exist.
  const std::string home = dir_ + "/alice";
  fs::create_directory(home);
  ASSERT_EQ(::chown(home.c_str(), kNobody, kNobody), 0);
  unsetenv("PERFX_CACHE_DIR");
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const std::string old_xdg = xdg != nullptr ? xdg : "";
  const char* old_home_c = std::getenv("HOME");
  const std::string old_home = old_home_c != nullptr ? old_home_c : "";
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", home.c_str(), 1);
  const std::string path = srcline_cache_path("abcd");
  const std::string w = warnings();
  store_srcline_cache(home + "/.cache/perfx/srclines/abcd", "id", SrclineCache{}, memo_, added_);
  setenv("HOME", old_home.c_str(), 1);
  if (xdg != nullptr) setenv("XDG_CACHE_HOME", old_xdg.c_str(), 1);
  EXPECT_EQ(path, "");
  EXPECT_NE(w.find("belongs to uid 65534"), std::string::npos) << w;
  EXPECT_FALSE(fs::exists(home + "/.cache"));
}

TEST_F(CacheSafetyTest, AFileOfAnotherUserIsIgnoredWithAWarning) {
  need_root();
  const std::string path = dir_ + "/abcd";
  store_srcline_cache(path, "id", SrclineCache{}, memo_, added_);
  ASSERT_EQ(::chown(path.c_str(), kNobody, kNobody), 0);
  const auto theirs = SrclineCache::load(path, "id");
  EXPECT_EQ(theirs.state(), SrclineCacheState::kStale);
  EXPECT_FALSE(theirs.find(0x10).has_value());
  EXPECT_NE(warnings().find("belongs to uid 65534"), std::string::npos);
  // Replaced by a file of ours, never written into.
  store_srcline_cache(path, "id", theirs, memo_, added_);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 0u);

  const std::string a(300, 'a');
  const std::string sections = dir_ + "/ef01";
  store_section_cache(sections, std::vector<CachedSection>{{1, 10, a.size(), a.data()}});
  ASSERT_EQ(::chown(sections.c_str(), kNobody, kNobody), 0);
  std::vector<CachedSection> want = {{1, 10, a.size(), nullptr}};
  EXPECT_FALSE(load_section_cache(sections, want).has_value());
  EXPECT_NE(warnings().find("'" + sections + "' belongs to uid 65534"), std::string::npos);
}

TEST_F(CacheSafetyTest, AFileWritableByOthersALinkOrAFifoIsIgnored) {
  const std::string path = dir_ + "/abcd";
  store_srcline_cache(path, "id", SrclineCache{}, memo_, added_);
  ::chmod(path.c_str(), 0620);
  EXPECT_EQ(SrclineCache::load(path, "id").state(), SrclineCacheState::kStale);
  EXPECT_NE(warnings().find("writable by other users"), std::string::npos);
  ::chmod(path.c_str(), 0600);
  fs::rename(path, dir_ + "/real");
  fs::create_symlink(dir_ + "/real", path);
  EXPECT_EQ(SrclineCache::load(path, "id").state(), SrclineCacheState::kStale);
  EXPECT_NE(warnings().find("symbolic link"), std::string::npos);
  fs::remove(path);
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  EXPECT_EQ(SrclineCache::load(path, "id").state(), SrclineCacheState::kStale);  // no hang
  EXPECT_NE(warnings().find("not a regular file"), std::string::npos);
  store_srcline_cache(path, "id", SrclineCache{}, memo_, added_);  // no hang either
}

TEST_F(CacheSafetyTest, AFileOfAnotherBuildIdIsIgnoredWithAWarning) {
  store_srcline_cache(dir_ + "/abcd", "id", SrclineCache{}, memo_, added_);
  fs::copy_file(dir_ + "/abcd", dir_ + "/ef01");
  const auto other = SrclineCache::load(dir_ + "/ef01", "id");
  EXPECT_EQ(other.state(), SrclineCacheState::kStale);
  EXPECT_FALSE(other.find(0x10).has_value());
  EXPECT_NE(warnings().find("holds build-id 'abcd', not 'ef01'"), std::string::npos);

  const std::string a(300, 'a');
  store_section_cache(dir_ + "/1234", std::vector<CachedSection>{{1, 10, a.size(), a.data()}});
  fs::copy_file(dir_ + "/1234", dir_ + "/5678");
  std::vector<CachedSection> want = {{1, 10, a.size(), nullptr}};
  EXPECT_TRUE(load_section_cache(dir_ + "/1234", want).has_value());
  EXPECT_FALSE(load_section_cache(dir_ + "/5678", want).has_value());
  EXPECT_NE(warnings().find("holds build-id '1234', not '5678'"), std::string::npos);
}

TEST_F(CacheSafetyTest, SizesThatLieAreIgnoredWithAWarning) {
  const std::string path = dir_ + "/abcd";
  store_srcline_cache(path, "id", SrclineCache{}, memo_, added_);
  std::string bytes = slurp(path);
  // "PERFXSL4", build-id "abcd", identity "id", then the entry count: now 2^24.
  const std::size_t count_at = 8 + 4 + 4 + 4 + 2;
  bytes[count_at + 3] = '\x01';
  spit(path, bytes);
  EXPECT_EQ(SrclineCache::load(path, "id").state(), SrclineCacheState::kStale);
  EXPECT_NE(warnings().find("sizes say more than the file holds"), std::string::npos);

  const std::string a(300, 'a');
  const std::string sections = dir_ + "/ef01";
  store_section_cache(sections, std::vector<CachedSection>{{1, 10, a.size(), a.data()}});
  std::string file = slurp(sections);
  // "PERFXDS2", build-id "ef01", count, then {index, compressed, size, offset}: the
  // offset now points past the end.
  const std::size_t offset_at = 8 + 4 + 4 + 8 + 24;
  file[offset_at + 2] = '\x10';
  spit(sections, file);
  std::vector<CachedSection> want = {{1, 10, a.size(), nullptr}};
  EXPECT_FALSE(load_section_cache(sections, want).has_value());
  EXPECT_NE(warnings().find("lies past the file's end"), std::string::npos);
  // A size that differs from the debug file's is no match either (and said so).
  std::vector<CachedSection> bigger = {{1, 10, a.size() + 4096, nullptr}};
  store_section_cache(sections, std::vector<CachedSection>{{1, 10, a.size(), a.data()}});
  EXPECT_FALSE(load_section_cache(sections, bigger).has_value());
  EXPECT_NE(warnings().find("does not list the debug file's compressed sections"),
            std::string::npos);
}

}  // namespace
}  // namespace perfx::symbol
