// perf.data feature sections: decode (reader), encode (writer) and the
// `perf report --header-only` text. Formats follow perf 6.1 tools/perf/util/header.c
// (write_* / process_* / print_* for each feature).
#include "record/features.hpp"

#include <cinttypes>
#include <cstring>
#include <ctime>

#include "core/attr_flags.hpp"
#include "core/byte_reader.hpp"
#include "core/error_format.hpp"
#include "record/decoder.hpp"
#include "record/encoder.hpp"
#include "record/sample_layout.hpp"

namespace perfx::record {

namespace {

using core::ByteReader;

constexpr std::size_t kNameAlign = 64;  // perf's NAME_ALIGN for header strings

constexpr std::string_view kFeatureNames[] = {
    "reserved",        "tracing_data", "build_id",     "hostname",     "osrelease",
    "version",         "arch",         "nrcpus",       "cpudesc",      "cpuid",
    "total_mem",       "cmdline",      "event_desc",   "cpu_topology", "numa_topology",
    "branch_stack",    "pmu_mappings", "group_desc",   "auxtrace",     "stat",
    "cache",           "sample_time",  "mem_topology", "clockid",      "dir_format",
    "bpf_prog_info",   "bpf_btf",      "compressed",   "cpu_pmu_caps", "clock_data",
    "hybrid_topology", "pmu_caps",
};

// perf's do_read_string: u32 len, then len bytes holding a NUL-terminated string.
std::string read_string(ByteReader& r) {
  const std::uint32_t len = r.u32();
  auto b = r.take(len);
  if (!r.ok() || b.empty()) return {};  // empty spans may have a null data()
  const auto* c = reinterpret_cast<const char*>(b.data());
  return std::string(c, strnlen(c, b.size()));
}

class Writer {
 public:
  void u32(std::uint32_t v) { put(&v, 4); }
  void u64(std::uint64_t v) { put(&v, 8); }
  void bytes(std::span<const std::byte> b) { out.insert(out.end(), b.begin(), b.end()); }
  // perf's do_write_string: u32 len = ALIGN(strlen + 1, NAME_ALIGN), zero padded.
  void string(std::string_view s) {
    const std::size_t len = (s.size() + 1 + kNameAlign - 1) / kNameAlign * kNameAlign;
    u32(static_cast<std::uint32_t>(len));
    bytes(std::as_bytes(std::span(s.data(), s.size())));
    out.insert(out.end(), len - s.size(), std::byte{0});
  }
  std::vector<std::byte> out;

 private:
  void put(const void* p, std::size_t n) {
    const auto* b = static_cast<const std::byte*>(p);
    out.insert(out.end(), b, b + n);
  }
};

tl::unexpected<Error> bad_feature(int bit, std::uint64_t offset, std::string_view why) {
  return fail(Errc::kMalformedData, "perf.data: feature section '{}' at offset {:#x}: {}",
              feature_name(bit), offset, why);
}

}  // namespace

std::string_view feature_name(int bit) noexcept {
  if (bit >= 0 && static_cast<std::size_t>(bit) < std::size(kFeatureNames)) {
    return kFeatureNames[bit];
  }
  return "unknown";
}

Result<void> decode_feature(int bit, std::span<const std::byte> section, bool swap,
                            std::uint64_t section_offset, Features& out) {
  out.present.set(static_cast<std::size_t>(bit));
  out.raw[bit].assign(section.begin(), section.end());
  ByteReader r(section, swap);
  auto check = [&](std::string_view what) -> Result<void> {
    if (!r.ok()) {
      return bad_feature(bit, section_offset, fmt::format("truncated while reading {}", what));
    }
    return {};
  };
  switch (static_cast<Feature>(bit)) {
    case Feature::kTracingData:
      out.tracing_data.assign(section.begin(), section.end());
      return {};
    case Feature::kBuildId: {
      std::size_t pos = 0;
      while (section.size() - pos >= kHeaderSize) {
        auto h = peek_header(section.subspan(pos), swap);
        if (!h || h->size < kHeaderSize || h->size > section.size() - pos) {
          return bad_feature(bit, section_offset + pos, "bad build-id entry size");
        }
        // perf writes these entries with a zero type (write_buildid()): read each as
        // a HEADER_BUILD_ID whatever its type says.
        std::vector<std::byte> entry(section.begin() + static_cast<std::ptrdiff_t>(pos),
                                     section.begin() + static_cast<std::ptrdiff_t>(pos + h->size));
        std::uint32_t type = raw::PERF_RECORD_HEADER_BUILD_ID;
        if (swap) type = __builtin_bswap32(type);
        std::memcpy(entry.data(), &type, sizeof type);
        auto rec =
            decode_record(entry, AttrTable{}, {.swap = swap, .offset = section_offset + pos});
        if (!rec) return tl::unexpected(std::move(rec).error());
        if (const auto* b = rec->get<HeaderBuildId>()) {
          BuildIdEntry e;
          e.pid = b->pid;
          e.misc = static_cast<std::uint16_t>(h->misc & ~(1u << 15));
          e.build_id.assign(b->build_id.begin(), b->build_id.begin() + b->build_id_size);
          e.filename = std::string(b->filename);
          out.build_ids.push_back(std::move(e));
        }
        pos += h->size;
      }
      return {};
    }
    case Feature::kHostname:
      out.hostname = read_string(r);
      return check("hostname");
    case Feature::kOsRelease:
      out.osrelease = read_string(r);
      return check("osrelease");
    case Feature::kVersion:
      out.version = read_string(r);
      return check("version");
    case Feature::kArch:
      out.arch = read_string(r);
      return check("arch");
    case Feature::kCpuDesc:
      out.cpudesc = read_string(r);
      return check("cpudesc");
    case Feature::kCpuId:
      out.cpuid = read_string(r);
      return check("cpuid");
    case Feature::kNrCpus: {
      NrCpus n;
      n.available = r.u32();
      n.online = r.u32();
      out.nrcpus = n;
      return check("nrcpus");
    }
    case Feature::kTotalMem:
      out.total_mem_kb = r.u64();
      return check("total_mem");
    case Feature::kCmdline: {
      const std::uint32_t n = r.u32();
      if (n > section.size()) return bad_feature(bit, section_offset, "bad argument count");
      std::vector<std::string> args;
      for (std::uint32_t i = 0; i < n && r.ok(); ++i) args.push_back(read_string(r));
      out.cmdline = std::move(args);
      return check("cmdline");
    }
    case Feature::kEventDesc: {
      const std::uint32_t nre = r.u32();
      const std::uint32_t sz = r.u32();
      if (!r.ok() || sz < PERF_ATTR_SIZE_VER0 || nre > section.size() / sz) {
        return bad_feature(bit, section_offset, "bad event count or attr size");
      }
      out.event_desc.clear();
      for (std::uint32_t i = 0; i < nre && r.ok(); ++i) {
        EventDesc d;
        d.attr = attr_from_bytes(r.take(sz), swap);
        const std::uint32_t nr = r.u32();
        d.name = read_string(r);
        auto ids = r.take_array(nr, 8);
        U64Array a(ids, swap);
        for (std::uint64_t id : a) d.ids.push_back(id);
        out.event_desc.push_back(std::move(d));
      }
      return check("event_desc");
    }
    case Feature::kCpuTopology: {
      CpuTopology t;
      std::uint32_t n = r.u32();
      if (n > section.size()) return bad_feature(bit, section_offset, "bad sibling count");
      for (std::uint32_t i = 0; i < n && r.ok(); ++i) t.core_siblings.push_back(read_string(r));
      n = r.u32();
      if (n > section.size()) return bad_feature(bit, section_offset, "bad sibling count");
      for (std::uint32_t i = 0; i < n && r.ok(); ++i) t.thread_siblings.push_back(read_string(r));
      PERFX_CHECK(check("cpu_topology"));
      std::uint32_t ncpu = out.nrcpus ? out.nrcpus->available : 0;
      if (r.remaining() >= std::uint64_t{ncpu} * 8 && ncpu != 0) {
        for (std::uint32_t i = 0; i < ncpu; ++i) {
          CpuTopology::Cpu c;
          c.core_id = r.u32();
          c.socket_id = r.u32();
          t.cpus.push_back(c);
        }
        if (r.remaining() >= 4) {
          t.has_dies = true;
          n = r.u32();
          if (n > section.size()) return bad_feature(bit, section_offset, "bad die count");
          for (std::uint32_t i = 0; i < n && r.ok(); ++i) t.die_siblings.push_back(read_string(r));
          for (std::uint32_t i = 0; i < ncpu && r.ok(); ++i) t.cpus[i].die_id = r.u32();
        }
      }
      out.cpu_topology = std::move(t);
      return check("cpu_topology");
    }
    case Feature::kNumaTopology: {
      const std::uint32_t n = r.u32();
      if (n > section.size()) return bad_feature(bit, section_offset, "bad node count");
      out.numa_topology.clear();
      for (std::uint32_t i = 0; i < n && r.ok(); ++i) {
        NumaNode node;
        node.node = r.u32();
        node.mem_total_kb = r.u64();
        node.mem_free_kb = r.u64();
        node.cpus = read_string(r);
        out.numa_topology.push_back(std::move(node));
      }
      return check("numa_topology");
    }
    case Feature::kBranchStack:
      out.branch_stack = true;
      return {};
    case Feature::kPmuMappings: {
      const std::uint32_t n = r.u32();
      if (n > section.size()) return bad_feature(bit, section_offset, "bad pmu count");
      out.pmu_mappings.clear();
      for (std::uint32_t i = 0; i < n && r.ok(); ++i) {
        PmuMapping m;
        m.type = r.u32();
        m.name = read_string(r);
        out.pmu_mappings.push_back(std::move(m));
      }
      return check("pmu_mappings");
    }
    case Feature::kGroupDesc: {
      const std::uint32_t n = r.u32();
      if (n > section.size()) return bad_feature(bit, section_offset, "bad group count");
      out.group_desc.clear();
      for (std::uint32_t i = 0; i < n && r.ok(); ++i) {
        GroupDesc g;
        g.name = read_string(r);
        g.leader_idx = r.u32();
        g.nr_members = r.u32();
        out.group_desc.push_back(std::move(g));
      }
      return check("group_desc");
    }
    case Feature::kCache: {
      const std::uint32_t version = r.u32();
      const std::uint32_t n = r.u32();
      if (!r.ok() || version != 1 || n > section.size()) {
        return bad_feature(bit, section_offset, "unknown cache version or bad count");
      }
      out.cache.clear();
      for (std::uint32_t i = 0; i < n && r.ok(); ++i) {
        CacheLevel c;
        c.level = r.u32();
        c.line_size = r.u32();
        c.sets = r.u32();
        c.ways = r.u32();
        c.type = read_string(r);
        c.size = read_string(r);
        c.map = read_string(r);
        out.cache.push_back(std::move(c));
      }
      return check("cache");
    }
    case Feature::kSampleTime: {
      SampleTime t;
      t.first_ns = r.u64();
      t.last_ns = r.u64();
      out.sample_time = t;
      return check("sample_time");
    }
    case Feature::kClockId:
      out.clockid_res_ns = r.u64();
      return check("clockid");
    case Feature::kDirFormat:
      out.dir_format_version = r.u64();
      return check("dir_format");
    case Feature::kCompressed: {
      CompressedInfo c;
      c.version = r.u32();
      c.type = r.u32();
      c.level = r.u32();
      c.ratio = r.u32();
      c.mmap_len = r.u32();
      out.compressed = c;
      return check("compressed");
    }
    case Feature::kCpuPmuCaps: {
      PmuCaps caps;
      caps.pmu = "cpu";
      const std::uint32_t n = r.u32();
      if (n > section.size()) return bad_feature(bit, section_offset, "bad caps count");
      for (std::uint32_t i = 0; i < n && r.ok(); ++i) {
        std::string name = read_string(r);
        std::string value = read_string(r);
        caps.caps.emplace_back(std::move(name), std::move(value));
      }
      out.cpu_pmu_caps = std::move(caps);
      return check("cpu_pmu_caps");
    }
    case Feature::kClockData: {
      ClockData c;
      c.version = r.u32();
      c.clockid = r.u32();
      c.wall_clock_ns = r.u64();
      c.clockid_time_ns = r.u64();
      out.clock_data = c;
      return check("clock_data");
    }
    case Feature::kHybridTopology: {
      const std::uint32_t n = r.u32();
      if (n > section.size()) return bad_feature(bit, section_offset, "bad node count");
      out.hybrid_topology.clear();
      for (std::uint32_t i = 0; i < n && r.ok(); ++i) {
        HybridNode h;
        h.pmu_name = read_string(r);
        h.cpus = read_string(r);
        out.hybrid_topology.push_back(std::move(h));
      }
      return check("hybrid_topology");
    }
    case Feature::kPmuCaps: {
      const std::uint32_t npmu = r.u32();
      if (npmu > section.size()) return bad_feature(bit, section_offset, "bad pmu count");
      out.pmu_caps.clear();
      for (std::uint32_t p = 0; p < npmu && r.ok(); ++p) {
        PmuCaps caps;
        const std::uint32_t n = r.u32();
        if (n > section.size()) return bad_feature(bit, section_offset, "bad caps count");
        for (std::uint32_t i = 0; i < n && r.ok(); ++i) {
          std::string name = read_string(r);
          std::string value = read_string(r);
          caps.caps.emplace_back(std::move(name), std::move(value));
        }
        caps.pmu = read_string(r);
        out.pmu_caps.push_back(std::move(caps));
      }
      return check("pmu_caps");
    }
    default:
      return {};  // AUXTRACE, STAT, MEM_TOPOLOGY, BPF_*: kept raw
  }
}

std::optional<std::vector<std::byte>> encode_feature(int bit, const Features& in) {
  if (auto it = in.raw.find(bit); it != in.raw.end()) return it->second;
  Writer w;
  switch (static_cast<Feature>(bit)) {
    case Feature::kTracingData:
      if (in.tracing_data.empty()) return std::nullopt;
      return in.tracing_data;
    case Feature::kBuildId: {
      if (in.build_ids.empty()) return std::nullopt;
      for (const auto& b : in.build_ids) {
        Record rec;
        rec.header.type = raw::PERF_RECORD_HEADER_BUILD_ID;
        rec.header.misc = static_cast<std::uint16_t>(b.misc | (1u << 15));
        HeaderBuildId hb;
        hb.pid = b.pid;
        hb.build_id_size = static_cast<std::uint8_t>(std::min<std::size_t>(b.build_id.size(), 20));
        if (hb.build_id_size > 0)
          std::memcpy(hb.build_id.data(), b.build_id.data(), hb.build_id_size);
        hb.filename = b.filename;
        rec.body = hb;
        if (!encode_record(rec, SampleLayout{}, w.out)) return std::nullopt;
      }
      return std::move(w.out);
    }
    case Feature::kHostname:
      if (!in.hostname) return std::nullopt;
      w.string(*in.hostname);
      break;
    case Feature::kOsRelease:
      if (!in.osrelease) return std::nullopt;
      w.string(*in.osrelease);
      break;
    case Feature::kVersion:
      if (!in.version) return std::nullopt;
      w.string(*in.version);
      break;
    case Feature::kArch:
      if (!in.arch) return std::nullopt;
      w.string(*in.arch);
      break;
    case Feature::kCpuDesc:
      if (!in.cpudesc) return std::nullopt;
      w.string(*in.cpudesc);
      break;
    case Feature::kCpuId:
      if (!in.cpuid) return std::nullopt;
      w.string(*in.cpuid);
      break;
    case Feature::kNrCpus:
      if (!in.nrcpus) return std::nullopt;
      w.u32(in.nrcpus->available);
      w.u32(in.nrcpus->online);
      break;
    case Feature::kTotalMem:
      if (!in.total_mem_kb) return std::nullopt;
      w.u64(*in.total_mem_kb);
      break;
    case Feature::kCmdline:
      if (!in.cmdline) return std::nullopt;
      w.u32(static_cast<std::uint32_t>(in.cmdline->size()));
      for (const auto& a : *in.cmdline) w.string(a);
      break;
    case Feature::kEventDesc: {
      if (in.event_desc.empty()) return std::nullopt;
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
      break;
    }
    case Feature::kCpuTopology: {
      if (!in.cpu_topology) return std::nullopt;
      const auto& t = *in.cpu_topology;
      w.u32(static_cast<std::uint32_t>(t.core_siblings.size()));
      for (const auto& s : t.core_siblings) w.string(s);
      w.u32(static_cast<std::uint32_t>(t.thread_siblings.size()));
      for (const auto& s : t.thread_siblings) w.string(s);
      if (!t.cpus.empty()) {
        for (const auto& c : t.cpus) {
          w.u32(c.core_id);
          w.u32(c.socket_id);
        }
        if (t.has_dies) {
          w.u32(static_cast<std::uint32_t>(t.die_siblings.size()));
          for (const auto& s : t.die_siblings) w.string(s);
          for (const auto& c : t.cpus) w.u32(c.die_id);
        }
      }
      break;
    }
    case Feature::kNumaTopology:
      if (in.numa_topology.empty()) return std::nullopt;
      w.u32(static_cast<std::uint32_t>(in.numa_topology.size()));
      for (const auto& n : in.numa_topology) {
        w.u32(n.node);
        w.u64(n.mem_total_kb);
        w.u64(n.mem_free_kb);
        w.string(n.cpus);
      }
      break;
    case Feature::kBranchStack:
      if (!in.branch_stack) return std::nullopt;
      break;
    case Feature::kPmuMappings:
      if (in.pmu_mappings.empty()) return std::nullopt;
      w.u32(static_cast<std::uint32_t>(in.pmu_mappings.size()));
      for (const auto& m : in.pmu_mappings) {
        w.u32(m.type);
        w.string(m.name);
      }
      break;
    case Feature::kGroupDesc:
      if (in.group_desc.empty()) return std::nullopt;
      w.u32(static_cast<std::uint32_t>(in.group_desc.size()));
      for (const auto& g : in.group_desc) {
        w.string(g.name);
        w.u32(g.leader_idx);
        w.u32(g.nr_members);
      }
      break;
    case Feature::kCache:
      if (in.cache.empty()) return std::nullopt;
      w.u32(1);
      w.u32(static_cast<std::uint32_t>(in.cache.size()));
      for (const auto& c : in.cache) {
        w.u32(c.level);
        w.u32(c.line_size);
        w.u32(c.sets);
        w.u32(c.ways);
        w.string(c.type);
        w.string(c.size);
        w.string(c.map);
      }
      break;
    case Feature::kSampleTime:
      if (!in.sample_time) return std::nullopt;
      w.u64(in.sample_time->first_ns);
      w.u64(in.sample_time->last_ns);
      break;
    case Feature::kClockId:
      if (!in.clockid_res_ns) return std::nullopt;
      w.u64(*in.clockid_res_ns);
      break;
    case Feature::kDirFormat:
      if (!in.dir_format_version) return std::nullopt;
      w.u64(*in.dir_format_version);
      break;
    case Feature::kCompressed:
      if (!in.compressed) return std::nullopt;
      w.u32(in.compressed->version);
      w.u32(in.compressed->type);
      w.u32(in.compressed->level);
      w.u32(in.compressed->ratio);
      w.u32(in.compressed->mmap_len);
      break;
    case Feature::kCpuPmuCaps:
      if (!in.cpu_pmu_caps) return std::nullopt;
      w.u32(static_cast<std::uint32_t>(in.cpu_pmu_caps->caps.size()));
      for (const auto& [k, v] : in.cpu_pmu_caps->caps) {
        w.string(k);
        w.string(v);
      }
      break;
    case Feature::kClockData:
      if (!in.clock_data) return std::nullopt;
      w.u32(in.clock_data->version);
      w.u32(in.clock_data->clockid);
      w.u64(in.clock_data->wall_clock_ns);
      w.u64(in.clock_data->clockid_time_ns);
      break;
    case Feature::kHybridTopology:
      if (in.hybrid_topology.empty()) return std::nullopt;
      w.u32(static_cast<std::uint32_t>(in.hybrid_topology.size()));
      for (const auto& h : in.hybrid_topology) {
        w.string(h.pmu_name);
        w.string(h.cpus);
      }
      break;
    case Feature::kPmuCaps:
      if (in.pmu_caps.empty()) return std::nullopt;
      w.u32(static_cast<std::uint32_t>(in.pmu_caps.size()));
      for (const auto& p : in.pmu_caps) {
        w.u32(static_cast<std::uint32_t>(p.caps.size()));
        for (const auto& [k, v] : p.caps) {
          w.string(k);
          w.string(v);
        }
        w.string(p.pmu);
      }
      break;
    default:
      return std::nullopt;
  }
  return std::move(w.out);
}

namespace {

std::string upper(std::string_view s) {
  std::string o(s);
  for (char& c : o) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
  return o;
}

std::string read_format_names(std::uint64_t rf) {
  static constexpr std::pair<std::uint64_t, const char*> kBits[] = {
      {PERF_FORMAT_TOTAL_TIME_ENABLED, "TOTAL_TIME_ENABLED"},
      {PERF_FORMAT_TOTAL_TIME_RUNNING, "TOTAL_TIME_RUNNING"},
      {PERF_FORMAT_ID, "ID"},
      {PERF_FORMAT_GROUP, "GROUP"},
      {PERF_FORMAT_LOST, "LOST"},
  };
  std::string out;
  for (const auto& [bit, name] : kBits) {
    if (rf & bit) {
      if (!out.empty()) out += '|';
      out += name;
    }
  }
  return out;
}

}  // namespace

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
  if (a.read_format) add("read_format", read_format_names(a.read_format));
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

namespace {

std::string usec_timestamp(std::uint64_t ns) {
  return fmt::format("{}.{:06}", ns / 1000000000u, (ns % 1000000000u) / 1000u);
}

}  // namespace

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
  auto has = [&](Feature x) { return f.has(x); };
  for (int bit = 1; bit <= static_cast<int>(Feature::kPmuCaps); ++bit) {
    if (!f.present.test(static_cast<std::size_t>(bit))) continue;
    switch (static_cast<Feature>(bit)) {
      case Feature::kHostname:
        if (f.hostname) o += fmt::format("# hostname : {}\n", *f.hostname);
        break;
      case Feature::kOsRelease:
        if (f.osrelease) o += fmt::format("# os release : {}\n", *f.osrelease);
        break;
      case Feature::kVersion:
        if (f.version) o += fmt::format("# perf version : {}\n", *f.version);
        break;
      case Feature::kArch:
        if (f.arch) o += fmt::format("# arch : {}\n", *f.arch);
        break;
      case Feature::kNrCpus:
        if (f.nrcpus) {
          o += fmt::format("# nrcpus online : {}\n# nrcpus avail : {}\n", f.nrcpus->online,
                           f.nrcpus->available);
        }
        break;
      case Feature::kCpuDesc:
        if (f.cpudesc) o += fmt::format("# cpudesc : {}\n", *f.cpudesc);
        break;
      case Feature::kCpuId:
        if (f.cpuid) o += fmt::format("# cpuid : {}\n", *f.cpuid);
        break;
      case Feature::kTotalMem:
        if (f.total_mem_kb) o += fmt::format("# total memory : {} kB\n", *f.total_mem_kb);
        break;
      case Feature::kCmdline:
        if (f.cmdline) {
          o += "# cmdline : ";
          for (const auto& a : *f.cmdline) o += a + " ";
          o += "\n";
        }
        break;
      case Feature::kEventDesc:
        for (const auto& d : f.event_desc) {
          o += fmt::format("# event : name = {}, ", d.name);
          if (!d.ids.empty()) {
            o += ", id = {";
            for (std::size_t i = 0; i < d.ids.size(); ++i) {
              o += fmt::format("{} {}", i == 0 ? "" : ",", d.ids[i]);
            }
            o += " }";
          }
          o += attr_fields(d.attr, " = ");
          o += "\n";
        }
        break;
      case Feature::kCpuTopology:
      case Feature::kNumaTopology:
      case Feature::kCache:
      case Feature::kMemTopology:
      case Feature::kHybridTopology:
        o += fmt::format("# {} info available, use -I to display\n", upper(feature_name(bit)));
        break;
      case Feature::kBranchStack:
        o += "# contains samples with branch stack\n";
        break;
      case Feature::kPmuMappings: {
        o += "# pmu mappings: ";
        if (f.pmu_mappings.empty()) o += "not available";
        for (std::size_t i = 0; i < f.pmu_mappings.size(); ++i) {
          o += fmt::format("{}{} = {}", i == 0 ? "" : ", ", f.pmu_mappings[i].name,
                           f.pmu_mappings[i].type);
        }
        o += "\n";
        break;
      }
      case Feature::kGroupDesc:
        for (const auto& g : f.group_desc) {
          if (g.nr_members <= 1) continue;
          o += fmt::format("# group: {}{{", g.name);
          // nr_members comes from the file: never loop past the attrs that exist.
          for (std::uint32_t i = 0;
               i < g.nr_members && g.leader_idx + std::size_t{i} < attrs.size(); ++i) {
            const std::size_t idx = g.leader_idx + i;
            o += (i == 0 ? "" : ",");
            if (idx < attrs.size()) o += attrs[idx].name;
          }
          o += "}\n";
        }
        break;
      case Feature::kAuxtrace:
        o += "# contains AUX area data (e.g. instruction trace)\n";
        break;
      case Feature::kStat:
        o += "# contains stat data\n";
        break;
      case Feature::kSampleTime:
        if (f.sample_time) {
          o +=
              fmt::format("# time of first sample : {}\n", usec_timestamp(f.sample_time->first_ns));
          o += fmt::format("# time of last sample : {}\n", usec_timestamp(f.sample_time->last_ns));
          const double ms =
              static_cast<double>(f.sample_time->last_ns - f.sample_time->first_ns) / 1e6;
          o += fmt::format("# sample duration : {:10.3f} ms\n", ms);
        }
        break;
      case Feature::kClockId:
        if (f.clockid_res_ns) {
          o += fmt::format("# clockid frequency: {} MHz\n", *f.clockid_res_ns * 1000);
        }
        break;
      case Feature::kDirFormat:
        if (f.dir_format_version) {
          o += fmt::format("# directory data version : {}\n", *f.dir_format_version);
        }
        break;
      case Feature::kCompressed:
        if (f.compressed) {
          o += fmt::format("# compressed : {}, level = {}, ratio = {}\n",
                           f.compressed->type == 1 ? "Zstd" : "Unknown", f.compressed->level,
                           f.compressed->ratio);
        }
        break;
      case Feature::kCpuPmuCaps:
        if (f.cpu_pmu_caps) {
          o += "# cpu pmu capabilities: ";
          if (f.cpu_pmu_caps->caps.empty()) o += "not available";
          for (std::size_t i = 0; i < f.cpu_pmu_caps->caps.size(); ++i) {
            o += fmt::format("{}{}={}", i == 0 ? "" : ", ", f.cpu_pmu_caps->caps[i].first,
                             f.cpu_pmu_caps->caps[i].second);
          }
          o += "\n";
        }
        break;
      case Feature::kPmuCaps:
        for (const auto& p : f.pmu_caps) {
          if (p.caps.empty()) continue;
          o += fmt::format("# {} pmu capabilities: ", p.pmu);
          for (std::size_t i = 0; i < p.caps.size(); ++i) {
            o += fmt::format("{}{}={}", i == 0 ? "" : ", ", p.caps[i].first, p.caps[i].second);
          }
          o += "\n";
        }
        break;
      case Feature::kClockData:
        if (f.clock_data) {
          const auto& c = *f.clock_data;
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
          o += fmt::format("# clockid: {} ({})\n", clk, c.clockid);
          o += fmt::format("# reference time: {}.{:06} = {}.{:06} (TOD) = {}.{:09} ({})\n", buf,
                           (c.wall_clock_ns % 1000000000u) / 1000u, c.wall_clock_ns / 1000000000u,
                           (c.wall_clock_ns % 1000000000u) / 1000u, c.clockid_time_ns / 1000000000u,
                           c.clockid_time_ns % 1000000000u, clk);
        }
        break;
      default:
        break;
    }
  }
  (void)has;
  if (info.pipe) return o;
  std::string missing;
  for (int bit = 1; bit <= static_cast<int>(Feature::kPmuCaps); ++bit) {
    if (!f.present.test(static_cast<std::size_t>(bit))) missing += upper(feature_name(bit)) + " ";
  }
  if (!missing.empty()) o += "# missing features: " + missing + "\n";
  o += "# ========\n#\n";
  return o;
}

}  // namespace perfx::record
