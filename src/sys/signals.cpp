#include "sys/signals.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <map>

#include "core/error_format.hpp"

namespace perfx::sys {
namespace {

std::atomic<int> g_write_fd{-1};
std::map<int, struct sigaction>& saved() {
  static std::map<int, struct sigaction> m;
  return m;
}

// A stop signal that came while no SignalPipe handled it (latch_stop_signals()).
std::atomic<int> g_latched{0};

extern "C" void on_latched_signal(int signo) { g_latched.store(signo, std::memory_order_relaxed); }

extern "C" void on_signal(int signo) {
  const int saved_errno = errno;
  const int fd = g_write_fd.load(std::memory_order_relaxed);
  if (fd >= 0) {
    const unsigned char b = static_cast<unsigned char>(signo);
    [[maybe_unused]] const ssize_t n = ::write(fd, &b, 1);
  }
  errno = saved_errno;
}

}  // namespace

Result<void> route_overflow_signal(int fd, int signo, pid_t tid) {
  f_owner_ex owner{};
  owner.type = F_OWNER_TID;
  owner.pid = tid;
  if (::fcntl(fd, F_SETOWN_EX, &owner) != 0) return fail_errno(errno, "fcntl(F_SETOWN_EX)");
  if (::fcntl(fd, F_SETSIG, signo) != 0) return fail_errno(errno, "fcntl(F_SETSIG)");
  const int fl = ::fcntl(fd, F_GETFL);
  if (fl < 0 || ::fcntl(fd, F_SETFL, fl | O_ASYNC) != 0) {
    return fail_errno(errno, "fcntl(F_SETFL, O_ASYNC)");
  }
  return {};
}

Result<SignalPipe> SignalPipe::install(std::initializer_list<int> signals) {
  if (g_write_fd.load() >= 0) return fail(Errc::kInvalidArgument, "a SignalPipe already exists");
  int p[2];
  if (::pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) return fail_errno(errno, "pipe2");
  SignalPipe sp;
  sp.read_.reset(p[0]);
  sp.write_.reset(p[1]);
  g_write_fd.store(p[1]);
  sp.active_ = true;
  for (int s : signals) {
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: a blocking wait returns EINTR
    struct sigaction old {};
    if (::sigaction(s, &sa, &old) != 0) return fail_errno(errno, "sigaction");
    saved()[s] = old;
    sp.signals_.push_back(s);
  }
  sp.active_ = true;
  // A signal latched before the handlers above: the session stops at once.
  const int latched = g_latched.load();
  if (latched != 0 &&
      std::find(sp.signals_.begin(), sp.signals_.end(), latched) != sp.signals_.end()) {
    g_latched.store(0);
    on_signal(latched);
  }
  return sp;
}

void latch_stop_signals() {
  for (const int s : {SIGINT, SIGTERM}) {
    struct sigaction sa {};
    sa.sa_handler = on_latched_signal;
    sigemptyset(&sa.sa_mask);
    // While a SignalPipe handles `s`, the latch is what it restores when it goes.
    if (auto it = saved().find(s); it != saved().end())
      it->second = sa;
    else
      (void)::sigaction(s, &sa, nullptr);
  }
}

int take_latched_signal() noexcept { return g_latched.exchange(0); }

SignalPipe::SignalPipe(SignalPipe&& o) noexcept
    : read_(std::move(o.read_)),
      write_(std::move(o.write_)),
      signals_(std::move(o.signals_)),
      active_(std::exchange(o.active_, false)) {}

SignalPipe::~SignalPipe() {
  if (!active_) return;
  for (int s : signals_) {
    auto it = saved().find(s);
    if (it != saved().end()) {
      ::sigaction(s, &it->second, nullptr);
      saved().erase(it);
    }
  }
  g_write_fd.store(-1);
}

std::vector<int> SignalPipe::take() {
  std::vector<int> out;
  unsigned char buf[64];
  for (;;) {
    const ssize_t n = ::read(read_.get(), buf, sizeof(buf));
    if (n <= 0) break;
    for (ssize_t i = 0; i < n; ++i) out.push_back(buf[i]);
  }
  return out;
}

}  // namespace perfx::sys
