// Recording a perf.data in a few lines (perfx/record.hpp): sample a short shell loop with
// cpu-clock, as `perfx record -e cpu-clock -o <tmp>/perf.data -- sh -c '...'` would, and
// print what the session reports.
//
//   $ build/examples/example_record_session
//   plan: 1 event(s), cpu-clock sample_type=0x107
//   recorded 2095 samples (0 lost) into /tmp/perfx-record-XXXXXX/perf.data, 0.081 MB
//
// Linux `perf report -i <file>` reads the result.

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "perfx/record.hpp"

namespace {

// Says what happened as it goes: here only the fallbacks (the library never prints).
struct Notes : perfx::RecordObserver {
  void on_cycles_fallback() override { std::puts("no PMU for cycles: using cpu-clock"); }
  void on_user_space_only(long long paranoid, const std::string& events) override {
    std::printf("perf_event_paranoid %lld: user space only (%s)\n", paranoid, events.c_str());
  }
};

}  // namespace

int main() {
  char dir[] = "/tmp/perfx-record-XXXXXX";
  if (::mkdtemp(dir) == nullptr) return 1;
  const std::string path = std::string(dir) + "/perf.data";

  perfx::RecordOptions opt;
  opt.events = {"cpu-clock"};
  opt.command = {"sh", "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done"};
  opt.output = path;

  auto plan = perfx::plan_record(opt);
  if (!plan) {
    std::fprintf(stderr, "plan: %s\n", plan.error().message().c_str());
    return 1;
  }
  std::printf("plan: %zu event(s), %s sample_type=%#llx\n", plan->events.size(),
              plan->events[0].name.c_str(),
              static_cast<unsigned long long>(plan->events[0].attr.sample_type));

  Notes notes;
  auto result = perfx::run_record_session(std::move(*plan), notes);
  int rc = 0;
  if (!result) {
    // No permission to sample (perf_event_paranoid): say so, it is not this program's bug.
    const bool env = result.error().code() == perfx::Errc::kPermission ||
                     result.error().code() == perfx::Errc::kNotSupported;
    std::printf("cannot record here: %s\n", result.error().message().c_str());
    rc = env ? 0 : 1;
  } else {
    std::printf("recorded %llu samples (%llu lost) into %s, %.3f MB\n",
                static_cast<unsigned long long>(result->samples),
                static_cast<unsigned long long>(result->lost), path.c_str(),
                static_cast<double>(result->bytes) / (1024.0 * 1024.0));
    rc = result->exit_code;
  }
  ::unlink(path.c_str());
  ::unlink((path + ".old").c_str());
  ::rmdir(dir);
  return rc;
}
