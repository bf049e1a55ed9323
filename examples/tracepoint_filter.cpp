// A tracepoint with an ftrace filter (PERF_EVENT_IOC_SET_FILTER): count only the getpid()
// system calls among all raw_syscalls:sys_enter hits of this thread.
//
//   $ build/examples/example_tracepoint_filter
//   raw_syscalls:sys_enter with filter 'id == 39': 100 (100 getpid calls made)

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "perfx/event_handle.hpp"
#include "perfx/events.hpp"

int main() {
  auto tp = perfx::tracepoint_event("raw_syscalls", "sys_enter");
  if (!tp) {
    std::printf("tracepoint_filter: tracepoints unavailable here: %s\n",
                tp.error().message().c_str());
    return 0;
  }
  perfx::raw::EventAttr attr = tp->attr;
  attr.disabled = 1;
  auto ev = perfx::EventFd::open(attr, perfx::OpenTarget::self(), tp->name);
  if (!ev) {
    std::printf("tracepoint_filter: cannot open %s here: %s\n", tp->name.c_str(),
                ev.error().message().c_str());
    return 0;
  }
  const std::string filter = "id == " + std::to_string(SYS_getpid);
  if (auto r = ev->set_filter(filter); !r) {
    std::fprintf(stderr, "tracepoint_filter: %s\n", r.error().message().c_str());
    return 1;
  }
  if (!ev->enable()) return 1;
  for (int i = 0; i < 100; ++i) syscall(SYS_getpid);
  if (!ev->disable()) return 1;
  auto r = ev->read();
  if (!r) return 1;
  std::printf("%s with filter '%s': %llu (100 getpid calls made)\n", tp->name.c_str(),
              filter.c_str(), static_cast<unsigned long long>(r->values.at(0).value));
  return 0;
}
