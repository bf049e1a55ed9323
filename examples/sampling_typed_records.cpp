// Sampling with typed records: sample this thread's CPU time, map a file and rename the
// thread while sampled, and print the SAMPLE, MMAP2 and COMM records the library decodes
// (no byte parsing here: wrapped records are joined by the library).
//
//   $ build/examples/example_sampling_typed_records
//   MMAP2  pid 28758 0x7f239b09f000-0x7f239b0a0000 r-x /.../example_sampling_typed_records
//   COMM   pid 28758 tid 28758 "typed-demo"
//   SAMPLE pid 28758 tid 28758 cpu 0 time 2073588895070 ip 0x5598d868150c period 1000000
//   ...
//   100 samples, 2 other records, 0 lost

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <string>

#include "example_support.hpp"
#include "perfx/sampler.hpp"

int main() {
  perfx::raw::EventAttr attr{};
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.sample_period = 1000000;  // one sample per ms of CPU
  attr.sample_type =
      PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
  attr.mmap2 = attr.mmap = attr.comm = 1;  // side-band: new mappings and thread names
  attr.sample_id_all = 1;
  attr.disabled = 1;

  perfx::SamplerOptions opt;
  opt.events.push_back({"task-clock", attr});
  opt.pids = {0};   // this thread
  opt.cpus = {-1};  // on any CPU: one per-task buffer
  opt.data_pages = 8;
  auto sampler = perfx::Sampler::open(std::move(opt));
  if (!sampler) {
    std::fprintf(stderr, "sampling_typed_records: %s\n", sampler.error().message().c_str());
    return 1;
  }
  if (!sampler->enable()) return 1;
  const int fd = ::open("/proc/self/exe", O_RDONLY | O_CLOEXEC);  // an MMAP2 to see
  void* text = fd >= 0 ? ::mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) : nullptr;
  ::prctl(PR_SET_NAME, "typed-demo");  // a COMM to see

  std::uint64_t samples = 0, others = 0;
  auto print = [&](const perfx::record::Record& rec, int) -> perfx::Result<void> {
    namespace rec_t = perfx::record;
    if (const auto* s = rec.get<rec_t::Sample>()) {
      if (samples++ < 5) {
        std::printf("SAMPLE pid %u tid %u cpu %u time %" PRIu64 " ip %#" PRIx64 " period %" PRIu64
                    "\n",
                    s->pid, s->tid, s->cpu, s->time, s->ip, s->period);
      }
    } else if (const auto* m = rec.get<rec_t::Mmap2>()) {
      ++others;
      std::printf("MMAP2  pid %u %#" PRIx64 "-%#" PRIx64 " %c%c%c %.*s\n", m->pid, m->addr,
                  m->addr + m->len, (m->prot & PROT_READ) ? 'r' : '-',
                  (m->prot & PROT_WRITE) ? 'w' : '-', (m->prot & PROT_EXEC) ? 'x' : '-',
                  static_cast<int>(m->filename.size()), m->filename.data());
    } else if (const auto* c = rec.get<rec_t::Comm>()) {
      ++others;
      std::printf("COMM   pid %u tid %u \"%.*s\"\n", c->pid, c->tid,
                  static_cast<int>(c->comm.size()), c->comm.data());
    } else {
      ++others;
      std::printf("%s\n", std::string(rec_t::record_type_name(rec.type())).c_str());
    }
    return {};
  };
  for (int round = 0; round < 10; ++round) {  // 100 ms of CPU, read every 10 ms
    example::burn_cpu(10);
    if (auto n = sampler->for_each_record(print); !n) {
      std::fprintf(stderr, "sampling_typed_records: %s\n", n.error().message().c_str());
      return 1;
    }
  }
  if (!sampler->disable() || !sampler->for_each_record(print)) return 1;
  if (text != nullptr && text != MAP_FAILED) ::munmap(text, 4096);
  if (fd >= 0) ::close(fd);
  const perfx::SamplerStats st = sampler->stats();
  std::printf("%" PRIu64 " samples, %" PRIu64 " other records, %" PRIu64 " lost\n", samples, others,
              st.lost());
  return 0;
}
