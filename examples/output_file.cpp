// Writing files the way perfx does (include/perfx/output_file.hpp): a whole-file output
// through a temporary renamed into place, then a recording-style file created in place
// with the old one kept as .old, and a symlink at the name refused.
//
//   $ build/examples/example_output_file
//   wrote /tmp/perfx-example-XXXXXX/report.txt (whole file)
//   wrote /tmp/perfx-example-XXXXXX/trace.log in place; the old one is trace.log.old
//   refused: '/tmp/perfx-example-XXXXXX/link.txt' is a symbolic link: perfx never ...

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "perfx/output_file.hpp"

namespace {

bool put(const perfx::OutputFile& f, std::string_view text) {
  return ::write(f.fd(), text.data(), text.size()) == static_cast<ssize_t>(text.size());
}

}  // namespace

int main() {
  char tmpl[] = "/tmp/perfx-example-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) return 1;
  const std::string dir = tmpl;

  // Whole file: nothing appears at report.txt until commit().
  auto report = perfx::OutputFile::create(dir + "/report.txt", perfx::CreateMode::kWholeFile);
  if (!report || !put(*report, "total 42\n")) return 1;
  if (auto done = report->commit(); !done) {
    std::fprintf(stderr, "%s\n", done.error().message().c_str());
    return 1;
  }
  std::printf("wrote %s/report.txt (whole file)\n", dir.c_str());

  // In place, like perf.data: the second run keeps the first as trace.log.old.
  for (const char* text : {"first\n", "second\n"}) {
    auto log = perfx::OutputFile::create(dir + "/trace.log", perfx::CreateMode::kNewKeepOld, 0600);
    if (!log || !put(*log, text) || !log->commit()) return 1;
  }
  std::printf("wrote %s/trace.log in place; the old one is trace.log.old\n", dir.c_str());

  // A symlink at the name is never written through.
  std::filesystem::create_symlink(dir + "/report.txt", dir + "/link.txt");
  auto link = perfx::OutputFile::create(dir + "/link.txt", perfx::CreateMode::kWholeFile);
  if (link) return 1;
  std::printf("refused: %s\n", link.error().message().c_str());

  std::filesystem::remove_all(dir);
  return 0;
}
