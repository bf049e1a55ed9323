#pragma once
/// \file
/// The raw escape hatch: the kernel ABI exactly as the kernel spells it.
///
/// perfx carries its own copy of the parts of the ABI that its public API uses
/// (`perf_event_attr` with every field up to `config3`, the record types, the
/// `sample_type`, `read_format` and `branch_sample_type` bits), written from the
/// kernel's uapi header of Linux 6.19 and the perf_event_open(2) man page. So the
/// API is the same whatever `<linux/perf_event.h>` the build machine has: an older
/// header (Debian 12's is Linux 6.1) lacks `config3`, `aux_action` and the newest
/// record types; a newer one must not change `EventAttr`'s layout under a user.
///
/// `<linux/perf_event.h>` is still included for existing code that uses its macros
/// and enumerators (`PERF_TYPE_*`, `PERF_COUNT_*`, `PERF_EVENT_IOC_*`, ...); perfx's
/// own definitions live in `perfx::raw` and never depend on it. Use them qualified
/// (`raw::PERF_SAMPLE_IP`): a `using namespace perfx::raw` makes the names that
/// both define ambiguous.

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>

namespace perfx::raw {

/// `struct perf_event_attr` as the kernel knows it since Linux 6.3 (136 bytes,
/// `config3`), with the `aux_action` bits of 6.13 and the deferred-callchain bits
/// of 6.19. Field names, order and bit positions are the kernel's.
///
/// Every field starts at zero (`EventAttr a;` is all-zero bytes). Kernel behaviour 1
/// (spec Part B): perfx sends the size it fills and handles E2BIG by reading back
/// `size`. A kernel older than a field rejects a non-zero value in it (E2BIG or EINVAL).
struct EventAttr {
  std::uint32_t type = 0;    ///< PERF_TYPE_* or a dynamic PMU type from sysfs
  std::uint32_t size = 0;    ///< sizeof the struct as sent; 0 lets perfx fill it
  std::uint64_t config = 0;  ///< type-specific event selector
  union {
    std::uint64_t sample_period = 0;  ///< sample every N events (freq == 0)
    std::uint64_t sample_freq;        ///< samples per second (freq == 1)
  };
  std::uint64_t sample_type = 0;  ///< PERF_SAMPLE_* bits: what a SAMPLE record holds
  std::uint64_t read_format = 0;  ///< PERF_FORMAT_* bits: what read(2) returns

  std::uint64_t disabled : 1 = 0;                  ///< off by default
  std::uint64_t inherit : 1 = 0;                   ///< children inherit it
  std::uint64_t pinned : 1 = 0;                    ///< must always be on the PMU
  std::uint64_t exclusive : 1 = 0;                 ///< only group on the PMU
  std::uint64_t exclude_user : 1 = 0;              ///< don't count user
  std::uint64_t exclude_kernel : 1 = 0;            ///< don't count kernel
  std::uint64_t exclude_hv : 1 = 0;                ///< don't count hypervisor
  std::uint64_t exclude_idle : 1 = 0;              ///< don't count when idle
  std::uint64_t mmap : 1 = 0;                      ///< MMAP records for executable maps
  std::uint64_t comm : 1 = 0;                      ///< COMM records
  std::uint64_t freq : 1 = 0;                      ///< use sample_freq, not sample_period
  std::uint64_t inherit_stat : 1 = 0;              ///< per-task counts
  std::uint64_t enable_on_exec : 1 = 0;            ///< next exec enables
  std::uint64_t task : 1 = 0;                      ///< FORK/EXIT records
  std::uint64_t watermark : 1 = 0;                 ///< wakeup_watermark, not wakeup_events
  std::uint64_t precise_ip : 2 = 0;                ///< skid constraint (0..3)
  std::uint64_t mmap_data : 1 = 0;                 ///< MMAP records for data maps
  std::uint64_t sample_id_all : 1 = 0;             ///< sample_id trailer on every record
  std::uint64_t exclude_host : 1 = 0;              ///< don't count in the host
  std::uint64_t exclude_guest : 1 = 0;             ///< don't count in guests
  std::uint64_t exclude_callchain_kernel : 1 = 0;  ///< no kernel callchains
  std::uint64_t exclude_callchain_user : 1 = 0;    ///< no user callchains
  std::uint64_t mmap2 : 1 = 0;                     ///< MMAP2 records (inode data)
  std::uint64_t comm_exec : 1 = 0;                 ///< flag COMM records due to exec
  std::uint64_t use_clockid : 1 = 0;               ///< time fields use `clockid`
  std::uint64_t context_switch : 1 = 0;            ///< SWITCH records
  std::uint64_t write_backward : 1 = 0;            ///< ring buffer written end to start
  std::uint64_t namespaces : 1 = 0;                ///< NAMESPACES records
  std::uint64_t ksymbol : 1 = 0;                   ///< KSYMBOL records
  std::uint64_t bpf_event : 1 = 0;                 ///< BPF_EVENT records
  std::uint64_t aux_output : 1 = 0;                ///< AUX records instead of events
  std::uint64_t cgroup : 1 = 0;                    ///< CGROUP records
  std::uint64_t text_poke : 1 = 0;                 ///< TEXT_POKE records
  std::uint64_t build_id : 1 = 0;                  ///< build-id in MMAP2 records
  std::uint64_t inherit_thread : 1 = 0;            ///< inherit only to CLONE_THREAD children
  std::uint64_t remove_on_exec : 1 = 0;            ///< removed from the task on exec
  std::uint64_t sigtrap : 1 = 0;                   ///< synchronous SIGTRAP on overflow
  std::uint64_t defer_callchain : 1 = 0;           ///< user callchains deferred (6.19)
  std::uint64_t defer_output : 1 = 0;              ///< CALLCHAIN_DEFERRED records (6.19)
  std::uint64_t __reserved_1 : 24 = 0;             ///< must be zero

  union {
    std::uint32_t wakeup_events = 0;  ///< wake up every N events (watermark == 0)
    std::uint32_t wakeup_watermark;   ///< bytes before wakeup (watermark == 1)
  };
  std::uint32_t bp_type = 0;  ///< HW_BREAKPOINT_* access type
  union {
    std::uint64_t bp_addr = 0;  ///< breakpoint address
    std::uint64_t kprobe_func;  ///< perf_kprobe: function name (a char*)
    std::uint64_t uprobe_path;  ///< perf_uprobe: file path (a char*)
    std::uint64_t config1;      ///< extension of config
  };
  union {
    std::uint64_t bp_len = 0;    ///< breakpoint length
    std::uint64_t kprobe_addr;   ///< perf_kprobe with kprobe_func == 0
    std::uint64_t probe_offset;  ///< perf_[ku]probe offset
    std::uint64_t config2;       ///< extension of config1
  };
  std::uint64_t branch_sample_type = 0;  ///< PERF_SAMPLE_BRANCH_* bits
  std::uint64_t sample_regs_user = 0;    ///< user registers dumped in samples
  std::uint32_t sample_stack_user = 0;   ///< bytes of user stack dumped in samples
  std::int32_t clockid = 0;              ///< clock for time fields (use_clockid)
  std::uint64_t sample_regs_intr = 0;    ///< interrupted registers dumped in samples
  std::uint32_t aux_watermark = 0;       ///< AUX bytes before wakeup
  std::uint16_t sample_max_stack = 0;    ///< max frames in a callchain
  std::uint16_t __reserved_2 = 0;        ///< must be zero
  std::uint32_t aux_sample_size = 0;     ///< max AUX bytes in a sample
// The aux_action bits are an anonymous struct in a union, as in the kernel's header.
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wgnu-anonymous-struct"
#pragma clang diagnostic ignored "-Wnested-anon-types"
#elif defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
  union {
    std::uint32_t aux_action = 0;  ///< the three bits below as one word (6.13)
    struct {
      std::uint32_t aux_start_paused : 1;  ///< start AUX area tracing paused
      std::uint32_t aux_pause : 1;         ///< on overflow, pause AUX area tracing
      std::uint32_t aux_resume : 1;        ///< on overflow, resume AUX area tracing
      std::uint32_t __reserved_3 : 29;     ///< must be zero
    };
  };
#if defined(__clang__)
#pragma clang diagnostic pop
#elif defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
  std::uint64_t sig_data = 0;  ///< user data for sigtrap (siginfo si_perf_data)
  std::uint64_t config3 = 0;   ///< extension of config2 (6.3)
};

/// `perf_event_attr` sizes: each kernel accepts the sizes up to its own.
inline constexpr std::uint32_t kAttrSizeVer0 = 64;   ///< first published struct
inline constexpr std::uint32_t kAttrSizeVer1 = 72;   ///< adds config2
inline constexpr std::uint32_t kAttrSizeVer2 = 80;   ///< adds branch_sample_type
inline constexpr std::uint32_t kAttrSizeVer3 = 96;   ///< adds sample_regs_user, stack_user
inline constexpr std::uint32_t kAttrSizeVer4 = 104;  ///< adds sample_regs_intr
inline constexpr std::uint32_t kAttrSizeVer5 = 112;  ///< adds aux_watermark
inline constexpr std::uint32_t kAttrSizeVer6 = 120;  ///< adds aux_sample_size
inline constexpr std::uint32_t kAttrSizeVer7 = 128;  ///< adds sig_data
inline constexpr std::uint32_t kAttrSizeVer8 = 136;  ///< adds config3

static_assert(sizeof(EventAttr) == kAttrSizeVer8);
static_assert(offsetof(EventAttr, config1) == kAttrSizeVer0 - 8);
static_assert(offsetof(EventAttr, config2) == kAttrSizeVer1 - 8);
static_assert(offsetof(EventAttr, branch_sample_type) == kAttrSizeVer2 - 8);
static_assert(offsetof(EventAttr, sample_regs_intr) == kAttrSizeVer4 - 8);
static_assert(offsetof(EventAttr, aux_sample_size) == kAttrSizeVer6 - 8);
static_assert(offsetof(EventAttr, aux_action) == kAttrSizeVer6 - 4);
static_assert(offsetof(EventAttr, sig_data) == kAttrSizeVer7 - 8);
static_assert(offsetof(EventAttr, config3) == kAttrSizeVer8 - 8);

/// Kernel record types (`perf_event_header::type`, enum perf_event_type).
enum RecordType : std::uint32_t {
  PERF_RECORD_MMAP = 1,
  PERF_RECORD_LOST = 2,
  PERF_RECORD_COMM = 3,
  PERF_RECORD_EXIT = 4,
  PERF_RECORD_THROTTLE = 5,
  PERF_RECORD_UNTHROTTLE = 6,
  PERF_RECORD_FORK = 7,
  PERF_RECORD_READ = 8,
  PERF_RECORD_SAMPLE = 9,
  PERF_RECORD_MMAP2 = 10,
  PERF_RECORD_AUX = 11,
  PERF_RECORD_ITRACE_START = 12,
  PERF_RECORD_LOST_SAMPLES = 13,
  PERF_RECORD_SWITCH = 14,
  PERF_RECORD_SWITCH_CPU_WIDE = 15,
  PERF_RECORD_NAMESPACES = 16,
  PERF_RECORD_KSYMBOL = 17,
  PERF_RECORD_BPF_EVENT = 18,
  PERF_RECORD_CGROUP = 19,
  PERF_RECORD_TEXT_POKE = 20,
  PERF_RECORD_AUX_OUTPUT_HW_ID = 21,    ///< since Linux 5.16
  PERF_RECORD_CALLCHAIN_DEFERRED = 22,  ///< since Linux 6.19
};

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

/// `sample_type` bits (enum perf_event_sample_format).
inline constexpr std::uint64_t PERF_SAMPLE_IP = 1ULL << 0;
inline constexpr std::uint64_t PERF_SAMPLE_TID = 1ULL << 1;              ///< pid, tid
inline constexpr std::uint64_t PERF_SAMPLE_TIME = 1ULL << 2;             ///< timestamp
inline constexpr std::uint64_t PERF_SAMPLE_ADDR = 1ULL << 3;             ///< data address
inline constexpr std::uint64_t PERF_SAMPLE_READ = 1ULL << 4;             ///< counter values
inline constexpr std::uint64_t PERF_SAMPLE_CALLCHAIN = 1ULL << 5;        ///< call chain
inline constexpr std::uint64_t PERF_SAMPLE_ID = 1ULL << 6;               ///< event id
inline constexpr std::uint64_t PERF_SAMPLE_CPU = 1ULL << 7;              ///< cpu, reserved
inline constexpr std::uint64_t PERF_SAMPLE_PERIOD = 1ULL << 8;           ///< sample period
inline constexpr std::uint64_t PERF_SAMPLE_STREAM_ID = 1ULL << 9;        ///< leader's id
inline constexpr std::uint64_t PERF_SAMPLE_RAW = 1ULL << 10;             ///< tracepoint data
inline constexpr std::uint64_t PERF_SAMPLE_BRANCH_STACK = 1ULL << 11;    ///< LBR entries
inline constexpr std::uint64_t PERF_SAMPLE_REGS_USER = 1ULL << 12;       ///< user registers
inline constexpr std::uint64_t PERF_SAMPLE_STACK_USER = 1ULL << 13;      ///< user stack bytes
inline constexpr std::uint64_t PERF_SAMPLE_WEIGHT = 1ULL << 14;          ///< cost (u64)
inline constexpr std::uint64_t PERF_SAMPLE_DATA_SRC = 1ULL << 15;        ///< memory source
inline constexpr std::uint64_t PERF_SAMPLE_IDENTIFIER = 1ULL << 16;      ///< id, first
inline constexpr std::uint64_t PERF_SAMPLE_TRANSACTION = 1ULL << 17;     ///< TSX abort info
inline constexpr std::uint64_t PERF_SAMPLE_REGS_INTR = 1ULL << 18;       ///< interrupted regs
inline constexpr std::uint64_t PERF_SAMPLE_PHYS_ADDR = 1ULL << 19;       ///< physical address
inline constexpr std::uint64_t PERF_SAMPLE_AUX = 1ULL << 20;             ///< AUX snapshot
inline constexpr std::uint64_t PERF_SAMPLE_CGROUP = 1ULL << 21;          ///< cgroup id
inline constexpr std::uint64_t PERF_SAMPLE_DATA_PAGE_SIZE = 1ULL << 22;  ///< since 5.11
inline constexpr std::uint64_t PERF_SAMPLE_CODE_PAGE_SIZE = 1ULL << 23;  ///< since 5.11
inline constexpr std::uint64_t PERF_SAMPLE_WEIGHT_STRUCT = 1ULL << 24;   ///< since 5.12
/// Every sample_type bit this header knows (the kernel rejects others with EINVAL).
inline constexpr std::uint64_t kSampleKnownMask = (1ULL << 25) - 1;

/// `read_format` bits (enum perf_event_read_format).
inline constexpr std::uint64_t PERF_FORMAT_TOTAL_TIME_ENABLED = 1ULL << 0;
inline constexpr std::uint64_t PERF_FORMAT_TOTAL_TIME_RUNNING = 1ULL << 1;
inline constexpr std::uint64_t PERF_FORMAT_ID = 1ULL << 2;
inline constexpr std::uint64_t PERF_FORMAT_GROUP = 1ULL << 3;
inline constexpr std::uint64_t PERF_FORMAT_LOST = 1ULL << 4;  ///< since Linux 6.0
/// Every read_format bit this header knows.
inline constexpr std::uint64_t kReadFormatKnownMask = (1ULL << 5) - 1;

/// `branch_sample_type` bits (enum perf_branch_sample_type).
inline constexpr std::uint64_t PERF_SAMPLE_BRANCH_USER = 1ULL << 0;
inline constexpr std::uint64_t PERF_SAMPLE_BRANCH_KERNEL = 1ULL << 1;
inline constexpr std::uint64_t PERF_SAMPLE_BRANCH_HV = 1ULL << 2;
inline constexpr std::uint64_t PERF_SAMPLE_BRANCH_ANY = 1ULL << 3;
inline constexpr std::uint64_t PERF_SAMPLE_BRANCH_ANY_CALL = 1ULL << 4;
inline constexpr std::uint64_t PERF_SAMPLE_BRANCH_ANY_RETURN = 1ULL << 5;
inline constexpr std::uint64_t PERF_SAMPLE_BRANCH_IND_CALL = 1ULL << 6;
inline constexpr std::uint64_t PERF_SAMPLE_BRANCH_ABORT_TX = 1ULL << 7;
inline constexpr std::uint64_t PERF_SAMPLE_BRANCH_IN_TX = 1ULL << 8;
inline constexpr std::uint64_t PERF_SAMPLE_BRANCH_NO_TX = 1ULL << 9;
inline constexpr std::uint64_t PERF_SAMPLE_BRANCH_COND = 1ULL << 10;
inline constexpr std::uint64_t PERF_SAMPLE_BRANCH_CALL_STACK = 1ULL << 11;
inline constexpr std::uint64_t PERF_SAMPLE_BRANCH_IND_JUMP = 1ULL << 12;
inline constexpr std::uint64_t PERF_SAMPLE_BRANCH_CALL = 1ULL << 13;
inline constexpr std::uint64_t PERF_SAMPLE_BRANCH_NO_FLAGS = 1ULL << 14;
inline constexpr std::uint64_t PERF_SAMPLE_BRANCH_NO_CYCLES = 1ULL << 15;
inline constexpr std::uint64_t PERF_SAMPLE_BRANCH_TYPE_SAVE = 1ULL << 16;
inline constexpr std::uint64_t PERF_SAMPLE_BRANCH_HW_INDEX = 1ULL << 17;
inline constexpr std::uint64_t PERF_SAMPLE_BRANCH_PRIV_SAVE = 1ULL << 18;  ///< since 6.1
inline constexpr std::uint64_t PERF_SAMPLE_BRANCH_COUNTERS = 1ULL << 19;   ///< since 6.8

}  // namespace perfx::raw
