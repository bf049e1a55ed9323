// x86_64 syscall numbers <-> names (perfx/trace.hpp), and the syscall argument catalog.
// The table is generated from the kernel's uapi header: scripts/gen_syscall_table.sh
// (docs/design.md, "perfx trace").

#include <fnmatch.h>

#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "perfx/trace.hpp"

namespace perfx {
namespace {

struct SyscallEntry {
  long nr;
  const char* name;
};

constexpr SyscallEntry kSyscalls[] = {
#include "event/syscall_table_x86_64.inc"
};

}  // namespace

std::string_view syscall_name(long nr) noexcept {
  for (const auto& e : kSyscalls)
    if (e.nr == nr) return e.name;
  return {};
}

long syscall_number(std::string_view name) noexcept {
  for (const auto& e : kSyscalls)
    if (name == e.name) return e.nr;
  return -1;
}

std::vector<long> match_syscalls(std::string_view pattern) {
  std::vector<long> out;
  const std::string pat(pattern);
  for (const auto& e : kSyscalls)
    if (::fnmatch(pat.c_str(), e.name, 0) == 0) out.push_back(e.nr);
  std::sort(out.begin(), out.end());
  return out;
}

void SyscallCatalog::add_format(std::string_view name, const TraceFormat& enter_format) {
  std::vector<SyscallArg> list;
  for (const auto& f : enter_format.fields) {
    if (f.name.starts_with("common_") || f.name == "__syscall_nr") continue;
    list.push_back(SyscallArg{f.name, f.type});
  }
  add(std::string(name), std::move(list));
}

void SyscallCatalog::add(std::string name, std::vector<SyscallArg> list) {
  args_[std::move(name)] = std::move(list);
}

const std::vector<SyscallArg>* SyscallCatalog::args(std::string_view name) const {
  const auto it = args_.find(name);
  return it == args_.end() ? nullptr : &it->second;
}

}  // namespace perfx
