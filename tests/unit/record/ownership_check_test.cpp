// perf's owner rule for inputs (src/record/ownership_check.hpp). The perf.data.old
// rotation is tested with perfx::OutputFile (tests/unit/core/output_file_test.cpp).

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

}  // namespace
}  // namespace perfx::record
