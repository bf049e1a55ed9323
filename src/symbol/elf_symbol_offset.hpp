#pragma once
/// \file
/// Symbol name -> file offset in an ELF file, the value uprobes take (attr.config2).

#include <cstdint>
#include <string>
#include <string_view>

#include "perfx/error.hpp"

namespace perfx::symbol {

/// Finds a defined symbol called `symbol` in `path`'s .symtab (else .dynsym) and turns
/// its virtual address into a file offset through the PT_LOAD segment that contains it
/// (offset = st_value - p_vaddr + p_offset). Function symbols are preferred over others
/// with the same name.
/// Errors: kNotFound (no file, no such symbol: the message names both), kMalformedData
/// (not an ELF file, or the address lies in no loadable segment), kPermission, kIo.
Result<std::uint64_t> elf_symbol_file_offset(const std::string& path, std::string_view symbol);

/// The file offset of virtual address `vaddr` of `path` (through the PT_LOAD segment
/// holding it). Errors as elf_symbol_file_offset().
Result<std::uint64_t> elf_address_file_offset(const std::string& path, std::uint64_t vaddr);

}  // namespace perfx::symbol
