// perfx/trace.hpp without a kernel: tracefs format parsing, field reads, the syscall
// table, argument and return decoding, the perf-trace line, the print filter and the
// -s summary math (perf's running mean / M2 / stddev of the mean).

#include "perfx/trace.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <vector>

namespace perfx {
namespace {

constexpr const char* kOpenatFormat = R"(name: sys_enter_openat
ID: 782
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:int __syscall_nr;	offset:8;	size:4;	signed:1;
	field:int dfd;	offset:16;	size:8;	signed:0;
	field:const char * filename;	offset:24;	size:8;	signed:0;
	field:int flags;	offset:32;	size:8;	signed:0;
	field:umode_t mode;	offset:40;	size:8;	signed:0;

print fmt: "dfd: 0x%08lx, filename: 0x%08lx", ((unsigned long)(REC->dfd))
)";

constexpr const char* kSwitchFormat = R"(name: sched_switch
ID: 300
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:char prev_comm[16];	offset:8;	size:16;	signed:0;
	field:pid_t prev_pid;	offset:24;	size:4;	signed:1;
	field:long prev_state;	offset:32;	size:8;	signed:1;
	field:__data_loc char[] reason;	offset:40;	size:4;	signed:0;
)";

SyscallCatalog openat_catalog() {
  SyscallCatalog c;
  auto f = parse_trace_format(kOpenatFormat);
  EXPECT_TRUE(f) << (f ? "" : f.error().message());
  if (f) c.add_format("openat", *f);
  c.add("mmap", {{"addr", "unsigned long"},
                 {"len", "unsigned long"},
                 {"prot", "unsigned long"},
                 {"flags", "unsigned long"},
                 {"fd", "unsigned long"},
                 {"off", "unsigned long"}});
  c.add("close", {{"fd", "unsigned int"}});
  c.add("exit_group", {{"error_code", "int"}});
  return c;
}

template <typename T>
void put(std::vector<std::byte>& raw, std::size_t off, T v) {
  if (raw.size() < off + sizeof v) raw.resize(off + sizeof v);
  std::memcpy(raw.data() + off, &v, sizeof v);
}

TEST(TraceFormat, ParsesFieldsIdAndArrays) {
  auto f = parse_trace_format(kOpenatFormat);
  ASSERT_TRUE(f) << f.error().message();
  EXPECT_EQ(f->name, "sys_enter_openat");
  EXPECT_EQ(f->id, 782u);
  ASSERT_EQ(f->fields.size(), 9u);
  const TraceField* fn = f->field("filename");
  ASSERT_NE(fn, nullptr);
  EXPECT_EQ(fn->type, "const char *");
  EXPECT_EQ(fn->offset, 24u);
  EXPECT_EQ(fn->size, 8u);
  EXPECT_TRUE(f->field("common_pid")->is_signed);
  EXPECT_EQ(f->field("nope"), nullptr);

  auto s = parse_trace_format(kSwitchFormat);
  ASSERT_TRUE(s) << s.error().message();
  EXPECT_EQ(s->field("prev_comm")->array_len, 16u);
  EXPECT_EQ(s->field("prev_comm")->type, "char");
  EXPECT_TRUE(s->field("reason")->is_dynamic);
}

TEST(TraceFormat, RejectsMalformedText) {
  EXPECT_FALSE(parse_trace_format("name: x\nID: 1\n"));  // no fields
  EXPECT_FALSE(parse_trace_format("field:int a;\toffset:zz;\tsize:4;\tsigned:1;\n"));
  EXPECT_FALSE(parse_trace_format("ID: 12x\nfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n"));
  EXPECT_FALSE(parse_trace_format("field:int;\toffset:0;\tsize:4;\tsigned:1;\n"));
}

TEST(TraceFormat, ReadsAndFormatsFields) {
  auto s = parse_trace_format(kSwitchFormat);
  ASSERT_TRUE(s);
  std::vector<std::byte> raw(48);
  std::memcpy(raw.data() + 8, "sleep\0garbage", 13);
  put<std::int32_t>(raw, 24, -7);
  put<std::int64_t>(raw, 32, 1);
  put<std::uint32_t>(raw, 40, (3u << 16) | 44u);  // 3 bytes at offset 44
  std::memcpy(raw.data() + 44, "io", 3);
  EXPECT_EQ(read_trace_field(raw, *s->field("prev_pid")), static_cast<std::uint64_t>(-7));
  EXPECT_EQ(format_trace_fields(raw, *s),
            "prev_comm: \"sleep\", prev_pid: -7, prev_state: 1, reason: \"io\"");
  // A payload shorter than the field: no value, never a read past the end.
  EXPECT_FALSE(read_trace_field(std::span(raw).first(26), *s->field("prev_pid")));
  EXPECT_EQ(format_trace_fields(std::span(raw).first(10), *s),
            "prev_comm: ?, prev_pid: ?, prev_state: ?, reason: ?");
}

TEST(SyscallTable, NamesAndNumbers) {
  EXPECT_EQ(syscall_name(0), "read");
  EXPECT_EQ(syscall_name(257), "openat");
  EXPECT_EQ(syscall_name(231), "exit_group");
  EXPECT_EQ(syscall_name(451), "cachestat");  // newer than the 6.1 header
  EXPECT_EQ(syscall_name(100000), "");
  EXPECT_EQ(syscall_number("openat"), 257);
  EXPECT_EQ(syscall_number("no_such_call"), -1);
  const auto open = match_syscalls("open*");
  EXPECT_NE(std::find(open.begin(), open.end(), 2), open.end());    // open
  EXPECT_NE(std::find(open.begin(), open.end(), 257), open.end());  // openat
  EXPECT_EQ(std::find(open.begin(), open.end(), 3), open.end());    // close
  EXPECT_EQ(match_syscalls("close"), std::vector<long>{3});
  EXPECT_TRUE(match_syscalls("zzz*").empty());
}

TEST(SyscallCatalog, ArgsFromEnterFormat) {
  const SyscallCatalog c = openat_catalog();
  const auto* args = c.args("openat");
  ASSERT_NE(args, nullptr);
  ASSERT_EQ(args->size(), 4u);  // common_* and __syscall_nr dropped
  EXPECT_EQ((*args)[0].name, "dfd");
  EXPECT_EQ((*args)[1].type, "const char *");
  EXPECT_EQ(c.args("nope"), nullptr);
}

TEST(SyscallArgs, Decoders) {
  const auto arg = [](const char* sc, const char* name, const char* type, std::uint64_t v) {
    return format_syscall_arg(sc, SyscallArg{name, type}, v);
  };
  EXPECT_EQ(arg("openat", "dfd", "int", static_cast<std::uint64_t>(AT_FDCWD)), "CWD");
  EXPECT_EQ(arg("openat", "dfd", "int", 5), "5");
  EXPECT_EQ(arg("openat", "flags", "int", O_RDONLY | O_CLOEXEC), "RDONLY|CLOEXEC");
  EXPECT_EQ(arg("openat", "flags", "int", O_WRONLY | O_CREAT | O_TRUNC), "WRONLY|CREAT|TRUNC");
  EXPECT_EQ(arg("openat", "flags", "int", O_RDWR), "RDWR");
  EXPECT_EQ(arg("openat", "mode", "umode_t", 0644), "0644");
  EXPECT_EQ(arg("mmap", "prot", "unsigned long", PROT_READ | PROT_WRITE), "READ|WRITE");
  EXPECT_EQ(arg("mmap", "prot", "unsigned long", PROT_NONE), "NONE");
  EXPECT_EQ(arg("mmap", "flags", "unsigned long", MAP_PRIVATE | MAP_ANONYMOUS),
            "PRIVATE|ANONYMOUS");
  EXPECT_EQ(arg("mmap", "flags", "unsigned long", MAP_SHARED | MAP_FIXED | 0x40000000),
            "SHARED|FIXED|0x40000000");
  EXPECT_EQ(arg("mmap", "fd", "unsigned long", 0xffffffffffffffffull), "-1");
  EXPECT_EQ(arg("mmap", "addr", "unsigned long", 0x7f0000001000), "0x7f0000001000");
  EXPECT_EQ(arg("access", "mode", "int", R_OK | X_OK), "R|X");
  EXPECT_EQ(arg("access", "mode", "int", F_OK), "F");
  EXPECT_EQ(arg("lseek", "whence", "unsigned int", SEEK_END), "END");
  EXPECT_EQ(arg("kill", "sig", "int", 15), "SIGTERM");
  EXPECT_EQ(arg("newfstatat", "flag", "int", 0x100), "SYMLINK_NOFOLLOW");
  EXPECT_EQ(arg("futex", "op", "int", 128 | 1), "WAKE|PRIVATE_FLAG");
  EXPECT_EQ(arg("write", "count", "size_t", 42), "42");
  EXPECT_EQ(arg("exit_group", "error_code", "int", 0xfffffffeull), "-2");
  EXPECT_EQ(arg("write", "buf", "const char *", 0x1000), "0x1000");

  const SyscallArg filename{"filename", "const char *"};
  EXPECT_TRUE(syscall_arg_is_string(filename));
  EXPECT_FALSE(syscall_arg_is_string(SyscallArg{"buf", "const char *"}));
  EXPECT_EQ(format_syscall_arg("openat", filename, 0xab53b0b1, std::string("/etc/passwd")),
            "\"/etc/passwd\"");
  EXPECT_EQ(format_syscall_arg("openat", filename, 0xab53b0b1, std::string("a\"b\n")),
            "\"a\\\"b\\x0a\"");
  EXPECT_EQ(format_syscall_arg("openat", filename, 1, std::string("caf\xc3\xa9")),
            "\"caf\xc3\xa9\"");
  EXPECT_EQ(format_syscall_arg("openat", filename, 1, std::string("\xff\x7f")), "\"\\xff\\x7f\"");
  // Not readable: the pointer, as perf trace prints it.
  EXPECT_EQ(format_syscall_arg("openat", filename, 0xab53b0b1), "0xab53b0b1");
}

TEST(SyscallArgs, ReturnsAndErrnoNames) {
  EXPECT_EQ(errno_name(ENOENT), "ENOENT");
  EXPECT_EQ(errno_name(EAGAIN), "EAGAIN");
  EXPECT_EQ(errno_name(0), "");
  EXPECT_EQ(errno_name(9999), "");
  EXPECT_EQ(format_syscall_return("openat", 3), "3");
  EXPECT_EQ(format_syscall_return("openat", -ENOENT), "-1 ENOENT (No such file or directory)");
  EXPECT_EQ(format_syscall_return("read", -EAGAIN), "-1 EAGAIN (Resource temporarily unavailable)");
  EXPECT_EQ(format_syscall_return("mmap", 0x7f9d87af8000), "0x7f9d87af8000");
  EXPECT_EQ(format_syscall_return("mmap", -ENOMEM), "-1 ENOMEM (Cannot allocate memory)");
  EXPECT_EQ(format_syscall_return("lseek", -5000), "-5000");  // not an errno
}

TraceEvent openat_event() {
  TraceEvent ev;
  ev.time = 1'000'123'000;
  ev.exit_time = ev.time + 4'000;
  ev.entered = ev.exited = true;
  ev.pid = ev.tid = 1234;
  ev.comm = "cat";
  ev.nr = 257;
  ev.name = "openat";
  ev.args = {static_cast<std::uint64_t>(AT_FDCWD), 0xab53b0b1, O_RDONLY | O_CLOEXEC, 0, 0, 0};
  ev.strings[1] = "/etc/passwd";
  ev.ret = 3;
  return ev;
}

TEST(TraceLine, LikePerfTrace) {
  const SyscallCatalog c = openat_catalog();
  TraceFormatOptions o;
  o.catalog = &c;
  o.base_time = 1'000'000'000;
  const TraceEvent ev = openat_event();
  EXPECT_EQ(format_trace_event(ev, o),
            "     0.123 ( 0.004 ms): cat/1234 openat(dfd: CWD, filename: \"/etc/passwd\", flags: "
            "RDONLY|CLOEXEC)      = 3\n");
  // mode shows only with O_CREAT; a failure shows the errno name and text.
  TraceEvent creat = ev;
  creat.args[2] = O_WRONLY | O_CREAT;
  creat.args[3] = 0600;
  creat.ret = -EACCES;
  creat.strings[1].reset();
  EXPECT_EQ(format_trace_event(creat, o),
            "     0.123 ( 0.004 ms): cat/1234 openat(dfd: CWD, filename: 0xab53b0b1, flags: "
            "WRONLY|CREAT, mode: 0600) = -1 EACCES (Permission denied)\n");
  // Short calls are padded so " = " lines up at column 70 after the name.
  TraceEvent close;
  close.time = o.base_time;
  close.exit_time = close.time + 1500;
  close.entered = close.exited = true;
  close.tid = 7;
  close.comm = "x";
  close.name = "close";
  close.args = {0, 0, 0, 0, 0, 0};
  const std::string line = format_trace_event(close, o);
  EXPECT_EQ(line, "     0.000 ( 0.002 ms): x/7 close(fd: 0)" + std::string(70 - 12, ' ') + "= 0\n");
  // exit_group never returns; an exit without its enter is a continuation.
  TraceEvent eg;
  eg.time = o.base_time + 2'000'000;
  eg.entered = true;
  eg.tid = 7;
  eg.comm = "x";
  eg.name = "exit_group";
  eg.args = {2, 0, 0, 0, 0, 0};
  EXPECT_EQ(format_trace_event(eg, o), "     2.000 (         ): x/7 exit_group(error_code: 2)" +
                                           std::string(70 - 25, ' ') + "= ?\n");
  TraceEvent cont = close;
  cont.entered = false;
  EXPECT_NE(format_trace_event(cont, o).find("(         ): x/7 ... [continued]: close(fd: 0)"),
            std::string::npos);
  // Without a catalog: raw arguments in hex.
  TraceFormatOptions bare;
  bare.base_time = o.base_time;
  EXPECT_NE(format_trace_event(ev, bare).find("openat(arg0: 0xffffffffffffff9c, arg1: 0xab53b0b1"),
            std::string::npos);
}

TEST(TraceLine, PageFaultAndTracepoint) {
  TraceEvent pf;
  pf.kind = TraceEventKind::kPageFault;
  pf.time = 5'000'000;
  pf.tid = 9;
  pf.comm = "ls";
  pf.ip = 0x401000;
  pf.addr = 0x7f0000000010;
  pf.addr_location = "/usr/lib/libc.so.6@0x10";
  pf.addr_map_type = 'd';
  TraceFormatOptions o;
  EXPECT_EQ(format_trace_event(pf, o),
            "     5.000 ( 0.000 ms): ls/9 minfault [0x401000] => /usr/lib/libc.so.6@0x10 (d.)\n");
  TraceEvent tp;
  tp.kind = TraceEventKind::kTracepoint;
  tp.tid = 9;
  tp.comm = "ls";
  tp.event = "sched:sched_switch";
  tp.fields = "prev_pid: 9";
  EXPECT_EQ(format_trace_event(tp, o),
            "     0.000 (         ): ls/9 sched:sched_switch(prev_pid: 9)\n");
}

TEST(TracePrintFilter, DurationAndFailure) {
  TraceEvent ev = openat_event();  // 4 us, returns 3
  TracePrintFilter f;
  EXPECT_TRUE(f.passes(ev));
  f.min_duration_ns = 3'999;
  EXPECT_TRUE(f.passes(ev));
  f.min_duration_ns = 4'000;  // "longer than": not equal
  EXPECT_FALSE(f.passes(ev));
  ev.exited = false;  // no duration known
  f.min_duration_ns = 1;
  EXPECT_FALSE(f.passes(ev));
  TracePrintFilter fail;
  fail.failure_only = true;
  ev = openat_event();
  EXPECT_FALSE(fail.passes(ev));
  ev.ret = -ENOENT;
  EXPECT_TRUE(fail.passes(ev));
  TraceEvent pf;
  pf.kind = TraceEventKind::kPageFault;
  EXPECT_TRUE(TracePrintFilter{}.passes(pf));
  EXPECT_FALSE(f.passes(pf));
}

TEST(TraceSummary, StatsMathAsPerf) {
  SyscallStats s;
  for (std::uint64_t ms : {1u, 2u, 3u, 4u}) s.add(ms * 1'000'000, ms == 4 ? ENOENT : 0);
  EXPECT_EQ(s.calls, 4u);
  EXPECT_EQ(s.errors, 1u);
  EXPECT_DOUBLE_EQ(s.total_ns, 10e6);
  EXPECT_EQ(s.min_ns, 1'000'000u);
  EXPECT_EQ(s.max_ns, 4'000'000u);
  EXPECT_DOUBLE_EQ(s.mean_ns, 2.5e6);
  // sample variance 5/3 ms^2; of the mean / 4 -> stddev sqrt(5/12) ms = 25.82% of 2.5 ms
  EXPECT_NEAR(s.stddev_percent(), 100.0 * std::sqrt(5.0 / 12.0) / 2.5, 1e-9);
  SyscallStats one;
  one.add(7);
  EXPECT_EQ(one.stddev_percent(), 0.0);
  EXPECT_EQ(one.min_ns, 7u);
  SyscallStats zero;  // calls whose enter was not seen count with 0 ns
  zero.add(0);
  zero.add(0);
  EXPECT_EQ(zero.stddev_percent(), 0.0);
}

TEST(TraceSummary, CountsCallsAtExitPerThread) {
  TraceSummary sum;
  TraceEvent ev = openat_event();
  sum.add(ev);
  ev.ret = -ENOENT;
  ev.exit_time = ev.time + 6'000;
  sum.add(ev);
  TraceEvent never = ev;  // exit_group: entered, never exited: an event, not a call
  never.name = "exit_group";
  never.exited = false;
  sum.add(never);
  TraceEvent other = openat_event();
  other.tid = 99;
  other.comm = "dd";
  other.name = "read";
  other.entered = false;  // exit only (enter before the trace started): 0 ns
  sum.add(other);
  TraceEvent pf;
  pf.kind = TraceEventKind::kPageFault;
  pf.tid = 1234;
  pf.major = true;
  sum.add(pf);
  EXPECT_EQ(sum.total_events(), 2u + 2u + 1u + 1u + 1u);
  const auto threads = sum.threads();
  ASSERT_EQ(threads.size(), 2u);
  EXPECT_EQ(threads[0]->tid, 99);  // fewest events first
  EXPECT_EQ(threads[1]->tid, 1234);
  const auto& st = threads[1]->syscalls.at("openat");
  EXPECT_EQ(st.calls, 2u);
  EXPECT_EQ(st.errors, 1u);
  EXPECT_EQ(threads[1]->syscalls.count("exit_group"), 0u);
  EXPECT_EQ(threads[0]->syscalls.at("read").max_ns, 0u);
  const std::string text = sum.format();
  EXPECT_NE(text.find(" cat (1234), 6 events, 85.7%, 1 majfaults\n"), std::string::npos) << text;
  EXPECT_NE(text.find("   openat                 2      1     0.010     0.004     0.005     "
                      "0.006     20.00%\n"),
            std::string::npos)
      << text;
  EXPECT_LT(text.find(" dd (99)"), text.find(" cat (1234)"));
  EXPECT_EQ(text.find("ENOENT"), std::string::npos);  // only with errno_summary
  EXPECT_NE(sum.format(true).find("20.00%\n\t\t\t\tENOENT: 1\n"), std::string::npos);
  EXPECT_EQ(st.errnos.at(ENOENT), 1u);
}

}  // namespace
}  // namespace perfx
