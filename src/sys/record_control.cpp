#include "sys/record_control.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "core/error_format.hpp"
#include "sys/ioctl.hpp"

namespace perfx::sys {

Result<RecordControl> RecordControl::open(const ControlPlan& plan) {
  RecordControl c;
  if (!plan.on) return c;
  if (!plan.fifo) {
    c.ctl_ = plan.ctl_fd;
    c.ack_ = plan.ack_fd;
    if (::fcntl(c.ctl_, F_GETFD) < 0)
      return fail_errno(errno, fmt::format("--control fd:{}", plan.ctl_fd));
    (void)::fcntl(c.ctl_, F_SETFL, ::fcntl(c.ctl_, F_GETFL) | O_NONBLOCK);
    return c;
  }
  // O_RDWR: opening a FIFO does not wait for the other side, and a writer that goes
  // away leaves no end-of-file behind (the next writer is read as well).
  c.owned_ctl_ = UniqueFd(::open(plan.ctl_path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC));
  if (!c.owned_ctl_) return fail_errno(errno, "--control: opening " + plan.ctl_path);
  c.ctl_ = c.owned_ctl_.get();
  if (!plan.ack_path.empty()) {
    c.owned_ack_ = UniqueFd(::open(plan.ack_path.c_str(), O_RDWR | O_CLOEXEC));
    if (!c.owned_ack_) return fail_errno(errno, "--control: opening " + plan.ack_path);
    c.ack_ = c.owned_ack_.get();
  }
  return c;
}

void RecordControl::ack() const {
  if (ack_ >= 0) (void)!::write(ack_, "ack\n", 4);
}

Result<void> RecordControl::enable_event(const RecordPlan& plan, Sampler& sampler,
                                         const std::string& name, bool enable,
                                         RecordObserver& obs) {
  for (std::size_t i = 0; i < plan.events.size(); ++i) {
    if (plan.events[i].name != name) continue;
    for (int fd : sampler.fds(i)) PERFX_CHECK(enable ? ioc_enable(fd) : ioc_disable(fd));
    obs.on_control_message("Event " + name + (enable ? " enabled" : " disabled"));
    return {};
  }
  obs.on_control_message("failed: can't find '" + name + "' event");
  return {};
}

Result<bool> RecordControl::process(const RecordPlan& plan, Sampler& sampler, RecordObserver& obs) {
  if (ctl_ < 0) return false;
  char buf[512];
  while (true) {
    const ssize_t n = ::read(ctl_, buf, sizeof buf);
    if (n > 0) {
      pending_.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) {  // end of file: the writer went away; stop waiting on it
      PERFX_CHECK(sampler.remove_wait_fd(ctl_));
      ctl_ = -1;
    }
    break;  // EAGAIN or end of file
  }
  bool stop = false;
  for (std::size_t nl; (nl = pending_.find('\n')) != std::string::npos;) {
    std::string cmd = pending_.substr(0, nl);
    pending_.erase(0, nl + 1);
    while (!cmd.empty() && (cmd.back() == '\r' || cmd.back() == ' ')) cmd.pop_back();
    const bool enable = cmd.rfind("enable", 0) == 0;
    if (enable || cmd.rfind("disable", 0) == 0) {
      std::string name = cmd.substr(enable ? 6 : 7);
      if (!name.empty() && name[0] != ' ') continue;  // not a command perf knows
      while (!name.empty() && name[0] == ' ') name.erase(0, 1);
      if (name.empty()) {
        PERFX_CHECK(enable ? sampler.enable() : sampler.disable());
        obs.on_events_enabled(enable);
      } else {
        PERFX_CHECK(enable_event(plan, sampler, name, enable, obs));
      }
    } else if (cmd == "evlist" || cmd.rfind("evlist ", 0) == 0) {
      for (const auto& e : plan.events) obs.on_control_message(e.name);
    } else if (cmd == "stop") {
      stop = true;
    } else if (cmd != "ping") {
      continue;  // perf ignores what it does not know, without an ack
    }
    ack();
  }
  return stop;
}

}  // namespace perfx::sys
