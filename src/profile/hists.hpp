#pragma once
/// \file
/// perf's hist entries drawn from a Profile: what `report`, `top` and `diff` print.
///
/// build_hists() groups one event's samples (or an event group's, one value per member)
/// into entries keyed by the sort keys (typed values: the entry's thread, frame, CPU, time
/// bucket, parent). Every sample adds its period to the entry of its leaf ("Self"); with
/// callchains and children, every distinct entry of its stack gets the period once
/// ("Children"), with the rest of the chain from that frame on for the call graph
/// (call_tree()). Filters (--dsos, --symbols, --comms/--pid/--tid) mark entries as perf's
/// hist_entry::filtered does: an entry keeps the verdict of the sample that created it.
/// sorted_entries() gives the entries in perf's output order. Pure: no text layout here.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "profile/profile.hpp"
#include "profile/thread_filter.hpp"

namespace perfx::profile {

/// perf's sort keys (--sort) that hist entries are keyed by.
enum class SortKey : std::uint8_t {
  kComm,
  kPid,
  kTid,
  kDso,
  kSym,
  kSrcline,
  kSrcfile,
  kCpu,
  kTime,
  kParent,
  kSocket,
  kTrace,       ///< a tracepoint's formatted fields (Profile::traces; "N/A" for others)
  kSymbolSize,  ///< the symbol's length (entries of one size are one entry, as perf)
  kDsoSize,     ///< the length of the sample's map
  kIpcNull      ///< perf's ipc_null column (no branch stacks): "-", added for "symbol"
};

/// The key of perf's --sort name ("comm", "sym", ...), looked up as perf's
/// sort_dimension__add() does: case-insensitive, a prefix naming the first key in perf's
/// order ("s" and "symbol" are sym); nullopt for an unknown name (and for the output
/// fields "overhead", "period", ..., which add no key).
[[nodiscard]] std::optional<SortKey> sort_key_named(std::string_view name) noexcept;

/// perf's output field that --sort `name` names ("overhead", "overhead_sys",
/// "overhead_us", "overhead_guest_sys", "overhead_guest_us", "overhead_children",
/// "sample", "period"; a prefix as perf takes it, after the keys), else nullopt.
[[nodiscard]] std::optional<std::string_view> sort_field_named(std::string_view name) noexcept;

/// The size of a frame's map (perf's dso_size key: map__size()); 0 without a map.
[[nodiscard]] std::uint64_t map_size(const Profile& profile, const Frame& f);

/// perf's --sort name of a key.
[[nodiscard]] std::string_view sort_key_name(SortKey key) noexcept;

/// How entries are built.
struct HistOptions {
  std::vector<SortKey> keys = {SortKey::kComm, SortKey::kDso, SortKey::kSym};
  /// Children periods (used only when the event has callchains).
  bool children = true;
  /// Keep each entry's callchains for call_tree() (used only when the event has them).
  bool callchains = true;
  /// Callchains root first (true) or leaf first; unset = perf's default (caller with
  /// children, callee without).
  std::optional<bool> caller_order;
  /// --max-stack: only the N frames nearest the leaf (callee order; root: caller order).
  std::optional<std::size_t> max_stack;
  /// --hide-unresolved: samples whose leaf has no symbol make no entries and leave the
  /// totals (hidden_period); unresolved frames leave the callchains.
  bool hide_unresolved = false;
  /// --dsos / --symbols: entries made by a sample whose leaf is elsewhere are filtered.
  std::vector<std::string> dsos;
  std::vector<std::string> symbols;
  /// --comms / --pid / --tid: entries made by a sample of another thread are filtered.
  ThreadFilter thread_filter;
  /// The `parent` key's regex (POSIX extended), perf's -p default.
  std::string parent_regex = "^sys_|^do_page_fault";
  /// -x: samples without a parent make no entries (they stay in the totals).
  bool exclude_other = false;
  /// --ignore-callees: a regex (POSIX extended); see ignore_callees_cuts().
  std::string ignore_callees;
  /// The `time` key's bucket width.
  std::uint64_t time_quantum_ns = 100'000'000;
  /// srcline and srcfile keys with the source file's whole path.
  bool full_source_path = false;
  /// perf diff: a sample without a frame (empty stack) makes an entry of its own, with
  /// frame kNoFrame, instead of none.
  bool keep_frameless = false;
};

/// A member's values of an entry.
struct HistValues {
  std::uint64_t self = 0;      ///< period of the samples whose leaf is the entry
  std::uint64_t children = 0;  ///< period of the samples whose stack has it (or self)
  std::uint64_t samples = 0;   ///< recorded samples counted as self
  /// The self period of samples in the kernel (perf's period_sys: its overhead_sys field),
  /// told by the leaf's code; the rest of `self` is user (overhead_us).
  std::uint64_t self_sys = 0;
};

/// A part of a stack given to an entry's call graph: the stack, and the first frame shown
/// (0: the whole chain; else in caller order the frame `part` and its callees, in callee
/// order the frame `part - 1` and its callers).
struct ChainPart {
  std::uint32_t stack = 0;
  std::uint32_t part = 0;
  friend bool operator==(const ChainPart&, const ChainPart&) = default;
};
struct ChainPartHash {
  std::size_t operator()(const ChainPart& c) const noexcept {
    return std::hash<std::uint64_t>{}(static_cast<std::uint64_t>(c.stack) << 32 | c.part);
  }
};

/// The period and samples of a part of a stack given to an entry's call graph.
struct ChainValue {
  std::uint64_t period = 0;
  std::uint64_t count = 0;  ///< recorded samples
};

/// The frame index of a frameless entry (HistOptions::keep_frameless).
inline constexpr std::uint32_t kNoFrame = ~std::uint32_t{0};
/// HistEntry::parent when the sample has no parent (perf's "[other]").
inline constexpr std::uint32_t kNoParent = ~std::uint32_t{0};

/// One hist entry. Its key values are those of the sample that created it: `thread`
/// (comm, pid, tid), `frame` (dso, sym, srcline, srcfile), `cpu` (cpu, socket), `time`,
/// `parent`.
struct HistEntry {
  std::uint32_t frame = 0;
  std::uint32_t thread = 0;
  std::uint32_t cpu = 0;             ///< 0xffffffff when the event has no CPU field (perf's -1)
  std::uint64_t time = 0;            ///< the time bucket's start (sort key time)
  std::uint32_t parent = kNoParent;  ///< index into Hists::parents
  /// The trace key's text: index into Profile::traces, Profile::kNoTrace ("N/A").
  std::uint32_t trace = Profile::kNoTrace;
  /// perf's "[k]"/"[.]" level, fixed by the sample that created the entry.
  char level = '.';
  /// An unresolved frame of a mapped DSO reached through a callchain: keyed and shown by
  /// its instruction address, not the map-relative one (perf shows both rows).
  bool raw = false;
  /// perf's hist_entry::filtered: the creating sample failed a filter; not shown.
  bool filtered = false;
  HistValues values;               ///< the event's, or a group leader's
  std::vector<HistValues> others;  ///< a group's other members, member 1 first
  /// The longest chain given to the entry (perf's callchain_root::max_depth), in frames.
  std::size_t max_depth = 0;
  /// The call graph's parts and their periods (the leader's, in a group).
  std::unordered_map<ChainPart, ChainValue, ChainPartHash> chains;
  /// Bit i: the value of key i was looked up before perf sizes the columns (srcline,
  /// srcfile and trace only when another sample compared with it; every other key always).
  std::uint32_t looked_up = ~std::uint32_t{0};
  /// The key values as one tuple (internal: the entry index's key).
  std::vector<std::uint64_t> key;

  /// Member `m`'s values (0: the event or the leader).
  [[nodiscard]] const HistValues& member(std::uint32_t m) const {
    return m == 0 ? values : others[m - 1];
  }
};

/// What --ignore-callees leaves of a stack: the frames [lo, hi) and the frame `self` that
/// gets the sample's Self period (kNoCut: the stack is whole).
struct StackCut {
  static constexpr std::uint32_t kNoCut = ~std::uint32_t{0};
  std::uint32_t lo = 0;
  std::uint32_t hi = 0;
  std::uint32_t self = kNoCut;
  friend bool operator==(const StackCut&, const StackCut&) = default;
};

/// The entries of one event (or event group).
struct Hists {
  const Profile* profile = nullptr;  ///< what it was built from (must outlive it)
  HistOptions options;
  std::uint32_t event = 0;           ///< the event, or the group's leader
  std::uint32_t members = 1;         ///< the group's events from `event` on
  bool children = false;             ///< Children periods were counted
  bool callchains = false;           ///< call graphs were kept
  bool callee_children = false;      ///< children in callee order (-g callee)
  std::vector<HistEntry> entries;    ///< in creation order (perf's sample order)
  std::vector<std::string> parents;  ///< HistEntry::parent names
  /// Per member: the period and samples of entries not filtered (perf's --percentage
  /// relative totals).
  std::vector<std::uint64_t> kept_period, kept_samples;
  /// Per member: every sample of the member's event (after the profile's own filters).
  std::vector<std::uint64_t> seen_period;
  /// --hide-unresolved: the leader's samples left out.
  std::uint64_t hidden_period = 0;
  std::uint64_t hidden_samples = 0;
  /// --ignore-callees: per stack of the profile, what is left of it (empty: no cuts).
  std::vector<StackCut> cuts;
};

/// Builds the entries of event `event` (and the `members - 1` events after it, one event
/// group) of `profile`.
[[nodiscard]] Hists build_hists(const Profile& profile, const HistOptions& options,
                                std::uint32_t event, std::uint32_t members = 1);

/// A value or key to sort by.
struct HistField {
  enum class Kind : std::uint8_t { kSelf, kChildren, kSamples, kKey };
  Kind kind = Kind::kSelf;
  SortKey key = SortKey::kSym;  ///< for kKey
};

/// The output order.
struct HistOrder {
  /// Children first (perf sorts by the Children column when it is shown).
  bool by_children = false;
  /// -F with -s: these fields in order, then the keys; empty: perf's default (children,
  /// self, the group's members, then the keys).
  std::vector<HistField> fields;
};

/// The entries that are not filtered, in perf's output order.
[[nodiscard]] std::vector<const HistEntry*> sorted_entries(const Hists& hists,
                                                           const HistOrder& order);

/// perf's sort function of key `hists.options.keys[k]`: < 0 when `a` comes first.
[[nodiscard]] int compare_key(const Hists& hists, std::size_t k, const HistEntry& a,
                              const HistEntry& b);

/// perf's hist_entry__sort() without the Children column: the higher self period first,
/// then a group's members in order, then each key's sort function; < 0 when `a` comes
/// first. --hierarchy orders the entries of each level so (`a`, `b` summed over a level).
[[nodiscard]] int compare_by_self(const Hists& hists, const HistEntry& a, const HistEntry& b);

/// The socket of a CPU from the recording's topology; -1 without a CPU field or topology.
[[nodiscard]] int socket_of(const Hists& hists, std::uint32_t cpu);

/// Whether a frame has no symbol ("[unknown]").
[[nodiscard]] inline bool unresolved(const Frame& f) { return f.function == "[unknown]"; }

/// perf's srcline of a frame: "file.c:12" (basename; the whole path with `full_path`),
/// else "sym+offset", else "dso[map address]", else "??:0".
[[nodiscard]] std::string frame_srcline(const Frame& f, bool full_path = false);

/// perf's srcfile of a frame: the source file (basename unless `full_path`), or "".
[[nodiscard]] std::string frame_srcfile(const Frame& f, bool full_path = false);

/// A frame's instruction address in its own process (perf's callchain node ip).
[[nodiscard]] inline std::uint64_t process_ip(const Frame& f) {
  return f.process_address != 0 ? f.process_address : f.address;
}

/// The address an unresolved entry is shown and ordered by (its instruction address when
/// `raw`, else the map-relative one).
[[nodiscard]] inline std::uint64_t shown_address(const Frame& f, bool raw) {
  return raw ? process_ip(f) : f.map_address;
}

/// perf's callchain tree of an entry: chains merged by function name (perf's default
/// callchain key). `period` is the node's cumulative period, `hit` the period of the
/// chains that end at it; children in perf's order (period, then perf's rb-tree order).
struct CallNode {
  std::string name;  ///< the function ("name (inlined)"), or "0x<address>" unresolved
  std::uint64_t period = 0;
  std::uint64_t hit = 0;
  std::uint32_t frame = 0;  ///< the first frame merged into it
  std::vector<CallNode> kids;
  std::uint64_t count = 0;      ///< samples through the node (perf's cumulative count)
  std::uint64_t hit_count = 0;  ///< samples whose chain ends at it
};

/// What merges frames into one call graph node (perf's callchain sort key).
enum class CallKey : std::uint8_t {
  kFunction,  ///< the function (perf's default)
  kAddress,   ///< the frame's address; named "function srcline"
  kSrcline,   ///< the frame's source line; named "function srcline"
};

/// The call graph of `entry` (root: its whole period, name empty).
[[nodiscard]] CallNode call_tree(const Hists& hists, const HistEntry& entry,
                                 CallKey key = CallKey::kFunction);

/// perf's order of sibling call graph nodes in its rb_root_in (the order of equal
/// periods): whether `a` comes before `b`.
[[nodiscard]] bool before_at_equal_period(const Profile& profile, const CallNode& a,
                                          const CallNode& b);

/// perf's srcline of a callchain frame (get_srcline() without the symbol): "file.c:12";
/// with `show_addr` (the address key) "+offset" or "dso[address]" when there is no line,
/// else "??:0".
[[nodiscard]] std::string chain_srcline(const Frame& f, bool show_addr);

/// perf's --ignore-callees (add_callchain_ip(), perf 6.1): the callchain is walked in
/// display order (root first in caller order, leaf first in callee order) and at each
/// frame whose symbol matches `hists.options.ignore_callees` the walk forgets what it
/// kept so far and makes that frame the sample's own (its Self entry). The last match
/// wins: in callee order the frame and its callers stay (its callees are gone), in caller
/// order the frame and its callees (perf 6.1 drops the callers then). Only frames read
/// from the sample's callchain match (not DWARF-unwound or inline ones, not unresolved
/// ones); a frame that names the sample's parent (`parent` key) is not looked at.
/// One cut per stack of the profile, within the --max-stack range.
[[nodiscard]] std::vector<StackCut> ignore_callees_cuts(const Hists& hists);

/// The frames of stack `stack` that count with --max-stack and --ignore-callees:
/// [first, last).
[[nodiscard]] std::pair<std::size_t, std::size_t> shown_range(const Hists& hists,
                                                              std::uint32_t stack);

}  // namespace perfx::profile
