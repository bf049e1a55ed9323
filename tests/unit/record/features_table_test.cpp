// The perf.data feature table (record/features.cpp): every feature perfx decodes goes
// through encode -> decode -> encode unchanged, prints the header lines perf 6.1 prints,
// and a truncated section is an error naming the feature.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "record/features.hpp"
#include "record/sample_layout.hpp"
#include "sample_features.hpp"

namespace perfx::record {
namespace {

// perf 6.1 prints these lines for these values (header.c print_* of each feature).
constexpr const char* kExpectedHeader = R"(# ========
# captured on    : Sun Nov 22 21:54:26 2026
# header version : 1
# data offset    : 296
# data size      : 4096
# feat offset    : 4392
# hostname : testhost
# os release : 6.1.0-test
# perf version : 6.1.perfx
# arch : x86_64
# nrcpus online : 2
# nrcpus avail : 4
# cpudesc : Test CPU @ 1GHz
# cpuid : GenuineIntel,6,85,4
# total memory : 123456 kB
# cmdline : /usr/bin/perfx record -g 
# event : name = cpu-clock, , id = { 11, 12 }, type = 1, size = 128, { sample_period, sample_freq } = 4000, freq = 1
# event : name = page-faults, , id = { 13 }, type = 1, size = 128, config = 0x2, { sample_period, sample_freq } = 4000, freq = 1
# CPU_TOPOLOGY info available, use -I to display
# NUMA_TOPOLOGY info available, use -I to display
# contains samples with branch stack
# pmu mappings: software = 1, tracepoint = 2
# group: {cpu-clock,page-faults}{cpu-clock,page-faults}
# contains stat data
# CACHE info available, use -I to display
# time of first sample : 1.000000
# time of last sample : 3.500000
# sample duration :   2500.000 ms
# clockid frequency: 1000 MHz
# directory data version : 1
# compressed : Zstd, level = 3, ratio = 5
# cpu pmu capabilities: branches=32, max_precise=3
# clockid: monotonic (1)
# reference time: 2023-11-14 22:13:20.123456 = 1700000000.123456 (TOD) = 5000.123456789 (monotonic)
# HYBRID_TOPOLOGY info available, use -I to display
# ibs_op pmu capabilities: zen4_ibs_extensions=1
# missing features: AUXTRACE MEM_TOPOLOGY BPF_PROG_INFO BPF_BTF 
# ========
#
)";

// sample_features() and the sections it leaves out, with more than one entry where perf
// prints a list.
Features every_feature() {
  Features f = testing::sample_features();
  f.tracing_data = {std::byte{1}, std::byte{2}, std::byte{3}};
  f.cmdline = std::vector<std::string>{"/usr/bin/perfx", "record", "-g"};
  EventDesc d;
  d.attr.type = 1;
  d.attr.size = raw::kAttrSizeVer7;
  d.attr.sample_period = 4000;
  d.attr.freq = 1;
  d.name = "cpu-clock";
  d.ids = {11, 12};
  f.event_desc.push_back(d);
  d.name = "page-faults";
  d.attr.config = 2;
  d.ids = {13};
  f.event_desc.push_back(d);
  f.branch_stack = true;
  f.group_desc = {{"{cpu-clock,page-faults}", 0, 2}};
  f.sample_time = SampleTime{1000000000, 3500000000};
  f.dir_format_version = 1;
  f.compressed = CompressedInfo{1, 1, 3, 5, 300000};
  f.cpu_pmu_caps = PmuCaps{"cpu", {{"branches", "32"}, {"max_precise", "3"}}};
  f.clock_data = ClockData{1, 1, 1700000000123456789ULL, 5000123456789ULL};
  return f;
}

// Decodes every section `in` encodes into a fresh Features, in bit order (as the reader).
Features round_trip(const Features& in) {
  Features out;
  for (int bit = 1; bit < kFeatureBits; ++bit) {
    auto section = encode_feature(bit, in);
    if (!section) continue;
    auto ok = decode_feature(bit, *section, false, 0x1000, out);
    EXPECT_TRUE(ok) << feature_name(bit) << ": " << (ok ? "" : ok.error().message());
  }
  return out;
}

TEST(FeatureTable, NamesFollowPerfsHeaderBits) {
  EXPECT_EQ(feature_name(0), "reserved");
  EXPECT_EQ(feature_name(static_cast<int>(Feature::kHostname)), "hostname");
  EXPECT_EQ(feature_name(static_cast<int>(Feature::kEventDesc)), "event_desc");
  EXPECT_EQ(feature_name(static_cast<int>(Feature::kBpfBtf)), "bpf_btf");
  EXPECT_EQ(feature_name(static_cast<int>(Feature::kPmuCaps)), "pmu_caps");
  EXPECT_EQ(feature_name(32), "unknown");
  EXPECT_EQ(feature_name(-1), "unknown");
}

TEST(FeatureTable, EveryTypedFeatureRoundTripsByteForByte) {
  const Features in = every_feature();
  const Features out = round_trip(in);
  int sections = 0;
  for (int bit = 1; bit < kFeatureBits; ++bit) {
    auto a = encode_feature(bit, in);
    Features typed = out;
    typed.raw.clear();  // encode from the decoded fields, not the kept bytes
    auto b = encode_feature(bit, typed);
    ASSERT_EQ(a.has_value(), b.has_value()) << feature_name(bit);
    if (!a) continue;
    ++sections;
    EXPECT_EQ(*a, *b) << feature_name(bit);
    EXPECT_TRUE(out.present.test(static_cast<std::size_t>(bit))) << feature_name(bit);
    EXPECT_EQ(out.raw.at(bit), *a) << feature_name(bit);
  }
  // Every feature with a typed field: all of 1..31 but AUXTRACE, STAT, MEM_TOPOLOGY, BPF_*.
  EXPECT_EQ(sections, 31 - 5);
  EXPECT_EQ(out.hostname, "testhost");
  ASSERT_EQ(out.event_desc.size(), 2u);
  EXPECT_EQ(out.event_desc[1].name, "page-faults");
  EXPECT_EQ(out.event_desc[1].ids, std::vector<std::uint64_t>{13});
  ASSERT_TRUE(out.cpu_topology);
  EXPECT_EQ(out.cpu_topology->cpus.size(), 4u);
  EXPECT_TRUE(out.cpu_topology->has_dies);
  EXPECT_EQ(out.compressed->mmap_len, 300000u);
  EXPECT_EQ(out.pmu_caps.at(0).pmu, "ibs_op");
  EXPECT_TRUE(out.branch_stack);
}

TEST(FeatureTable, NothingSetEncodesNothing) {
  const Features none;
  for (int bit = 0; bit < kFeatureBits; ++bit) EXPECT_FALSE(encode_feature(bit, none)) << bit;
}

TEST(FeatureTable, RawBytesWinOverTheTypedField) {
  Features f = every_feature();  // hostname "testhost"
  f.raw[static_cast<int>(Feature::kHostname)] = {std::byte{9}};
  EXPECT_EQ(encode_feature(static_cast<int>(Feature::kHostname), f),
            std::vector<std::byte>{std::byte{9}});
  // Undecoded features (AUXTRACE) are kept and written back raw.
  Features out;
  const std::vector<std::byte> aux = {std::byte{4}, std::byte{5}};
  ASSERT_TRUE(decode_feature(static_cast<int>(Feature::kAuxtrace), aux, false, 0, out));
  EXPECT_TRUE(out.has(Feature::kAuxtrace));
  EXPECT_EQ(encode_feature(static_cast<int>(Feature::kAuxtrace), out), aux);
}

TEST(FeatureTable, TruncatedSectionNamesTheFeatureAndOffset) {
  const Features in = every_feature();
  for (Feature f :
       {Feature::kHostname, Feature::kNrCpus, Feature::kTotalMem, Feature::kCmdline,
        Feature::kNumaTopology, Feature::kPmuMappings, Feature::kGroupDesc, Feature::kCache,
        Feature::kSampleTime, Feature::kClockId, Feature::kCompressed, Feature::kCpuPmuCaps,
        Feature::kClockData, Feature::kHybridTopology, Feature::kPmuCaps, Feature::kEventDesc}) {
    const int bit = static_cast<int>(f);
    auto section = encode_feature(bit, in);
    ASSERT_TRUE(section) << feature_name(bit);
    section->resize(section->size() - 1);
    Features out;
    auto r = decode_feature(bit, *section, false, 0x2000, out);
    ASSERT_FALSE(r) << feature_name(bit);
    EXPECT_NE(r.error().message().find(
                  fmt::format("feature section '{}' at offset 0x2000", feature_name(bit))),
              std::string::npos)
        << r.error().message();
  }
}

TEST(FeatureTable, HeaderTextAsPerfPrintsIt) {
  ::setenv("TZ", "UTC", 1);
  ::tzset();
  Features f = round_trip(every_feature());
  f.present.set(static_cast<std::size_t>(Feature::kStat));
  std::vector<AttrEntry> attrs(2);
  attrs[0].name = "cpu-clock";
  attrs[1].name = "page-faults";
  HeaderDumpInfo info;
  info.captured_on = "Sun Nov 22 21:54:26 2026";
  info.data_offset = 296;
  info.data_size = 4096;
  info.feat_offset = 4392;
  const std::string text = format_header(f, attrs, info);
  EXPECT_EQ(text, kExpectedHeader) << text;
  info.pipe = true;
  const std::string pipe = format_header(f, attrs, info);
  EXPECT_EQ(pipe.find("# missing features"), std::string::npos);
  EXPECT_NE(pipe.find("# ========\n#\n# hostname : testhost\n"), std::string::npos) << pipe;
}

}  // namespace
}  // namespace perfx::record
