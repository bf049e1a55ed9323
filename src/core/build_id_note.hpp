#pragma once
// The GNU build-id in a run of ELF notes (Elf_Nhdr, name, desc, each 4-byte aligned), as
// /sys/kernel/notes holds them: pure, so that sys/ (recording) and symbol/ (resolving
// the kernel) read the running kernel's build-id the same way.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace perfx::core {

/// Lower-case hex of a build-id's bytes.
[[nodiscard]] inline std::string build_id_hex(const std::uint8_t* data, std::size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(size * 2);
  for (std::size_t i = 0; i < size; ++i) {
    s += kDigits[data[i] >> 4];
    s += kDigits[data[i] & 0xf];
  }
  return s;
}

/// The first NT_GNU_BUILD_ID note's bytes (1-20 of them), or nullopt.
inline std::optional<std::vector<std::uint8_t>> build_id_from_notes(
    std::span<const std::byte> notes) {
  constexpr std::uint32_t kNtGnuBuildId = 3;
  const std::byte* data = notes.data();
  const std::size_t size = notes.size();
  std::size_t off = 0;
  while (off + 12 <= size) {
    std::uint32_t namesz = 0, descsz = 0, type = 0;
    std::memcpy(&namesz, data + off, 4);
    std::memcpy(&descsz, data + off + 4, 4);
    std::memcpy(&type, data + off + 8, 4);
    off += 12;
    const std::size_t name_pad = (static_cast<std::size_t>(namesz) + 3) & ~std::size_t{3};
    const std::size_t desc_pad = (static_cast<std::size_t>(descsz) + 3) & ~std::size_t{3};
    if (name_pad > size - off || desc_pad > size - off - name_pad) break;
    const bool gnu = namesz == 4 && std::memcmp(data + off, "GNU", 4) == 0;
    if (gnu && type == kNtGnuBuildId && descsz > 0 && descsz <= 20) {
      std::vector<std::uint8_t> id(descsz);
      std::memcpy(id.data(), data + off + name_pad, descsz);
      return id;
    }
    off += name_pad + desc_pad;
  }
  return std::nullopt;
}

}  // namespace perfx::core
