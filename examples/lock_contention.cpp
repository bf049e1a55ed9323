// Kernel lock contention per caller from a lock recording (perfx lock contention's library
// side). With a perf.data argument (from `perf lock record` or `perfx lock record`), reads
// it and names callers from /proc/kallsyms; with none, analyses two built-in waits.
//
//   $ build/examples/example_lock_contention [perf.data]
//    contended   total wait     max wait     avg wait         type   caller
//   ...

#include <cstdio>
#include <string>

#include "perfx/lock.hpp"

int main(int argc, char** argv) {
  perfx::LockTrace trace;
  perfx::LockSymbols symbols = perfx::LockSymbols::from_text("");
  if (argc > 1) {
    auto loaded = perfx::load_lock_events(argv[1]);
    if (!loaded) {
      std::fprintf(stderr, "%s\n", loaded.error().message().c_str());
      return 1;
    }
    trace = std::move(*loaded);
    if (auto k = perfx::LockSymbols::from_kallsyms("/proc/kallsyms")) symbols = std::move(*k);
  } else {
    std::printf("(no perf.data given: two built-in waits on one rwsem)\n");
    symbols = perfx::LockSymbols::from_text(
        "0000000000001000 T __sched_text_start\n0000000000002000 T __sched_text_end\n"
        "0000000000002000 T __lock_text_start\n0000000000003000 T __lock_text_end\n"
        "0000000000004000 T do_munmap\n0000000000005000 T _etext\n");
    const std::vector<std::uint64_t> chain = {0x1010, 0x1020, 0x1030, 0x4010};
    for (int tid : {7, 8}) {
      perfx::LockEvent begin;
      begin.begin = true;
      begin.time = 1000;
      begin.tid = tid;
      begin.addr = 0xabc0;
      begin.flags = perfx::kLockWrite;
      begin.callchain = chain;
      perfx::LockEvent end = begin;
      end.begin = false;
      end.time = 1000 + 1000 * static_cast<std::uint64_t>(tid);
      trace.events.push_back(begin);
      trace.events.push_back(end);
    }
  }
  const perfx::LockContention c = perfx::lock_contention(trace, symbols);
  std::printf("%s", perfx::format_lock_contention(c).c_str());
  return 0;
}
