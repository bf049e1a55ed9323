// Tracepoint format files and perf's tracing data (src/event/tracepoint_format.hpp).

#include "event/tracepoint_format.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace perfx::event {
namespace {

const char* kSwitch =
    "name: sched_switch\nID: 372\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
    "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
    "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
    "\tfield:__data_loc char[] name;\toffset:40;\tsize:4;\tsigned:0;\n\n"
    "print fmt: \"prev_comm=%s\", REC->prev_comm\n";

template <typename T>
void put(std::vector<std::byte>& b, std::size_t off, T v) {
  if (b.size() < off + sizeof v) b.resize(off + sizeof v);
  std::memcpy(b.data() + off, &v, sizeof v);
}

TEST(TracepointFormat, ParsesFieldsAndReadsThem) {
  auto f = parse_tracepoint_format(kSwitch, "sched");
  ASSERT_TRUE(f) << f.error().message();
  EXPECT_EQ(f->name, "sched_switch");
  EXPECT_EQ(f->id, 372U);
  ASSERT_NE(f->field("prev_comm"), nullptr);
  EXPECT_TRUE(f->field("prev_comm")->array);
  EXPECT_EQ(f->field("prev_comm")->size, 16U);
  EXPECT_TRUE(f->field("name")->dynamic);
  std::vector<std::byte> raw(50);
  std::memcpy(raw.data() + 8, "pp_ping", 8);
  put<std::int32_t>(raw, 24, -5);
  put<std::int64_t>(raw, 32, 0x100);
  put<std::uint32_t>(raw, 40, (6U << 16) | 44U);
  std::memcpy(raw.data() + 44, "hello", 6);
  EXPECT_EQ(read_string_field(*f->field("prev_comm"), raw), "pp_ping");
  EXPECT_EQ(read_int_field(*f->field("prev_pid"), raw).value_or(0), -5);
  EXPECT_EQ(read_int_field(*f->field("prev_state"), raw).value_or(0), 0x100);
  EXPECT_EQ(read_string_field(*f->field("name"), raw), "hello");
  // Outside the payload: nothing, no crash.
  EXPECT_FALSE(read_int_field(*f->field("prev_state"), std::span(raw).first(36)));
  EXPECT_EQ(read_string_field(*f->field("name"), std::span(raw).first(46)), "");
}

TEST(TracepointFormat, RejectsTextWithoutIdOrFields) {
  EXPECT_FALSE(parse_tracepoint_format("name: x\nformat:\n"));
  EXPECT_FALSE(parse_tracepoint_format(""));
}

std::vector<std::byte> tracing_data(const std::string& sys, const std::string& format) {
  std::vector<std::byte> b;
  auto raw = [&](const void* p, std::size_t n) {
    const auto* c = static_cast<const std::byte*>(p);
    b.insert(b.end(), c, c + n);
  };
  auto u32 = [&](std::uint32_t v) { raw(&v, 4); };
  auto u64 = [&](std::uint64_t v) { raw(&v, 8); };
  const unsigned char magic[10] = {23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g'};
  raw(magic, 10);
  raw("0.6", 4);
  const std::uint8_t le = 0, lsize = 8;
  raw(&le, 1);
  raw(&lsize, 1);
  u32(4096);
  raw("header_page", 12);
  u64(3);
  raw("abc", 3);
  raw("header_event", 13);
  u64(0);
  u32(0);  // ftrace formats
  u32(1);  // systems
  raw(sys.c_str(), sys.size() + 1);
  u32(1);
  u64(format.size());
  raw(format.data(), format.size());
  u32(0);  // kallsyms
  u32(0);  // printk
  u64(0);  // cmdlines
  return b;
}

TEST(TracingData, ParsesSystemsAndFormats) {
  const auto data = tracing_data("sched", kSwitch);
  auto formats = parse_tracing_data(data);
  ASSERT_TRUE(formats) << formats.error().message();
  ASSERT_EQ(formats->size(), 1U);
  EXPECT_EQ((*formats)[0].system, "sched");
  EXPECT_EQ((*formats)[0].id, 372U);
  // Every truncation is an error, never a crash.
  for (std::size_t n = 0; n + 20 < data.size(); n += 7) {
    EXPECT_FALSE(parse_tracing_data(std::span(data).first(n))) << n;
  }
  auto bad = data;
  bad[0] = std::byte{0};
  EXPECT_FALSE(parse_tracing_data(bad));
}

}  // namespace
}  // namespace perfx::event
