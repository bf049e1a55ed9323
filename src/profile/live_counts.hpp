#pragma once
/// \file
/// The model behind `perfx top`: symbolized sample counts kept up to date from the
/// records a live sampling session drains, as perf top keeps its histogram.
///
/// Records of one drain round come per CPU buffer; flush() applies them in time order:
/// side-band records update the process model (symbol::Machine, as a replay does), each
/// sample adds its period to the entry of its ip under the sort keys (perf top's --sort,
/// default dso,sym). Samples in the kernel's idle functions are not counted (perf's
/// symbol__is_idle()). refresh() is perf top's display step: what was shown before
/// decays by 7/8 (hists__decay_entries(); -z: is dropped), the samples since are added,
/// user or kernel entries are dropped when asked (-U/-K), and the entries come back by
/// period, highest first.
///
/// With callchains (set_callchains(), `perfx top -g`) samples are kept per (stack,
/// thread) instead, decayed the same way, and refresh_profile() gives them as a Profile
/// for the report's children and call-graph text.

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "perfx/error.hpp"
#include "profile/location_frames.hpp"
#include "profile/profile.hpp"
#include "profile/replay.hpp"
#include "record/sample_layout.hpp"
#include "symbol/machine.hpp"

namespace perfx::profile {

/// perf top's sort keys that perfx top takes.
enum class LiveKey : std::uint8_t { kComm, kPid, kDso, kSym };

/// The key's --sort name ("comm", "pid", "dso", "sym"): perf report's name of it too.
[[nodiscard]] std::string_view live_key_name(LiveKey key) noexcept;

/// Parses a --sort list ("dso,sym", "comm,dso,sym"); kInvalidArgument naming an unknown
/// key.
[[nodiscard]] Result<std::vector<LiveKey>> parse_live_keys(std::string_view list);

/// One entry as shown.
struct LiveRow {
  std::string comm;      ///< the thread's comm (kComm, kPid keys)
  std::int32_t tid = 0;  ///< kPid: perf's per-thread "pid" key
  std::string dso;       ///< short name; "[kernel]" for the kernel, as perf top
  std::string symbol;    ///< "[k] name", "[.] name", "[.] 0x<map address>" (unresolved)
  bool kernel = false;
  bool resolved = true;  ///< the ip has a symbol
  std::uint64_t period = 0;
  std::uint64_t samples = 0;
};

/// What came in since the previous take_interval() (the header line's figures).
struct LiveInterval {
  std::uint64_t samples = 0;
  std::uint64_t kernel_samples = 0;
  std::uint64_t exact_samples = 0;  ///< PERF_RECORD_MISC_EXACT_IP
  std::uint64_t lost = 0;           ///< PERF_RECORD_LOST counts
};

class LiveCounts {
 public:
  LiveCounts(record::AttrTable attrs, std::vector<LiveKey> keys, symbol::SearchPaths paths = {});

  /// perf top's -U / -K: samples of user (kernel) code are not counted, and refresh()
  /// drops the entries of that kind.
  void hide(bool user, bool kernel) noexcept {
    hide_user_ = user;
    hide_kernel_ = kernel;
  }
  /// Samples are counted with their callchains, for refresh_profile() (not refresh()).
  void set_callchains(bool on) noexcept { callchains_ = on; }
  /// Queues one whole record (header included).
  void add(std::span<const std::byte> record);
  /// Applies the queued records in time order (records without a time first).
  void flush();
  /// Each entry's period becomes 7/8 of what it was at the last refresh (0 with `zero`)
  /// plus the periods of the samples since; entries at 0 and hidden ones (hide()) are
  /// dropped; the rest come back by period, highest first (equal ones by their keys).
  [[nodiscard]] std::vector<LiveRow> refresh(bool zero);
  /// With callchains: refresh()'s decay for each (stack, thread), then a Profile of the
  /// stacks left, one sample per (stack, thread) with its decayed period, all of one event
  /// named `event` (with callchains; no CPU field).
  [[nodiscard]] Profile refresh_profile(bool zero, const std::string& event);
  /// The interval's figures; starts the next interval.
  LiveInterval take_interval();
  [[nodiscard]] std::uint64_t lost_total() const noexcept { return lost_total_; }
  [[nodiscard]] const std::vector<LiveKey>& keys() const noexcept { return keys_; }

 private:
  // The entry's key: one value per sort key, in order (comm id, tid, DSO, symbol).
  using Key = std::array<std::uint64_t, 4>;
  struct KeyHash {
    std::size_t operator()(const Key& k) const noexcept;
  };
  // perf top's counts of an entry: what was shown, decayed at each refresh, and the
  // samples since.
  struct Decaying {
    std::uint64_t period = 0;  // as last shown
    std::uint64_t samples = 0;
    std::uint64_t fresh_period = 0;  // since then
    std::uint64_t fresh_samples = 0;
    void add(std::uint64_t p) noexcept {
      fresh_period += p;
      ++fresh_samples;
    }
    // What was shown decays to 7/8 (-z: is dropped), the new samples join it; false when
    // nothing is left.
    bool refresh(bool zero) noexcept {
      period = (zero ? 0 : period * 7 / 8) + fresh_period;
      samples = (zero ? 0 : samples * 7 / 8) + fresh_samples;
      fresh_period = 0;
      fresh_samples = 0;
      return period != 0;
    }
  };
  struct Entry : Decaying {
    LiveRow row;
  };
  // Samples of one (stack, thread) with callchains.
  struct Chain : Decaying {
    std::uint32_t stack = 0;   // into stacks_
    std::uint32_t thread = 0;  // into threads_
    bool kernel = false;       // the leaf is kernel code
  };
  void apply(std::span<const std::byte> bytes);
  void count_chain(const record::Sample& s, const symbol::ThreadState& t, bool kernel);
  void count(const record::Sample& s, std::uint16_t misc, const symbol::ThreadState& t);

  record::AttrTable attrs_;
  std::vector<LiveKey> keys_;
  symbol::Machine machine_;
  LocationTable table_;
  std::vector<std::byte> queued_;
  std::vector<std::pair<std::uint64_t, std::size_t>> order_;  // (time, offset in queued_)
  record::Record decoded_;
  std::vector<std::uint32_t> locs_;
  std::unordered_map<Key, Entry, KeyHash> entries_;
  std::unordered_map<std::string, std::uint64_t> comm_ids_;
  LiveInterval interval_;
  std::uint64_t lost_total_ = 0;
  bool hide_user_ = false;
  bool hide_kernel_ = false;
  bool callchains_ = false;
  // With callchains: interned stacks of location ids (leaf first), threads, chains.
  std::unordered_map<std::vector<std::uint32_t>, std::uint32_t, IdStackHash> stack_ids_;
  std::vector<const std::vector<std::uint32_t>*> stacks_;
  std::vector<Thread> threads_;
  std::unordered_map<std::string, std::uint32_t> thread_ids_;  // "tid comm" -> threads_
  std::unordered_map<std::uint64_t, Chain> chains_;            // stack << 32 | thread
};

}  // namespace perfx::profile
