// A group read with ids, as the man page describes PERF_FORMAT_GROUP | PERF_FORMAT_ID:
// one read(2) on the leader returns every member's value tagged with its id; match the
// ids to the events with PERF_EVENT_IOC_ID.
//
//   $ build/examples/example_group_read_ids
//   page-faults      id 1234   value 64
//   minor-faults     id 1235   value 64

#include <linux/perf_event.h>
#include <sys/mman.h>

#include <cstdio>

#include "perfx/event_handle.hpp"
#include "perfx/events.hpp"

int main() {
  constexpr std::uint64_t kFormat = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
                                    PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  perfx::EventSpec specs[] = {perfx::software_event(perfx::SoftwareEvent::kPageFaults),
                              perfx::software_event(perfx::SoftwareEvent::kPageFaultsMin)};
  perfx::EventFd fds[2];
  for (int i = 0; i < 2; ++i) {
    perfx::raw::EventAttr attr = specs[i].attr;
    attr.read_format = kFormat;
    attr.disabled = i == 0 ? 1 : 0;  // toggle the leader only
    attr.exclude_kernel = 1;
    const perfx::OpenTarget target =
        i == 0 ? perfx::OpenTarget::self() : perfx::OpenTarget::self().in_group(fds[0]);
    auto fd = perfx::EventFd::open(attr, target, specs[i].name);
    if (!fd) {
      std::fprintf(stderr, "group_read_ids: %s\n", fd.error().message().c_str());
      return 1;
    }
    fds[i] = std::move(*fd);
  }
  if (!fds[0].enable()) return 1;
  const std::size_t len = 64 * 4096;
  void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  for (std::size_t off = 0; p != MAP_FAILED && off < len; off += 4096) {
    static_cast<volatile char*>(p)[off] = 1;
  }
  if (p != MAP_FAILED) munmap(p, len);
  if (!fds[0].disable()) return 1;

  auto r = fds[0].read(2);  // both members in one read
  if (!r) {
    std::fprintf(stderr, "group_read_ids: %s\n", r.error().message().c_str());
    return 1;
  }
  std::printf("time enabled %llu ns, running %llu ns\n",
              static_cast<unsigned long long>(r->time_enabled),
              static_cast<unsigned long long>(r->time_running));
  for (int i = 0; i < 2; ++i) {
    auto id = fds[i].id();
    const perfx::ReadEntry* e = id ? r->find_id(*id) : nullptr;
    if (e == nullptr) return 1;
    std::printf("%-16s id %-6llu value %llu\n", specs[i].name.c_str(),
                static_cast<unsigned long long>(e->id), static_cast<unsigned long long>(e->value));
  }
  return 0;
}
