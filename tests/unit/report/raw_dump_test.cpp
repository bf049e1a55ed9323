// perf's -D text of synthesized records (report/raw_dump.hpp): the record line, the hex
// block and the cpu/time columns, every field of a sample, and the text of each record
// type the decoder knows, per tool (report, annotate and script leave different records
// ": unhandled!").
#include "report/raw_dump.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "../record/every_field_sample.hpp"
#include "record/decoder.hpp"
#include "record/encoder.hpp"
#include "record/sample_layout.hpp"

namespace perfx::report {
namespace {

using record::Record;

constexpr std::uint64_t kIdBits = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
                                  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;

class RawDump : public ::testing::Test {
 protected:
  raw::EventAttr attr = test_support::cpu_clock_attr(PERF_SAMPLE_IP | kIdBits | PERF_SAMPLE_PERIOD);
  record::SampleLayout layout = record::SampleLayout::from_attr(attr);
  DumpContext ctx{"perf.data", 0, PERF_SAMPLE_CPU | PERF_SAMPLE_TIME, true, DumpTool::kReport};
  std::vector<std::byte> buf;
  Record decoded;

  // Encodes `body` (kernel records with the full sample_id trailer), decodes it back at
  // offset 0x1000, and dumps it.
  std::string dump(Record::Body body, std::uint16_t misc = 0, DumpTool tool = DumpTool::kReport,
                   const DumpResolved* resolved = nullptr) {
    Record r;
    r.header.misc = misc;
    r.header.type = record::type_of_body(body);
    r.body = std::move(body);
    r.sample_id = test_support::full_sample_id(77, 123456789);
    return dump_record(r, tool, resolved);
  }
  std::string dump_record(const Record& r, DumpTool tool = DumpTool::kReport,
                          const DumpResolved* resolved = nullptr,
                          const record::SampleLayout* with = nullptr) {
    buf.clear();
    auto enc = record::encode_record(r, with ? *with : layout, buf);
    EXPECT_TRUE(enc) << (enc ? "" : enc.error().message());
    auto dec = record::decode_record(buf, with ? *with : layout, {.offset = 0x1000});
    EXPECT_TRUE(dec) << (dec ? "" : dec.error().message());
    if (!dec) return {};
    decoded = *dec;
    return dump_raw(decoded, buf, tool, resolved);
  }
  std::string dump_raw(const Record& r, std::span<const std::byte> bytes, DumpTool tool,
                       const DumpResolved* resolved = nullptr) {
    DumpContext c = ctx;
    c.tool = tool;
    std::string out;
    append_raw_dump(out, c, DumpRecord{r, bytes, &attr, "cpu-clock", resolved});
    return out;
  }
  // What follows "PERF_RECORD_<name>" in a dump.
  static std::string after_name(const std::string& text, std::string_view name) {
    const std::string key = "PERF_RECORD_" + std::string(name);
    const auto at = text.find(key);
    if (at == std::string::npos) return "<no " + key + ">";
    return text.substr(at + key.size());
  }
  // A user record of `type` with `payload` after its header (the decoder's Unknown).
  std::string dump_user(std::uint32_t type, const std::vector<std::uint64_t>& payload,
                        DumpTool tool) {
    buf.assign(8 + payload.size() * 8, std::byte{0});
    const record::Header h{type, 0, static_cast<std::uint16_t>(buf.size())};
    std::memcpy(buf.data(), &h.type, 4);
    std::memcpy(buf.data() + 6, &h.size, 2);
    if (!payload.empty()) std::memcpy(buf.data() + 8, payload.data(), payload.size() * 8);
    auto dec = record::decode_record(buf, layout, {.offset = 0x40});
    EXPECT_TRUE(dec);
    if (!dec) return {};
    decoded = *dec;
    return dump_raw(decoded, buf, tool);
  }
};

TEST_F(RawDump, RecordLineHexBlockAndColumnsAsPerf) {
  const std::string text = dump(record::Comm{3, 4, "worker"}, PERF_RECORD_MISC_COMM_EXEC);
  // COMM: 8 + 8 + "worker\0" padded to 8 + the 48-byte sample_id = 0x48 bytes.
  const std::string expected =
      "\n0x1000@perf.data [0x48]: event: 3\n"
      ".\n"
      ". ... raw event: size 72 bytes\n"
      ".  0000:  03 00 00 00 00 20 48 00 03 00 00 00 04 00 00 00  ..... H.........\n"
      ".  0010:  77 6f 72 6b 65 72 00 00 0b 00 00 00 0c 00 00 00  worker..........\n"
      ".  0020:  15 cd 5b 07 00 00 00 00 4d 00 00 00 00 00 00 00  ..[.....M.......\n"
      ".  0030:  4e 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00  N...............\n"
      ".  0040:  4d 00 00 00 00 00 00 00                          M.......        \n"
      "\n"
      "1 123456789 0x1000 [0x48]: PERF_RECORD_COMM exec: worker:3/4\n";
  EXPECT_EQ(text, expected);
}

TEST_F(RawDump, ColumnsFollowTheCombinedSampleTypeAndSampleIdAll) {
  ctx.sample_type = PERF_SAMPLE_TIME;
  EXPECT_NE(dump(record::Lost{5, 9})
                .find("\n123456789 0x1000 [0x48]: PERF_RECORD_LOST: id:5: "
                      "lost:9\n"),
            std::string::npos);
  ctx.sample_id_all = false;  // perf: "-1 -1 " for records other than samples
  EXPECT_NE(dump(record::Lost{5, 9}).find("\n-1 -1 0x1000 [0x48]: PERF_RECORD_LOST"),
            std::string::npos);
  ctx.sample_id_all = true;
  ctx.sample_type = PERF_SAMPLE_CPU | PERF_SAMPLE_TIME;
  // perf's own records have cpu and time 0.
  const std::string round = dump_user(raw::PERF_RECORD_FINISHED_ROUND, {}, DumpTool::kReport);
  EXPECT_NE(round.find("\n0 0 0x40 [0x8]: PERF_RECORD_FINISHED_ROUND\n"), std::string::npos)
      << round;
}

TEST_F(RawDump, HexBlockPadsTheLastLine) {
  std::vector<std::byte> bytes(20);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::byte>(0x41 + i);
  bytes[1] = std::byte{0x80};  // not ASCII: a dot
  std::string out;
  append_hex_block(out, bytes);
  EXPECT_EQ(out,
            ".\n. ... raw event: size 20 bytes\n"
            ".  0000:  41 80 43 44 45 46 47 48 49 4a 4b 4c 4d 4e 4f 50  A.CDEFGHIJKLMNOP\n"
            ".  0010:  51 52 53 54                                      QRST            \n"
            "\n");
}

TEST_F(RawDump, EveryFieldOfASample) {
  test_support::SamplePayloads p;
  attr = test_support::every_field_attr();
  const record::SampleLayout every = record::SampleLayout::from_attr(attr);
  Record r;
  r.header.type = PERF_RECORD_SAMPLE;
  r.header.misc = PERF_RECORD_MISC_USER;
  r.body = test_support::every_field_sample(p);
  const DumpResolved resolved{"worker", 101, "/usr/bin/worker"};
  const std::string text = dump_record(r, DumpTool::kReport, &resolved, &every);
  const std::string body = after_name(text, "SAMPLE");
  EXPECT_EQ(text.substr(0, text.find('\n', 1) + 1), "\n0x1000@perf.data [0x1b0]: event: 9\n");
  const std::string ustack_offset = [&] {
    const auto* s = decoded.get<record::Sample>();
    return fmt::format("{:#x}", s->stack_user.data.data() - buf.data() - 8);
  }();
  const std::string expected =
      "(IP, 0x2): 100/101: 0x401000 period: 4000 addr: 0xdead\n"
      "... FP chain: nr:4\n"
      ".....  0: fffffffffffffe00\n"
      ".....  1: 0000000000401000\n"
      ".....  2: 0000000000401100\n"
      ".....  3: 0000000000401200\n"
      "... branch stack: nr:2\n"
      // flags 0x11: mispredicted, 1 cycle; 0x2: predicted.
      ".....  0: 0000000000000010 -> 0000000000000020 1 cycles M    0 \n"
      ".....  1: 0000000000000030 -> 0000000000000040 0 cycles  P   0 \n"
      "... user regs: mask 0xb ABI 64-bit\n"
      ".... AX    0x0000000000000001\n"
      ".... BX    0x0000000000000002\n"
      ".... DX    0x0000000000000003\n"
      "... intr regs: mask 0x30 ABI 64-bit\n"
      ".... SI    0x0000000000000004\n"
      ".... DI    0x0000000000000005\n"
      "... ustack: size 12, offset " +
      ustack_offset +
      "\n"
      "... weight: 1,0x2,0x3\n"
      " . data_src: 0x1234\n"
      " .. phys_addr: 0x9000\n"
      " .. data page size: 4K\n"
      " .. code page size: 2M\n"
      "... transaction: 1\n"
      "... sample_read:\n"
      "...... time enabled 0000000000000007\n"
      "...... time running 0000000000000006\n"
      ".... group nr 2\n"
      "..... id 00000000000001f5, value 0000000000000001, lost 0\n"
      "..... id 00000000000001f6, value 0000000000000002, lost 9\n"
      " ... thread: worker:101\n"
      " ...... dso: /usr/bin/worker\n";
  EXPECT_EQ(body, expected);
}

TEST_F(RawDump, SampleWithoutPeriodOrMapTakesPerfsDefaults) {
  attr = test_support::cpu_clock_attr(PERF_SAMPLE_IP | PERF_SAMPLE_TIME);
  const record::SampleLayout l = record::SampleLayout::from_attr(attr);
  Record r;
  r.header.type = PERF_RECORD_SAMPLE;
  r.header.misc = PERF_RECORD_MISC_KERNEL;
  record::Sample s;
  s.sample_type = attr.sample_type;
  s.ip = 0xffffffff81000000;
  s.time = 5;
  r.body = s;
  const DumpResolved resolved{":-1", -1, ""};
  const std::string text = dump_record(r, DumpTool::kScript, &resolved, &l);
  // No TID: -1/-1; no PERIOD: the attr's; no map: "<not found>".
  EXPECT_EQ(after_name(text, "SAMPLE"),
            "(IP, 0x1): -1/-1: 0xffffffff81000000 period: 1000 addr: 0\n"
            " ... thread: :-1:-1\n"
            " ...... dso: <not found>\n");
  // A sample's own cpu (none here: perf's -1) and time.
  EXPECT_NE(text.find("\n4294967295 5 0x1000 [0x18]: PERF_RECORD_SAMPLE"), std::string::npos)
      << text;
}

TEST_F(RawDump, KernelRecordsAsPerfsHandlersPrintThem) {
  struct Case {
    Record::Body body;
    std::uint16_t misc;
    std::string_view name;
    std::string text;  // after "PERF_RECORD_<name>"
  };
  std::array<std::uint64_t, 2> ns_links = {3, 0xf0000001};
  record::Namespaces ns{1, 2, 1, record::U64Array::of(ns_links)};
  std::array<std::byte, 2> old_bytes{std::byte{0x0f}, std::byte{0x1f}};
  std::array<std::byte, 2> new_bytes{std::byte{0xe9}, std::byte{0x00}};
  record::Mmap2 bid = test_support::libc_mmap2();
  bid.build_id_size = 4;
  bid.build_id[0] = 0xab;
  bid.build_id[3] = 0xcd;
  record::Read rd{5, 6, {}};
  rd.values.single.value = 42;  // the attr reads no more than the value
  const std::vector<Case> cases = {
      {record::Mmap{1, 2, 0x400000, 0x1000, 0, "/bin/true"}, 0, "MMAP",
       " 1/2: [0x400000(0x1000) @ 0]: x /bin/true\n"},
      {record::Lost{5, 1898}, 0, "LOST", ": id:5: lost:1898\n"},
      {record::Comm{3, 4, "sh"}, 0, "COMM", ": sh:3/4\n"},
      {record::Exit{1, 2, 3, 4, 99}, 0, "EXIT", "(1:3):(2:4)\n"},
      {record::Throttle{1, 2, 3}, 0, "THROTTLE", ": unhandled!\n"},
      {record::Fork{10, 20, 30, 40, 50}, 0, "FORK", "(10:30):(20:40)\n"},
      {rd, 0, "READ", ": 5 6 cpu-clock 42\n"},
      {test_support::libc_mmap2(), 0, "MMAP2",
       " 11/12: [0x7f0000000000(0x21000) @ 0x1000 08:01 123456 7]: r-xp /usr/lib/libc.so.6\n"},
      {bid, PERF_RECORD_MISC_MMAP_BUILD_ID, "MMAP2",
       " 11/12: [0x7f0000000000(0x21000) @ 0x1000 <ab0000cd>]: r-xp /usr/lib/libc.so.6\n"},
      {record::Aux{1, 0x20, PERF_AUX_FLAG_TRUNCATED}, 0, "AUX",
       " offset: 0x1 size: 0x20 flags: 0x1 [T]\n"},
      {record::ItraceStart{7, 8}, 0, "ITRACE_START", " pid: 7 tid: 8\n"},
      {record::LostSamples{33}, 0, "LOST_SAMPLES", ": id:77: lost samples :33\n"},
      {record::Switch{}, PERF_RECORD_MISC_SWITCH_OUT, "SWITCH", " OUT        \n"},
      {record::SwitchCpuWide{100, 101}, 0, "SWITCH_CPU_WIDE",
       " IN           prev pid/tid:   100/101  \n"},
      {ns, 0, "NAMESPACES", " 1/2 - nr_namespaces: 1\n\t\t[0/net: 3/0xf0000001]\n"},
      {record::Ksymbol{0xffffffffa0000000, 0x40, 1, 0, "bpf_prog_x"}, 0, "KSYMBOL",
       " addr ffffffffa0000000 len 64 type 1 flags 0x0 name bpf_prog_x\n"},
      {record::BpfEvent{1, 0, 17, {}}, 0, "BPF_EVENT", " type 1, flags 0, id 17\n"},
      {record::Cgroup{9, "/user.slice"}, 0, "CGROUP", " cgroup: 9 /user.slice\n"},
      {record::TextPoke{0xffffffff81000000, 2, 2, old_bytes, new_bytes}, 0, "TEXT_POKE",
       " ffffffff81000000  old len 2 new len 2\n            Old bytes: 0f 1f\n"
       "            New bytes: e9 00\n"},
      {record::AuxOutputHwId{0x10}, 0, "AUX_OUTPUT_HW_ID", " hw_id: 0x10\n"},
  };
  // perf annotate has no cgroup handler.
  EXPECT_EQ(after_name(dump(record::Cgroup{9, "/user.slice"}, 0, DumpTool::kAnnotate), "CGROUP"),
            ": unhandled!\n");
  for (const auto& c : cases) {
    const std::string text = dump(c.body, c.misc);
    EXPECT_EQ(after_name(text, c.name), c.text) << c.name;
    EXPECT_NE(text.find("\n1 123456789 0x1000 ["), std::string::npos) << c.name;
  }
}

TEST_F(RawDump, PerfsOwnRecordsPerTool) {
  // ID_INDEX: {id, idx, cpu, tid} per entry.
  const std::string idx =
      dump_user(raw::PERF_RECORD_ID_INDEX, {1, 77, 0, 2, 500}, DumpTool::kScript);
  EXPECT_EQ(after_name(idx, "ID_INDEX"), " nr: 1\n ... id: 77  idx: 0  cpu: 2  tid: 500\n");
  // perf diff has no ID_INDEX handler.
  EXPECT_EQ(after_name(dump_user(raw::PERF_RECORD_ID_INDEX, {1, 77, 0, 2, 500}, DumpTool::kDiff),
                       "ID_INDEX"),
            ": unhandled!\n");
  // THREAD_MAP: nr, then {pid, comm[16]}; report and annotate leave it unhandled.
  const std::vector<std::uint64_t> threads = {2, 10, 0, 0, 11, 0, 0};
  EXPECT_EQ(
      after_name(dump_user(raw::PERF_RECORD_THREAD_MAP, threads, DumpTool::kScript), "THREAD_MAP"),
      " nr: 2 threads: 10, 11\n");
  EXPECT_EQ(
      after_name(dump_user(raw::PERF_RECORD_THREAD_MAP, threads, DumpTool::kReport), "THREAD_MAP"),
      " nr: 2 threads: 10, 11\n: unhandled!\n");
  // CPU_MAP as a list (type 0: nr, cpus), as a mask (type 1) and a range (type 2).
  const std::vector<std::uint64_t> cpus = {0x0001'0000'0004'0000ull, 0x0000'0000'0003'0002ull};
  EXPECT_EQ(after_name(dump_user(raw::PERF_RECORD_CPU_MAP, cpus, DumpTool::kScript), "CPU_MAP"),
            ": 0-3\n");
  const std::vector<std::uint64_t> mask = {0x0016'0004'0001'0001ull, 0};
  EXPECT_EQ(after_name(dump_user(raw::PERF_RECORD_CPU_MAP, mask, DumpTool::kScript), "CPU_MAP"),
            ": 1-2,4\n");
  const std::vector<std::uint64_t> range = {0x0005'0002'0000'0002ull};
  EXPECT_EQ(after_name(dump_user(raw::PERF_RECORD_CPU_MAP, range, DumpTool::kAnnotate), "CPU_MAP"),
            ": 2-5\n: unhandled!\n");
  // EVENT_UPDATE: unit, scale, name; annotate leaves it unhandled.
  std::vector<std::uint64_t> unit = {0, 77, 0};
  std::memcpy(unit.data() + 2, "msec", 5);
  EXPECT_EQ(
      after_name(dump_user(raw::PERF_RECORD_EVENT_UPDATE, unit, DumpTool::kReport), "EVENT_UPDATE"),
      "\n... id:    77\n... unit:  msec\n");
  std::vector<std::uint64_t> scale = {1, 77, 0};
  const double s = 1e-6;
  std::memcpy(&scale[2], &s, 8);
  EXPECT_EQ(after_name(dump_user(raw::PERF_RECORD_EVENT_UPDATE, scale, DumpTool::kAnnotate),
                       "EVENT_UPDATE"),
            "\n... id:    77\n... scale: 0.000001\n: unhandled!\n");
  // NAME (a pipe's event names) and CPUS (a CPU_MAP's data: a list of 2 CPUs, 0 and 2).
  std::vector<std::uint64_t> name = {2, 77, 0};
  std::memcpy(name.data() + 2, "cycles", 7);
  EXPECT_EQ(
      after_name(dump_user(raw::PERF_RECORD_EVENT_UPDATE, name, DumpTool::kScript), "EVENT_UPDATE"),
      "\n... id:    77\n... name:  cycles\n");
  const std::vector<std::uint64_t> cpus_update = {3, 77, 0x0002'0000'0002'0000ull};
  EXPECT_EQ(after_name(dump_user(raw::PERF_RECORD_EVENT_UPDATE, cpus_update, DumpTool::kDiff),
                       "EVENT_UPDATE"),
            "\n... id:    77\n... 0,2\n: unhandled!\n");
  // FINISHED_INIT is unhandled everywhere; FINISHED_ROUND ends its line.
  EXPECT_EQ(
      after_name(dump_user(raw::PERF_RECORD_FINISHED_INIT, {}, DumpTool::kScript), "FINISHED_INIT"),
      ": unhandled!\n");
  EXPECT_EQ(after_name(dump_user(raw::PERF_RECORD_FINISHED_ROUND, {}, DumpTool::kScript),
                       "FINISHED_ROUND"),
            "\n");
  // TIME_CONV: perf's fields (its "Muliplier" spelling), unhandled.
  const std::string tc =
      dump_user(raw::PERF_RECORD_TIME_CONV, {10, 20, 30, 40, 0xff, 0x0101}, DumpTool::kReport);
  EXPECT_EQ(after_name(tc, "TIME_CONV"),
            "\n... Time Shift      10\n... Time Muliplier  20\n... Time Zero       30\n"
            "... Time Cycles     40\n... Time Mask       0xff\n... Cap Time Zero   1\n"
            "... Cap Time Short  1\n: unhandled!\n");
  // AUXTRACE: its header fields (the trace data follows the record).
  const std::string at =
      dump_user(raw::PERF_RECORD_AUXTRACE, {0, 0x10, 0x20, 3 | (std::uint64_t{5} << 32), 1},
                DumpTool::kReport);
  EXPECT_EQ(after_name(at, "AUXTRACE"),
            " size: 0  offset: 0x10  ref: 0x20  idx: 3  tid: 5  cpu: 1\n");
  // Records perf's handlers print nothing for: the next record's blank line ends the line.
  const std::string bid =
      dump_user(raw::PERF_RECORD_HEADER_BUILD_ID, {0, 0, 0, 0}, DumpTool::kReport);
  EXPECT_EQ(after_name(bid, "BUILD_ID"), "");
  const std::string feature = dump_user(raw::PERF_RECORD_HEADER_FEATURE, {2, 0}, DumpTool::kScript);
  EXPECT_EQ(after_name(feature, "FEATURE"), "");
  EXPECT_EQ(after_name(dump_user(raw::PERF_RECORD_HEADER_EVENT_TYPE, {1, 0}, DumpTool::kReport),
                       "EVENT_TYPE"),
            "");
  // AUXTRACE_INFO is unhandled everywhere.
  EXPECT_EQ(after_name(dump_user(raw::PERF_RECORD_AUXTRACE_INFO, {1, 0}, DumpTool::kScript),
                       "AUXTRACE_INFO"),
            ": unhandled!\n");
  // A type perf does not name.
  EXPECT_NE(dump_user(99, {}, DumpTool::kReport).find("[0x8]: PERF_RECORD_UNKNOWN"),
            std::string::npos);
}

TEST_F(RawDump, StatRecordsAsTypedRecordsPerTool) {
  // perf stat record's records decode as their typed alternatives; the default tools
  // (report, annotate, diff) print each with perf_event__fprintf_*() and ": unhandled!",
  // perf script prints the maps only.
  const std::uint64_t terms[] = {0, 2, 1, 100, 2, 1, 9, 9};  // an unknown tag is skipped
  const record::StatConfig sc{4, record::U64Array::of(terms)};
  const std::string config = "\n... aggr_mode 2\n... scale     1\n... interval  100\n";
  for (DumpTool tool : {DumpTool::kReport, DumpTool::kAnnotate, DumpTool::kDiff}) {
    EXPECT_EQ(after_name(dump(sc, 0, tool), "STAT_CONFIG"), config + ": unhandled!\n");
  }
  EXPECT_EQ(after_name(dump(sc, 0, DumpTool::kScript), "STAT_CONFIG"), "");
  // Missing tags print as 0 (perf's are uninitialised).
  EXPECT_EQ(after_name(dump(record::StatConfig{}, 0, DumpTool::kReport), "STAT_CONFIG"),
            "\n... aggr_mode 0\n... scale     0\n... interval  0\n: unhandled!\n");
  const record::Stat st{83734, 0xffffffffu, 1, 734738, 800000, 700000};
  EXPECT_EQ(after_name(dump(st, 0, DumpTool::kReport), "STAT"),
            "\n... id 83734, cpu -1, thread 1\n"
            "... value 734738, enabled 800000, running 700000\n: unhandled!\n");
  EXPECT_EQ(after_name(dump(st, 0, DumpTool::kScript), "STAT"), "");
  EXPECT_EQ(
      after_name(dump(record::StatRound{record::kStatRoundFinal, 1955248}, 0, DumpTool::kDiff),
                 "STAT_ROUND"),
      "\n... time 1955248, type FINAL\n: unhandled!\n");
  EXPECT_EQ(after_name(dump(record::StatRound{record::kStatRoundInterval, 5}), "STAT_ROUND"),
            "\n... time 5, type INTERVAL\n: unhandled!\n");
  EXPECT_EQ(after_name(dump(record::StatRound{record::kStatRoundFinal, 5}, 0, DumpTool::kScript),
                       "STAT_ROUND"),
            "");
  // THREAD_MAP: one thread ("thread", not "threads"), -1 for any.
  std::array<std::byte, 24> one{};
  const std::uint64_t any = ~std::uint64_t{0};
  std::memcpy(one.data(), &any, 8);
  std::memcpy(one.data() + 8, "true", 4);
  EXPECT_EQ(after_name(dump(record::ThreadMap{1, one}, 0, DumpTool::kDiff), "THREAD_MAP"),
            " nr: 1 thread: -1\n: unhandled!\n");
}

TEST_F(RawDump, CpuMapTextOfEachFormAsPerf) {
  // cpu_map__snprint() over the map in record order: runs of consecutive CPUs as "a-b".
  auto text = [&](std::uint16_t type, std::vector<std::uint16_t> data) {
    std::vector<std::byte> bytes(data.size() * 2);
    std::memcpy(bytes.data(), data.data(), bytes.size());
    return after_name(dump(record::CpuMap{type, bytes}, 0, DumpTool::kScript), "CPU_MAP");
  };
  EXPECT_EQ(text(0, {1, 0xffff}), ": -1\n");                // perf stat's "any CPU"
  EXPECT_EQ(text(0, {5, 3, 1, 2, 7, 8}), ": 3,1-2,7-8\n");  // list order kept
  EXPECT_EQ(text(0, {0}), ": -1\n");                        // empty: perf's -1
  // 32-bit masks: nr 2, long_size 4, masks 0x16 and 0x1 (CPUs 1, 2, 4 and 32).
  EXPECT_EQ(text(1, {2, 4, 0x16, 0, 1, 0}), ": 1-2,4,32\n");
  // 64-bit masks: nr 1, long_size 8, 4 bytes of padding, then the mask (CPUs 0-1, 63).
  EXPECT_EQ(text(1, {1, 8, 0, 0, 3, 0, 0, 0x8000}), ": 0-1,63\n");
  // Range: any_cpu (its -1 runs into CPU 0, as perf prints it), start 0, end 3.
  EXPECT_EQ(text(2, {0x0001, 0, 3}), ": -1-3\n");
  EXPECT_EQ(text(2, {0x0000, 4, 6}), ": 4-6\n");
}

}  // namespace
}  // namespace perfx::report
