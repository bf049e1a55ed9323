#pragma once
// Attrs and records that unit tests write into synthesized perf.data files.

#include <linux/perf_event.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "perfx/raw.hpp"
#include "perfx/records.hpp"

namespace perfx::test_support {

/// cpu-clock as `perf record` opens it (a v7 attr, every 1000 ns, sample_id_all) sampling
/// `sample_type`; tests add the side-band records they write.
inline raw::EventAttr cpu_clock_attr(std::uint64_t sample_type) {
  raw::EventAttr a{};
  a.size = raw::kAttrSizeVer7;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_CPU_CLOCK;
  a.sample_period = 1000;
  a.sample_type = sample_type;
  a.sample_id_all = 1;
  return a;
}

// Designated initializers name the fields they set; GCC 12 still warns about the ones left
// at their defaults (-Wmissing-field-initializers), which is what they are for.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

/// An MMAP2 of `len` bytes of `file` at `addr` by thread `pid`/`tid` (no inode data;
/// a view: `file` must outlive the record).
inline record::Mmap2 mmap2_of(std::uint32_t pid, std::uint32_t tid, std::uint64_t addr,
                              std::uint64_t len, std::string_view file) {
  return {.pid = pid, .tid = tid, .addr = addr, .len = len, .filename = file};
}

#pragma GCC diagnostic pop

/// A private read+exec MMAP2 (a program's or library's text) of `len` bytes of `file` from
/// offset `pgoff` at `addr`, by thread `pid`/`tid` (a view: `file` must outlive it).
inline record::Mmap2 text_mmap2(std::uint32_t pid, std::uint32_t tid, std::uint64_t addr,
                                std::uint64_t len, std::uint64_t pgoff, std::string_view file) {
  record::Mmap2 m = mmap2_of(pid, tid, addr, len, file);
  m.pgoff = pgoff;
  m.prot = 5;   // PROT_READ | PROT_EXEC
  m.flags = 2;  // MAP_PRIVATE
  return m;
}

/// A SAMPLE record of the attr `identifier` at `ip` and `time` whose callchain is `chain`
/// (a view: `chain` must outlive the record).
inline record::Record chain_sample(std::uint64_t identifier, std::uint64_t ip, std::uint64_t time,
                                   const std::vector<std::uint64_t>& chain) {
  record::Sample s;
  s.identifier = identifier;
  s.ip = ip;
  s.time = time;
  s.callchain = record::U64Array::of(chain);
  record::Record r;
  r.body = s;
  return r;
}

}  // namespace perfx::test_support
