// Typed decoding of a ring buffer (perfx::RingRecordReader, what Sampler::for_each_record
// runs per buffer): records/s and bytes/s over a simulated 1 MiB data area filled with
// the records a `perf record -g`-like session produces (SAMPLE with an 8..24-frame
// callchain, now and then MMAP2 and COMM), starting at an offset so records wrap.
//
//   build/bench/ring_decode_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "perfx/records.hpp"
#include "record/encoder.hpp"
#include "record/ring_reader.hpp"
#include "record/sample_layout.hpp"

namespace {

using namespace perfx;
using namespace perfx::record;

raw::EventAttr bench_attr() {
  raw::EventAttr a{};
  a.size = raw::kAttrSizeVer8;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_CPU_CLOCK;
  a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                  PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
  a.sample_id_all = 1;
  return a;
}

struct Ring {
  std::vector<std::byte> area;
  std::uint64_t tail = 0, head = 0, records = 0;
};

// Fills `cap` bytes (minus the last record that does not fit) starting at `start`.
Ring make_ring(std::size_t cap, std::size_t start) {
  const auto layout = SampleLayout::from_attr(bench_attr());
  std::vector<std::byte> stream;
  std::vector<std::uint64_t> chain(24);
  Ring r;
  for (std::uint64_t i = 0;; ++i) {
    Record rec;
    if (i % 100 == 50) {
      Mmap2 m;
      m.pid = m.tid = 1234;
      m.addr = 0x7f0000000000 + i * 0x1000;
      m.len = 0x1000;
      m.filename = "/usr/lib/x86_64-linux-gnu/libexample.so.1";
      rec.body = m;
    } else if (i % 1000 == 999) {
      rec.body = Comm{1234, 1235, "worker-thread"};
    } else {
      Sample s;
      s.identifier = 42;
      s.ip = 0x401000 + i;
      s.pid = 1234;
      s.tid = 1235;
      s.time = 1000000 + i;
      s.period = 250000;
      for (std::size_t k = 0; k < chain.size(); ++k) chain[k] = 0x400000 + i + k;
      s.callchain = U64Array::of(std::span(chain).first(8 + i % 17));
      rec.body = s;
    }
    rec.header.type = type_of_body(rec.body);
    rec.sample_id.fields =
        PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
    rec.sample_id.id = 42;
    const std::size_t before = stream.size();
    if (!encode_record(rec, layout, stream)) std::abort();
    if (stream.size() > cap) {
      stream.resize(before);
      break;
    }
    ++r.records;
  }
  r.area.resize(cap);
  for (std::size_t i = 0; i < stream.size(); ++i) r.area[(start + i) % cap] = stream[i];
  r.tail = start;
  r.head = start + stream.size();
  return r;
}

void BM_RingDecodeTyped(benchmark::State& state) {
  const Ring ring = make_ring(1 << 20, static_cast<std::size_t>(state.range(0)));
  RecordDecoder decoder;
  const std::uint64_t id = 42;
  decoder.add(bench_attr(), std::span(&id, 1), "cpu-clock");
  RingRecordReader reader(ring.area, decoder);
  std::uint64_t sum = 0;
  for (auto _ : state) {
    reader.begin(ring.head, ring.tail);
    while (const Record* rec = reader.next()) {
      if (const auto* s = rec->get<Sample>()) sum += s->ip + s->callchain.size();
    }
  }
  benchmark::DoNotOptimize(sum);
  const auto passes = static_cast<std::int64_t>(state.iterations());
  state.SetItemsProcessed(passes * static_cast<std::int64_t>(ring.records));
  state.SetBytesProcessed(passes * static_cast<std::int64_t>(ring.head - ring.tail));
  if (reader.stats().malformed_records != 0) state.SkipWithError("malformed records");
}
// Start 0: only the last record may touch the end; 1 MiB - 4 KiB: the stream wraps early.
BENCHMARK(BM_RingDecodeTyped)->Arg(0)->Arg((1 << 20) - 4096);

// The same pass without decoding (the internal header walk + join, record::RingReader),
// to show what the typed decode costs on top.
void BM_RingWalkOnly(benchmark::State& state) {
  const Ring ring = make_ring(1 << 20, static_cast<std::size_t>(state.range(0)));
  RingReader reader(ring.area);
  std::uint64_t n = 0;
  for (auto _ : state) {
    reader.begin(ring.head, ring.tail);
    while (auto bytes = reader.next()) n += bytes->size();
  }
  benchmark::DoNotOptimize(n);
  const auto passes = static_cast<std::int64_t>(state.iterations());
  state.SetItemsProcessed(passes * static_cast<std::int64_t>(ring.records));
  state.SetBytesProcessed(passes * static_cast<std::int64_t>(ring.head - ring.tail));
}
BENCHMARK(BM_RingWalkOnly)->Arg(0)->Arg((1 << 20) - 4096);

}  // namespace

BENCHMARK_MAIN();
