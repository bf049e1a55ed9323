#pragma once
// A fresh directory under /tmp for one test, removed with everything in it at the end.

#include <unistd.h>

#include <filesystem>
#include <string>

namespace perfx::test_support {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "perfx_test") {
    std::string tmpl = "/tmp/" + prefix + "_XXXXXX";
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace perfx::test_support
