#pragma once
/// \file
/// How a replay names symbols and where it looks for the files that have them: perf's
/// build-id cache, --symfs, --kallsyms, -k/--vmlinux and demangling choices, as plain
/// data (profile/symbol_paths.hpp turns them into the symbol module's search paths).

#include <string>

namespace perfx::profile {

struct SymbolNaming {
  std::string buildid_dir;       ///< perf's build-id cache, "" = $HOME/.debug
  bool demangle_params = false;  ///< C++ parameter lists
  bool demangle = true;          ///< false: names as the binaries have them
  /// perf's --symfs: DSOs, debug files, the build-id cache and kallsyms are read under
  /// this directory, their usual path appended ("" = as usual).
  std::string symfs;
  std::string kallsyms;  ///< perf's --kallsyms: kernel symbols from this file only
  std::string vmlinux;   ///< perf's -k/--vmlinux: kernel symbols from this ELF file only
};

}  // namespace perfx::profile
