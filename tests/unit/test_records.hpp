#pragma once
// Attrs that unit tests write into synthesized perf.data files.

#include <linux/perf_event.h>

#include <cstdint>

#include "perfx/raw.hpp"

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

}  // namespace perfx::test_support
