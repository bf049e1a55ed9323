#include "sys/workload.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "core/error_format.hpp"
#include "sys/explain.hpp"

namespace perfx::sys {

std::chrono::nanoseconds monotonic_now() noexcept {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

int shell_exit_code(int wait_status) noexcept {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

namespace {

void close_fd(int& fd) noexcept {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

ssize_t read_full(int fd, void* buf, std::size_t len) {
  std::size_t got = 0;
  while (got < len) {
    const ssize_t n = ::read(fd, static_cast<char*>(buf) + got, len - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return got > 0 ? static_cast<ssize_t>(got) : n;
    got += static_cast<std::size_t>(n);
  }
  return static_cast<ssize_t>(got);
}

// The rest of a just-reaped child's status: when it ended and what its wait_status says.
void decode_wait_status(ExitStatus& st) {
  st.ended = monotonic_now();
  st.signaled = WIFSIGNALED(st.wait_status);
  st.signal = st.signaled ? WTERMSIG(st.wait_status) : 0;
  st.code = shell_exit_code(st.wait_status);
}

}  // namespace

Result<Workload> Workload::prepare(const std::vector<std::string>& argv) {
  if (argv.empty() || argv[0].empty()) {
    return fail(Errc::kInvalidArgument, "no command to run");
  }
  // Everything the child needs is built before fork: after fork only async-signal-safe
  // calls (read, execvp, write, _exit).
  std::vector<char*> cargv;
  cargv.reserve(argv.size() + 1);
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);

  int go[2];
  int err[2];
  if (::pipe2(go, O_CLOEXEC) < 0) return fail_errno(errno, "pipe2");
  if (::pipe2(err, O_CLOEXEC) < 0) {
    const int e = errno;
    ::close(go[0]);
    ::close(go[1]);
    return fail_errno(e, "pipe2");
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int e = errno;
    for (int fd : {go[0], go[1], err[0], err[1]}) ::close(fd);
    return fail_errno(e, "fork");
  }
  if (pid == 0) {
    ::close(go[1]);
    ::close(err[0]);
    char byte = 0;
    ssize_t n;
    do {
      n = ::read(go[0], &byte, 1);
    } while (n < 0 && errno == EINTR);
    if (n != 1) ::_exit(127);  // the parent went away without starting us
    ::execvp(cargv[0], cargv.data());
    const int e = errno;
    ssize_t w;
    do {
      w = ::write(err[1], &e, sizeof e);
    } while (w < 0 && errno == EINTR);
    ::_exit(127);
  }
  ::close(go[0]);
  ::close(err[1]);
  Workload w(pid, go[1], err[0], argv[0]);
  w.reaped_ = false;
  return w;
}

Workload::Workload(Workload&& o) noexcept
    : pid_(std::exchange(o.pid_, -1)),
      go_fd_(std::exchange(o.go_fd_, -1)),
      err_fd_(std::exchange(o.err_fd_, -1)),
      reaped_(std::exchange(o.reaped_, true)),
      command_(std::move(o.command_)),
      started_(o.started_) {}

Workload& Workload::operator=(Workload&& o) noexcept {
  if (this != &o) {
    release();
    pid_ = std::exchange(o.pid_, -1);
    go_fd_ = std::exchange(o.go_fd_, -1);
    err_fd_ = std::exchange(o.err_fd_, -1);
    reaped_ = std::exchange(o.reaped_, true);
    command_ = std::move(o.command_);
    started_ = o.started_;
  }
  return *this;
}

Workload::~Workload() { release(); }

void Workload::release() noexcept {
  close_fd(go_fd_);  // an un-started child reads EOF and exits 127
  close_fd(err_fd_);
  if (!reaped_ && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
  }
}

Result<void> Workload::start() {
  if (go_fd_ < 0) return fail(Errc::kInvalidArgument, "workload already started");
  started_ = monotonic_now();
  const char go = 1;
  ssize_t w;
  do {
    w = ::write(go_fd_, &go, 1);
  } while (w < 0 && errno == EINTR);
  const int write_errno = errno;
  close_fd(go_fd_);
  if (w != 1) return fail_errno(write_errno, "starting the workload");
  int exec_errno = 0;
  const ssize_t n = read_full(err_fd_, &exec_errno, sizeof exec_errno);
  close_fd(err_fd_);
  if (n == static_cast<ssize_t>(sizeof exec_errno)) {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
    Errc code = exec_errno == ENOENT ? Errc::kNotFound : errc_from_errno(exec_errno);
    return tl::unexpected(Error(code, explain_exec_errno(exec_errno, command_), exec_errno));
  }
  return {};
}

Result<ExitStatus> Workload::wait() {
  if (reaped_) return fail(Errc::kInvalidArgument, "workload already reaped");
  ExitStatus st;
  for (;;) {
    const pid_t r = ::wait4(pid_, &st.wait_status, 0, &st.usage);
    if (r == pid_) break;
    if (r < 0 && errno == EINTR) continue;
    return fail_errno(errno, "wait4");
  }
  reaped_ = true;
  decode_wait_status(st);
  return st;
}

Result<bool> Workload::try_wait(ExitStatus& st) {
  if (reaped_) return fail(Errc::kInvalidArgument, "workload already reaped");
  const pid_t r = ::wait4(pid_, &st.wait_status, WNOHANG, &st.usage);
  if (r < 0) {
    if (errno == EINTR) return false;
    return fail_errno(errno, "wait4");
  }
  if (r == 0) return false;
  reaped_ = true;
  decode_wait_status(st);
  return true;
}

Result<void> Workload::kill(int sig) const {
  if (reaped_ || pid_ <= 0) return {};
  if (::kill(pid_, sig) < 0) return fail_errno(errno, "kill");
  return {};
}

}  // namespace perfx::sys
