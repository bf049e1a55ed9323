// Where a DSO's symbols and DWARF may live besides the file itself: perf's build-id
// cache ($HOME/.debug) and the separate debug files found by .gnu_debuglink or build-id
// under /usr/lib/debug (gdb's search order).
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "symbol/dso_impl.hpp"

namespace perfx::symbol {

// perf's --symfs DIR makes the build-id cache DIR/.debug (symbol__config_symfs()), which
// overrides $PERF_BUILDID_DIR and $HOME/.debug: `--symfs /` finds no [vdso] there.
std::string home_debug_dir(const SearchPaths& p) {
  if (!p.symfs.empty()) return p.symfs + "/.debug";
  if (!p.buildid_dir.empty()) return p.buildid_dir;
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : "/root") + "/.debug";
}

bool file_exists(const std::string& p) { return ::access(p.c_str(), R_OK) == 0; }

namespace {

std::string dirname_of(const std::string& p) {
  auto slash = p.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return p.substr(0, slash);
}

}  // namespace

std::string Dso::Impl::find_debug_file(const std::string& path, Elf* elf) const {
  std::vector<std::string> candidates;
  const std::string dir = dirname_of(path);
  const std::string& root = paths.symfs;  // perf's --symfs (debug_dir has it already)
  std::string link = elf != nullptr ? elf_debuglink(elf) : std::string{};
  if (!link.empty()) {
    candidates.push_back(root + dir + "/" + link);
    candidates.push_back(root + dir + "/.debug/" + link);
    candidates.push_back(paths.debug_dir + dir + "/" + link);
  }
  const std::string& bid = !build_id.empty() ? build_id : recorded_build_id;
  if (bid.size() > 2) {
    candidates.push_back(paths.debug_dir + "/.build-id/" + bid.substr(0, 2) + "/" + bid.substr(2) +
                         ".debug");
    candidates.push_back(home_debug_dir(paths) + "/.build-id/" + bid.substr(0, 2) + "/" +
                         bid.substr(2) + "/debug");
  }
  for (const auto& c : candidates) {
    if (c == root + path || !file_exists(c)) continue;
    ElfFile f(c);
    if (!f) continue;
    const std::string dbid = elf_build_id(f.get());
    if (!bid.empty() && !dbid.empty() && dbid != bid) continue;  // another build's debug file
    return c;
  }
  return {};
}

}  // namespace perfx::symbol
