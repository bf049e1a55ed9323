// Fuzz target: the perf.data reader on an in-memory file (record::PerfDataReader::
// from_memory): file header, attrs and ids, feature sections, file and pipe mode,
// zstd-compressed records, then every record decoded with the file's attrs, the event
// names and the `--header-only` text.
//
// Invariants: no crash, no hang (the reader must progress: at most one record per 8
// input bytes unless they came out of a COMPRESSED record), a record's bytes are at
// least its header, and a fatal error carries a message.

#include <cstddef>
#include <cstdint>
#include <span>

#include "record/perf_data_reader.hpp"

namespace {

void check(bool cond) {
  if (!cond) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::span<const std::byte> in(reinterpret_cast<const std::byte*>(data), size);
  auto reader = perfx::record::PerfDataReader::from_memory(in, "fuzz.data");
  if (!reader) {
    check(!reader.error().message().empty());
    return 0;
  }
  for (std::size_t i = 0; i < reader->attrs().size(); ++i) (void)reader->event_name(i);
  (void)reader->header_text();

  perfx::record::RawRecord raw;
  std::uint64_t plain = 0;
  std::uint64_t total = 0;
  while (reader->next(raw)) {
    check(raw.bytes.size() >= 8);
    check(raw.bytes.size() == raw.header.size);
    if (!raw.from_compressed) ++plain;
    check(plain <= size / 8 + 1);
    check(++total < (std::uint64_t{1} << 22));  // 4M records out of a small input: a hang
    if (raw.header.type == 9) {
      int attr_index = -1;
      if (auto s = reader->decode_sample(raw, &attr_index)) {
        std::uint64_t sum = 0;
        for (std::size_t k = 0; k < s->callchain.size(); ++k) sum += s->callchain[k];
        (void)sum;
        check(attr_index >= -1 && attr_index < static_cast<int>(reader->attrs().size()));
      }
    } else {
      (void)reader->decode(raw);
    }
  }
  if (reader->error()) check(!reader->error()->message().empty());
  (void)reader->stats();
  return 0;
}
