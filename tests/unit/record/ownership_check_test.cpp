// perf's owner rule for inputs and the symlink-safe perf.data.old rotation
// (src/record/ownership_check.hpp).

#include "record/ownership_check.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace perfx::record {
namespace {

namespace fs = std::filesystem;

class OwnershipTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/perfx-owner-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string p = dir_ + "/" + name;
    std::ofstream(p) << text;
    return p;
  }
  static std::string read(const std::string& p) {
    std::ifstream in(p);
    std::string line;
    std::getline(in, line);
    return line;
  }
  std::string dir_;
};

TEST_F(OwnershipTest, OwnFileAndStdinAreAccepted) {
  EXPECT_TRUE(check_input_owner(write("perf.data", "x"), false));
  EXPECT_TRUE(check_input_owner("-", false));
}

TEST_F(OwnershipTest, MissingFileNamesThePath) {
  auto r = check_input_owner(dir_ + "/nope.data", false);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), Errc::kNotFound);
  EXPECT_NE(r.error().message().find("nope.data"), std::string::npos);
}

TEST_F(OwnershipTest, FileOfAnotherUserIsRefusedUnlessForced) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown a file to another user";
  const std::string p = write("theirs.data", "x");
  ASSERT_EQ(::chown(p.c_str(), 65534, 65534), 0);
  auto r = check_input_owner(p, false);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), Errc::kPermission);
  EXPECT_NE(r.error().message().find("--force"), std::string::npos);
  EXPECT_NE(r.error().message().find("65534"), std::string::npos);
  EXPECT_TRUE(check_input_owner(p, true));
}

TEST_F(OwnershipTest, RotateRenamesToOld) {
  const std::string p = write("perf.data", "new");
  ASSERT_TRUE(rotate_old_output(p));
  EXPECT_FALSE(fs::exists(p));
  EXPECT_EQ(read(p + ".old"), "new");
  EXPECT_TRUE(rotate_old_output(dir_ + "/absent.data"));
  EXPECT_TRUE(rotate_old_output("-"));
}

TEST_F(OwnershipTest, RotateNeverFollowsAnOldSymlink) {
  const std::string victim = write("victim", "precious");
  const std::string p = write("perf.data", "recording");
  fs::create_symlink(victim, p + ".old");
  ASSERT_TRUE(rotate_old_output(p));
  EXPECT_EQ(read(victim), "precious");
  EXPECT_FALSE(fs::is_symlink(p + ".old"));
  EXPECT_EQ(read(p + ".old"), "recording");
}

TEST_F(OwnershipTest, RotateMovesASymlinkOutputItselfNotItsTarget) {
  const std::string victim = write("victim", "precious");
  const std::string p = dir_ + "/perf.data";
  fs::create_symlink(victim, p);
  ASSERT_TRUE(rotate_old_output(p));
  EXPECT_TRUE(fs::is_symlink(p + ".old"));
  EXPECT_EQ(read(victim), "precious");
}

TEST_F(OwnershipTest, RotateRefusesADirectoryOld) {
  const std::string p = write("perf.data", "x");
  fs::create_directory(p + ".old");
  auto r = rotate_old_output(p);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("directory"), std::string::npos);
  EXPECT_EQ(read(p), "x");
}

}  // namespace
}  // namespace perfx::record
