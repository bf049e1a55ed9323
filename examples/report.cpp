// perf report's and perf diff's text over a resolved perfx::Profile (perfx/report.hpp).
// The profiles here are built by hand (no kernel or recording needed): a program whose
// main calls parse and sort, before and after sort got faster. A real program gets its
// Profile from perfx::Recording::load_profile() (recording.hpp).
//
//   $ build/examples/example_report
//   # Children      Self  Command  Shared Object  Symbol
//   ...
//   # Baseline  Delta Abs  Shared Object  Symbol
//   ...

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "perfx/report.hpp"

namespace {

// main -> parse (leaf) `parse` times and main -> sort (leaf) `sort` times, 1 ms each.
perfx::Profile make_profile(std::uint32_t parse, std::uint32_t sort) {
  perfx::Profile p;
  for (const char* fn : {"main", "parse", "sort"}) {
    perfx::ProfileFrame f;
    f.function = fn;
    f.dso = "app";
    f.kind = perfx::FrameKind::kUser;
    f.mapping = 0;
    p.frames.push_back(f);
  }
  p.stacks = {{0, 1}, {0, 2}};  // root first
  p.threads = {{42, 42, "app"}};
  perfx::ProfileEvent ev;
  ev.name = "task-clock";
  ev.unit = "nanoseconds";
  ev.has_callchain = true;
  for (std::uint32_t i = 0; i < parse + sort; ++i) {
    perfx::ProfileSample s;
    s.stack = i < parse ? 0 : 1;
    s.period = 1'000'000;
    p.samples.push_back(s);
    ev.total_samples += 1;
    ev.total_period += s.period;
  }
  p.events = {ev};
  return p;
}

}  // namespace

int main() {
  const perfx::Profile before = make_profile(30, 70);
  const perfx::Profile after = make_profile(30, 20);

  perfx::ReportOptions options;  // perf report's defaults: children, comm,dso,sym, graph
  options.header_hint = false;
  if (auto ok = perfx::write_report(std::cout, after, options); !ok) {
    std::fprintf(stderr, "report: %s\n", ok.error().message().c_str());
    return 1;
  }

  auto sections = perfx::diff_profiles(before, after);
  if (!sections) {
    std::fprintf(stderr, "diff: %s\n", sections.error().message().c_str());
    return 1;
  }
  for (const auto& row : (*sections)[0].rows)
    std::printf("%s: %.2f%% -> %+.2f%%\n", row.symbol.c_str(), row.baseline.value_or(0.0),
                row.delta.value_or(0.0));
  if (auto ok = perfx::write_diff_table(*sections, std::cout); !ok) {
    std::fprintf(stderr, "diff: %s\n", ok.error().message().c_str());
    return 1;
  }
  return 0;
}
