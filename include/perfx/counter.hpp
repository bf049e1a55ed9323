#pragma once
/// \file
/// Counting API: open a set of events (optionally grouped) on a target, enable, disable,
/// reset and read them, with multiplexing scaling and a trust state on every value.
///
///   perfx::CounterEvent ev{"task-clock", attr};           // attr: type/config filled
///   auto set = perfx::CounterSet::open({{{ev}}}, perfx::CountTarget::self());
///   set->enable(); work(); set->disable();
///   auto snap = set->read();
///   perfx::Count c = snap->total(0);                      // c.value, c.trust
///
/// Kernel behaviour 5 (spec Part B): group members are created enabled (disabled=0) and
/// only the leader is toggled, because members that are off when the leader is enabled
/// count nothing until the next context switch on current kernels.

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "perfx/error.hpp"
#include "perfx/export.hpp"
#include "perfx/raw.hpp"

namespace perfx {

class EventHandle;  // perfx/event_handle.hpp

/// How far a value can be trusted (perf stat's marks).
enum class Trust : std::uint8_t {
  kCounted,       ///< ran the whole time it was enabled: exact
  kScaled,        ///< multiplexed: value = raw * enabled / running, an estimate ("(xx.xx%)")
  kNotCounted,    ///< opened but never scheduled (running == 0): "<not counted>"
  kNotSupported,  ///< could not be opened on this machine (ENOENT/EOPNOTSUPP): "<not supported>"
  /// Opened and ran, but this machine never delivers the event (a hardware breakpoint
  /// under a hypervisor that drops debug traps): the value (0) says nothing about the
  /// program. CounterSnapshot::Event::note says why.
  kCannotFire,
};

/// "counted", "scaled", "not counted", "not supported", "cannot fire".
PERFX_API const char* trust_name(Trust trust) noexcept;

/// One raw reading of one event instance (one fd): what read(2) returned.
struct PERFX_API RawCount {
  std::uint64_t value = 0;         ///< the count
  std::uint64_t time_enabled = 0;  ///< ns the event was enabled
  std::uint64_t time_running = 0;  ///< ns it was on the PMU
  std::uint64_t lost = 0;          ///< PERF_FORMAT_LOST (0 when the kernel lacks it)

  RawCount& operator+=(const RawCount& o) noexcept;
};

/// `now - before` field by field (interval printing); a field that went backwards is 0.
PERFX_API RawCount operator-(const RawCount& now, const RawCount& before) noexcept;

/// A value ready to print: scaled, with its trust state and running percentage.
struct PERFX_API Count {
  double value = 0;                ///< scaled value (raw when not multiplexed)
  std::uint64_t raw = 0;           ///< sum of the raw counts
  std::uint64_t time_enabled = 0;  ///< sum over instances (ns)
  std::uint64_t time_running = 0;  ///< sum over instances (ns)
  std::uint64_t lost = 0;          ///< sum over instances
  double running_pct = 100.0;      ///< 100 * running / enabled (100 when not multiplexed)
  Trust trust = Trust::kNotCounted;
};

/// One sentence on what `c` means, for values that are not plainly counted: "never
/// enabled (time_enabled 0)", "enabled 1200 ns but never scheduled on the PMU
/// (time_running 0)", "multiplexed: ran 42.00% of the time, value scaled", ...; "counted"
/// for an exact value.
PERFX_API std::string explain_count(const Count& c);

/// Scaling of one instance: value x enabled / running when 0 < running < enabled;
/// kNotCounted when running or enabled is 0.
PERFX_API Count scale_count(const RawCount& c) noexcept;

/// Sum of instances (per-CPU or per-thread fds of one event): each is scaled, the scaled
/// values are summed; trust is kScaled if any instance was scaled, kNotCounted only when
/// no instance ran.
PERFX_API Count sum_counts(std::span<const RawCount> instances) noexcept;

/// One event to open: a display name and its attr (type, config, exclude_* ... filled;
/// disabled, inherit and enable_on_exec are set by CounterSet).
///
/// read_format: the caller's bits are kept (PERF_FORMAT_ID, PERF_FORMAT_LOST, and
/// PERF_FORMAT_GROUP on a lone event), and CounterSet adds what it needs:
/// TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING (scaling, "never ran"), ID (matching group
/// members) and GROUP for a grouped spec; LOST is added when read_format is 0 (the
/// default) and the kernel has it. The snapshot's attr shows what was opened.
struct PERFX_API CounterEvent {
  std::string name;
  raw::EventAttr attr{};
  /// When opening fails with EACCES/EPERM because kernel counting is not allowed
  /// (perf_event_paranoid >= 2) and the user gave no explicit :u/:k, retry with
  /// exclude_kernel=1 and exclude_hv=1 and append ":u" to the name, as perf does.
  bool allow_user_only_fallback = true;
  /// Count only tasks of this cgroup (a cgroup2 directory fd, borrowed; PERF_FLAG_PID_
  /// CGROUP), whatever the target's cgroup: perf stat's per-event `-G a,b` and
  /// --for-each-cgroup. -1: the target decides. Needs a CPU-wide target (system-wide or
  /// cgroup).
  int cgroup_fd = -1;
};

/// Events opened together; `grouped` makes events[0] the leader of a kernel group
/// (scheduled together, read in one read()). Ungrouped: each event stands alone.
struct PERFX_API CounterGroupSpec {
  std::vector<CounterEvent> events;
  bool grouped = false;
};

/// What to count.
struct PERFX_API CountTarget {
  enum class Kind : std::uint8_t {
    kThreads,     ///< `threads` (0 = the calling thread), on any CPU or on `cpus`
    kSystemWide,  ///< every task on `cpus` (pid = -1)
    kCgroup,      ///< tasks of the cgroup `cgroup_fd` on `cpus`
  };
  Kind kind = Kind::kThreads;
  std::vector<pid_t> threads{0};  ///< kThreads only
  std::vector<int> cpus;          ///< empty: any CPU (kThreads only; required otherwise)
  int cgroup_fd = -1;             ///< kCgroup: a cgroup2 directory fd, borrowed
  /// Count children/threads created after opening (sets attr.inherit, which CPU-wide
  /// counters carry without effect, as perf stat's; never on cgroup counters).
  bool inherit = true;
  /// Arm the leaders with enable_on_exec (the perf-stat workload pattern: open on a
  /// forked child that waits, then let it exec). The set starts disabled otherwise.
  bool enable_on_exec = false;
  /// How the tool's user asked for this target, for permission messages: "counting on
  /// CPU(s) 0 (-C)". Empty: derived from `kind` ("system-wide counting (-a)", ...).
  std::string description;

  /// The calling thread (and, with inherit, its future children).
  static CountTarget self();
  /// Specific threads/processes by id (each id is one fd per event).
  static CountTarget tasks(std::vector<pid_t> tids);
  /// A forked-but-not-exec'd workload: its pid, inherit, enable_on_exec.
  static CountTarget workload(pid_t pid);
  /// Every task on the given CPUs.
  static CountTarget system_wide(std::vector<int> cpus);
  /// The tasks of a cgroup on the given CPUs.
  static CountTarget cgroup(int cgroup_fd, std::vector<int> cpus);
};

/// A reading of every event of a CounterSet. Instances are laid out per CPU, then per
/// thread: instances[cpu_index * threads.size() + thread_index].
struct PERFX_API CounterSnapshot {
  struct Event {
    std::string name;  ///< display name (":u" appended after a fallback)
    /// The attr as opened (with the read_format, disabled, inherit and enable_on_exec
    /// CounterSet chose): what EventHandle::modify_attributes() must be given back.
    raw::EventAttr attr{};
    bool supported = true;  ///< false: open failed with ENOENT/EOPNOTSUPP/ENODEV
    std::string error;      ///< why it is not supported (explained message)
    /// The value cannot be trusted whatever it reads (hardware breakpoints that never
    /// fire here): totals are Trust::kCannotFire and `note` says why.
    bool cannot_fire = false;
    /// A pinned event the kernel could not schedule (error state: read(2) returned 0
    /// bytes) on at least one instance: those instances stay 0 and read as
    /// Trust::kNotCounted; the other events of the set are read normally.
    bool pinned_error = false;
    std::string note;  ///< why `cannot_fire` or `pinned_error`, empty otherwise
    std::vector<RawCount> instances;
    /// Kernel id (PERF_EVENT_IOC_ID) of each instance, same layout; 0 where not opened.
    std::vector<std::uint64_t> ids;
  };
  std::vector<int> cpus;       ///< CPU of each instance column (-1 = any CPU)
  std::vector<pid_t> threads;  ///< thread of each row (-1 = all tasks, 0 = self)
  std::vector<Event> events;   ///< in the order of the specs (flattened over groups)

  /// All instances of event `ev` summed (see sum_counts); kNotSupported when unsupported.
  [[nodiscard]] Count total(std::size_t ev) const;
  /// Event `ev` on CPU column `cpu_index` (summed over threads).
  [[nodiscard]] Count for_cpu(std::size_t ev, std::size_t cpu_index) const;
  /// Event `ev` on the CPU columns `cpu_indices` (summed over them and the threads).
  [[nodiscard]] Count for_cpus(std::size_t ev, std::span<const std::size_t> cpu_indices) const;
  /// Event `ev` for thread row `thread_index` (summed over CPUs).
  [[nodiscard]] Count for_thread(std::size_t ev, std::size_t thread_index) const;
};

/// Where a CPU sits in the machine (perf's aggr_cpu_id): its socket (physical package),
/// die, core (core_id, numbered within the die) and NUMA node; -1 where sysfs does not
/// say. Counts per socket/die/core/node (perf stat --per-socket...) group CPUs by these.
struct PERFX_API CpuPlace {
  int socket = -1;
  int die = -1;
  int core = -1;
  int node = -1;
  bool operator==(const CpuPlace&) const = default;
};

/// The place of each of `cpus` from `sysfs_root`/devices/system/cpu/cpuN/topology and
/// devices/system/node/nodeM/cpulist. A kernel without die ids gives die 0 (one die per
/// socket, as perf takes it); without NUMA every node is -1.
[[nodiscard]] PERFX_API std::vector<CpuPlace> cpu_places(std::span<const int> cpus,
                                                         const std::string& sysfs_root = "/sys");

/// `now - before` for every instance (same set, two reads): the interval's counts.
PERFX_API CounterSnapshot delta(const CounterSnapshot& now, const CounterSnapshot& before);

/// Open events on a target. Move-only; closing happens on destruction.
class PERFX_API CounterSet {
 public:
  /// Opens every event of every group on every (cpu, thread) of `target`. Events the
  /// machine cannot count (ENOENT/EOPNOTSUPP/ENODEV, and EINVAL where no attr field is
  /// at fault: perf stat's <not supported>) are kept as not supported and the rest go on.
  /// An EINVAL caused by a field the caller set wrong (a bad clockid, bp_len, a
  /// sample_period with bit 63, inherit with PERF_SAMPLE_READ, ...) is a
  /// kInvalidArgument error naming that field. Any other failure (EACCES, EMFILE,
  /// ESRCH...) is returned with an explained message naming the event, e.g. "opening
  /// event 'task-clock' (cpu 0): system-wide counting (-a) needs perf_event_paranoid <= 0
  /// (it is 2) or CAP_PERFMON; ...". Everything starts disabled (or armed for exec).
  /// Breakpoint events on a machine where breakpoints never fire are opened and marked
  /// `cannot_fire` (their totals are Trust::kCannotFire).
  static Result<CounterSet> open(std::span<const CounterGroupSpec> groups,
                                 const CountTarget& target);

  CounterSet(CounterSet&&) noexcept;
  CounterSet& operator=(CounterSet&&) noexcept;
  CounterSet(const CounterSet&) = delete;
  CounterSet& operator=(const CounterSet&) = delete;
  ~CounterSet();

  /// PERF_EVENT_IOC_ENABLE on every leader.
  Result<void> enable();
  /// PERF_EVENT_IOC_DISABLE on every leader.
  Result<void> disable();
  /// PERF_EVENT_IOC_RESET on every leader with PERF_IOC_FLAG_GROUP (the counts, not
  /// the times).
  Result<void> reset();
  /// Reads every group (one read per leader fd).
  [[nodiscard]] Result<CounterSnapshot> read() const;

  /// The fd of every instance of event `ev` (layout of CounterSnapshot::Event::instances),
  /// as handles carrying every ioctl; invalid handles where the event is not supported.
  /// Borrowed: valid while this set lives.
  [[nodiscard]] std::vector<EventHandle> handles(std::size_t ev) const;
  /// The group leaders' handles (one per group per instance), in open order: ENABLE,
  /// DISABLE and RESET with IocScope::kGroup act on whole groups through them.
  [[nodiscard]] std::vector<EventHandle> leaders() const;
  /// Kernel ids of every instance of event `ev` (0 where not opened).
  [[nodiscard]] std::vector<std::uint64_t> ids(std::size_t ev) const;

  /// Number of events (flattened over groups).
  [[nodiscard]] std::size_t size() const noexcept;
  /// Number of open file descriptors.
  [[nodiscard]] std::size_t fd_count() const noexcept;

 private:
  struct Impl;
  explicit CounterSet(std::unique_ptr<Impl> impl) noexcept;
  std::unique_ptr<Impl> impl_;
};

}  // namespace perfx
