// Reading a perf.data (written by perf or perfx, file or pipe mode, compressed or not)
// as typed records: the same record types the live ring buffer gives. With no argument,
// records a tiny perf.data of itself first (Sampler -> PerfDataWriter) and reads that.
//
//   $ build/examples/example_read_perf_data [perf.data]
//   perf.data: 1 event(s), file mode
//     event 0: task-clock (sample_type 0x107)
//   SAMPLE pid 4242 tid 4242 time 1234567890 ip 0x55d1c0a01234 event task-clock
//   ...
//   records: 57 (SAMPLE 52, MMAP2 3, COMM 2), malformed 0, lost 0

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "example_support.hpp"
#include "perfx/perf_data.hpp"
#include "perfx/sampler.hpp"

namespace {

// Samples this thread for ~50 ms of CPU time into `path`.
perfx::Result<void> record_self(const std::string& path) {
  perfx::raw::EventAttr attr{};
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.sample_period = 1000000;
  attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
  attr.mmap2 = attr.mmap = attr.comm = attr.sample_id_all = 1;
  attr.disabled = 1;
  return example::record_self(path, "task-clock", attr, [] { example::burn_cpu(50); });
}

}  // namespace

int main(int argc, char** argv) {
  const example::InputPerfData input(argc, argv, "perfx_example", record_self);
  if (!input.ready("read_perf_data")) return 1;
  const std::string& path = input.path();

  auto file = perfx::PerfDataRecords::open(path);
  if (!file) {
    std::fprintf(stderr, "read_perf_data: %s\n", file.error().message().c_str());
    return 1;
  }
  const perfx::PerfDataInfo head = file->info();
  std::printf("%s: %zu event(s), %s mode\n", path.c_str(), head.events.size(),
              head.pipe ? "pipe" : "file");
  for (std::size_t i = 0; i < head.events.size(); ++i) {
    std::printf("  event %zu: %s (sample_type %#" PRIx64 ")\n", i, head.events[i].name.c_str(),
                head.events[i].sample_type);
  }
  std::map<std::string, std::uint64_t> by_type;
  std::uint64_t shown = 0;
  while (const perfx::record::Record* rec = file->next()) {
    ++by_type[std::string(perfx::record::record_type_name(rec->type()))];
    const auto* s = rec->get<perfx::record::Sample>();
    if (s == nullptr || shown++ >= 5) continue;
    const auto& events = file->info().events;  // pipe mode: attrs arrive with the records
    const std::size_t ev = rec->attr_index < 0 ? 0 : static_cast<std::size_t>(rec->attr_index);
    std::printf("SAMPLE pid %u tid %u time %" PRIu64 " ip %#" PRIx64 " event %s\n", s->pid, s->tid,
                s->time, s->ip, ev < events.size() ? events[ev].name.c_str() : "?");
  }
  const perfx::PerfDataInfo info = file->info();
  std::printf("records: %" PRIu64 " (", info.records);
  const char* sep = "";
  for (const auto& [name, n] : by_type) {
    std::printf("%s%s %" PRIu64, sep, name.c_str(), n);
    sep = ", ";
  }
  std::printf("), malformed %" PRIu64 ", lost %" PRIu64 "\n", info.malformed, info.lost);
  if (file->error() != nullptr) {
    std::fprintf(stderr, "read_perf_data: %s\n", file->error()->message().c_str());
    return 1;
  }
  return 0;
}
