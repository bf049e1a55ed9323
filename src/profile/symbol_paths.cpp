#include "profile/symbol_paths.hpp"

namespace perfx::profile {

symbol::SearchPaths search_paths(const SymbolNaming& naming) {
  symbol::SearchPaths paths;
  paths.buildid_dir = naming.buildid_dir;
  paths.symfs = naming.symfs;
  if (!naming.symfs.empty()) {  // perf joins --symfs to every path it reads symbols from
    paths.debug_dir = naming.symfs + paths.debug_dir;
    paths.kallsyms = naming.symfs + paths.kallsyms;
  }
  if (!naming.kallsyms.empty()) {
    paths.kallsyms = naming.kallsyms;
    paths.kallsyms_given = true;
  }
  paths.vmlinux = naming.vmlinux;
  paths.demangle_params = naming.demangle_params;
  paths.demangle = naming.demangle;
  return paths;
}

}  // namespace perfx::profile
