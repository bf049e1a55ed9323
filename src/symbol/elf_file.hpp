#pragma once
/// \file
/// ELF files as the symbol readers open them (libelf), and what they read from one
/// before its symbols: the GNU build-id note and the .gnu_debuglink name.

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace perfx::symbol {

/// One opened ELF file (fd + Elf handle, or an image in memory), closed on destruction.
class ElfFile {
 public:
  ElfFile() = default;
  explicit ElfFile(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) return;
    // Private (copy-on-write) so that DebugSections may rewrite section headers in
    // memory; untouched pages stay shared with the page cache.
    elf_ = elf_begin(fd_, ELF_C_READ_MMAP_PRIVATE, nullptr);
    if (elf_ != nullptr && elf_kind(elf_) != ELF_K_ELF) {
      elf_end(elf_);
      elf_ = nullptr;
    }
  }
  ElfFile(const char* data, std::size_t size) : mem_(data, size) {
    elf_ = elf_memory(mem_.data(), mem_.size());
    if (elf_ != nullptr && elf_kind(elf_) != ELF_K_ELF) {
      elf_end(elf_);
      elf_ = nullptr;
    }
  }
  ~ElfFile() { close(); }
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;
  ElfFile(ElfFile&& o) noexcept { *this = std::move(o); }
  ElfFile& operator=(ElfFile&& o) noexcept {
    if (this != &o) {
      close();
      fd_ = std::exchange(o.fd_, -1);
      elf_ = std::exchange(o.elf_, nullptr);
      mem_ = std::move(o.mem_);
      if (!mem_.empty() && elf_ != nullptr) {
        // elf_memory keeps a pointer into mem_: re-open over the moved buffer.
        elf_end(elf_);
        elf_ = elf_memory(mem_.data(), mem_.size());
      }
    }
    return *this;
  }
  [[nodiscard]] Elf* get() const noexcept { return elf_; }
  explicit operator bool() const noexcept { return elf_ != nullptr; }

 private:
  void close() {
    if (elf_ != nullptr) elf_end(elf_);
    if (fd_ >= 0) ::close(fd_);
    elf_ = nullptr;
    fd_ = -1;
  }
  int fd_ = -1;
  Elf* elf_ = nullptr;
  std::string mem_;
};

/// Build-ids as hex, equal but for zero padding (perf's header pads them to 20 bytes).
[[nodiscard]] bool same_build_id(std::string_view a, std::string_view b);

/// The NT_GNU_BUILD_ID note of `elf` as lower-case hex, "" when it has none.
[[nodiscard]] std::string elf_build_id(Elf* elf);

/// The file name in `elf`'s .gnu_debuglink section, "" when it has none.
[[nodiscard]] std::string elf_debuglink(Elf* elf);

/// True when `elf` has a section of `type` (SHT_SYMTAB, ...).
[[nodiscard]] bool has_section_type(Elf* elf, std::uint32_t type);

}  // namespace perfx::symbol
