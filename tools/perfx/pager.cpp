#include "pager.hpp"

#include <poll.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace perfx::cli {
namespace {

pid_t g_pager = -1;
bool g_stderr_paged = false;

std::string pager_command() {
  for (const char* var : {"PERFX_PAGER", "PERF_PAGER", "PAGER"}) {
    if (const char* v = std::getenv(var); v != nullptr) return v;
  }
  return "less -FRX";
}

}  // namespace

void start_pager() {
  if (g_pager != -1 || ::isatty(STDOUT_FILENO) != 1) return;
  const std::string cmd = pager_command();
  if (cmd.empty() || cmd == "cat") return;
  int fd[2];
  if (::pipe(fd) != 0) return;
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fd[0]);
    ::close(fd[1]);
    return;
  }
  if (pid == 0) {
    ::dup2(fd[0], STDIN_FILENO);
    ::close(fd[0]);
    ::close(fd[1]);
    // As perf's pager_preexec(): start only once there is something to show (or EOF),
    // so a command that fails at once prints its error without a pager screen.
    pollfd p{STDIN_FILENO, POLLIN, 0};
    ::poll(&p, 1, -1);
    ::setenv("LESS", "FRX", 0);
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  ::dup2(fd[1], STDOUT_FILENO);
  g_stderr_paged = ::isatty(STDERR_FILENO) == 1;
  if (g_stderr_paged) ::dup2(fd[1], STDERR_FILENO);
  ::close(fd[0]);
  ::close(fd[1]);
  g_pager = pid;
  std::atexit(finish_pager);
}

void finish_pager() {
  if (g_pager == -1) return;
  std::fflush(stdout);
  std::fflush(stderr);
  ::close(STDOUT_FILENO);
  if (g_stderr_paged) ::close(STDERR_FILENO);
  int status = 0;
  while (::waitpid(g_pager, &status, 0) < 0 && errno == EINTR) {
  }
  g_pager = -1;
}

bool stdout_is_terminal() { return g_pager != -1 || ::isatty(STDOUT_FILENO) == 1; }

}  // namespace perfx::cli
