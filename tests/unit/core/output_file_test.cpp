// perfx::OutputFile (include/perfx/output_file.hpp): how every file perfx writes is
// created. The races themselves are driven in tests/cli/reliability_symlink_race.sh; here
// each rule on a prepared directory.

#include "perfx/output_file.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "../temp_dir.hpp"
#include "../test_files.hpp"

namespace perfx {
namespace {

namespace fs = std::filesystem;
using test_support::TempDir;

using test_support::slurp;
using test_support::spit;

void put(const OutputFile& f, const std::string& text) {
  ASSERT_EQ(::write(f.fd(), text.data(), text.size()), static_cast<ssize_t>(text.size()));
}

std::size_t entries(const std::string& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), {}));
}

TEST(OutputFile, WholeFileAppearsOnlyOnCommit) {
  TempDir dir;
  const std::string path = dir.file("out.json");
  auto f = OutputFile::create(path, CreateMode::kWholeFile);
  ASSERT_TRUE(f) << f.error().message();
  EXPECT_TRUE(f->regular());
  put(*f, "new");
  EXPECT_FALSE(fs::exists(path));  // still the temporary
  EXPECT_EQ(entries(dir.file("")), 1u);
  ASSERT_TRUE(f->commit());
  EXPECT_EQ(slurp(path), "new");
  EXPECT_EQ(entries(dir.file("")), 1u);  // no temporary left
}

TEST(OutputFile, WholeFileReplacesAndKeepsTheOldOneUntilCommit) {
  TempDir dir;
  const std::string path = dir.file("out.txt");
  spit(path, "old contents, longer");
  ::chmod(path.c_str(), 0640);
  {
    auto f = OutputFile::create(path, CreateMode::kWholeFile);
    ASSERT_TRUE(f);
    put(*f, "abandoned");
  }  // not committed: the temporary goes, the old file stays
  EXPECT_EQ(slurp(path), "old contents, longer");
  EXPECT_EQ(entries(dir.file("")), 1u);
  auto f = OutputFile::create(path, CreateMode::kWholeFile);
  ASSERT_TRUE(f);
  put(*f, "new");
  ASSERT_TRUE(f->commit());
  EXPECT_EQ(slurp(path), "new");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);  // the user's permissions stay
}

TEST(OutputFile, TemporaryNamesAreUnpredictable) {
  TempDir dir;
  std::set<std::string> names;
  std::vector<OutputFile> open;
  for (int i = 0; i < 8; ++i) {
    auto f = OutputFile::create(dir.file("x"), CreateMode::kWholeFile);
    ASSERT_TRUE(f);
    open.push_back(std::move(*f));
  }
  for (const auto& e : fs::directory_iterator(dir.file(""))) names.insert(e.path().filename());
  EXPECT_EQ(names.size(), 8u);
  for (const auto& n : names) {
    EXPECT_EQ(n.rfind(".x.", 0), 0u) << n;
    EXPECT_GE(n.size(), 3u + 16u) << n;
  }
}

TEST(OutputFile, NeverWritesThroughASymlink) {
  TempDir dir;
  const std::string victim = dir.file("victim");
  spit(victim, "precious");
  const std::string link = dir.file("link");
  ASSERT_EQ(::symlink(victim.c_str(), link.c_str()), 0);
  for (auto mode : {CreateMode::kWholeFile, CreateMode::kNew, CreateMode::kAppend}) {
    auto f = OutputFile::create(link, mode);
    ASSERT_FALSE(f);
    EXPECT_NE(f.error().message().find("symbolic link"), std::string::npos);
    EXPECT_NE(f.error().message().find(link), std::string::npos);
  }
  // A link planted after create() (the race): the rename replaces the link itself.
  const std::string out = dir.file("out");
  auto f = OutputFile::create(out, CreateMode::kWholeFile);
  ASSERT_TRUE(f);
  ASSERT_EQ(::symlink(victim.c_str(), out.c_str()), 0);
  put(*f, "mine");
  ASSERT_TRUE(f->commit());
  EXPECT_EQ(slurp(victim), "precious");
  EXPECT_FALSE(fs::is_symlink(out));
  EXPECT_EQ(slurp(out), "mine");
}

TEST(OutputFile, NewKeepOldMovesTheOldFileAside) {
  TempDir dir;
  const std::string path = dir.file("perf.data");
  spit(path, "first");
  auto f = OutputFile::create(path, CreateMode::kNewKeepOld, 0600);
  ASSERT_TRUE(f);
  put(*f, "second");
  EXPECT_EQ(slurp(path), "second");  // written in place: there before commit
  ASSERT_TRUE(f->commit());
  EXPECT_EQ(slurp(path + ".old"), "first");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  // A symlink at the name is moved aside, never followed.
  const std::string victim = dir.file("victim");
  spit(victim, "precious");
  ASSERT_EQ(::unlink(path.c_str()), 0);
  ASSERT_EQ(::symlink(victim.c_str(), path.c_str()), 0);
  auto g = OutputFile::create(path, CreateMode::kNewKeepOld);
  ASSERT_TRUE(g);
  put(*g, "third");
  const int fd = g->release();
  ASSERT_GE(fd, 0);
  ::close(fd);
  EXPECT_EQ(slurp(victim), "precious");
  EXPECT_TRUE(fs::is_symlink(path + ".old"));
  EXPECT_EQ(slurp(path), "third");

  // A symlink at the .old name is replaced, not followed.
  spit(victim, "precious");
  ASSERT_EQ(::unlink((path + ".old").c_str()), 0);
  ASSERT_EQ(::symlink(victim.c_str(), (path + ".old").c_str()), 0);
  ASSERT_TRUE(OutputFile::create(path, CreateMode::kNewKeepOld));
  EXPECT_EQ(slurp(victim), "precious");
  EXPECT_FALSE(fs::is_symlink(path + ".old"));
  EXPECT_EQ(slurp(path + ".old"), "third");

  // An empty file is not worth keeping: the .old stays what it was.
  spit(dir.file("e"), "keep");
  ::rename(dir.file("e").c_str(), (dir.file("e") + ".old").c_str());
  spit(dir.file("e"), "");
  auto h = OutputFile::create(dir.file("e"), CreateMode::kNewKeepOld);
  ASSERT_TRUE(h);
  EXPECT_EQ(slurp(dir.file("e.old")), "keep");

  // A directory .old is refused, not deleted.
  fs::create_directory(dir.file("d.old"));
  spit(dir.file("d"), "x");
  auto d = OutputFile::create(dir.file("d"), CreateMode::kNewKeepOld);
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().message().find("directory"), std::string::npos);
}

TEST(OutputFile, AppendOnlyToAFileWithOneName) {
  TempDir dir;
  const std::string path = dir.file("stat.txt");
  for (const char* text : {"a", "b"}) {
    auto f = OutputFile::create(path, CreateMode::kAppend);
    ASSERT_TRUE(f);
    put(*f, text);
    ASSERT_TRUE(f->commit());
  }
  EXPECT_EQ(slurp(path), "ab");
  ASSERT_EQ(::link(path.c_str(), dir.file("other").c_str()), 0);
  auto f = OutputFile::create(path, CreateMode::kAppend);
  ASSERT_FALSE(f);
  EXPECT_NE(f.error().message().find("hard links"), std::string::npos);
}

TEST(OutputFile, DevicesAreWrittenInPlace) {
  for (auto mode :
       {CreateMode::kWholeFile, CreateMode::kNew, CreateMode::kNewKeepOld, CreateMode::kAppend}) {
    auto f = OutputFile::create("/dev/null", mode);
    ASSERT_TRUE(f) << f.error().message();
    EXPECT_FALSE(f->regular());
    put(*f, "x");
    ASSERT_TRUE(f->commit());
  }
  EXPECT_FALSE(fs::exists("/dev/null.old"));
}

TEST(OutputFile, ErrorsNameThePath) {
  TempDir dir;
  auto missing = OutputFile::create(dir.file("no/such/out"), CreateMode::kWholeFile);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("no/such/out"), std::string::npos);
  auto directory = OutputFile::create(dir.file(""), CreateMode::kWholeFile);
  ASSERT_FALSE(directory);
  EXPECT_NE(directory.error().message().find("directory"), std::string::npos);
  auto empty = OutputFile::create("", CreateMode::kNew);
  EXPECT_FALSE(empty);
}

TEST(OutputFile, CreateInADirectoryDescriptor) {
  TempDir dir;
  const int dfd = ::open(dir.file("").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(dfd, 0);
  auto f = OutputFile::create_in(dfd, "cache", CreateMode::kWholeFile, 0600);
  ::close(dfd);  // duplicated: the file does not need the caller's descriptor
  ASSERT_TRUE(f);
  put(*f, "c");
  ASSERT_TRUE(f->commit());
  struct stat st {};
  ASSERT_EQ(::stat(dir.file("cache").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_FALSE(OutputFile::create_in(dfd, "a/b", CreateMode::kWholeFile));
}

}  // namespace
}  // namespace perfx
