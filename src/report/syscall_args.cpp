// System-call argument and return-value decoding (perfx/trace.hpp), as perf trace and
// strace show them. The flag tables use the C library's constants (x86_64 Linux).

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "core/utf8.hpp"
#include "perfx/trace.hpp"

namespace perfx {
namespace {

struct Bit {
  std::uint64_t value;
  const char* name;
};

// `A|B|0x40` for the set bits; `zero` when nothing is set.
std::string bits(std::uint64_t v, std::initializer_list<Bit> table, const char* zero = "0") {
  std::string out;
  for (const auto& b : table) {
    if (b.value != 0 && (v & b.value) == b.value) {
      out += out.empty() ? "" : "|";
      out += b.name;
      v &= ~b.value;
    }
  }
  if (v != 0) out += fmt::format("{}{:#x}", out.empty() ? "" : "|", v);
  return out.empty() ? zero : out;
}

// The name of `v` in an enum table, or its number.
std::string enum_name(std::int64_t v,
                      std::initializer_list<std::pair<std::int64_t, const char*>> t) {
  for (const auto& [value, name] : t)
    if (value == v) return name;
  return fmt::format("{}", v);
}

bool one_of(std::string_view s, std::initializer_list<std::string_view> names) {
  for (auto n : names)
    if (s == n) return true;
  return false;
}

std::string open_flags(std::uint64_t v) {
  std::string acc;
  switch (v & O_ACCMODE) {
    case O_WRONLY:
      acc = "WRONLY";
      break;
    case O_RDWR:
      acc = "RDWR";
      break;
    case O_RDONLY:
      acc = "RDONLY";
      break;
    default:
      acc = "ACCMODE3";
      break;
  }
  v &= ~static_cast<std::uint64_t>(O_ACCMODE);
  if (v == 0) return acc;
  // O_SYNC is __O_SYNC|O_DSYNC and O_TMPFILE is __O_TMPFILE|O_DIRECTORY: whole first.
  const std::string rest = bits(v, {{O_SYNC, "SYNC"},
                                    {O_TMPFILE, "TMPFILE"},
                                    {O_CREAT, "CREAT"},
                                    {O_EXCL, "EXCL"},
                                    {O_NOCTTY, "NOCTTY"},
                                    {O_TRUNC, "TRUNC"},
                                    {O_APPEND, "APPEND"},
                                    {O_NONBLOCK, "NONBLOCK"},
                                    {O_DSYNC, "DSYNC"},
                                    {O_ASYNC, "ASYNC"},
                                    {O_DIRECT, "DIRECT"},
                                    {O_LARGEFILE, "LARGEFILE"},
                                    {O_DIRECTORY, "DIRECTORY"},
                                    {O_NOFOLLOW, "NOFOLLOW"},
                                    {O_NOATIME, "NOATIME"},
                                    {O_CLOEXEC, "CLOEXEC"},
                                    {O_PATH, "PATH"}});
  return acc + "|" + rest;
}

std::string mmap_prot(std::uint64_t v) {
  return bits(v,
              {{PROT_READ, "READ"},
               {PROT_WRITE, "WRITE"},
               {PROT_EXEC, "EXEC"},
               {PROT_GROWSDOWN, "GROWSDOWN"},
               {PROT_GROWSUP, "GROWSUP"}},
              "NONE");
}

std::string mmap_flags(std::uint64_t v) {
  std::string type;
  switch (v & 0x3) {
    case MAP_SHARED:
      type = "SHARED";
      break;
    case MAP_PRIVATE:
      type = "PRIVATE";
      break;
    case 0x3:
      type = "SHARED_VALIDATE";
      break;
    default:
      break;
  }
  v &= ~std::uint64_t{0x3};
  if (v == 0) return type.empty() ? "0" : type;
  const std::string rest = bits(v, {{MAP_FIXED, "FIXED"},
                                    {MAP_ANONYMOUS, "ANONYMOUS"},
                                    {MAP_GROWSDOWN, "GROWSDOWN"},
                                    {MAP_DENYWRITE, "DENYWRITE"},
                                    {MAP_EXECUTABLE, "EXECUTABLE"},
                                    {MAP_LOCKED, "LOCKED"},
                                    {MAP_NORESERVE, "NORESERVE"},
                                    {MAP_POPULATE, "POPULATE"},
                                    {MAP_NONBLOCK, "NONBLOCK"},
                                    {MAP_STACK, "STACK"},
                                    {MAP_HUGETLB, "HUGETLB"},
                                    {0x80000, "SYNC"},
                                    {0x100000, "FIXED_NOREPLACE"}});
  return type.empty() ? rest : type + "|" + rest;
}

std::string at_flags(std::uint64_t v, bool eaccess) {
  return bits(v, {{0x100, "SYMLINK_NOFOLLOW"},
                  {0x200, eaccess ? "EACCESS" : "REMOVEDIR"},
                  {0x400, "SYMLINK_FOLLOW"},
                  {0x800, "NO_AUTOMOUNT"},
                  {0x1000, "EMPTY_PATH"},
                  {0x2000, "STATX_FORCE_SYNC"},
                  {0x4000, "STATX_DONT_SYNC"}});
}

std::string signal_name(std::int64_t sig) {
  if (sig > 0 && sig < 65) {
    if (const char* abbrev = ::sigabbrev_np(static_cast<int>(sig)); abbrev != nullptr)
      return std::string("SIG") + abbrev;
    if (sig >= SIGRTMIN && sig <= SIGRTMAX) return fmt::format("SIGRTMIN+{}", sig - SIGRTMIN);
  }
  return fmt::format("{}", sig);
}

std::string futex_op(std::uint64_t v) {
  std::string out = enum_name(static_cast<std::int64_t>(v & 127), {{0, "WAIT"},
                                                                   {1, "WAKE"},
                                                                   {2, "FD"},
                                                                   {3, "REQUEUE"},
                                                                   {4, "CMP_REQUEUE"},
                                                                   {5, "WAKE_OP"},
                                                                   {6, "LOCK_PI"},
                                                                   {7, "UNLOCK_PI"},
                                                                   {8, "TRYLOCK_PI"},
                                                                   {9, "WAIT_BITSET"},
                                                                   {10, "WAKE_BITSET"},
                                                                   {11, "WAIT_REQUEUE_PI"},
                                                                   {12, "CMP_REQUEUE_PI"},
                                                                   {13, "LOCK_PI2"}});
  if (v & 128) out += "|PRIVATE_FLAG";
  if (v & 256) out += "|CLOCK_REALTIME";
  return out;
}

bool is_fd_name(std::string_view name) {
  return one_of(name, {"fd", "oldfd", "newfd", "fd_in", "fd_out", "in_fd", "out_fd", "epfd",
                       "pidfd", "fd1", "fd2"});
}

bool is_dirfd_name(std::string_view name) {
  return one_of(name, {"dfd", "olddfd", "newdfd", "dirfd"});
}

bool is_address_name(std::string_view name) {
  return one_of(
      name, {"addr", "start", "brk", "new_addr", "old_addr", "uaddr", "uaddr2", "off", "offset"});
}

// The type's width from its C spelling: 4 for int-like types, 8 otherwise.
std::int64_t as_signed(std::string_view type, std::uint64_t v) {
  if (one_of(type, {"int", "pid_t", "key_t", "clockid_t", "mqd_t", "timer_t", "uid_t", "gid_t",
                    "qid_t", "rwf_t"}))
    return static_cast<std::int32_t>(v);
  return static_cast<std::int64_t>(v);
}

}  // namespace

std::string_view errno_name(int err) noexcept {
  const char* name = err > 0 ? ::strerrorname_np(err) : nullptr;
  return name != nullptr ? std::string_view(name) : std::string_view();
}

bool syscall_arg_is_string(const SyscallArg& arg) noexcept {
  if (arg.type != "const char *" && arg.type != "char *") return false;
  // Data buffers typed char * are not strings (write's buf, getcwd's buf).
  return !one_of(arg.name, {"buf", "ubuf", "optval", "value", "list", "kbuf", "data", "arg", "argp",
                            "uargs", "uattr", "addr", "umod", "buffer"});
}

std::string format_syscall_arg(std::string_view sc, const SyscallArg& arg, std::uint64_t v,
                               const std::optional<std::string>& str) {
  const std::string_view name = arg.name;
  if (syscall_arg_is_string(arg)) {
    if (str) {
      // Control bytes, and any byte >= 0x80 of a string that is not UTF-8 (stale memory
      // read after the call), as \xNN: the line stays one line of valid text.
      const bool utf8 = core::is_valid_utf8(*str);
      std::string out = "\"";
      for (char c : *str) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') out += '\\';
        if (u < 0x20 || u == 0x7f || (u >= 0x80 && !utf8)) {
          out += fmt::format("\\x{:02x}", u);
          continue;
        }
        out += c;
      }
      return out + "\"";
    }
    return fmt::format("{:#x}", v);
  }
  if (is_dirfd_name(name)) {
    const auto fd = static_cast<std::int32_t>(v);
    return fd == AT_FDCWD ? std::string("CWD") : fmt::format("{}", fd);
  }
  if (is_fd_name(name)) return fmt::format("{}", static_cast<std::int32_t>(v));
  if (name == "flags" && one_of(sc, {"open", "openat", "mq_open"})) return open_flags(v);
  if (name == "mode" && one_of(sc, {"open", "openat", "creat", "mkdir", "mkdirat", "chmod",
                                    "fchmod", "fchmodat", "fchmodat2", "mknod", "mknodat"}))
    return fmt::format("{:#o}", v);
  if (name == "prot" && one_of(sc, {"mmap", "mprotect", "pkey_mprotect"})) return mmap_prot(v);
  if (name == "flags" && sc == "mmap") return mmap_flags(v);
  if ((name == "flag" || name == "flags") &&
      one_of(sc, {"newfstatat", "statx", "unlinkat", "faccessat2", "fchownat", "linkat",
                  "utimensat", "fchmodat2", "name_to_handle_at", "execveat", "open_tree"}))
    return at_flags(v, sc == "faccessat2");
  if (name == "mode" && one_of(sc, {"access", "faccessat", "faccessat2"}))
    return v == 0 ? std::string("F") : bits(v, {{R_OK, "R"}, {W_OK, "W"}, {X_OK, "X"}});
  if (name == "whence" && one_of(sc, {"lseek"}))
    return enum_name(static_cast<std::int64_t>(v), {{SEEK_SET, "SET"},
                                                    {SEEK_CUR, "CUR"},
                                                    {SEEK_END, "END"},
                                                    {SEEK_DATA, "DATA"},
                                                    {SEEK_HOLE, "HOLE"}});
  if ((name == "sig" || name == "signum") &&
      one_of(sc, {"kill", "tkill", "tgkill", "rt_sigaction", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
                  "pidfd_send_signal"}))
    return signal_name(static_cast<std::int32_t>(v));
  if (name == "how" && one_of(sc, {"rt_sigprocmask", "sigprocmask"}))
    return enum_name(static_cast<std::int64_t>(v),
                     {{SIG_BLOCK, "BLOCK"}, {SIG_UNBLOCK, "UNBLOCK"}, {SIG_SETMASK, "SETMASK"}});
  if (name == "family" && one_of(sc, {"socket", "socketpair"}))
    return enum_name(static_cast<std::int64_t>(v), {{AF_UNIX, "UNIX"},
                                                    {AF_INET, "INET"},
                                                    {AF_INET6, "INET6"},
                                                    {AF_NETLINK, "NETLINK"},
                                                    {AF_PACKET, "PACKET"}});
  if (name == "type" && one_of(sc, {"socket", "socketpair"})) {
    std::string out =
        enum_name(static_cast<std::int64_t>(v & 0xf), {{SOCK_STREAM, "STREAM"},
                                                       {SOCK_DGRAM, "DGRAM"},
                                                       {SOCK_RAW, "RAW"},
                                                       {SOCK_SEQPACKET, "SEQPACKET"}});
    if (v & SOCK_NONBLOCK) out += "|NONBLOCK";
    if (v & SOCK_CLOEXEC) out += "|CLOEXEC";
    return out;
  }
  if (name == "cmd" && one_of(sc, {"fcntl"}))
    return enum_name(static_cast<std::int64_t>(v), {{F_DUPFD, "DUPFD"},
                                                    {F_GETFD, "GETFD"},
                                                    {F_SETFD, "SETFD"},
                                                    {F_GETFL, "GETFL"},
                                                    {F_SETFL, "SETFL"},
                                                    {F_GETLK, "GETLK"},
                                                    {F_SETLK, "SETLK"},
                                                    {F_SETLKW, "SETLKW"},
                                                    {F_DUPFD_CLOEXEC, "DUPFD_CLOEXEC"}});
  if (name == "op" && one_of(sc, {"futex"})) return futex_op(v);
  if (name == "flags" && one_of(sc, {"pipe2", "dup3", "eventfd2", "epoll_create1", "inotify_init1",
                                     "signalfd4", "timerfd_create", "accept4"}))
    return bits(v, {{O_CLOEXEC, "CLOEXEC"}, {O_NONBLOCK, "NONBLOCK"}});
  if (arg.type.find('*') != std::string::npos || is_address_name(name))
    return fmt::format("{:#x}", v);
  if (arg.type.find("unsigned") != std::string::npos || arg.type == "size_t" || arg.type == "u32" ||
      arg.type == "u64" || arg.type == "umode_t")
    return fmt::format("{}", v);
  return fmt::format("{}", as_signed(arg.type, v));
}

std::string format_syscall_return(std::string_view sc, std::int64_t ret) {
  if (ret < 0 && ret >= -4095) {
    const int err = static_cast<int>(-ret);
    const std::string_view name = errno_name(err);
    const char* desc = ::strerrordesc_np(err);
    if (name.empty()) return fmt::format("-1 errno {}", err);
    return fmt::format("-1 {} ({})", name, desc != nullptr ? desc : "?");
  }
  if (one_of(sc, {"mmap", "mremap", "brk", "shmat"}))
    return fmt::format("{:#x}", static_cast<std::uint64_t>(ret));
  return fmt::format("{}", ret);
}

}  // namespace perfx
