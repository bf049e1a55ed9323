// Reading a recording through its one front door, perfx::Recording: open a perf.data
// (perf's or perfx's), walk its symbolized samples, build a profile and export it.
// With no argument, it first records itself for ~50 ms of CPU time (task-clock, a
// software event: no PMU needed) into a temporary perf.data, with the maps of its own
// executable so its samples resolve to its functions, and reads that.
//
//   $ build/examples/example_read_recording [perf.data]
//   (no file given: recorded /tmp/perfx_recording_XXXXXX/perf.data)
//   1 event(s): task-clock
//   samples: 51, first at 1234.567890 s in spin (example_read_recording)
//   hottest functions (self samples):
//        48  spin
//   ...
//   folded stacks: 3 line(s), e.g. "example_read_r;spin 48"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>

#include "example_support.hpp"
#include "perfx/exporters.hpp"
#include "perfx/perf_data.hpp"
#include "perfx/recording.hpp"
#include "perfx/sampler.hpp"

namespace {

volatile unsigned sink = 0;

// The work the recording sees: ~50 ms of this thread's CPU time.
__attribute__((noinline)) void spin() {
  const long start = example::thread_cpu_ms();
  do {
    for (int i = 0; i < 100000; ++i) sink = sink + 1;
  } while (example::thread_cpu_ms() - start < 50);
}

// The executable's mappings from /proc/self/maps as MMAP2 records (perf record
// synthesizes these for a process that is already running), and its COMM.
perfx::Result<void> write_own_maps(perfx::PerfDataWriter& writer) {
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe").string();
  std::ifstream maps("/proc/self/maps");
  std::string line;
  const auto pid = static_cast<std::uint32_t>(::getpid());
  while (std::getline(maps, line)) {
    std::istringstream in(line);
    std::string range, perms, offset, dev, inode, path;
    in >> range >> perms >> offset >> dev >> inode >> path;
    if (path != exe || perms.find('x') == std::string::npos) continue;
    perfx::record::Mmap2 m;
    m.pid = m.tid = pid;
    m.addr = std::stoull(range.substr(0, range.find('-')), nullptr, 16);
    m.len = std::stoull(range.substr(range.find('-') + 1), nullptr, 16) - m.addr;
    m.pgoff = std::stoull(offset, nullptr, 16);
    m.prot = 5;   // r-x
    m.flags = 2;  // MAP_PRIVATE
    m.filename = path;
    perfx::record::Record r;
    r.header.misc = PERF_RECORD_MISC_USER;
    r.body = m;
    PERFX_CHECK(writer.write(r));
  }
  perfx::record::Record c;
  c.body = perfx::record::Comm{pid, pid, "example_read_r"};
  return writer.write(c);
}

// Samples this thread's spin() into `path`.
perfx::Result<void> record_self(const std::string& path) {
  perfx::raw::EventAttr attr{};
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.sample_period = 1000000;  // 1 ms of CPU time
  attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
  attr.disabled = 1;
  attr.exclude_kernel = attr.exclude_hv = 1;  // allowed at perf_event_paranoid 2
  return example::record_self(path, "task-clock", attr, spin, write_own_maps);
}

int fail(const char* what, const perfx::Error& e) {
  std::fprintf(stderr, "read_recording: %s: %s\n", what, e.message().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const example::InputPerfData input(argc, argv, "perfx_recording", record_self);
  if (!input.ready("read_recording")) return 1;
  const std::string& path = input.path();

  auto rec = perfx::Recording::open(path);  // perf's owner check, header, attrs, features
  if (!rec) return fail("opening", rec.error());
  const perfx::PerfDataInfo info = rec->info();
  std::printf("%zu event(s):", info.events.size());
  for (const auto& e : info.events) std::printf(" %s", e.name.c_str());
  std::printf("\n");

  // 1. The samples in time order, each with its thread and resolved frames.
  std::uint64_t samples = 0;
  std::string first;
  auto walked = rec->for_each_sample({}, [&](const perfx::SymbolizedSample& s) {
    if (samples++ == 0 && !s.frames.empty()) {
      char when[32];
      std::snprintf(when, sizeof when, "%" PRIu64 ".%06" PRIu64, s.time / 1000000000,
                    s.time % 1000000000 / 1000);
      first = std::string(when) + " s in " + std::string(s.frames[0].function) + " (" +
              std::string(s.comm) + ")";
    }
    return true;
  });
  if (!walked) return fail("reading samples", walked.error());
  std::printf("samples: %" PRIu64 "%s%s\n", samples, first.empty() ? "" : ", first at ",
              first.c_str());

  // 2. A profile (a second pass: a file is opened anew), its hottest functions.
  perfx::ProfileOptions po;
  po.aggregate = true;  // one entry per stack: enough for sums and folded stacks
  auto prof = rec->load_profile(po);
  if (!prof) return fail("loading the profile", prof.error());
  std::map<std::string, std::uint64_t> self;
  for (const auto& s : prof->samples) {
    if (auto leaf = perfx::sampled_frame(*prof, s)) self[prof->frames[*leaf].function] += s.count;
  }
  std::multimap<std::uint64_t, std::string, std::greater<>> hottest;
  for (const auto& [name, n] : self) hottest.emplace(n, name);
  std::printf("hottest functions (self samples):\n");
  int shown = 0;
  for (const auto& [n, name] : hottest) {
    if (shown++ == 5) break;
    std::printf("  %6" PRIu64 "  %s\n", n, name.c_str());
  }

  // 3. An export: folded stacks (flame graph input), into a string here.
  std::ostringstream folded;
  if (auto ok = perfx::export_profile("folded", *prof, folded); !ok)
    return fail("exporting", ok.error());
  const std::string text = folded.str();
  const auto lines = static_cast<long>(std::count(text.begin(), text.end(), '\n'));
  std::printf("folded stacks: %ld line(s)%s%s%s\n", lines, lines ? ", e.g. \"" : "",
              text.substr(0, text.find('\n')).c_str(), lines ? "\"" : "");
  if (!prof->damage.empty()) std::printf("damage: %s\n", prof->damage.c_str());

  return 0;
}
