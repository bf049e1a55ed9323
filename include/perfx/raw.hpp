#pragma once
/// \file
/// The raw escape hatch: the kernel ABI exactly as the kernel spells it.
/// Everything in <linux/perf_event.h> is available through this header, plus
/// the fields newer kernels have that Debian 12's uapi headers lack.

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>

namespace perfx::raw {

/// `struct perf_event_attr` as kernels >= 6.3 know it: the installed uapi
/// struct (128 bytes, PERF_ATTR_SIZE_VER7) followed by `config3`.
/// Kernel behaviour 1 (spec Part B): the running kernel's struct is 136 bytes;
/// we send the size we fill and handle E2BIG by reading back `size`.
/// Value-initialise (`EventAttr a{};`): kernel behaviour 2 says the u32 at
/// offset 116 (`__reserved_3`, `aux_action` on newer kernels) must be zero.
struct EventAttr : ::perf_event_attr {
  __u64 config3 = 0;  ///< extension of config2 (since 6.3)
};

inline constexpr std::uint32_t kAttrSizeVer7 = PERF_ATTR_SIZE_VER7;  ///< 128: uapi here
inline constexpr std::uint32_t kAttrSizeVer8 = 136;                  ///< adds config3

static_assert(sizeof(::perf_event_attr) == kAttrSizeVer7);
static_assert(sizeof(EventAttr) == kAttrSizeVer8);

/// perf.data user record types (perf's own, >= PERF_RECORD_USER_TYPE_START).
enum UserRecordType : std::uint32_t {
  PERF_RECORD_HEADER_ATTR = 64,
  PERF_RECORD_HEADER_EVENT_TYPE = 65,
  PERF_RECORD_HEADER_TRACING_DATA = 66,
  PERF_RECORD_HEADER_BUILD_ID = 67,
  PERF_RECORD_FINISHED_ROUND = 68,
  PERF_RECORD_ID_INDEX = 69,
  PERF_RECORD_AUXTRACE_INFO = 70,
  PERF_RECORD_AUXTRACE = 71,
  PERF_RECORD_AUXTRACE_ERROR = 72,
  PERF_RECORD_THREAD_MAP = 73,
  PERF_RECORD_CPU_MAP = 74,
  PERF_RECORD_STAT_CONFIG = 75,
  PERF_RECORD_STAT = 76,
  PERF_RECORD_STAT_ROUND = 77,
  PERF_RECORD_EVENT_UPDATE = 78,
  PERF_RECORD_TIME_CONV = 79,
  PERF_RECORD_HEADER_FEATURE = 80,
  PERF_RECORD_COMPRESSED = 81,
  PERF_RECORD_FINISHED_INIT = 82,
};

}  // namespace perfx::raw
