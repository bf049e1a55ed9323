// perfx_run_limited: runs a command with a time limit and says how it ended, so the
// reliability scripts can tell "perfx crashed" from "perfx exited 128+N because its
// workload died of signal N" (a shell's $? cannot).
//
//   perfx_run_limited SECONDS COMMAND [ARGS...]
//
// Exit status: the command's own exit status when it exited; 250 when it was killed by
// a signal ("perfx_run_limited: killed by signal N (name)" on stderr); 251 when it ran
// past SECONDS (its whole process group is then SIGKILLed); 252 when it could not start.

#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: perfx_run_limited SECONDS COMMAND [ARGS...]\n");
    return 252;
  }
  const double limit = std::strtod(argv[1], nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    std::perror("perfx_run_limited: fork");
    return 252;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::execvp(argv[2], argv + 2);
    std::fprintf(stderr, "perfx_run_limited: cannot run %s: %s\n", argv[2], std::strerror(errno));
    ::_exit(252);
  }
  ::setpgid(pid, pid);
  timespec start{};
  ::clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    int status = 0;
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      if (WIFEXITED(status)) return WEXITSTATUS(status);
      if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        std::fprintf(stderr, "perfx_run_limited: killed by signal %d (%s)\n", sig,
                     ::strsignal(sig));
        return 250;
      }
      continue;
    }
    if (r < 0 && errno != EINTR) {
      std::perror("perfx_run_limited: waitpid");
      return 252;
    }
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    const double elapsed = static_cast<double>(now.tv_sec - start.tv_sec) +
                           static_cast<double>(now.tv_nsec - start.tv_nsec) / 1e9;
    if (elapsed > limit) {
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      std::fprintf(stderr, "perfx_run_limited: still running after %.0f s, killed\n", limit);
      return 251;
    }
    const timespec tick{0, 5'000'000};
    ::nanosleep(&tick, nullptr);
  }
}
