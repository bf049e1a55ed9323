// Encoder <-> decoder round trips for every record type and every sample field,
// plus the malformed-record rules and the id -> attr mapping.
// get<T>()-> after ASSERT_NE(..., nullptr) trips GCC 12 -Wnull-dereference (false positive).
#pragma GCC diagnostic ignored "-Wnull-dereference"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "../test_records.hpp"
#include "every_field_sample.hpp"
#include "record/decoder.hpp"
#include "record/encoder.hpp"

namespace perfx::record {
namespace {

constexpr std::uint64_t kIdBits = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
                                  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;

raw::EventAttr make_attr(std::uint64_t sample_type, bool sample_id_all = true) {
  raw::EventAttr a{};
  a.size = raw::kAttrSizeVer7;
  a.type = PERF_TYPE_SOFTWARE;
  a.sample_type = sample_type;
  a.sample_id_all = sample_id_all ? 1 : 0;
  return a;
}

SampleId make_id() { return test_support::full_sample_id(77, 123456789); }

// Encodes, decodes, re-encodes: the bytes must be identical, and the decoded
// record is returned for field checks. `storage` keeps the bytes alive.
Record round_trip(const Record& in, const SampleLayout& layout, std::vector<std::byte>& storage) {
  storage.clear();
  auto enc = encode_record(in, layout, storage);
  EXPECT_TRUE(enc) << (enc ? "" : enc.error().message());
  EXPECT_EQ(storage.size() % 8, 0u) << record_type_name(in.type());
  auto dec = decode_record(storage, layout);
  EXPECT_TRUE(dec) << (dec ? "" : dec.error().message());
  if (!dec) return {};
  std::vector<std::byte> again;
  auto enc2 = encode_record(*dec, layout, again);
  EXPECT_TRUE(enc2);
  EXPECT_EQ(again, storage) << "re-encoding " << record_type_name(in.type());
  EXPECT_EQ(dec->header.size, storage.size());
  return *dec;
}

class KernelRecords : public ::testing::Test {
 protected:
  raw::EventAttr attr = make_attr(PERF_SAMPLE_IP | kIdBits | PERF_SAMPLE_PERIOD);
  SampleLayout layout = SampleLayout::from_attr(attr);
  std::vector<std::byte> buf;

  Record with(Record::Body body, std::uint16_t misc = 0) {
    Record r;
    r.header.misc = misc;
    r.header.type = type_of_body(body);
    r.body = std::move(body);
    r.sample_id = make_id();
    return r;
  }
  void expect_id(const Record& r) {
    EXPECT_EQ(r.sample_id.pid, 11u);
    EXPECT_EQ(r.sample_id.tid, 12u);
    EXPECT_EQ(r.sample_id.time, 123456789u);
    EXPECT_EQ(r.sample_id.id, 77u);
    EXPECT_EQ(r.sample_id.stream_id, 78u);
    EXPECT_EQ(r.sample_id.cpu, 1u);
  }
};

TEST_F(KernelRecords, Mmap) {
  auto r = round_trip(with(Mmap{1, 2, 0x400000, 0x1000, 0x2000, "/bin/true"}), layout, buf);
  const auto* m = r.get<Mmap>();
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->addr, 0x400000u);
  EXPECT_EQ(m->pgoff, 0x2000u);
  EXPECT_EQ(m->filename, "/bin/true");
  expect_id(r);
}

TEST_F(KernelRecords, LostCommExitForkThrottle) {
  auto lost = round_trip(with(Lost{5, 1898}), layout, buf);
  EXPECT_EQ(lost.get<Lost>()->lost, 1898u);
  expect_id(lost);
  auto comm =
      round_trip(with(Comm{3, 4, "worker-thread"}, PERF_RECORD_MISC_COMM_EXEC), layout, buf);
  EXPECT_EQ(comm.get<Comm>()->comm, "worker-thread");
  EXPECT_TRUE(misc_comm_exec(comm.header.misc));
  auto exit_rec = round_trip(with(Exit{1, 2, 3, 4, 99}), layout, buf);
  EXPECT_EQ(exit_rec.get<Exit>()->ptid, 4u);
  auto fork = round_trip(with(Fork{10, 20, 30, 40, 50}), layout, buf);
  EXPECT_EQ(fork.get<Fork>()->ppid, 20u);
  EXPECT_EQ(fork.get<Fork>()->time, 50u);
  auto th = round_trip(with(Throttle{1, 2, 3}), layout, buf);
  EXPECT_EQ(th.type(), static_cast<std::uint32_t>(PERF_RECORD_THROTTLE));
  Record un = with(Throttle{4, 5, 6});
  un.header.type = PERF_RECORD_UNTHROTTLE;
  auto unr = round_trip(un, layout, buf);
  EXPECT_EQ(unr.type(), static_cast<std::uint32_t>(PERF_RECORD_UNTHROTTLE));
  EXPECT_EQ(unr.get<Throttle>()->stream_id, 6u);
}

TEST_F(KernelRecords, Mmap2BothForms) {
  const Mmap2 inode = test_support::libc_mmap2();
  auto a = round_trip(with(inode, PERF_RECORD_MISC_USER), layout, buf);
  ASSERT_NE(a.get<Mmap2>(), nullptr);
  EXPECT_FALSE(a.get<Mmap2>()->has_build_id);
  EXPECT_EQ(a.get<Mmap2>()->ino, 123456u);
  EXPECT_EQ(a.get<Mmap2>()->filename, inode.filename);

  Mmap2 bid = inode;
  bid.build_id_size = 20;
  for (std::uint8_t i = 0; i < 20; ++i) bid.build_id[i] = static_cast<std::uint8_t>(0xa0 + i);
  auto b =
      round_trip(with(bid, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID), layout, buf);
  ASSERT_NE(b.get<Mmap2>(), nullptr);
  EXPECT_TRUE(b.get<Mmap2>()->has_build_id);
  EXPECT_EQ(b.get<Mmap2>()->build_id_size, 20);
  EXPECT_EQ(b.get<Mmap2>()->build_id[19], 0xa0 + 19);
  EXPECT_EQ(b.get<Mmap2>()->prot, 5u);
}

TEST_F(KernelRecords, AuxItraceLostSamplesSwitch) {
  EXPECT_EQ(round_trip(with(Aux{1, 2, PERF_AUX_FLAG_TRUNCATED}), layout, buf).get<Aux>()->flags,
            static_cast<std::uint64_t>(PERF_AUX_FLAG_TRUNCATED));
  EXPECT_EQ(round_trip(with(ItraceStart{7, 8}), layout, buf).get<ItraceStart>()->tid, 8u);
  EXPECT_EQ(round_trip(with(LostSamples{33}), layout, buf).get<LostSamples>()->lost, 33u);
  auto sw = round_trip(with(Switch{}, PERF_RECORD_MISC_SWITCH_OUT), layout, buf);
  EXPECT_NE(sw.get<Switch>(), nullptr);
  EXPECT_TRUE(sw.header.misc & PERF_RECORD_MISC_SWITCH_OUT);
  expect_id(sw);
  auto cw = round_trip(with(SwitchCpuWide{100, 101},
                            PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT),
                       layout, buf);
  EXPECT_EQ(cw.get<SwitchCpuWide>()->next_prev_tid, 101u);
  EXPECT_TRUE(misc_switch_out_preempt(cw.header.misc));
  EXPECT_TRUE(misc_switch_out(cw.header.misc));
  EXPECT_FALSE(misc_switch_out(0));
}

TEST_F(KernelRecords, NamespacesKsymbolBpfCgroupTextPokeHwId) {
  std::vector<std::uint64_t> links;
  for (std::uint64_t i = 0; i < 14; ++i) links.push_back(1000 + i);
  Namespaces ns{5, 6, 7, U64Array::of(links)};
  auto n = round_trip(with(ns), layout, buf);
  ASSERT_EQ(n.get<Namespaces>()->nr_namespaces, 7u);
  EXPECT_EQ(n.get<Namespaces>()->inode(NET_NS_INDEX), 1001u);
  EXPECT_EQ(n.get<Namespaces>()->dev(CGROUP_NS_INDEX), 1012u);

  auto k =
      round_trip(with(Ksymbol{0xffffffffc0001000, 0x40, PERF_RECORD_KSYMBOL_TYPE_BPF,
                              PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER, "bpf_prog_59f4a931744dcdc6"}),
                 layout, buf);
  EXPECT_EQ(k.get<Ksymbol>()->name, "bpf_prog_59f4a931744dcdc6");
  EXPECT_EQ(k.get<Ksymbol>()->flags, PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER);

  BpfEvent be{PERF_BPF_EVENT_PROG_LOAD, 0, 42, {1, 2, 3, 4, 5, 6, 7, 8}};
  auto b = round_trip(with(be), layout, buf);
  EXPECT_EQ(b.get<BpfEvent>()->id, 42u);
  EXPECT_EQ(b.get<BpfEvent>()->tag[7], 8);

  auto c = round_trip(with(Cgroup{9876, "/seedprobe_rec"}), layout, buf);
  EXPECT_EQ(c.get<Cgroup>()->path, "/seedprobe_rec");

  const std::byte old_b[3] = {std::byte{0x90}, std::byte{0x90}, std::byte{0x90}};
  const std::byte new_b[5] = {std::byte{0xe8}, std::byte{1}, std::byte{2}, std::byte{3},
                              std::byte{4}};
  auto tp = round_trip(with(TextPoke{0xffffffff81000000, 3, 5, old_b, new_b}), layout, buf);
  ASSERT_NE(tp.get<TextPoke>(), nullptr);
  EXPECT_EQ(tp.get<TextPoke>()->new_bytes.size(), 5u);
  EXPECT_EQ(tp.get<TextPoke>()->new_bytes[0], std::byte{0xe8});
  EXPECT_EQ(tp.get<TextPoke>()->old_bytes[2], std::byte{0x90});
  expect_id(tp);

  EXPECT_EQ(round_trip(with(AuxOutputHwId{0xabc}), layout, buf).get<AuxOutputHwId>()->hw_id,
            0xabcu);
}

TEST_F(KernelRecords, ReadSingleAndGroup) {
  attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
                     PERF_FORMAT_ID | PERF_FORMAT_LOST;
  layout = SampleLayout::from_attr(attr);
  Read rd;
  rd.pid = 1;
  rd.tid = 2;
  rd.values.read_format = attr.read_format;
  rd.values.time_enabled = 10;
  rd.values.time_running = 9;
  rd.values.single = {12345, 77, 3};
  auto r = round_trip(with(rd), layout, buf);
  ASSERT_NE(r.get<Read>(), nullptr);
  EXPECT_EQ(r.get<Read>()->values[0].value, 12345u);
  EXPECT_EQ(r.get<Read>()->values[0].lost, 3u);
  EXPECT_EQ(r.get<Read>()->values.time_running, 9u);

  attr.read_format |= PERF_FORMAT_GROUP;
  layout = SampleLayout::from_attr(attr);
  std::vector<std::uint64_t> entries = {100, 1, 0, 200, 2, 5};
  rd.values.read_format = attr.read_format;
  rd.values.nr = 2;
  rd.values.entries = std::as_bytes(std::span(entries));
  auto g = round_trip(with(rd), layout, buf);
  ASSERT_NE(g.get<Read>(), nullptr);
  ASSERT_EQ(g.get<Read>()->values.size(), 2u);
  EXPECT_EQ(g.get<Read>()->values[1].value, 200u);
  EXPECT_EQ(g.get<Read>()->values[1].id, 2u);
  EXPECT_EQ(g.get<Read>()->values[1].lost, 5u);
}

TEST_F(KernelRecords, NoSampleIdAllMeansNoTrailer) {
  attr.sample_id_all = 0;
  layout = SampleLayout::from_attr(attr);
  auto r = round_trip(with(Comm{1, 1, "x"}), layout, buf);
  EXPECT_EQ(buf.size(), 8u + 8u + 8u);  // header, pid/tid, "x\0" padded
  EXPECT_EQ(r.sample_id.fields, 0u);
}

// Every sample field, in the kernel's order, with group read + LOST, hw_idx, regs.
TEST(SampleCodec, AllFields) {
  const raw::EventAttr attr = test_support::every_field_attr();
  const SampleLayout layout = SampleLayout::from_attr(attr);
  EXPECT_EQ(layout.regs_user_count, 3u);
  EXPECT_EQ(layout.regs_intr_count, 2u);
  EXPECT_EQ(layout.id_offset, 8);
  EXPECT_EQ(layout.ip_offset, 16);
  EXPECT_EQ(layout.time_offset, 32);
  EXPECT_EQ(layout.fixed_size, 8u * 9u);

  const test_support::SamplePayloads payloads;
  const Sample s = test_support::every_field_sample(payloads);
  Record rec;
  rec.header.type = PERF_RECORD_SAMPLE;
  rec.header.misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP;
  rec.body = s;

  std::vector<std::byte> buf;
  Record out = round_trip(rec, layout, buf);
  const auto* d = out.get<Sample>();
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(cpumode(out.header.misc), PERF_RECORD_MISC_USER);
  EXPECT_TRUE(out.header.misc & PERF_RECORD_MISC_EXACT_IP);
  ASSERT_NO_FATAL_FAILURE(test_support::expect_every_field(*d));
  EXPECT_EQ(out.sample_id.id, 501u);
  // Views point into the source buffer (no copies).
  EXPECT_GE(d->callchain.bytes().data(), buf.data());
  EXPECT_LT(d->callchain.bytes().data(), buf.data() + buf.size());
}

TEST(SampleCodec, SingleReadWeightAbiNoneEmptyStack) {
  raw::EventAttr attr = make_attr(PERF_SAMPLE_IP | PERF_SAMPLE_READ | PERF_SAMPLE_REGS_USER |
                                  PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_RAW);
  attr.read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
  attr.sample_regs_user = 0xff;
  const SampleLayout layout = SampleLayout::from_attr(attr);
  Sample s;
  s.ip = 1;
  s.read.read_format = attr.read_format;
  s.read.single = {10, 20, 30};
  s.regs_user.abi = PERF_SAMPLE_REGS_ABI_NONE;  // e.g. a kernel thread: no regs follow
  s.stack_user.size = 0;                        // no data, no dyn_size
  s.weight = 999;
  std::vector<std::byte> raw(5, std::byte{1});  // padded to 4 + 12 by the encoder
  s.raw = raw;
  Record rec;
  rec.body = s;
  std::vector<std::byte> buf;
  Record out = round_trip(rec, layout, buf);
  const auto* d = out.get<Sample>();
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->read[0].value, 10u);
  EXPECT_EQ(d->read[0].id, 20u);
  EXPECT_EQ(d->read[0].lost, 30u);
  EXPECT_TRUE(d->regs_user.regs.empty());
  EXPECT_EQ(d->stack_user.size, 0u);
  EXPECT_EQ(d->weight, 999u);
  EXPECT_EQ(d->raw.size(), 12u);  // the kernel's size includes the padding
  // header 8 + ip 8 + read 24 + abi 8 + stack size 8 + weight 8 + raw 16
  EXPECT_EQ(buf.size(), 80u);
}

TEST(UserRecords, RoundTrip) {
  std::vector<std::byte> buf;
  const SampleLayout none{};
  std::vector<std::uint64_t> ids = {5, 6, 7};
  HeaderAttr ha;
  ha.attr = make_attr(PERF_SAMPLE_IP);
  ha.attr.config = PERF_COUNT_SW_TASK_CLOCK;
  ha.ids = U64Array::of(ids);
  Record r;
  r.body = ha;
  auto a = round_trip(r, none, buf);
  ASSERT_NE(a.get<HeaderAttr>(), nullptr);
  EXPECT_EQ(a.get<HeaderAttr>()->attr.config, static_cast<std::uint64_t>(PERF_COUNT_SW_TASK_CLOCK));
  EXPECT_EQ(a.get<HeaderAttr>()->ids.size(), 3u);
  EXPECT_EQ(a.get<HeaderAttr>()->attr_size, raw::kAttrSizeVer7);

  HeaderBuildId hb;
  hb.pid = -1;
  hb.build_id_size = 20;
  hb.build_id[0] = 0xab;
  hb.filename = "[kernel.kallsyms]";
  r.body = hb;
  r.header.type = 0;
  r.header.misc = PERF_RECORD_MISC_KERNEL | (1u << 15);
  buf.clear();
  ASSERT_TRUE(encode_record(r, none, buf));
  auto b = decode_record(buf, none);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->get<HeaderBuildId>()->pid, -1);
  EXPECT_EQ(b->get<HeaderBuildId>()->filename, "[kernel.kallsyms]");
  EXPECT_EQ(b->get<HeaderBuildId>()->build_id[0], 0xab);
  r.header.misc = 0;

  r.body = HeaderEventType{3, "sched:sched_switch"};
  EXPECT_EQ(round_trip(r, none, buf).get<HeaderEventType>()->name, "sched:sched_switch");
  r.body = FinishedRound{};
  EXPECT_EQ(round_trip(r, none, buf).header.size, 8u);
  r.body = FinishedInit{};
  EXPECT_NE(round_trip(r, none, buf).get<FinishedInit>(), nullptr);
  std::vector<std::uint64_t> idx = {1, 0, 0, 100, 2, 0, 1, 101};
  r.body = IdIndex{2, U64Array::of(idx)};
  EXPECT_EQ(round_trip(r, none, buf).get<IdIndex>()->entries[7], 101u);
  TimeConv tc;
  tc.time_shift = 31;
  tc.time_mult = 1000;
  tc.time_zero = 5;
  tc.extended = true;
  tc.time_mask = 0xffff;
  tc.cap_user_time_zero = 1;
  r.body = tc;
  auto t = round_trip(r, none, buf);
  EXPECT_TRUE(t.get<TimeConv>()->extended);
  EXPECT_EQ(t.get<TimeConv>()->time_mask, 0xffffu);
  const std::byte feat[8] = {std::byte{1}};
  r.body = HeaderFeature{3, feat};
  EXPECT_EQ(round_trip(r, none, buf).get<HeaderFeature>()->feat_id, 3u);
  r.body = Compressed{feat};
  EXPECT_EQ(round_trip(r, none, buf).get<Compressed>()->data.size(), 8u);
  r.body = Auxtrace{0, 1, 2, 3, 4, 5, {}};
  EXPECT_EQ(round_trip(r, none, buf).get<Auxtrace>()->cpu, 5u);
}

TEST(Malformed, HeaderAndBodyErrors) {
  const SampleLayout layout = SampleLayout::from_attr(make_attr(PERF_SAMPLE_IP | PERF_SAMPLE_TID));
  std::vector<std::byte> buf;
  Record r;
  r.body = Comm{1, 2, "abc"};
  ASSERT_TRUE(encode_record(r, layout, buf));
  // size below 8
  auto small = buf;
  small[6] = std::byte{4};
  small[7] = std::byte{0};
  auto e1 = decode_record(small, layout, {.offset = 0x1234});
  ASSERT_FALSE(e1);
  EXPECT_EQ(e1.error().code(), Errc::kMalformedData);
  EXPECT_NE(e1.error().message().find("0x1234"), std::string::npos);
  // size past the end
  auto cut = std::span(buf).first(buf.size() - 8);
  EXPECT_FALSE(decode_record(cut, layout));
  // Fixed-size record with extra bytes: consumes less than size.
  Record lost;
  lost.body = Lost{1, 2};
  std::vector<std::byte> lb;
  ASSERT_TRUE(encode_record(lost, layout, lb));
  lb.insert(lb.end(), 8, std::byte{0});
  lb[6] = static_cast<std::byte>(lb.size());
  auto e2 = decode_record(lb, layout);
  ASSERT_FALSE(e2);
  EXPECT_NE(e2.error().message().find("left after"), std::string::npos);
  // String without NUL in its bound.
  std::vector<std::byte> cb;
  ASSERT_TRUE(encode_record(r, layout, cb));
  for (std::size_t i = 16; i < cb.size(); ++i) cb[i] = std::byte{'x'};
  EXPECT_FALSE(decode_record(cb, layout));
  // Callchain count far past the record.
  const SampleLayout cl = SampleLayout::from_attr(make_attr(PERF_SAMPLE_CALLCHAIN));
  std::vector<std::byte> sb(24, std::byte{0});
  const std::uint32_t type = PERF_RECORD_SAMPLE;
  std::memcpy(sb.data(), &type, 4);
  sb[6] = std::byte{24};
  const std::uint64_t huge = ~std::uint64_t{0} / 4;
  std::memcpy(sb.data() + 8, &huge, 8);
  auto e3 = decode_record(sb, cl);
  ASSERT_FALSE(e3);
  EXPECT_NE(e3.error().message().find("callchain"), std::string::npos);
  // Unknown type: not an error.
  std::vector<std::byte> ub(16, std::byte{0});
  ub[0] = std::byte{50};
  ub[6] = std::byte{16};
  auto u = decode_record(ub, layout);
  ASSERT_TRUE(u);
  EXPECT_NE(u->get<Unknown>(), nullptr);
  EXPECT_EQ(u->get<Unknown>()->payload.size(), 8u);
}

TEST(Encoder, RejectsInconsistentRecords) {
  raw::EventAttr attr = make_attr(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
  attr.sample_regs_user = 0x3;
  const SampleLayout layout = SampleLayout::from_attr(attr);
  std::vector<std::uint64_t> one = {1};
  Sample s;
  s.regs_user = {PERF_SAMPLE_REGS_ABI_64, 3, U64Array::of(one)};
  Record r;
  r.body = s;
  std::vector<std::byte> buf;
  EXPECT_FALSE(encode_record(r, layout, buf));
  EXPECT_TRUE(buf.empty());          // rolled back
  r.header.type = PERF_RECORD_COMM;  // type/body mismatch
  EXPECT_FALSE(encode_record(r, layout, buf));
  std::string big(70000, 'a');
  Record c;
  c.body = Comm{1, 1, big};
  EXPECT_FALSE(encode_record(c, layout, buf));
}

// A COMM of thread 1/2 whose sample_id trailer carries the event `id`.
Record comm_of(std::uint64_t id, std::string_view name) {
  Record c;
  c.body = Comm{1, 2, name};
  c.sample_id.id = id;
  return c;
}

TEST(AttrTable, FindsAttrByIdentifierAndTrailerId) {
  AttrTable t;
  auto a = make_attr(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID);
  auto b =
      make_attr(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN);
  const std::uint64_t ids_a[] = {10, 11};
  const std::uint64_t ids_b[] = {20};
  t.add(a, ids_a, "a");
  t.add(b, ids_b, "b");
  EXPECT_FALSE(t.uniform());
  std::vector<std::uint64_t> chain = {1, 2};
  const Record r = test_support::chain_sample(20, 5, 9, chain);
  std::vector<std::byte> buf;
  ASSERT_TRUE(encode_record(r, t[1].layout, buf));
  auto d = decode_record(buf, t);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->attr_index, 1);
  EXPECT_EQ(d->get<Sample>()->callchain.size(), 2u);

  Record c = comm_of(11, "x");
  c.sample_id.pid = 1;
  buf.clear();
  ASSERT_TRUE(encode_record(c, t[0].layout, buf));
  auto dc = decode_record(buf, t);
  ASSERT_TRUE(dc);
  EXPECT_EQ(dc->attr_index, 0);
  EXPECT_EQ(dc->sample_id.id, 11u);
  EXPECT_EQ(t.index_of_id(20), 1);
  EXPECT_EQ(t.index_of_id(99), -1);
}

// The time a live session orders records by, read without decoding them: a sample's at
// its attr's TIME offset, a side-band record's from its sample_id trailer.
TEST(AttrTable, TimeOfRecordReadsSamplesAndTrailers) {
  AttrTable t;
  auto timed = make_attr(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                         PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN);
  auto untimed = make_attr(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID);
  const std::uint64_t ids_timed[] = {1};
  const std::uint64_t ids_untimed[] = {2};
  t.add(timed, ids_timed, "timed");
  t.add(untimed, ids_untimed, "untimed");

  std::vector<std::uint64_t> chain = {7, 8, 9};
  const Record r = test_support::chain_sample(1, 0, 123456789, chain);
  std::vector<std::byte> buf;
  ASSERT_TRUE(encode_record(r, t[0].layout, buf));
  EXPECT_EQ(t.time_of_record(buf, false), 123456789u);
  // What decode_record() gives, and a record too short for its fields gives 0.
  EXPECT_EQ(decode_record(buf, t)->get<Sample>()->time, 123456789u);
  EXPECT_EQ(t.time_of_record(std::span<const std::byte>(buf).first(12), false), 0u);

  Record c = comm_of(1, "worker");
  c.sample_id.time = 555;
  buf.clear();
  ASSERT_TRUE(encode_record(c, t[0].layout, buf));
  EXPECT_EQ(t.time_of_record(buf, false), 555u);

  Sample u;  // an attr without TIME: no time
  u.identifier = 2;
  Record ru;
  ru.body = u;
  buf.clear();
  ASSERT_TRUE(encode_record(ru, t[1].layout, buf));
  EXPECT_EQ(t.time_of_record(buf, false), 0u);
}

}  // namespace
}  // namespace perfx::record
