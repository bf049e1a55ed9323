// SyscallCatalog::load (perfx/trace.hpp): the argument lists of every syscall from
// tracefs' syscalls:sys_enter_<name>/format files.

#include <dirent.h>

#include <memory>
#include <string>

#include "perfx/trace.hpp"
#include "sys/system_info.hpp"
#include "sys/tracefs.hpp"

namespace perfx {

Result<SyscallCatalog> SyscallCatalog::load(const std::string& tracefs) {
  std::string root = tracefs;
  if (root.empty()) {
    PERFX_TRY(found, sys::find_tracefs());
    root = found;
  }
  const std::string dir = root + "/events/syscalls";
  std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(dir.c_str()), &::closedir);
  if (!d)
    return tl::unexpected(Error(Errc::kNotFound,
                                "no " + dir +
                                    ": this kernel has no syscall tracepoints "
                                    "(CONFIG_FTRACE_SYSCALLS)",
                                errno));
  SyscallCatalog out;
  while (const dirent* e = ::readdir(d.get())) {
    const std::string_view name = e->d_name;
    if (!name.starts_with("sys_enter_")) continue;
    auto text = sys::read_text_file(dir + "/" + std::string(name) + "/format");
    if (!text) continue;  // a format we cannot read leaves that call undecoded
    auto fmt = parse_trace_format(*text);
    if (!fmt) continue;
    out.add_format(name.substr(10), *fmt);
  }
  if (out.size() == 0)
    return tl::unexpected(Error(Errc::kNotFound, "no readable syscall formats under " + dir));
  return out;
}

}  // namespace perfx
