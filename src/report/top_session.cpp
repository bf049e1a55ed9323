// run_top (perfx/top.hpp): a live session (perfx/record.hpp) whose records feed
// profile::LiveCounts, and report::top_screen_text() every interval.
#include <fmt/core.h>
#include <linux/perf_event.h>

#include <algorithm>
#include <chrono>
#include <optional>

#include "core/error_format.hpp"
#include "core/record_walk.hpp"
#include "perfx/top.hpp"
#include "profile/live_counts.hpp"
#include "profile/plan_attrs.hpp"
#include "report/top_screen.hpp"

namespace perfx {

TopObserver::~TopObserver() = default;

namespace {

using Clock = std::chrono::steady_clock;

// perf top's header: the event ("4000Hz cpu-clock" for one event) and the target.
void describe_target(const RecordPlan& plan, std::size_t nr_cpus, report::TopScreen& screen) {
  const auto& evs = plan.events;
  const auto& o = plan.options;
  std::string ev = evs.size() == 1
                       ? (evs[0].attr.freq ? fmt::format("{}Hz ", evs[0].attr.sample_freq)
                                           : fmt::format("{} ", evs[0].attr.sample_period))
                       : std::string();
  screen.event = ev + evs[0].name;
  std::string t = !o.pids.empty()   ? fmt::format(" (target_pid: {}", o.pids)
                  : !o.tids.empty() ? fmt::format(" (target_tid: {}", o.tids)
                                    : std::string(" (all");
  if (!o.cpus.empty())
    t += fmt::format(", CPU{}: {})", nr_cpus > 1 ? "s" : "", o.cpus);
  else if (!o.tids.empty())
    t += ")";
  else
    t += fmt::format(", {} CPU{})", nr_cpus, nr_cpus > 1 ? "s" : "");
  screen.target = t;
}

// The live session's observer: counts the records, makes a screen every interval.
class TopDriver : public RecordObserver {
 public:
  TopDriver(const TopOptions& o, std::vector<profile::LiveKey> keys, TopObserver& user)
      : o_(o),
        keys_(std::move(keys)),
        user_(user),
        interval_(
            std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.delay_s))) {
  }

  void on_cycles_fallback() override { user_.on_cycles_fallback(); }
  void on_user_space_only(long long paranoid, const std::string& events) override {
    user_.on_user_space_only(paranoid, events);
  }
  void on_no_kernel_map(const Error& why) override { user_.on_no_kernel_map(why); }
  int input_fd() override { return user_.input_fd(); }

  void on_opened(const RecordPlan& plan, const std::vector<std::vector<std::uint64_t>>& ids,
                 std::size_t cpus) override {
    counts_.emplace(profile::plan_attr_table(plan, ids), keys_);
    counts_->hide(o_.hide_user, o_.hide_kernel);
    callchains_ = (plan.events[0].attr.sample_type & PERF_SAMPLE_CALLCHAIN) != 0;
    counts_->set_callchains(callchains_);
    event_name_ = plan.events[0].name;
    describe_target(plan, cpus, screen_);
    screen_.percent_limit = o_.percent_limit;
    next_screen_ = Clock::now() + interval_;
  }
  void on_records(std::span<const std::byte> bytes) override {
    core::for_each_record(bytes, [&](std::span<const std::byte> rec) { counts_->add(rec); });
  }
  void on_drained() override { counts_->flush(); }
  int wait_timeout_ms() override {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(next_screen_ - Clock::now());
    return static_cast<int>(std::max<long long>(0, left.count()));
  }
  bool on_round() override {
    if (user_.quit_requested()) return false;
    if (Clock::now() < next_screen_) return true;
    next_screen_ += interval_;
    const auto [rows, cols] = user_.screen_size();
    screen_.width = cols;
    screen_.max_rows = o_.entries > 0 ? o_.entries : (rows > 5 ? rows - 5 : 1);
    const auto in = counts_->take_interval();
    screen_.samples = in.samples;
    screen_.kernel_samples = in.kernel_samples;
    screen_.exact_samples = in.exact_samples;
    screen_.samples_per_sec = static_cast<double>(in.samples) / o_.delay_s;
    screen_.lost = in.lost;
    screen_.lost_total = counts_->lost_total();
    const auto text =
        callchains_
            ? report::top_chain_screen_text(screen_, counts_->refresh_profile(o_.zero, event_name_),
                                            keys_, o_.children)
            : report::top_screen_text(screen_, counts_->refresh(o_.zero), keys_);
    return user_.on_screen(text);
  }

 private:
  const TopOptions& o_;
  std::vector<profile::LiveKey> keys_;
  TopObserver& user_;
  Clock::duration interval_;
  Clock::time_point next_screen_{};
  std::optional<profile::LiveCounts> counts_;
  report::TopScreen screen_;
  std::string event_name_;
  bool callchains_ = false;
};

}  // namespace

Result<void> run_top(const TopOptions& options, TopObserver& observer) {
  TopOptions o = options;
  o.record.style = RecordStyle::kTop;
  if (!(o.delay_s > 0) || o.delay_s > 86400)
    return fail(Errc::kInvalidArgument, "-d needs a delay in seconds (> 0)");
  PERFX_TRY(keys, profile::parse_live_keys(o.sort));
  PERFX_TRY(plan, plan_record(o.record));
  TopDriver driver(o, std::move(keys), observer);
  PERFX_CHECK(run_live_session(std::move(plan), driver));
  return {};
}

}  // namespace perfx
