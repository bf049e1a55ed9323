// run_live_session (perfx/record.hpp): a plan's events opened and drained into the
// observer instead of a file (what `perfx top` aggregates).
#include <signal.h>

#include <optional>

#include "core/error_format.hpp"
#include "perfx/record.hpp"
#include "perfx/sampler.hpp"
#include "record/sample_layout.hpp"
#include "sys/record_target.hpp"
#include "sys/signals.hpp"

namespace perfx {

Result<RecordResult> run_live_session(RecordPlan plan, RecordObserver& obs) {
  PERFX_TRY(target, sys::resolve_record_target(plan));
  PERFX_TRY(sampler, sys::open_plan(plan, target, obs));
  {
    std::vector<std::vector<std::uint64_t>> ids;
    for (std::size_t i = 0; i < plan.events.size(); ++i) ids.push_back(sampler.ids(i));
    obs.on_opened(plan, ids, sampler.cpus().size());
  }
  {
    const auto layout = record::SampleLayout::from_attr(plan.events[0].attr);
    std::vector<std::byte> synth;
    PERFX_CHECK(sys::synthesize_existing(plan, target, layout, true, obs, synth));
    if (!synth.empty()) obs.on_records(synth);
    obs.on_drained();
  }
  std::optional<sys::SignalPipe> sigpipe;
  if (plan.options.handle_signals) {
    PERFX_TRY(sp, sys::SignalPipe::install({SIGINT, SIGTERM, SIGHUP}));
    sigpipe.emplace(std::move(sp));
    PERFX_CHECK(sampler.add_wait_fd(sigpipe->fd()));
  }
  ::signal(SIGPIPE, SIG_IGN);
  if (const int fd = obs.input_fd(); fd >= 0) PERFX_CHECK(sampler.add_wait_fd(fd));
  PERFX_CHECK(sampler.enable());

  std::vector<std::byte> scratch;
  auto sink = [&](std::span<const std::byte> first, std::span<const std::byte> second,
                  int) -> Result<void> {
    obs.on_records(sys::contiguous(first, second, scratch));
    return {};
  };
  bool stop = false;
  while (!stop) {
    PERFX_CHECK(sampler.wait(obs.wait_timeout_ms()));
    PERFX_CHECK(sampler.drain(sink));
    obs.on_drained();
    for (int s : sigpipe ? sigpipe->take() : std::vector<int>{})
      if (s == SIGINT || s == SIGTERM || s == SIGHUP) stop = true;
    if (!stop && !obs.on_round()) stop = true;
  }
  (void)sampler.disable();
  return sys::result_of(sampler.stats());
}

}  // namespace perfx
