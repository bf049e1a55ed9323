#pragma once
/// \file
/// perf.data feature sections (the `adds_features` bitmap of the file header,
/// or PERF_RECORD_HEADER_FEATURE records in pipe mode). `Features` is a plain
/// struct used both ways: the reader fills it from a file, the writer takes
/// one (values gathered from the system by `perfx record`) and writes every
/// field that is set.

#include <array>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "perfx/error.hpp"
#include "perfx/raw.hpp"

namespace perfx::record {

/// Feature bits (perf's HEADER_* in util/header.h).
enum class Feature : int {
  kTracingData = 1,
  kBuildId = 2,
  kHostname = 3,
  kOsRelease = 4,
  kVersion = 5,
  kArch = 6,
  kNrCpus = 7,
  kCpuDesc = 8,
  kCpuId = 9,
  kTotalMem = 10,
  kCmdline = 11,
  kEventDesc = 12,
  kCpuTopology = 13,
  kNumaTopology = 14,
  kBranchStack = 15,
  kPmuMappings = 16,
  kGroupDesc = 17,
  kAuxtrace = 18,
  kStat = 19,
  kCache = 20,
  kSampleTime = 21,
  kMemTopology = 22,
  kClockId = 23,
  kDirFormat = 24,
  kBpfProgInfo = 25,
  kBpfBtf = 26,
  kCompressed = 27,
  kCpuPmuCaps = 28,
  kClockData = 29,
  kHybridTopology = 30,
  kPmuCaps = 31,
};
inline constexpr int kFeatureBits = 256;

/// perf's name of a feature ("hostname", "build_id", ...), "unknown" otherwise.
[[nodiscard]] std::string_view feature_name(int bit) noexcept;

struct BuildIdEntry {                  ///< one entry of HEADER_BUILD_ID
  std::int32_t pid = -1;               ///< -1 for the host (HOST_KERNEL_ID), as perf writes
  std::uint16_t misc = 0;              ///< cpumode (PERF_RECORD_MISC_KERNEL / USER ...)
  std::vector<std::uint8_t> build_id;  ///< 1..20 bytes
  std::string filename;  ///< "/usr/lib/x86_64-linux-gnu/libc.so.6", "[kernel.kallsyms]"
};
struct NrCpus {
  std::uint32_t available = 0;  ///< nr_cpus_avail
  std::uint32_t online = 0;     ///< nr_cpus_online
};
struct CpuTopology {
  std::vector<std::string> core_siblings;    ///< "0-1" per package
  std::vector<std::string> thread_siblings;  ///< "0", "1" per core
  struct Cpu {
    std::uint32_t core_id = 0;
    std::uint32_t socket_id = 0;
    std::uint32_t die_id = 0;
  };
  std::vector<Cpu> cpus;  ///< one per available cpu (may be empty in old files)
  std::vector<std::string> die_siblings;
  bool has_dies = false;
};
struct NumaNode {
  std::uint32_t node = 0;
  std::uint64_t mem_total_kb = 0;
  std::uint64_t mem_free_kb = 0;
  std::string cpus;  ///< "0-1"
};
struct PmuMapping {
  std::uint32_t type = 0;
  std::string name;
};
struct GroupDesc {
  std::string name;  ///< "{cpu-clock,task-clock}" or the group name
  std::uint32_t leader_idx = 0;
  std::uint32_t nr_members = 0;
};
struct CacheLevel {
  std::uint32_t level = 0, line_size = 0, sets = 0, ways = 0;
  std::string type, size, map;
};
struct SampleTime {
  std::uint64_t first_ns = 0, last_ns = 0;
};
struct ClockData {
  std::uint32_t version = 1;
  std::uint32_t clockid = 0;
  std::uint64_t wall_clock_ns = 0;    ///< CLOCK_REALTIME at the reference point
  std::uint64_t clockid_time_ns = 0;  ///< the recording clock at the same point
};
struct CompressedInfo {  ///< HEADER_COMPRESSED
  std::uint32_t version = 0;
  std::uint32_t type = 1;  ///< 1 = PERF_COMP_ZSTD
  std::uint32_t level = 1;
  std::uint32_t ratio = 0;
  std::uint32_t mmap_len = 0;  ///< perf's decompression buffer size; >= any decompressed chunk
};
struct PmuCaps {
  std::string pmu;  ///< "cpu" (CPU_PMU_CAPS) or the PMU name (PMU_CAPS)
  std::vector<std::pair<std::string, std::string>> caps;
};
struct HybridNode {
  std::string pmu_name;
  std::string cpus;
};
struct EventDesc {  ///< one event of HEADER_EVENT_DESC
  raw::EventAttr attr{};
  std::string name;
  std::vector<std::uint64_t> ids;
};

/// Every feature perf's reader knows, decoded where `perf report --header` shows
/// it. `raw` holds the section bytes of every present feature (reader side), and
/// lets the writer emit a section verbatim (a raw entry wins over the typed field).
struct Features {
  std::bitset<kFeatureBits> present;  ///< reader: bits present in the file

  std::vector<std::byte> tracing_data;  ///< HEADER_TRACING_DATA (opaque)
  std::vector<BuildIdEntry> build_ids;
  std::optional<std::string> hostname, osrelease, version, arch, cpudesc, cpuid;
  std::optional<NrCpus> nrcpus;
  std::optional<std::uint64_t> total_mem_kb;
  std::optional<std::vector<std::string>> cmdline;  ///< argv[0] is the perf/perfx binary
  std::vector<EventDesc> event_desc;
  std::optional<CpuTopology> cpu_topology;
  std::vector<NumaNode> numa_topology;
  bool branch_stack = false;
  std::vector<PmuMapping> pmu_mappings;
  std::vector<GroupDesc> group_desc;
  std::vector<CacheLevel> cache;
  std::optional<SampleTime> sample_time;
  std::optional<std::uint64_t> clockid_res_ns;
  std::optional<std::uint64_t> dir_format_version;
  std::optional<CompressedInfo> compressed;
  std::optional<PmuCaps> cpu_pmu_caps;
  std::optional<ClockData> clock_data;
  std::vector<HybridNode> hybrid_topology;
  std::vector<PmuCaps> pmu_caps;

  std::map<int, std::vector<std::byte>> raw;  ///< feature bit -> section bytes

  [[nodiscard]] bool has(Feature f) const noexcept {
    return present.test(static_cast<std::size_t>(f));
  }
};

/// Decodes one feature section into `out` (sets the typed field and out.raw[bit]).
/// Unknown/undecoded bits are kept raw only. Errors: kMalformedData naming the
/// feature and the offset `section_offset` (for messages) of the bad field.
[[nodiscard]] Result<void> decode_feature(int bit, std::span<const std::byte> section, bool swap,
                                          std::uint64_t section_offset, Features& out);

/// Encodes one feature section from `in` (native byte order); nullopt when `in`
/// has nothing for that bit. `attrs` are used for EVENT_DESC when in.event_desc is empty.
[[nodiscard]] std::optional<std::vector<std::byte>> encode_feature(int bit, const Features& in);

/// Context for the header dump that is not in the feature sections.
struct HeaderDumpInfo {
  std::string captured_on;           ///< "Sun Nov 22 21:54:26 2026" (file mtime), empty = omit
  std::uint64_t header_version = 1;  ///< 1 for PERFILE2
  std::uint64_t data_offset = 0, data_size = 0;
  std::uint64_t feat_offset = 0;
  bool pipe = false;
};
struct AttrEntry;  // sample_layout.hpp

/// perf_event_attr__fprintf (tools/perf/util/perf_event_attr_fprintf.c): every non-zero
/// field of `attr` in declaration order, each as ", <name><assign><value>" (the header's
/// "# event" lines use " = ", perf evlist -v ": ").
[[nodiscard]] std::string attr_fields(const raw::EventAttr& attr, std::string_view assign);

/// The text `perf report --header-only` prints for these features and attrs
/// ("# ========\n# captured on    : ...\n# hostname : ...\n..."), same layout as
/// perf 6.1 for the features present.
[[nodiscard]] std::string format_header(const Features& features, std::span<const AttrEntry> attrs,
                                        const HeaderDumpInfo& info);

}  // namespace perfx::record
