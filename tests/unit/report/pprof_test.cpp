#include "report/pprof.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

#include "core/utf8.hpp"
#include "export_test_profile.hpp"
#include "report/export.hpp"
#include "report/pprof_proto.hpp"

namespace perfx::report {
namespace {

// Parses an exported file the way pprof does: gunzip, then the published schema.
pb::Profile read_back(const profile::Profile& p, const ExportOptions& o = {}) {
  std::ostringstream out;
  auto r = report::export_profile("pprof", p, out, o);
  EXPECT_TRUE(r) << (r ? "" : r.error().message());
  const std::string bytes = out.str();
  EXPECT_GE(bytes.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(bytes[0]), 0x1f);  // gzip magic
  EXPECT_EQ(static_cast<unsigned char>(bytes[1]), 0x8b);
  auto raw = gzip_decompress(bytes);
  EXPECT_TRUE(raw);
  pb::Profile parsed;
  EXPECT_TRUE(parsed.ParseFromString(*raw));
  return parsed;
}

TEST(Pprof, InvalidUtf8BecomesReplacementCharacters) {
  // proto3 strings must be UTF-8: libprotobuf refuses to parse (and logs an error when
  // serializing) otherwise. Bad bytes in a comm or a symbol become U+FFFD.
  auto p = testing::make_test_profile();
  p.threads[0].comm = "\xFF\xFEname";
  p.frames[2].function = "ma\xC3(in";
  const auto pp = read_back(p);
  std::set<std::string> strings(pp.string_table().begin(), pp.string_table().end());
  EXPECT_TRUE(strings.count("\xEF\xBF\xBD\xEF\xBF\xBDname"));
  EXPECT_TRUE(strings.count("ma\xEF\xBF\xBD(in"));
  for (const auto& s : strings) EXPECT_TRUE(core::is_valid_utf8(s)) << s;
}

TEST(Pprof, UnresolvedAddressesStayApartPerMappingAndAddress) {
  // perf shows an unresolved address as "0x<map-relative address>"; pprof used to lump
  // every one of them, of every library, into a single "[unknown]".
  auto p = testing::make_test_profile();
  auto unknown = [&](std::int32_t mapping, std::uint64_t map_address) {
    profile::Frame f;
    f.function = "[unknown]";
    f.dso = mapping == 0 ? "demo" : "libc.so.6";
    f.kind = profile::FrameKind::kUser;
    f.mapping = mapping;
    f.map_address = map_address;
    f.address = p.mappings[static_cast<std::size_t>(mapping)].start + map_address;
    p.frames.push_back(f);
    return static_cast<std::uint32_t>(p.frames.size() - 1);
  };
  const std::uint32_t a = unknown(0, 0x1a2b3);
  const std::uint32_t b = unknown(0, 0x1a2c0);
  const std::uint32_t c = unknown(1, 0x1a2b3);  // same offset, another library
  for (std::uint32_t leaf : {a, b, c}) {
    p.stacks.push_back({0, 1, 2, leaf});
    profile::Sample s = p.samples.front();
    s.stack = static_cast<std::uint32_t>(p.stacks.size() - 1);
    p.samples.push_back(s);
  }
  const auto pp = read_back(p);
  auto str = [&](std::int64_t i) { return pp.string_table(static_cast<int>(i)); };
  std::map<std::string, int> names;
  for (const auto& fn : pp.function()) ++names[str(fn.name())];
  EXPECT_EQ(names.count("[unknown]"), 0u);
  EXPECT_EQ(names["0x000000000001a2b3"], 2);  // one per mapping
  EXPECT_EQ(names["0x000000000001a2c0"], 1);
  // Each location keeps its mapping, so pprof can tell the two 0x1a2b3 apart.
  std::set<std::uint64_t> mappings_of_1a2b3;
  for (const auto& loc : pp.location())
    for (const auto& line : loc.line())
      for (const auto& fn : pp.function())
        if (fn.id() == line.function_id() && str(fn.name()) == "0x000000000001a2b3")
          mappings_of_1a2b3.insert(loc.mapping_id());
  EXPECT_EQ(mappings_of_1a2b3.size(), 2u);
}

TEST(Pprof, SampleTotalsAndTypes) {
  const auto p = testing::make_test_profile();
  const auto pp = read_back(p);
  ASSERT_GT(pp.string_table_size(), 0);
  EXPECT_EQ(pp.string_table(0), "");
  auto str = [&](std::int64_t i) { return pp.string_table(static_cast<int>(i)); };
  ASSERT_EQ(pp.sample_type_size(), 2);
  EXPECT_EQ(str(pp.sample_type(0).type()), "samples");
  EXPECT_EQ(str(pp.sample_type(0).unit()), "count");
  EXPECT_EQ(str(pp.sample_type(1).type()), "cpu");
  EXPECT_EQ(str(pp.sample_type(1).unit()), "nanoseconds");
  EXPECT_EQ(str(pp.default_sample_type()), "cpu");
  std::int64_t count = 0;
  std::int64_t ns = 0;
  for (const auto& s : pp.sample()) {
    ASSERT_EQ(s.value_size(), 2);
    count += s.value(0);
    ns += s.value(1);
  }
  EXPECT_EQ(count, 123);
  EXPECT_EQ(ns, 118 * 1'000'000 + 5 * 2'000'000);
  EXPECT_EQ(pp.duration_nanos(), static_cast<std::int64_t>(p.end_time_ns - p.start_time_ns));
}

TEST(Pprof, InlineFramesAreLinesOfOneLocationInnermostFirst) {
  const auto pp = read_back(testing::make_test_profile());
  auto str = [&](std::int64_t i) { return pp.string_table(static_cast<int>(i)); };
  std::map<std::uint64_t, const pb::Function*> functions;
  for (const auto& f : pp.function()) functions[f.id()] = &f;
  std::map<std::uint64_t, const pb::Location*> locations;
  for (const auto& l : pp.location()) locations[l.id()] = &l;

  // The sample with 60 counts: leaf location is compute+hot_loop at 0x400300.
  const pb::Sample* hot = nullptr;
  for (const auto& s : pp.sample()) {
    if (s.value(0) == 60) hot = &s;
  }
  ASSERT_NE(hot, nullptr);
  ASSERT_EQ(hot->location_id_size(), 4);  // compute(+hot_loop), main, libc, _start
  const auto* leaf = locations.at(hot->location_id(0));
  EXPECT_EQ(leaf->address(), 0x400300u);
  ASSERT_EQ(leaf->line_size(), 2);
  EXPECT_EQ(str(functions.at(leaf->line(0).function_id())->name()), "hot_loop");
  EXPECT_EQ(leaf->line(0).line(), 12);
  EXPECT_EQ(str(functions.at(leaf->line(1).function_id())->name()), "compute");
  EXPECT_EQ(str(functions.at(leaf->line(1).function_id())->filename()), "demo.c");
  const auto* root = locations.at(hot->location_id(3));
  EXPECT_EQ(str(functions.at(root->line(0).function_id())->name()), "_start");

  // Mapping of the leaf: the demo binary with its build-id, first (pprof's main binary).
  ASSERT_EQ(pp.mapping_size(), 3);
  const auto& m = pp.mapping(static_cast<int>(leaf->mapping_id() - 1));
  EXPECT_EQ(leaf->mapping_id(), 1u);
  EXPECT_EQ(m.id(), leaf->mapping_id());
  EXPECT_EQ(str(m.filename()), "/usr/bin/demo");
  EXPECT_EQ(str(m.build_id()), "0123456789abcdef0123456789abcdef01234567");
  EXPECT_EQ(m.memory_start(), 0x400000u);
  EXPECT_TRUE(m.has_inline_frames());

  // Labels.
  std::map<std::string, std::string> labels;
  for (const auto& l : hot->label()) {
    labels[str(l.key())] = l.str() ? str(l.str()) : std::to_string(l.num());
  }
  EXPECT_EQ(labels["pid"], "100");
  EXPECT_EQ(labels["tid"], "100");
  EXPECT_EQ(labels["comm"], "demo");
}

TEST(Pprof, MainBinaryIsTheMappingWithTheMostUserSamples) {
  auto p = testing::make_test_profile();
  std::swap(p.mappings[0], p.mappings[1]);  // demo is now index 1, libc index 0
  for (auto& f : p.frames) {
    if (f.mapping == 0) {
      f.mapping = 1;
    } else if (f.mapping == 1) {
      f.mapping = 0;
    }
  }
  const auto pp = read_back(p);
  ASSERT_EQ(pp.mapping_size(), 3);
  EXPECT_EQ(pp.string_table(static_cast<int>(pp.mapping(0).filename())), "/usr/bin/demo");
  EXPECT_EQ(pp.mapping(0).id(), 1u);
  EXPECT_EQ(pp.string_table(static_cast<int>(pp.mapping(1).filename())),
            "/usr/lib/x86_64-linux-gnu/libc.so.6");
  // Every location's mapping id still names the mapping that holds its address.
  for (const auto& l : pp.location()) {
    if (!l.mapping_id()) continue;
    const auto& m = pp.mapping(static_cast<int>(l.mapping_id() - 1));
    EXPECT_GE(l.address(), m.memory_start());
    EXPECT_LT(l.address(), m.memory_limit());
  }
}

TEST(Pprof, WithoutInlineFramesAndPerThreadAggregation) {
  ExportOptions o;
  o.inline_frames = false;
  const auto pp = read_back(testing::make_test_profile(), o);
  for (const auto& l : pp.location()) EXPECT_EQ(l.line_size(), 1);
  // One pprof sample per (stack, thread) pair that occurs: 6.
  EXPECT_EQ(pp.sample_size(), 6);
}

TEST(Pprof, SeveralEventsGetTheirOwnColumns) {
  auto p = testing::make_test_profile();
  p.events.push_back({"sched:sched_switch", "events"});
  p.samples[0].event = 1;
  p.samples[0].period = 1;
  const auto pp = read_back(p);
  ASSERT_EQ(pp.sample_type_size(), 4);
  EXPECT_EQ(pp.string_table(static_cast<int>(pp.sample_type(2).type())),
            "sched:sched_switch_samples");
  std::int64_t col0 = 0;
  std::int64_t col2 = 0;
  for (const auto& s : pp.sample()) {
    col0 += s.value(0);
    col2 += s.value(2);
  }
  EXPECT_EQ(col0, 122);
  EXPECT_EQ(col2, 1);
}

TEST(Gzip, RoundTripAndCorruption) {
  std::string data(100000, 'x');
  for (std::size_t i = 0; i < data.size(); i += 7) data[i] = static_cast<char>('a' + i % 26);
  auto z = gzip_compress(data);
  ASSERT_TRUE(z);
  auto back = gzip_decompress(*z);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, data);
  EXPECT_FALSE(gzip_decompress(z->substr(0, z->size() / 2)));
  EXPECT_FALSE(gzip_decompress("not gzip at all"));
}

}  // namespace
}  // namespace perfx::report
