#pragma once
// Tests of perfx's on-disk caches (symbol/cache_dir.hpp): a fresh directory per test,
// and PERFX_CACHE_DIR as it was before the test, whatever the test sets it to.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace perfx::symbol {

class CacheDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/perfx_cache_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    const char* old = std::getenv("PERFX_CACHE_DIR");
    had_env_ = old != nullptr;
    if (had_env_) old_env_ = old;
  }
  void TearDown() override {
    if (had_env_)
      setenv("PERFX_CACHE_DIR", old_env_.c_str(), 1);
    else
      unsetenv("PERFX_CACHE_DIR");
    std::filesystem::remove_all(dir_);
  }
  std::string dir_;

 private:
  bool had_env_ = false;
  std::string old_env_;
};

}  // namespace perfx::symbol
