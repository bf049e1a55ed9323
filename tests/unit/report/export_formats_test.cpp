#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>

#include "core/utf8.hpp"
#include "export_test_profile.hpp"
#include "report/export.hpp"
#include "report/export_util.hpp"
#include "report/side_text.hpp"

namespace perfx::report {
namespace {

std::string run(std::string_view format, const profile::Profile& p, const ExportOptions& o = {}) {
  std::ostringstream out;
  auto r = report::export_profile(format, p, out, o);
  EXPECT_TRUE(r) << format << ": " << (r ? "" : r.error().message());
  return out.str();
}

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = hay.find(needle); pos != std::string::npos; pos = hay.find(needle, pos + 1)) ++n;
  return n;
}

TEST(Export, FormatsAndUnknownFormat) {
  EXPECT_EQ(export_formats().size(), 7u);
  EXPECT_TRUE(is_export_format("speedscope"));
  EXPECT_FALSE(is_export_format("xml"));
  EXPECT_TRUE(is_binary_format("pprof"));
  std::ostringstream out;
  auto r = report::export_profile("xml", testing::make_test_profile(), out, {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), Errc::kInvalidArgument);
  EXPECT_NE(r.error().message().find("'xml'"), std::string::npos);
  EXPECT_NE(r.error().message().find("speedscope"), std::string::npos);
}

// One row per format: the names in documentation order, and each predicate the loader
// and the CLI ask is that row's column.
TEST(Export, TheFormatTableDrivesEveryPredicate) {
  const auto table = export_format_table();
  ASSERT_EQ(table.size(), export_formats().size());
  std::string names;
  for (std::size_t i = 0; i < table.size(); ++i) {
    const ExportFormat& row = table[i];
    EXPECT_EQ(export_formats()[i], row.name);
    EXPECT_EQ(find_export_format(row.name), &row);
    EXPECT_NE(row.write, nullptr) << row.name;
    EXPECT_TRUE(is_export_format(row.name));
    EXPECT_EQ(is_binary_format(row.name), row.binary) << row.name;
    EXPECT_EQ(format_needs_each_sample(row.name), row.needs_each_sample) << row.name;
    EXPECT_EQ(format_merges_runs(row.name), row.merges_runs) << row.name;
    EXPECT_EQ(export_wants_source_lines(row.name), row.wants_source_lines) << row.name;
    if (row.binary) names += std::string(row.name) + "(bin) ";
    if (row.needs_each_sample) names += std::string(row.name) + "(each) ";
    if (row.merges_runs) names += std::string(row.name) + "(runs) ";
    if (row.wants_source_lines) names += std::string(row.name) + "(lines) ";
  }
  EXPECT_EQ(names,
            "pprof(bin) pprof(lines) speedscope(each) speedscope(runs) firefox(each) json(each) "
            "json(lines) ");
  EXPECT_EQ(find_export_format("xml"), nullptr);
  EXPECT_FALSE(is_binary_format("xml"));
  EXPECT_FALSE(format_needs_each_sample("xml"));
  std::ostringstream out;
  auto r = report::export_profile("xml", testing::make_test_profile(), out, {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(),
            "unknown export format 'xml': use one of folded, html, svg, pprof, speedscope, "
            "firefox, json");
}

TEST(Export, EveryFormatRefusesAProfileWithBadIndices) {
  profile::Profile bad = testing::make_test_profile();
  bad.stacks[0].push_back(static_cast<std::uint32_t>(bad.frames.size()) + 5);
  for (auto f : export_formats()) {
    std::ostringstream out;
    auto r = report::export_profile(f, bad, out, {});
    ASSERT_FALSE(r) << f;
    EXPECT_EQ(r.error().code(), Errc::kInvalidArgument) << f;
    EXPECT_NE(r.error().message().find("refers to frame"), std::string::npos) << f;
  }
}

TEST(Export, EmptyProfileExportsInEveryFormat) {
  profile::Profile empty;
  for (auto f : export_formats()) {
    if (f == "folded") {
      EXPECT_EQ(run(f, empty), "");  // no stacks, no lines
    } else {
      EXPECT_FALSE(run(f, empty).empty()) << f;
    }
  }
}

TEST(Export, HtmlIsSelfContainedAndEscaped) {
  auto p = testing::make_test_profile();
  p.frames[5].function = "evil</script><img src=x onerror=alert(1)>";
  ExportOptions o;
  o.title = "<b>title</b>";
  const std::string html = run("html", p, o);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);  // the name stays inside the JSON, escaped
  EXPECT_NE(html.find("&lt;b&gt;title&lt;/b&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<!--PERFX_"), std::string::npos);  // every marker filled
  EXPECT_EQ(count(html, "</script>"), 2u);                // the data block and the code
  EXPECT_NE(html.find("\"hot_loop\""), std::string::npos);
  EXPECT_NE(html.find("window.perfxFlameGraph"), std::string::npos);
}

TEST(Export, SvgHasOneRectPerNodeWithTitles) {
  const std::string svg = run("svg", testing::make_test_profile());
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  // Nodes: all, demo, sh, _start, libc, main, compute, hot_loop, checksum, slow_path, write,
  // 3 kernel under write, 3 kernel under sh, start_thread, worker_loop, jit = 20; +1 background.
  EXPECT_EQ(count(svg, "<rect"), 21u);
  EXPECT_NE(svg.find("<title>hot_loop (60 samples, 48.78%)</title>"), std::string::npos);
  EXPECT_NE(svg.find("<title>all (123 samples, 100.00%)</title>"), std::string::npos);
  EXPECT_NE(svg.find("LFoo:::bar"), std::string::npos);
  // A narrow frame's label is truncated with "..": at 300 px the 3-sample sh subtree is tiny.
  ExportOptions narrow;
  narrow.width = 300;
  const std::string small = run("svg", testing::make_test_profile(), narrow);
  EXPECT_NE(small.find("..</text>"), std::string::npos);
  EXPECT_EQ(count(small, "<g>") + count(small, "<g id=\"frames\">"), count(small, "</g>"));
  // flamegraph.pl's interactivity: the zoom and search script and its controls.
  EXPECT_NE(svg.find("<script type=\"text/ecmascript\"><![CDATA["), std::string::npos);
  EXPECT_NE(svg.find("function zoom(node)"), std::string::npos);
  EXPECT_NE(svg.find("function search(term)"), std::string::npos);
  EXPECT_NE(svg.find("id=\"unzoom\""), std::string::npos);
  EXPECT_NE(svg.find("id=\"search\""), std::string::npos);
  EXPECT_EQ(count(svg, "]]>"), 1u);  // the script never ends its CDATA early
}

TEST(Export, SvgIsAsTallAsTheFramesItDraws) {
  // One sample with a 128-frame garbage stack among 20,000 ordinary ones: too thin to draw
  // (under half a pixel), it must not make the picture 128 frames tall.
  auto p = testing::make_test_profile();
  const auto normal = run("svg", p);
  const std::size_t first_frame = p.frames.size();
  std::vector<std::uint32_t> deep = {0, 1, 2};
  for (std::uint32_t i = 0; i < 125; ++i) {
    profile::Frame f;
    f.function = "[unknown]";
    f.map_address = 0x7e0000000000 + i * 0x10007ull;
    p.frames.push_back(f);
    deep.push_back(static_cast<std::uint32_t>(first_frame + i));
  }
  p.stacks.push_back(deep);
  const auto base = p.samples;
  for (int copy = 0; copy < 170; ++copy)
    p.samples.insert(p.samples.end(), base.begin(), base.end());
  profile::Sample garbage = p.samples.front();
  garbage.stack = static_cast<std::uint32_t>(p.stacks.size() - 1);
  p.samples.push_back(garbage);
  ASSERT_GT(p.samples.size(), 20000u);
  auto height = [](const std::string& svg) {
    const auto at = svg.find("height=\"");
    return std::stod(svg.substr(at + 8));
  };
  const std::string thin = run("svg", p);
  EXPECT_EQ(height(thin), height(normal));
  EXPECT_LT(height(thin), 300.0);
  // Wide enough to draw (a tenth of the samples), it counts.
  for (int i = 0; i < 2500; ++i) p.samples.push_back(garbage);
  EXPECT_GT(height(run("svg", p)), 128 * 16.0);
}

TEST(Export, SpeedscopeHasOneSampledProfilePerThread) {
  const std::string j = run("speedscope", testing::make_test_profile());
  EXPECT_NE(j.find("\"$schema\":\"https://www.speedscope.app/file-format-schema.json\""),
            std::string::npos);
  EXPECT_EQ(count(j, "\"type\":\"sampled\""), 3u);
  EXPECT_NE(j.find("\"name\":\"demo (pid 100, tid 101)\""), std::string::npos);
  EXPECT_NE(j.find("\"unit\":\"nanoseconds\""), std::string::npos);
  // tid 100: 30+25+30+10 runs merge into 4 + 1 (write) weights; total 95 ms + 10 ms.
  EXPECT_NE(j.find("\"endValue\":105000000"), std::string::npos);
  EXPECT_NE(j.find("\"weights\":[30000000,25000000,30000000,10000000,10000000]"),
            std::string::npos);
}

TEST(Export, FirefoxGeckoFormat) {
  const std::string j = run("firefox", testing::make_test_profile());
  EXPECT_NE(j.find("\"version\":24"), std::string::npos);
  EXPECT_EQ(count(j, "\"stackTable\""), 3u);
  EXPECT_NE(j.find("\"processType\":\"default\",\"pid\":100,\"tid\":101"), std::string::npos);
  EXPECT_NE(j.find("\"hot_loop (in demo)\""), std::string::npos);
  EXPECT_NE(j.find("{\"name\":\"Kernel\",\"color\":\"orange\""), std::string::npos);
}

TEST(Export, JsonProfileSummary) {
  const std::string j = run("json", testing::make_test_profile());
  EXPECT_NE(j.find("\"format\":\"perfx-profile\",\"version\":1"), std::string::npos);
  EXPECT_NE(j.find("{\"name\":\"cpu-clock\",\"unit\":\"nanoseconds\",\"samples\":123,"
                   "\"total_period\":128000000}"),
            std::string::npos);
  // hot_loop: 60 self samples; main: 100 total (children) samples.
  EXPECT_TRUE(std::regex_search(
      j, std::regex("\"function\":\"hot_loop\",\"dso\":\"demo\",\"kind\":\"user\","
                    "\"self_samples\":60,\"total_samples\":60")));
  EXPECT_TRUE(
      std::regex_search(j, std::regex("\"function\":\"main\",\"dso\":\"demo\",\"kind\":\"user\","
                                      "\"self_samples\":0,\"total_samples\":100")));
}

}  // namespace
}  // namespace perfx::report

namespace perfx::report {
namespace {

TEST(Export, TitlesNameTheRecordedWorkload) {
  auto p = testing::make_test_profile();
  p.command_line = "/usr/bin/perfx record -g -o x.data -- /opt/app/bin/server --port 80";
  EXPECT_NE(run("html", p).find("<title>perfx: server --port 80</title>"), std::string::npos);
  p.command_line = "perf record ./a.out";
  EXPECT_NE(run("svg", p).find(">perfx: perf record ./a.out</text>"), std::string::npos);
  ExportOptions o;
  o.title = "mine";
  EXPECT_NE(run("html", p, o).find("<title>mine</title>"), std::string::npos);
}

TEST(Export, JsonStringsAreEscaped) {
  auto p = testing::make_test_profile();
  p.frames[2].function = std::string("q\"uo\\te\n\x01") + "ctl";
  const std::string j = run("json", p);
  EXPECT_NE(j.find(R"("function":"q\"uo\\te\n\u0001ctl")"), std::string::npos);
}

TEST(Export, InvalidUtf8AndControlCharactersNeverLeaveAsIs) {
  // A process can name itself any bytes and symbols are bytes: every text format stays
  // valid UTF-8 (U+FFFD for each bad sequence), the XML ones free of forbidden characters.
  auto p = testing::make_test_profile();
  p.threads[0].comm = "\xFF\xFEname\x01\x1B";
  p.frames[2].function = "ma\xC3(in\xEF\xBF\xBE";  // a cut sequence, then U+FFFE
  p.frames[2].file = "dir\x80/demo.c";
  p.command_line = "perfx record -- ./\xE2\x82 bad";
  for (const char* format : {"json", "speedscope", "firefox", "html", "svg", "folded"}) {
    ExportOptions o;
    const std::string text = run(format, p, o);
    if (std::string_view(format) == "folded") {
      // folded is plain text for Perl tools: bytes pass through as the tools expect.
      EXPECT_NE(text.find("\xFF\xFEname"), std::string::npos);
      continue;
    }
    EXPECT_TRUE(core::is_valid_utf8(text)) << format;
    EXPECT_NE(text.find("\xEF\xBF\xBD"), std::string::npos) << format;
    EXPECT_EQ(text.find("\xEF\xBF\xBE"), std::string::npos) << format;  // U+FFFE raw
    for (char c : text) {
      const auto u = static_cast<unsigned char>(c);
      EXPECT_FALSE(u < 0x20 && c != '\n' && c != '\t' && c != '\r') << format << " " << int{u};
    }
  }
  EXPECT_NE(run("svg", p).find("<title>\xEF\xBF\xBD\xEF\xBF\xBDname\xEF\xBF\xBD\xEF\xBF\xBD"),
            std::string::npos);
  EXPECT_NE(run("json", p).find("\"function\":\"ma\xEF\xBF\xBD(in\\ufffe\""), std::string::npos);
}

TEST(Export, LargeOutputStreamsWhole) {
  // 300k samples: several MiB of per-sample rows go out through the writers' 1 MiB
  // buffer; nothing is lost or repeated at the buffer's edges.
  auto p = testing::make_test_profile();
  const auto one = p.samples.front();
  p.samples.clear();
  for (std::uint64_t i = 0; i < 300000; ++i) {
    auto s = one;
    s.time_ns = p.start_time_ns + i * 1000;
    p.samples.push_back(s);
  }
  // Varied values, so that each column is its own text.
  for (std::size_t i = 0; i < p.samples.size(); ++i) {
    p.samples[i].stack = static_cast<std::uint32_t>(i % p.stacks.size());
    p.samples[i].cpu = static_cast<std::uint16_t>(i % 3);
    p.samples[i].period = 1000 + i % 7;
  }
  const std::string j = run("json", p);
  EXPECT_GT(j.size(), 3u << 20);
  // The columns (written by two threads when there are two cores) are whole and in order.
  auto expected = [&](const char* name, auto field) {
    std::string text = std::string("\"") + name + "\":[";
    for (std::size_t i = 0; i < p.samples.size(); ++i) {
      if (i) text += ',';
      text += std::to_string(field(p.samples[i]));
    }
    return text + "]";
  };
  using S = profile::Sample;
  std::string samples = "\"samples\":{" + expected("stack", [](const S& s) { return s.stack; });
  samples += ",\n " + expected("thread", [](const S& s) { return s.thread; });
  samples += ",\n " + expected("cpu", [](const S& s) { return s.cpu; });
  samples += ",\n " + expected("time_ns", [](const S& s) { return s.time_ns; });
  samples += ",\n " + expected("period", [](const S& s) { return s.period; });
  samples += ",\n " + expected("event", [](const S& s) { return s.event; }) + "},\n";
  const auto at = j.find("\"samples\":{");
  ASSERT_NE(at, std::string::npos);
  EXPECT_TRUE(j.compare(at, samples.size(), samples) == 0);
  EXPECT_EQ(j.substr(at + samples.size(), 14), "\"functions\":[\n");
  EXPECT_EQ(j.substr(j.size() - 4), "]\n}\n");
  const std::string f = run("firefox", p);
  EXPECT_GT(f.size(), 3u << 20);
  EXPECT_EQ(f.back(), '\n');
  EXPECT_NE(f.find(",299.999,0]"), std::string::npos);  // the last sample, 299.999 ms in
}

TEST(Export, SamplesOutOfTimeOrderAreSortedPerThread) {
  // Hand-built profiles need not list samples in time order (the loader's are): the
  // per-sample exports still write each thread's samples by time.
  const auto p = testing::make_test_profile();
  auto reversed = p;
  std::reverse(reversed.samples.begin(), reversed.samples.end());
  for (auto format : {"speedscope", "firefox"}) EXPECT_EQ(run(format, reversed), run(format, p));
  auto bad_thread = p;  // an index outside the thread table takes the slow path
  bad_thread.samples.back().thread = 7;
  EXPECT_NE(run("firefox", bad_thread).find("\"name\":\"thread\""), std::string::npos);
}

TEST(Export, TextSinkWritesIntegersLikeToString) {
  std::ostringstream out;
  std::string want;
  {
    detail::TextSink sink(out);
    const std::uint64_t values[] = {0,
                                    9,
                                    999999999,
                                    1000000000,
                                    1000000001,
                                    1234567890123456789ull,
                                    10000000000000000000ull,
                                    ~std::uint64_t{0}};
    for (std::uint64_t v : values) {
      detail::append_uint(sink, v);
      sink.push_back(',');
      want += std::to_string(v) + ",";
    }
    detail::append_int(sink, -1234567890123);
    detail::append_uint(sink, std::uint32_t{4000000000u});
    want +=
        "-1234567890123"
        "4000000000";
    ASSERT_TRUE(sink.finish());
  }
  EXPECT_EQ(out.str(), want);
}

TEST(Export, AnInMemoryTextSinkGrowsAndKeepsEverything) {
  // Started small, it grows past its first block (row checks, long appends) and keeps
  // the text in order.
  detail::TextSink sink(std::size_t{16});
  std::string want;
  const std::string long_text(3 << 20, 'q');  // bigger than the first block
  for (std::uint32_t i = 0; i < 300000; ++i) {
    {
      auto row = sink.row(32);
      row.put(',');
      row.put_integer(i);
    }
    want += "," + std::to_string(i);
    if (i == 1000) {
      sink += long_text;
      want += long_text;
    }
  }
  ASSERT_EQ(sink.text().size(), want.size());
  EXPECT_TRUE(sink.text() == want);
  EXPECT_TRUE(sink.finish());
}

TEST(Export, SideTextPartsArriveInOrderWhateverTheTiming) {
  // The side thread's parts are appended after what the caller wrote, in part order.
  std::ostringstream out;
  {
    detail::TextSink sink(out);
    detail::SideText side([](detail::SideText::Parts& parts) {
      auto& first = parts.emplace_back(8);
      auto& second = parts.emplace_back(1 << 20);
      for (int i = 0; i < 100000; ++i) second.append_integer(i % 10);
      first += "first;";
    });
    sink += "caller;";
    side.append_to(sink);
    sink += ";end";
    ASSERT_TRUE(sink.finish());
  }
  const std::string text = out.str();
  EXPECT_EQ(text.substr(0, 13), "caller;first;");
  EXPECT_EQ(text.size(), 13u + 100000u + 4u);
  EXPECT_EQ(text.substr(text.size() - 4), ";end");
  EXPECT_EQ(text.substr(13, 10), "0123456789");
}

TEST(Export, WhatTheSideThreadThrowsReachesTheCaller) {
  detail::SideText side([](detail::SideText::Parts& parts) {
    parts.emplace_back(8) += "partial";
    throw std::runtime_error("side failed");
  });
  EXPECT_THROW(side.wait(), std::runtime_error);
}

TEST(Export, TimeColumnsAreWrittenLikeToStringWhateverTheOrder) {
  // TimeDigits copies the digits above the last six from the row before: times that
  // ascend, go back, cross milliseconds, stay below one, or have any digit count.
  std::vector<std::uint64_t> times = {0,
                                      7,
                                      999999,
                                      1000000,
                                      1000001,
                                      3751342547197,
                                      3751342547198,
                                      3751342999999,
                                      3751343000000,
                                      3751342000001,
                                      999999,
                                      1000000000000000000ull,
                                      ~std::uint64_t{0},
                                      5,
                                      12000345};
  for (std::uint64_t t = 3766396056281; times.size() < 100000; t += 49999) times.push_back(t);
  std::ostringstream out;
  std::string want;
  {
    detail::TextSink sink(out);
    detail::TextSink::TimeDigits digits;
    for (std::uint64_t t : times) {
      auto row = sink.row(32);
      row.put_time(digits, t);
      row.put(',');
      want += std::to_string(t) + ",";
    }
    ASSERT_TRUE(sink.finish());
  }
  EXPECT_EQ(out.str(), want);
}

TEST(Export, TheSideWriterWritesBetweenTheCallersParts) {
  // The caller writes, hands the stream over, makes its next part meanwhile and appends
  // it after join(): the stream holds the three in order, whatever the timing.
  for (int round = 0; round < 20; ++round) {
    std::ostringstream out;
    std::string prepared;
    {
      detail::TextSink sink(out);
      detail::SideWriter side;
      ASSERT_TRUE(side.start([&] { prepared = "tables;"; },
                             [&]() -> Result<void> {
                               detail::TextSink own(out);
                               for (int i = 0; i < 100000; ++i) own.append_integer(i % 10);
                               return own.finish();
                             }));
      sink += "head;";
      side.wait_prepared();
      sink += prepared;
      ASSERT_TRUE(sink.finish());
      side.hand_over(true);
      detail::TextSink rest(std::size_t{64});
      rest += ";rest";
      ASSERT_TRUE(side.join());
      sink += rest.text();
      ASSERT_TRUE(sink.finish());
    }
    const std::string text = out.str();
    ASSERT_EQ(text.size(), 12u + 100000u + 5u);
    EXPECT_EQ(text.substr(0, 22), "head;tables;0123456789");
    EXPECT_EQ(text.substr(text.size() - 5), ";rest");
  }
}

TEST(Export, TheSideWriterWritesNothingUnlessHandedTheStream) {
  // A caller that stops early (an error) never hands over: nothing is written and the
  // thread is waited for; what the thread throws reaches the caller.
  bool wrote = false;
  {
    detail::SideWriter side;
    ASSERT_TRUE(side.start([] {},
                           [&]() -> Result<void> {
                             wrote = true;
                             return {};
                           }));
    side.wait_prepared();
  }
  EXPECT_FALSE(wrote);
  detail::SideWriter throws_preparing;
  ASSERT_TRUE(throws_preparing.start([] { throw std::runtime_error("prepare"); },
                                     []() -> Result<void> { return {}; }));
  EXPECT_THROW(throws_preparing.wait_prepared(), std::runtime_error);
  detail::SideWriter throws_writing;
  ASSERT_TRUE(throws_writing.start([] {}, []() -> Result<void> { throw std::bad_alloc(); }));
  throws_writing.wait_prepared();
  throws_writing.hand_over(true);
  EXPECT_THROW((void)throws_writing.join(), std::bad_alloc);
}

TEST(Export, TextSinkWritesEveryDigitCountAndMilliseconds) {
  // Each digit count of both paths (32-bit pairs, 64-bit split at 10^9), signed values,
  // and nanoseconds as milliseconds (microsecond resolution, three decimals); across many buffer
  // spills.
  std::ostringstream out;
  std::string want;
  {
    detail::TextSink sink(out);
    for (int round = 0; round < 2000; ++round) {
      std::uint64_t p = 1;
      for (int k = 0; k < 20; ++k, p *= 10) {
        for (std::uint64_t v : {p - 1, p, p + 1, p * 5 / 3}) {
          sink.append_integer(v);
          sink.push_back(' ');
          want += std::to_string(v) + " ";
          if (v <= 0xffffffffu) {
            sink.append_integer(static_cast<std::uint32_t>(v));
            want += std::to_string(static_cast<std::uint32_t>(v));
          }
          const auto sv = static_cast<std::int64_t>(v / 2);
          sink.append_integer(-sv);
          sink.append_integer(sv);
          want += std::to_string(-sv) + std::to_string(sv);
          sink.append_millis(v);
          const std::string frac = std::to_string(1000 + v / 1000 % 1000).substr(1);
          want += std::to_string(v / 1000000) + "." + frac + ";";
          sink.push_back(';');
        }
      }
    }
    ASSERT_TRUE(sink.finish());
  }
  EXPECT_EQ(out.str(), want);
}

TEST(Export, AFailedStreamIsAnIoError) {
  for (auto format : export_formats()) {
    std::ostringstream out;
    out.setstate(std::ios::badbit);
    auto r = report::export_profile(format, testing::make_test_profile(), out, {});
    ASSERT_FALSE(r) << format;
    EXPECT_EQ(r.error().code(), Errc::kIo) << format << ": " << r.error().message();
  }
}

}  // namespace
}  // namespace perfx::report
