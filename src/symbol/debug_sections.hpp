#pragma once
/// \file
/// Debug sections made ready for libdw before dwarf_begin_elf().
///
/// dwarf_begin_elf() decompresses every compressed debug section up front with zlib, on
/// one thread. For a distribution's debug file that is most of a source-line report:
/// libc6-dbg's 3.8 MB of compressed DWARF took 60-75 ms on the development VM. Here:
///  - sections no source line or inline scope needs (location and macro lists, a sixth
///    of the bytes) are made SHT_NOBITS, which libdw skips;
///  - the others are decompressed with libdeflate (several times faster than zlib's
///    inflate), the largest on its own thread, into one buffer that asks for huge
///    pages, and handed to libelf as the sections' data with SHF_COMPRESSED cleared;
///  - big ones are kept in a cache file (symbol/section_cache.hpp), which later runs map
///    instead of inflating again.
/// Changes are made to our private copy of the headers only (ELF_C_READ_MMAP_PRIVATE or
/// an in-memory image); the file is never written.

#include <libelf.h>

#include <optional>
#include <string>
#include <thread>

#include "core/huge_pages.hpp"
#include "symbol/file_text.hpp"

namespace perfx::symbol {

/// Owns the decompressed section contents; must outlive every use of the Elf's DWARF.
class DebugSections {
 public:
  /// Prepares `elf`'s debug sections as described above. Sections it cannot handle
  /// (another compression type, a corrupt stream) are left for libdw as they were.
  /// `cache_path`: the section cache file to read, or to write after inflating
  /// (section_cache_path()); "" for none.
  /// The cache file is written on a thread of its own (its fresh page-cache pages cost
  /// ~40 ms for libc6-dbg on a VM), joined here.
  void prepare(Elf* elf, const std::string& cache_path = {});

  DebugSections() = default;
  DebugSections(const DebugSections&) = delete;
  DebugSections& operator=(const DebugSections&) = delete;
  ~DebugSections();

 private:
  core::HugeBuffer buffer_;
  std::optional<FileText> cache_;  // the mapped cache file, when the sections came from it
  std::thread cache_writer_;       // writing buffer_ to the cache file
};

}  // namespace perfx::symbol
