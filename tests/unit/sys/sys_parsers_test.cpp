// Pure parsers of the sys layer: CPU lists, pid lists, CapEff, cgroup2 mounts.

#include <grp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "perfx/counter.hpp"
#include "sys/cgroup.hpp"
#include "sys/cpu_list.hpp"
#include "sys/process.hpp"
#include "sys/stat_session.hpp"
#include "sys/system_info.hpp"
#include "sys/tracefs.hpp"
#include "sys/workload.hpp"

namespace perfx::sys {
namespace {

TEST(CpuList, ParsesRangesAndSingles) {
  auto c = parse_cpus("0,2-3");
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(*c, (std::vector<int>{0, 2, 3}));
  auto online = parse_cpus("0-1\n");
  ASSERT_TRUE(online);
  EXPECT_EQ(*online, (std::vector<int>{0, 1}));
  auto dup = parse_cpus("3,1,1-2");
  ASSERT_TRUE(dup);
  EXPECT_EQ(*dup, (std::vector<int>{1, 2, 3}));
}

TEST(CpuList, RejectsBadItemsNamingThem) {
  auto a = parse_cpus("0,x");
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().message().find("'x'"), std::string::npos);
  EXPECT_FALSE(parse_cpus(""));
  EXPECT_FALSE(parse_cpus("3-1"));
  EXPECT_FALSE(parse_cpus("1-"));
  EXPECT_FALSE(parse_cpus("-1"));
  EXPECT_FALSE(parse_cpus("0,,1"));
  EXPECT_FALSE(parse_cpus("99999999"));
}

TEST(CpuList, FormatsCompactly) {
  const std::vector<int> cpus{0, 1, 2, 5, 7, 8};
  EXPECT_EQ(format_cpus(cpus), "0-2,5,7-8");
  EXPECT_EQ(format_cpus(std::vector<int>{}), "");
}

TEST(CpuList, OnlineCheck) {
  const std::vector<int> online{0, 1};
  EXPECT_TRUE(check_cpus_online(std::vector<int>{1}, online));
  auto bad = check_cpus_online(std::vector<int>{0, 4}, online);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(), "CPU 4 is not online (online: 0-1)");
}

TEST(PidList, Parses) {
  auto p = parse_pid_list("12, 34");
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, (std::vector<pid_t>{12, 34}));
  EXPECT_FALSE(parse_pid_list("12,abc"));
  EXPECT_FALSE(parse_pid_list("0"));
  EXPECT_FALSE(parse_pid_list(""));
}

TEST(Caps, ParsesCapEff) {
  auto c = parse_proc_status_caps("Name:\tx\nCapInh:\t0\nCapEff:\t000001c000200000\n");
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_TRUE(c->has(kCapSysAdmin));
  EXPECT_TRUE(c->has(kCapPerfmon));
  EXPECT_FALSE(c->has(kCapSysPtrace));
  EXPECT_TRUE(c->can_perfmon());
  auto none = parse_proc_status_caps("CapEff:\t0000000000000000\n");
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->can_perfmon());
  EXPECT_FALSE(parse_proc_status_caps("Name: x\n"));
  EXPECT_FALSE(parse_proc_status_caps("CapEff:\tzz\n"));
}

TEST(Cgroup, FindsUnifiedMount) {
  const char* mounts =
      "sysfs /sys sysfs rw 0 0\n"
      "tmpfs /sys/fs/cgroup tmpfs ro 0 0\n"
      "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,nosuid 0 0\n"
      "cgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\n";
  auto m = find_cgroup2_mount(mounts);
  ASSERT_TRUE(m);
  EXPECT_EQ(*m, "/sys/fs/cgroup/unified");
  EXPECT_FALSE(find_cgroup2_mount("cgroup /sys/fs/cgroup/cpu cgroup rw 0 0\n"));
  auto esc = find_cgroup2_mount("none /mnt/my\\040cg cgroup2 rw 0 0\n");
  ASSERT_TRUE(esc);
  EXPECT_EQ(*esc, "/mnt/my cg");
}

TEST(Cgroup, ResolvesRelativeNames) {
  EXPECT_EQ(resolve_cgroup_path("perfx/a", "/sys/fs/cgroup/unified"),
            "/sys/fs/cgroup/unified/perfx/a");
  EXPECT_EQ(resolve_cgroup_path("/perfx", "/sys/fs/cgroup/unified/"),
            "/sys/fs/cgroup/unified/perfx");
  EXPECT_EQ(resolve_cgroup_path("/sys/fs/cgroup/unified/x", "/sys/fs/cgroup/unified"),
            "/sys/fs/cgroup/unified/x");
  EXPECT_EQ(resolve_cgroup_path("/", "/sys/fs/cgroup/unified"), "/sys/fs/cgroup/unified");
}

TEST(Workload, ShellExitCodes) {
  EXPECT_EQ(shell_exit_code(0), 0);
  EXPECT_EQ(shell_exit_code(3 << 8), 3);
  EXPECT_EQ(shell_exit_code(9), 128 + 9);  // killed by SIGKILL
}

}  // namespace
}  // namespace perfx::sys

namespace perfx::sys {
namespace {

/// A fake mount table naming `dir` as tracefs.
std::string write_mounts(const std::string& dir, const std::string& file) {
  std::ofstream(file) << "proc /proc proc rw 0 0\nnone " << dir << " tracefs rw,relatime 0 0\n";
  ::chmod(file.c_str(), 0644);
  return file;
}

TEST(Tracefs, FindsTheTracefsMount) {
  char tmpl[] = "/tmp/perfx_tracefs_XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  ASSERT_EQ(::mkdir((dir + "/events").c_str(), 0755), 0);
  const std::string mounts = write_mounts(dir, dir + ".mounts");
  auto root = find_tracefs(mounts);
  ASSERT_TRUE(root) << root.error().message();
  EXPECT_EQ(*root, dir);
  auto none = find_tracefs(dir + "/no-such-mounts-file");
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message().find("tracefs is not mounted"), std::string::npos);
  ::rmdir((dir + "/events").c_str());
  ::rmdir(dir.c_str());
  ::unlink(mounts.c_str());
}

// tracefs mounted with mode 700 (the default) and read by another user: a permission
// problem with the remount remedy, not "tracefs is not mounted".
TEST(Tracefs, MountedButUnreadableIsAPermissionProblem) {
  char tmpl[] = "/tmp/perfx_tracefs_XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);  // mode 0700, owned by us
  const std::string dir = tmpl;
  ASSERT_EQ(::mkdir((dir + "/events").c_str(), 0755), 0);
  const std::string mounts = write_mounts(dir, dir + ".mounts");
  // Root ignores the mode: look from user nobody in a child; otherwise drop our own
  // search permission on the directory.
  const bool root = ::geteuid() == 0;
  if (!root) ::chmod(dir.c_str(), 0);
  int pipefd[2];
  ASSERT_EQ(::pipe(pipefd), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(pipefd[0]);
    if (root && (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0)) {
      ::_exit(2);
    }
    auto r = find_tracefs(mounts);
    const std::string msg =
        r ? "ok " + *r
          : std::to_string(static_cast<int>(r.error().code())) + " " + r.error().message();
    if (::write(pipefd[1], msg.data(), msg.size()) < 0) ::_exit(3);
    ::_exit(0);
  }
  ::close(pipefd[1]);
  std::string msg;
  char buf[512];
  for (ssize_t n; (n = ::read(pipefd[0], buf, sizeof buf)) > 0;) {
    msg.append(buf, static_cast<std::size_t>(n));
  }
  ::close(pipefd[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  ::chmod(dir.c_str(), 0700);
  ::rmdir((dir + "/events").c_str());
  ::rmdir(dir.c_str());
  ::unlink(mounts.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  EXPECT_EQ(msg.find("ok "), std::string::npos) << msg;
  EXPECT_EQ(msg.rfind(std::to_string(static_cast<int>(Errc::kPermission)) + " ", 0), 0U) << msg;
  EXPECT_NE(msg.find("no permission to read " + dir + "/events"), std::string::npos) << msg;
  EXPECT_NE(msg.find("mount -o remount,mode=755 " + dir), std::string::npos) << msg;
  EXPECT_EQ(msg.find("not mounted"), std::string::npos) << msg;
}

}  // namespace
}  // namespace perfx::sys

namespace perfx {
namespace {

TEST(CpuPlaces, ReadFromSysfsTopologyAndNodes) {
  char tmpl[] = "/tmp/perfx_sysfs_XXXXXX";
  const std::string root = ::mkdtemp(tmpl);
  const auto put = [&](const std::string& rel, const std::string& text) {
    const std::string path = root + rel;
    (void)std::system(("mkdir -p " + path.substr(0, path.rfind('/'))).c_str());
    std::ofstream(path) << text;
  };
  for (int cpu : {0, 1, 2}) {
    const std::string t = "/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    put(t + "physical_package_id", std::to_string(cpu / 2) + "\n");
    put(t + "core_id", std::to_string(cpu % 2) + "\n");
    if (cpu != 2) put(t + "die_id", "0\n");  // an older kernel: no die id
  }
  put("/devices/system/node/node0/cpulist", "0-1\n");
  put("/devices/system/node/node1/cpulist", "2\n");
  put("/devices/system/node/possible", "0-1\n");
  const std::vector<int> cpus = {2, 0, 1, 7};
  const auto p = cpu_places(cpus, root);
  ASSERT_EQ(p.size(), 4U);
  EXPECT_EQ(p[0], (CpuPlace{1, 0, 0, 1}));  // die 0 where the kernel has no die_id
  EXPECT_EQ(p[1], (CpuPlace{0, 0, 0, 0}));
  EXPECT_EQ(p[2], (CpuPlace{0, 0, 1, 0}));
  EXPECT_EQ(p[3], (CpuPlace{-1, 0, -1, -1}));  // no such CPU
  // No NUMA: every node -1.
  (void)std::system(("rm -rf " + root + "/devices/system/node").c_str());
  EXPECT_EQ(cpu_places(cpus, root)[0].node, -1);
  (void)std::system(("rm -rf " + root).c_str());
  // This machine: every online CPU has a socket and a core.
  auto online = sys::read_online_cpus();
  ASSERT_TRUE(online);
  for (const CpuPlace& here : cpu_places(*online)) {
    EXPECT_GE(here.socket, 0);
    EXPECT_GE(here.core, 0);
  }
}

}  // namespace
}  // namespace perfx

namespace perfx::sys {
namespace {

StatSessionConfig three_events() {
  StatSessionConfig cfg;
  CounterGroupSpec g;
  g.events = {CounterEvent{"a", {}}, CounterEvent{"b", {}}};
  cfg.groups = {g, CounterGroupSpec{{CounterEvent{"c", {}}}, false}};
  return cfg;
}

TEST(StatCgroups, OneForAllPerEventOrForEach) {
  auto one = three_events();
  ASSERT_TRUE(assign_cgroups(one, "web", ""));
  EXPECT_EQ(one.target.cgroup, "web");
  EXPECT_TRUE(one.target.event_cgroups.empty());

  auto per_event = three_events();
  ASSERT_TRUE(assign_cgroups(per_event, "web,,db", ""));
  EXPECT_EQ(per_event.target.event_cgroups, (std::vector<std::string>{"web", "", "db"}));
  auto short_list = three_events();
  ASSERT_TRUE(assign_cgroups(short_list, "web,db", ""));
  EXPECT_EQ(short_list.target.event_cgroups, (std::vector<std::string>{"web", "db", ""}));
  auto too_many = three_events();
  auto err = assign_cgroups(too_many, "a,b,c,d", "");
  ASSERT_FALSE(err);
  EXPECT_NE(err.error().message().find("4 cgroups for 3 events"), std::string::npos);

  auto each = three_events();
  ASSERT_TRUE(assign_cgroups(each, "", "web,db"));
  ASSERT_EQ(each.groups.size(), 4U);  // both groups, for each cgroup
  EXPECT_EQ(each.groups[2].events[0].name, "a");
  EXPECT_EQ(each.target.event_cgroups,
            (std::vector<std::string>{"web", "web", "web", "db", "db", "db"}));
  auto both = three_events();
  EXPECT_FALSE(assign_cgroups(both, "web", "db"));
  auto empty_name = three_events();
  EXPECT_FALSE(assign_cgroups(empty_name, "", "web,,db"));
}

}  // namespace
}  // namespace perfx::sys
