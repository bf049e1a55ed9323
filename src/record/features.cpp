// perf.data feature sections: one descriptor per feature (perf's feat_ops[] in
// tools/perf/util/header.c) holding its name and how to decode it (reader), encode it
// (writer) and print it (`perf report --header-only`). Formats follow perf 6.1's
// write_* / process_* / print_* of each feature.
#include "record/features.hpp"

#include <array>
#include <cinttypes>
#include <cstring>
#include <ctime>
#include <tuple>
#include <type_traits>

#include "core/attr_flags.hpp"
#include "core/byte_reader.hpp"
#include "core/byte_writer.hpp"
#include "core/error_format.hpp"
#include "record/decoder.hpp"
#include "record/encoder.hpp"
#include "record/sample_layout.hpp"

namespace perfx::record {

namespace {

using core::ByteReader;

constexpr std::size_t kNameAlign = 64;  // perf's NAME_ALIGN for header strings

// perf's do_read_string: u32 len, then len bytes holding a NUL-terminated string.
std::string read_string(ByteReader& r) {
  const std::uint32_t len = r.u32();
  auto b = r.take(len);
  if (!r.ok() || b.empty()) return {};  // empty spans may have a null data()
  const auto* c = reinterpret_cast<const char*>(b.data());
  return std::string(c, strnlen(c, b.size()));
}

// The feature-section writer: ByteWriter plus perf's strings and lists.
class Writer : public core::ByteWriter {
 public:
  using ByteWriter::ByteWriter;
  // perf's do_write_string: u32 len = ALIGN(strlen + 1, NAME_ALIGN), zero padded.
  void string(std::string_view s) {
    const std::size_t len = (s.size() + 1 + kNameAlign - 1) / kNameAlign * kNameAlign;
    u32(static_cast<std::uint32_t>(len));
    bytes(std::as_bytes(std::span(s.data(), s.size())));
    zeros(len - s.size());
  }
  template <typename T, typename F>
  void list(const std::vector<T>& items, F&& each) {  // u32 count, then each item
    u32(static_cast<std::uint32_t>(items.size()));
    for (const auto& item : items) each(item);
  }
  template <typename T>
  void list(const std::vector<T>& items) {  // each item by write_value()
    list(items, [this](const T& item) { write_value(*this, item); });
  }
};

// The fields of the fixed-form parts of feature sections, in file order: a u32 or u64
// member is that integer, a std::string is perf's string (do_write_string).
template <typename T>
inline constexpr auto kSectionFields = nullptr;
// clang-format off
template <> inline constexpr auto kSectionFields<NrCpus> =
    std::tuple(&NrCpus::available, &NrCpus::online);
template <> inline constexpr auto kSectionFields<NumaNode> = std::tuple(
    &NumaNode::node, &NumaNode::mem_total_kb, &NumaNode::mem_free_kb, &NumaNode::cpus);
template <> inline constexpr auto kSectionFields<PmuMapping> =
    std::tuple(&PmuMapping::type, &PmuMapping::name);
template <> inline constexpr auto kSectionFields<GroupDesc> =
    std::tuple(&GroupDesc::name, &GroupDesc::leader_idx, &GroupDesc::nr_members);
template <> inline constexpr auto kSectionFields<CacheLevel> = std::tuple(
    &CacheLevel::level, &CacheLevel::line_size, &CacheLevel::sets, &CacheLevel::ways,
    &CacheLevel::type, &CacheLevel::size, &CacheLevel::map);
template <> inline constexpr auto kSectionFields<SampleTime> =
    std::tuple(&SampleTime::first_ns, &SampleTime::last_ns);
template <> inline constexpr auto kSectionFields<CompressedInfo> = std::tuple(
    &CompressedInfo::version, &CompressedInfo::type, &CompressedInfo::level,
    &CompressedInfo::ratio, &CompressedInfo::mmap_len);
template <> inline constexpr auto kSectionFields<ClockData> = std::tuple(
    &ClockData::version, &ClockData::clockid, &ClockData::wall_clock_ns,
    &ClockData::clockid_time_ns);
template <> inline constexpr auto kSectionFields<HybridNode> =
    std::tuple(&HybridNode::pmu_name, &HybridNode::cpus);
// clang-format on

// Reads one value: an integer, a string, or a struct with kSectionFields.
template <typename T>
void read_value(ByteReader& r, T& v) {
  if constexpr (std::is_integral_v<T>) {
    v = r.read<T>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    v = read_string(r);
  } else {
    std::apply([&](auto... member) { (read_value(r, v.*member), ...); }, kSectionFields<T>);
  }
}

// Writes one value, the inverse of read_value().
template <typename T>
void write_value(Writer& w, const T& v) {
  if constexpr (std::is_integral_v<T>) {
    w.put(v);
  } else if constexpr (std::is_same_v<T, std::string>) {
    w.string(v);
  } else {
    std::apply([&](auto... member) { (write_value(w, v.*member), ...); }, kSectionFields<T>);
  }
}

struct FeatureDesc;

// One section being decoded: the reader over it and where errors point.
struct Decoding {
  const FeatureDesc& desc;
  std::span<const std::byte> section;
  bool swap;
  std::uint64_t offset;  // of the section in the file, for messages
  ByteReader r;
  Features& out;

  [[nodiscard]] tl::unexpected<Error> bad(std::string_view why, std::uint64_t at = 0) const;
  // The error for a reader that ran past the section, else success.
  [[nodiscard]] Result<void> check() const;
  // A u32 count read from the section; kMalformedData when larger than the section
  // (no count can be: every element takes at least a byte).
  [[nodiscard]] Result<std::uint32_t> count(std::string_view what) {
    const std::uint32_t n = r.u32();
    if (n > section.size()) return bad(fmt::format("bad {} count", what));
    return n;
  }
  // perf's count-prefixed list (of strings, of structs with kSectionFields).
  template <typename T = std::string>
  [[nodiscard]] Result<std::vector<T>> list(std::string_view what) {
    PERFX_TRY(n, count(what));
    return items<T>(n);
  }
  // `n` values in a row.
  template <typename T>
  [[nodiscard]] std::vector<T> items(std::uint32_t n) {
    std::vector<T> v;
    for (std::uint32_t i = 0; i < n && r.ok(); ++i) read_value(r, v.emplace_back());
    return v;
  }
};

// The `perf report --header-only` text being built.
struct Printing {
  const Features& f;
  std::span<const AttrEntry> attrs;
  std::string& o;
};

// How one feature is read, written and shown. A null decode keeps the section raw only;
// a null encode writes nothing (but raw bytes); a null print shows nothing. encode()
// returns false when `in` has nothing for the feature.
struct FeatureDesc {
  Feature id;
  std::string_view name;  // perf's feature name (feat_ops[].name, lower case)
  Result<void> (*decode)(Decoding&) = nullptr;
  bool (*encode)(const FeatureDesc&, const Features&, Writer&) = nullptr;
  void (*print)(const FeatureDesc&, const Printing&) = nullptr;
  // The one-string features (hostname, osrelease, ...): the field and its header label.
  std::optional<std::string> Features::*text = nullptr;
  std::string_view label;  // (list features: the name of an entry, for errors)
};

tl::unexpected<Error> Decoding::bad(std::string_view why, std::uint64_t at) const {
  return fail(Errc::kMalformedData, "perf.data: feature section '{}' at offset {:#x}: {}",
              desc.name, offset + at, why);
}

Result<void> Decoding::check() const {
  if (!r.ok()) return bad(fmt::format("truncated while reading {}", desc.name));
  return {};
}

std::string upper(std::string_view s) {
  std::string o(s);
  for (char& c : o) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
  return o;
}

std::string usec_timestamp(std::uint64_t ns) {
  return fmt::format("{}.{:06}", ns / 1000000000u, (ns % 1000000000u) / 1000u);
}

// ------------------------------------------------------------------ shared shapes

// One string (HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID).
Result<void> decode_text(Decoding& d) {
  d.out.*d.desc.text = read_string(d.r);
  return d.check();
}
bool encode_text(const FeatureDesc& desc, const Features& in, Writer& w) {
  if (!(in.*desc.text)) return false;
  w.string(*(in.*desc.text));
  return true;
}
void print_text(const FeatureDesc& desc, const Printing& p) {
  if (const auto& v = p.f.*desc.text) p.o += fmt::format("# {} : {}\n", desc.label, *v);
}

// A feature held in one optional value (NRCPUS, TOTAL_MEM, SAMPLE_TIME, CLOCK_DATA, ...).
template <auto Field>
Result<void> decode_one(Decoding& d) {
  read_value(d.r, (d.out.*Field).emplace());
  return d.check();
}
template <auto Field>
bool encode_one(const FeatureDesc&, const Features& in, Writer& w) {
  if (!(in.*Field)) return false;
  write_value(w, *(in.*Field));
  return true;
}

// A count-prefixed list of one kind of entry (NUMA_TOPOLOGY, PMU_MAPPINGS, GROUP_DESC,
// HYBRID_TOPOLOGY); desc.label names an entry in errors ("bad node count").
template <auto Field>
Result<void> decode_list(Decoding& d) {
  using Entry = typename std::remove_reference_t<decltype(d.out.*Field)>::value_type;
  PERFX_TRY(entries, d.list<Entry>(d.desc.label));
  d.out.*Field = std::move(entries);
  return d.check();
}
template <auto Field>
bool encode_list(const FeatureDesc&, const Features& in, Writer& w) {
  if ((in.*Field).empty()) return false;
  w.list(in.*Field);
  return true;
}

// Topologies perf only summarizes without -I.
void print_info_available(const FeatureDesc& desc, const Printing& p) {
  p.o += fmt::format("# {} info available, use -I to display\n", upper(desc.name));
}

// A name=value capability list (CPU_PMU_CAPS, each PMU of PMU_CAPS).
Result<PmuCaps> decode_caps(Decoding& d) {
  PmuCaps caps;
  PERFX_TRY(n, d.count("caps"));
  for (std::uint32_t i = 0; i < n && d.r.ok(); ++i) {
    std::string name = read_string(d.r);
    std::string value = read_string(d.r);
    caps.caps.emplace_back(std::move(name), std::move(value));
  }
  return caps;
}
void encode_caps(const PmuCaps& caps, Writer& w) {
  w.u32(static_cast<std::uint32_t>(caps.caps.size()));
  for (const auto& [k, v] : caps.caps) {
    w.string(k);
    w.string(v);
  }
}
std::string caps_text(const PmuCaps& caps) {
  std::string o;
  for (std::size_t i = 0; i < caps.caps.size(); ++i)
    o += fmt::format("{}{}={}", i == 0 ? "" : ", ", caps.caps[i].first, caps.caps[i].second);
  return o;
}

// ------------------------------------------------------------------ one per feature

Result<void> decode_tracing_data(Decoding& d) {
  d.out.tracing_data.assign(d.section.begin(), d.section.end());
  return {};
}
bool encode_tracing_data(const FeatureDesc&, const Features& in, Writer& w) {
  if (in.tracing_data.empty()) return false;
  w.bytes(in.tracing_data);
  return true;
}

Result<void> decode_build_id(Decoding& d) {
  const auto section = d.section;
  std::size_t pos = 0;
  while (section.size() - pos >= kHeaderSize) {
    auto h = peek_header(section.subspan(pos), d.swap);
    if (!h || h->size < kHeaderSize || h->size > section.size() - pos) {
      return d.bad("bad build-id entry size", pos);
    }
    // perf writes these entries with a zero type (write_buildid()): read each as
    // a HEADER_BUILD_ID whatever its type says.
    std::vector<std::byte> entry(section.begin() + static_cast<std::ptrdiff_t>(pos),
                                 section.begin() + static_cast<std::ptrdiff_t>(pos + h->size));
    std::uint32_t type = raw::PERF_RECORD_HEADER_BUILD_ID;
    if (d.swap) type = __builtin_bswap32(type);
    std::memcpy(entry.data(), &type, sizeof type);
    auto rec = decode_record(entry, AttrTable{}, {.swap = d.swap, .offset = d.offset + pos});
    if (!rec) return tl::unexpected(std::move(rec).error());
    if (const auto* b = rec->get<HeaderBuildId>()) {
      BuildIdEntry e;
      e.pid = b->pid;
      e.misc = static_cast<std::uint16_t>(h->misc & ~(1u << 15));
      e.build_id.assign(b->build_id.begin(), b->build_id.begin() + b->build_id_size);
      e.filename = std::string(b->filename);
      d.out.build_ids.push_back(std::move(e));
    }
    pos += h->size;
  }
  return {};
}
bool encode_build_id(const FeatureDesc&, const Features& in, Writer& w) {
  if (in.build_ids.empty()) return false;
  for (const auto& b : in.build_ids) {
    Record rec;
    rec.header.type = raw::PERF_RECORD_HEADER_BUILD_ID;
    rec.header.misc = static_cast<std::uint16_t>(b.misc | (1u << 15));
    HeaderBuildId hb;
    hb.pid = b.pid;
    hb.build_id_size = static_cast<std::uint8_t>(std::min<std::size_t>(b.build_id.size(), 20));
    if (hb.build_id_size > 0) std::memcpy(hb.build_id.data(), b.build_id.data(), hb.build_id_size);
    hb.filename = b.filename;
    rec.body = hb;
    if (!encode_record(rec, SampleLayout{}, w.buffer())) return false;
  }
  return true;
}

void print_nrcpus(const FeatureDesc&, const Printing& p) {
  if (!p.f.nrcpus) return;
  p.o += fmt::format("# nrcpus online : {}\n# nrcpus avail : {}\n", p.f.nrcpus->online,
                     p.f.nrcpus->available);
}

void print_total_mem(const FeatureDesc&, const Printing& p) {
  if (p.f.total_mem_kb) p.o += fmt::format("# total memory : {} kB\n", *p.f.total_mem_kb);
}
void print_clockid(const FeatureDesc&, const Printing& p) {
  if (p.f.clockid_res_ns)
    p.o += fmt::format("# clockid frequency: {} MHz\n", *p.f.clockid_res_ns * 1000);
}
void print_dir_format(const FeatureDesc&, const Printing& p) {
  if (p.f.dir_format_version)
    p.o += fmt::format("# directory data version : {}\n", *p.f.dir_format_version);
}

Result<void> decode_cmdline(Decoding& d) {
  PERFX_TRY(args, d.list("argument"));
  d.out.cmdline = std::move(args);
  return d.check();
}
bool encode_cmdline(const FeatureDesc&, const Features& in, Writer& w) {
  if (!in.cmdline) return false;
  w.list(*in.cmdline);
  return true;
}
void print_cmdline(const FeatureDesc&, const Printing& p) {
  if (!p.f.cmdline) return;
  p.o += "# cmdline : ";
  for (const auto& a : *p.f.cmdline) p.o += a + " ";
  p.o += "\n";
}

Result<void> decode_event_desc(Decoding& d) {
  const std::uint32_t nre = d.r.u32();
  const std::uint32_t sz = d.r.u32();
  if (!d.r.ok() || sz < PERF_ATTR_SIZE_VER0 || nre > d.section.size() / sz) {
    return d.bad("bad event count or attr size");
  }
  d.out.event_desc.clear();
  for (std::uint32_t i = 0; i < nre && d.r.ok(); ++i) {
    EventDesc e;
    e.attr = attr_from_bytes(d.r.take(sz), d.swap);
    const std::uint32_t nr = d.r.u32();
    e.name = read_string(d.r);
    auto ids = d.r.take_array(nr, 8);
    U64Array a(ids, d.swap);
    for (std::uint64_t id : a) e.ids.push_back(id);
    d.out.event_desc.push_back(std::move(e));
  }
  return d.check();
}
bool encode_event_desc(const FeatureDesc&, const Features& in, Writer& w) {
  if (in.event_desc.empty()) return false;
  w.u32(static_cast<std::uint32_t>(in.event_desc.size()));
  w.u32(raw::kAttrSizeVer7);
  for (const auto& d : in.event_desc) {
    raw::EventAttr a = d.attr;
    a.size = raw::kAttrSizeVer7;
    w.bytes(std::as_bytes(std::span(&a, 1)).first(raw::kAttrSizeVer7));
    w.u32(static_cast<std::uint32_t>(d.ids.size()));
    w.string(d.name);
    for (std::uint64_t id : d.ids) w.u64(id);
  }
  return true;
}
void print_event_desc(const FeatureDesc&, const Printing& p) {
  for (const auto& d : p.f.event_desc) {
    p.o += fmt::format("# event : name = {}, ", d.name);
    if (!d.ids.empty()) {
      p.o += ", id = {";
      for (std::size_t i = 0; i < d.ids.size(); ++i)
        p.o += fmt::format("{} {}", i == 0 ? "" : ",", d.ids[i]);
      p.o += " }";
    }
    p.o += attr_fields(d.attr, " = ");
    p.o += "\n";
  }
}

Result<void> decode_cpu_topology(Decoding& d) {
  CpuTopology t;
  PERFX_TRY(cores, d.list("sibling"));
  t.core_siblings = std::move(cores);
  PERFX_TRY(threads, d.list("sibling"));
  t.thread_siblings = std::move(threads);
  PERFX_CHECK(d.check());
  // Newer perf appends per-cpu core/socket ids, then die siblings and die ids.
  const std::uint32_t ncpu = d.out.nrcpus ? d.out.nrcpus->available : 0;
  if (d.r.remaining() >= std::uint64_t{ncpu} * 8 && ncpu != 0) {
    for (std::uint32_t i = 0; i < ncpu; ++i) {
      CpuTopology::Cpu c;
      c.core_id = d.r.u32();
      c.socket_id = d.r.u32();
      t.cpus.push_back(c);
    }
    if (d.r.remaining() >= 4) {
      t.has_dies = true;
      PERFX_TRY(dies, d.list("die"));
      t.die_siblings = std::move(dies);
      for (std::uint32_t i = 0; i < ncpu && d.r.ok(); ++i) t.cpus[i].die_id = d.r.u32();
    }
  }
  d.out.cpu_topology = std::move(t);
  return d.check();
}
bool encode_cpu_topology(const FeatureDesc&, const Features& in, Writer& w) {
  if (!in.cpu_topology) return false;
  const auto& t = *in.cpu_topology;
  w.list(t.core_siblings);
  w.list(t.thread_siblings);
  if (!t.cpus.empty()) {
    for (const auto& c : t.cpus) {
      w.u32(c.core_id);
      w.u32(c.socket_id);
    }
    if (t.has_dies) {
      w.list(t.die_siblings);
      for (const auto& c : t.cpus) w.u32(c.die_id);
    }
  }
  return true;
}

Result<void> decode_branch_stack(Decoding& d) {
  d.out.branch_stack = true;
  return {};
}
bool encode_branch_stack(const FeatureDesc&, const Features& in, Writer&) {
  return in.branch_stack;  // an empty section: the bit says it all
}
void print_branch_stack(const FeatureDesc&, const Printing& p) {
  p.o += "# contains samples with branch stack\n";
}

void print_pmu_mappings(const FeatureDesc&, const Printing& p) {
  const auto& maps = p.f.pmu_mappings;
  p.o += "# pmu mappings: ";
  if (maps.empty()) p.o += "not available";
  for (std::size_t i = 0; i < maps.size(); ++i)
    p.o += fmt::format("{}{} = {}", i == 0 ? "" : ", ", maps[i].name, maps[i].type);
  p.o += "\n";
}

void print_group_desc(const FeatureDesc&, const Printing& p) {
  for (const auto& g : p.f.group_desc) {
    if (g.nr_members <= 1) continue;
    p.o += fmt::format("# group: {}{{", g.name);
    // nr_members comes from the file: never loop past the attrs that exist.
    for (std::uint32_t i = 0; i < g.nr_members && g.leader_idx + std::size_t{i} < p.attrs.size();
         ++i) {
      p.o += (i == 0 ? "" : ",");
      p.o += p.attrs[g.leader_idx + i].name;
    }
    p.o += "}\n";
  }
}

void print_auxtrace(const FeatureDesc&, const Printing& p) {
  p.o += "# contains AUX area data (e.g. instruction trace)\n";
}
void print_stat(const FeatureDesc&, const Printing& p) { p.o += "# contains stat data\n"; }

Result<void> decode_cache(Decoding& d) {
  const std::uint32_t version = d.r.u32();
  const std::uint32_t n = d.r.u32();
  if (!d.r.ok() || version != 1 || n > d.section.size()) {
    return d.bad("unknown cache version or bad count");
  }
  d.out.cache = d.items<CacheLevel>(n);
  return d.check();
}
bool encode_cache(const FeatureDesc&, const Features& in, Writer& w) {
  if (in.cache.empty()) return false;
  w.u32(1);  // version
  w.list(in.cache);
  return true;
}

void print_sample_time(const FeatureDesc&, const Printing& p) {
  const auto& t = p.f.sample_time;
  if (!t) return;
  p.o += fmt::format("# time of first sample : {}\n", usec_timestamp(t->first_ns));
  p.o += fmt::format("# time of last sample : {}\n", usec_timestamp(t->last_ns));
  const double ms = static_cast<double>(t->last_ns - t->first_ns) / 1e6;
  p.o += fmt::format("# sample duration : {:10.3f} ms\n", ms);
}

void print_compressed(const FeatureDesc&, const Printing& p) {
  if (const auto& c = p.f.compressed) {
    p.o += fmt::format("# compressed : {}, level = {}, ratio = {}\n",
                       c->type == 1 ? "Zstd" : "Unknown", c->level, c->ratio);
  }
}

Result<void> decode_cpu_pmu_caps(Decoding& d) {
  PERFX_TRY(caps, decode_caps(d));
  caps.pmu = "cpu";
  d.out.cpu_pmu_caps = std::move(caps);
  return d.check();
}
bool encode_cpu_pmu_caps(const FeatureDesc&, const Features& in, Writer& w) {
  if (!in.cpu_pmu_caps) return false;
  encode_caps(*in.cpu_pmu_caps, w);
  return true;
}
void print_cpu_pmu_caps(const FeatureDesc&, const Printing& p) {
  if (!p.f.cpu_pmu_caps) return;
  p.o += "# cpu pmu capabilities: ";
  if (p.f.cpu_pmu_caps->caps.empty()) p.o += "not available";
  p.o += caps_text(*p.f.cpu_pmu_caps) + "\n";
}

void print_clock_data(const FeatureDesc&, const Printing& p) {
  if (!p.f.clock_data) return;
  const auto& c = *p.f.clock_data;
  const std::time_t secs = static_cast<std::time_t>(c.wall_clock_ns / 1000000000u);
  std::tm tm{};
  localtime_r(&secs, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%F %T", &tm);
  // perf's clockid_name(): the first name its clockid map has for the id.
  const char* clk = c.clockid == 1    ? "monotonic"
                    : c.clockid == 4  ? "monotonic_raw"
                    : c.clockid == 0  ? "realtime"
                    : c.clockid == 7  ? "boottime"
                    : c.clockid == 11 ? "tai"
                                      : "unknown";
  p.o += fmt::format("# clockid: {} ({})\n", clk, c.clockid);
  p.o += fmt::format("# reference time: {}.{:06} = {}.{:06} (TOD) = {}.{:09} ({})\n", buf,
                     (c.wall_clock_ns % 1000000000u) / 1000u, c.wall_clock_ns / 1000000000u,
                     (c.wall_clock_ns % 1000000000u) / 1000u, c.clockid_time_ns / 1000000000u,
                     c.clockid_time_ns % 1000000000u, clk);
}

Result<void> decode_pmu_caps(Decoding& d) {
  PERFX_TRY(npmu, d.count("pmu"));
  d.out.pmu_caps.clear();
  for (std::uint32_t p = 0; p < npmu && d.r.ok(); ++p) {
    PERFX_TRY(caps, decode_caps(d));
    caps.pmu = read_string(d.r);
    d.out.pmu_caps.push_back(std::move(caps));
  }
  return d.check();
}
bool encode_pmu_caps(const FeatureDesc&, const Features& in, Writer& w) {
  if (in.pmu_caps.empty()) return false;
  w.list(in.pmu_caps, [&](const PmuCaps& p) {
    encode_caps(p, w);
    w.string(p.pmu);
  });
  return true;
}
void print_pmu_caps(const FeatureDesc&, const Printing& p) {
  for (const auto& caps : p.f.pmu_caps) {
    if (caps.caps.empty()) continue;
    p.o += fmt::format("# {} pmu capabilities: {}\n", caps.pmu, caps_text(caps));
  }
}

// ------------------------------------------------------------------ the table

using DecodeFn = Result<void> (*)(Decoding&);
using EncodeFn = bool (*)(const FeatureDesc&, const Features&, Writer&);
using PrintFn = void (*)(const FeatureDesc&, const Printing&);

constexpr FeatureDesc feature(Feature id, std::string_view name, DecodeFn decode = nullptr,
                              EncodeFn encode = nullptr, PrintFn print = nullptr) {
  return FeatureDesc{id, name, decode, encode, print, nullptr, {}};
}

// A list feature: `entry` names one entry in errors.
constexpr FeatureDesc list_feature(Feature id, std::string_view name, DecodeFn decode,
                                   EncodeFn encode, PrintFn print, std::string_view entry) {
  return FeatureDesc{id, name, decode, encode, print, nullptr, entry};
}

// A one-string feature: `field` holds it, the header shows "# <label> : <value>".
constexpr FeatureDesc text_feature(Feature id, std::string_view name,
                                   std::optional<std::string> Features::*field,
                                   std::string_view label) {
  return FeatureDesc{id, name, &decode_text, &encode_text, &print_text, field, label};
}

// Indexed by feature bit (perf's HEADER_* numbering); rows with only a name are kept
// raw (AUXTRACE, STAT, MEM_TOPOLOGY, BPF_*: read back and written as they came).
constexpr std::array<FeatureDesc, 32> kFeatures = {
    feature(Feature{0}, "reserved"),
    feature(Feature::kTracingData, "tracing_data", &decode_tracing_data, &encode_tracing_data),
    feature(Feature::kBuildId, "build_id", &decode_build_id, &encode_build_id),
    text_feature(Feature::kHostname, "hostname", &Features::hostname, "hostname"),
    text_feature(Feature::kOsRelease, "osrelease", &Features::osrelease, "os release"),
    text_feature(Feature::kVersion, "version", &Features::version, "perf version"),
    text_feature(Feature::kArch, "arch", &Features::arch, "arch"),
    feature(Feature::kNrCpus, "nrcpus", &decode_one<&Features::nrcpus>,
            &encode_one<&Features::nrcpus>, &print_nrcpus),
    text_feature(Feature::kCpuDesc, "cpudesc", &Features::cpudesc, "cpudesc"),
    text_feature(Feature::kCpuId, "cpuid", &Features::cpuid, "cpuid"),
    feature(Feature::kTotalMem, "total_mem", &decode_one<&Features::total_mem_kb>,
            &encode_one<&Features::total_mem_kb>, &print_total_mem),
    feature(Feature::kCmdline, "cmdline", &decode_cmdline, &encode_cmdline, &print_cmdline),
    feature(Feature::kEventDesc, "event_desc", &decode_event_desc, &encode_event_desc,
            &print_event_desc),
    feature(Feature::kCpuTopology, "cpu_topology", &decode_cpu_topology, &encode_cpu_topology,
            &print_info_available),
    list_feature(Feature::kNumaTopology, "numa_topology", &decode_list<&Features::numa_topology>,
                 &encode_list<&Features::numa_topology>, &print_info_available, "node"),
    feature(Feature::kBranchStack, "branch_stack", &decode_branch_stack, &encode_branch_stack,
            &print_branch_stack),
    list_feature(Feature::kPmuMappings, "pmu_mappings", &decode_list<&Features::pmu_mappings>,
                 &encode_list<&Features::pmu_mappings>, &print_pmu_mappings, "pmu"),
    list_feature(Feature::kGroupDesc, "group_desc", &decode_list<&Features::group_desc>,
                 &encode_list<&Features::group_desc>, &print_group_desc, "group"),
    feature(Feature::kAuxtrace, "auxtrace", nullptr, nullptr, &print_auxtrace),
    feature(Feature::kStat, "stat", nullptr, nullptr, &print_stat),
    feature(Feature::kCache, "cache", &decode_cache, &encode_cache, &print_info_available),
    feature(Feature::kSampleTime, "sample_time", &decode_one<&Features::sample_time>,
            &encode_one<&Features::sample_time>, &print_sample_time),
    feature(Feature::kMemTopology, "mem_topology", nullptr, nullptr, &print_info_available),
    feature(Feature::kClockId, "clockid", &decode_one<&Features::clockid_res_ns>,
            &encode_one<&Features::clockid_res_ns>, &print_clockid),
    feature(Feature::kDirFormat, "dir_format", &decode_one<&Features::dir_format_version>,
            &encode_one<&Features::dir_format_version>, &print_dir_format),
    feature(Feature::kBpfProgInfo, "bpf_prog_info"),
    feature(Feature::kBpfBtf, "bpf_btf"),
    feature(Feature::kCompressed, "compressed", &decode_one<&Features::compressed>,
            &encode_one<&Features::compressed>, &print_compressed),
    feature(Feature::kCpuPmuCaps, "cpu_pmu_caps", &decode_cpu_pmu_caps, &encode_cpu_pmu_caps,
            &print_cpu_pmu_caps),
    feature(Feature::kClockData, "clock_data", &decode_one<&Features::clock_data>,
            &encode_one<&Features::clock_data>, &print_clock_data),
    list_feature(Feature::kHybridTopology, "hybrid_topology",
                 &decode_list<&Features::hybrid_topology>, &encode_list<&Features::hybrid_topology>,
                 &print_info_available, "node"),
    feature(Feature::kPmuCaps, "pmu_caps", &decode_pmu_caps, &encode_pmu_caps, &print_pmu_caps),
};

constexpr bool table_in_bit_order() {
  for (std::size_t i = 0; i < kFeatures.size(); ++i)
    if (static_cast<std::size_t>(kFeatures[i].id) != i) return false;
  return true;
}
static_assert(table_in_bit_order(), "kFeatures must be indexed by feature bit");
static_assert(kFeatures.size() == static_cast<std::size_t>(Feature::kPmuCaps) + 1);

const FeatureDesc* find_feature(int bit) noexcept {
  if (bit < 0 || static_cast<std::size_t>(bit) >= kFeatures.size()) return nullptr;
  return &kFeatures[static_cast<std::size_t>(bit)];
}

}  // namespace

std::string_view feature_name(int bit) noexcept {
  const FeatureDesc* d = find_feature(bit);
  return d != nullptr ? d->name : "unknown";
}

Result<void> decode_feature(int bit, std::span<const std::byte> section, bool swap,
                            std::uint64_t section_offset, Features& out) {
  out.present.set(static_cast<std::size_t>(bit));
  out.raw[bit].assign(section.begin(), section.end());
  const FeatureDesc* desc = find_feature(bit);
  if (desc == nullptr || desc->decode == nullptr) return {};  // kept raw only
  Decoding d{*desc, section, swap, section_offset, ByteReader(section, swap), out};
  return desc->decode(d);
}

std::optional<std::vector<std::byte>> encode_feature(int bit, const Features& in) {
  if (auto it = in.raw.find(bit); it != in.raw.end()) return it->second;
  const FeatureDesc* desc = find_feature(bit);
  if (desc == nullptr || desc->encode == nullptr) return std::nullopt;
  std::vector<std::byte> out;
  Writer w(out);
  if (!desc->encode(*desc, in, w)) return std::nullopt;
  return out;
}

std::string format_header(const Features& f, std::span<const AttrEntry> attrs,
                          const HeaderDumpInfo& info) {
  std::string o = "# ========\n";
  if (!info.captured_on.empty()) o += fmt::format("# captured on    : {}\n", info.captured_on);
  o += fmt::format("# header version : {}\n", info.header_version);
  o += fmt::format("# data offset    : {}\n", info.data_offset);
  o += fmt::format("# data size      : {}\n", info.data_size);
  o += fmt::format("# feat offset    : {}\n", info.feat_offset);
  // Pipe mode: perf closes the header block at once and prints each feature as
  // its HEADER_FEATURE record arrives; there is no missing-features line.
  if (info.pipe) o += "# ========\n#\n";
  const Printing p{f, attrs, o};
  std::string missing;
  for (std::size_t bit = 1; bit < kFeatures.size(); ++bit) {
    const FeatureDesc& desc = kFeatures[bit];
    if (!f.present.test(bit)) {
      missing += upper(desc.name) + " ";
    } else if (desc.print != nullptr) {
      desc.print(desc, p);
    }
  }
  if (info.pipe) return o;
  if (!missing.empty()) o += "# missing features: " + missing + "\n";
  o += "# ========\n#\n";
  return o;
}

std::string attr_fields(const raw::EventAttr& a, std::string_view assign) {
  std::string out;
  auto add = [&](std::string_view name, std::string value) {
    out += fmt::format(", {}{}{}", name, assign, value);
  };
  auto num = [&](std::string_view name, std::uint64_t v) {
    if (v != 0) add(name, fmt::format("{}", v));
  };
  auto hex = [&](std::string_view name, std::uint64_t v) {
    if (v != 0) add(name, fmt::format("{:#x}", v));
  };
  num("type", a.type);
  num("size", a.size);
  hex("config", a.config);
  num("{ sample_period, sample_freq }", a.sample_period);
  if (a.sample_type) add("sample_type", core::sample_type_names(a.sample_type));
  if (a.read_format) add("read_format", core::read_format_names(a.read_format));
  core::for_each_attr_flag(a, num);
  num("{ wakeup_events, wakeup_watermark }", a.wakeup_events);
  num("bp_type", a.bp_type);
  hex("{ bp_addr, config1 }", a.config1);
  hex("{ bp_len, config2 }", a.config2);
  hex("branch_sample_type", a.branch_sample_type);
  hex("sample_regs_user", a.sample_regs_user);
  num("sample_stack_user", a.sample_stack_user);
  if (a.use_clockid) num("clockid", static_cast<std::uint64_t>(a.clockid));
  hex("sample_regs_intr", a.sample_regs_intr);
  num("aux_watermark", a.aux_watermark);
  num("sample_max_stack", a.sample_max_stack);
  num("aux_sample_size", a.aux_sample_size);
  hex("sig_data", a.sig_data);
  return out;
}

}  // namespace perfx::record
