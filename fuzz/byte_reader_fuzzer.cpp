// Fuzz target: core::ByteReader, the bounds-checked reader every binary decoder uses.
// Drives a reader with a little program taken from the input's first bytes: each op
// reads an integer, takes a span, an array (count x size, checked before multiplying),
// a sub-reader or a bounded C string. Invariants: offset() <= size() always; after a
// failure every read yields zero/empty and ok() stays false.

#include <cstddef>
#include <cstdint>
#include <span>

#include "core/byte_reader.hpp"

namespace {

void check(bool cond) {
  if (!cond) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::size_t nops = data[0] % 32;
  const bool swap = (data[1] & 1) != 0;
  const std::size_t prog_len = std::min(size - 2, nops * 2) & ~std::size_t{1};
  const std::uint8_t* prog = data + 2;
  std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data + 2 + prog_len),
                                   size - 2 - prog_len);
  perfx::core::ByteReader r(bytes, swap);
  bool failed = false;
  for (std::size_t i = 0; i + 1 < prog_len; i += 2) {
    const std::uint8_t op = prog[i];
    const std::uint8_t arg = prog[i + 1];
    switch (op % 8) {
      case 0:
        (void)r.u8();
        break;
      case 1:
        (void)r.u16();
        break;
      case 2:
        (void)r.u32();
        break;
      case 3:
        (void)r.u64();
        break;
      case 4: {
        auto s = r.take(arg);
        check(s.size() == arg || s.empty());
        break;
      }
      case 5: {
        const std::uint64_t count = arg & 0x80 ? ~std::uint64_t{0} / (arg | 1U) : arg;
        auto s = r.take_array(count, (arg % 9));
        check(s.size() <= bytes.size());
        break;
      }
      case 6: {
        auto sub = r.sub(arg);
        while (sub.ok() && !sub.at_end()) (void)sub.u8();
        break;
      }
      default: {
        auto s = r.cstring_in(arg);
        check(s.size() < arg || (s.empty() && arg == 0) || !r.ok());
        break;
      }
    }
    check(r.offset() <= r.size());
    if (failed) {
      check(!r.ok());
      check(r.u64() == 0);
    }
    failed = !r.ok();
  }
  return 0;
}
