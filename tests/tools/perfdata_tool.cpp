// Test helper for tests/interop/perfdata_*.sh: reads perf.data files with the
// perfx reader (dump: per-type counts, malformed/skipped, header text) and
// synthesizes recordings with the perfx writer (synth) for perf to read.
//
//   perfdata_tool dump FILE|-            counts as "key value" lines
//   perfdata_tool header FILE            perf report --header-only style text
//   perfdata_tool synth OUT|- --binary PATH --stack A,B,C:COUNT ... [--pipe] [-z LEVEL]
//                 [--start NS] [--step NS]
//       A,B,C are file-relative addresses (leaf first) in PATH's executable segment;
//       the samples start at --start ns (default 1 s) and are --step ns apart (1 ms).
//   perfdata_tool synth-tasks OUT --binary PATH
//       a system-wide-like thread table for report --tasks/--mmaps (see synth_tasks()).
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../unit/test_records.hpp"
#include "perfx/perf_data.hpp"
#include "record/perf_data_reader.hpp"
#include "record/perf_data_writer.hpp"

using namespace perfx;
using namespace perfx::record;

namespace {

int dump(const std::string& path) {
  auto reader = PerfDataReader::open(path);
  if (!reader) {
    std::fprintf(stderr, "error: %s\n", reader.error().message().c_str());
    return 2;
  }
  RawRecord raw;
  std::uint64_t samples = 0, decoded = 0, callchain_frames = 0;
  while (reader->next(raw)) {
    auto rec = reader->decode(raw);
    if (!rec) {
      std::fprintf(stderr, "decode: %s\n", rec.error().message().c_str());
      continue;
    }
    ++decoded;
    if (const auto* s = rec->get<Sample>()) {
      ++samples;
      callchain_frames += s->callchain.size();
    }
  }
  const auto& st = reader->stats();
  std::printf("pipe %d\n", reader->is_pipe() ? 1 : 0);
  std::printf("attrs %zu\n", reader->attrs().size());
  for (std::size_t i = 0; i < reader->attrs().size(); ++i) {
    std::printf("event %zu %s\n", i, reader->event_name(i).c_str());
  }
  std::printf("records %llu\n", static_cast<unsigned long long>(st.records));
  std::printf("decoded %llu\n", static_cast<unsigned long long>(decoded));
  std::printf("samples %llu\n", static_cast<unsigned long long>(samples));
  std::printf("callchain_frames %llu\n", static_cast<unsigned long long>(callchain_frames));
  for (std::size_t t = 0; t < st.by_type.size(); ++t) {
    if (st.by_type[t] != 0) {
      std::printf("type %s %llu\n",
                  std::string(record_type_name(static_cast<std::uint32_t>(t))).c_str(),
                  static_cast<unsigned long long>(st.by_type[t]));
    }
  }
  std::printf("compressed %llu\n", static_cast<unsigned long long>(st.compressed_records));
  std::printf("unknown %llu\n", static_cast<unsigned long long>(st.unknown_records));
  std::printf("malformed %llu\n", static_cast<unsigned long long>(st.malformed_records));
  std::printf("skipped %llu\n", static_cast<unsigned long long>(st.skipped_bytes));
  for (const auto& w : st.warnings) std::printf("warning %s\n", w.c_str());
  if (reader->error()) {
    std::printf("error %s\n", reader->error()->message().c_str());
    return 1;
  }
  return 0;
}

int header(const std::string& path) {
  auto text = perfx::perf_data_header_text(path);  // public API (include/perfx/perf_data.hpp)
  if (!text) {
    std::fprintf(stderr, "error: %s\n", text.error().message().c_str());
    return 2;
  }
  std::fputs(text->c_str(), stdout);
  return 0;
}

struct Stack {
  std::vector<std::uint64_t> addrs;
  std::uint64_t count = 0;
};

constexpr std::uint64_t kId = 101;

// The cpu-clock attr of the synthesized recordings (perf record -g's fields).
raw::EventAttr synth_attr() {
  raw::EventAttr attr{};
  attr.type = PERF_TYPE_SOFTWARE;
  attr.size = raw::kAttrSizeVer7;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.sample_period = 1000000;
  attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                     PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
  attr.read_format = PERF_FORMAT_ID;
  attr.disabled = 1;
  attr.inherit = 1;
  attr.mmap = 1;
  attr.comm = 1;
  attr.task = 1;
  attr.sample_id_all = 1;
  attr.mmap2 = 1;
  attr.comm_exec = 1;
  attr.exclude_guest = 1;
  return attr;
}

// A writer of `out` with synth_attr() and this machine's header features; exits on error.
record::PerfDataWriter open_writer(const std::string& out, const WriterOptions& opts, int argc,
                                   char** argv) {
  const raw::EventAttr attr = synth_attr();
  auto w = record::PerfDataWriter::create(out, {WriterAttr{attr, "cpu-clock", {kId}}}, opts);
  if (!w) {
    std::fprintf(stderr, "error: %s\n", w.error().message().c_str());
    std::exit(1);
  }
  Features f;
  utsname u{};
  ::uname(&u);
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  f.hostname = host;
  f.osrelease = u.release;
  f.version = "6.1.perfx";
  f.arch = u.machine;
  const long ncpu = ::sysconf(_SC_NPROCESSORS_ONLN);
  f.nrcpus = NrCpus{static_cast<std::uint32_t>(ncpu), static_cast<std::uint32_t>(ncpu)};
  f.cpudesc = "perfx synthetic cpu";
  f.cpuid = "GenuineIntel,6,85,4";
  f.total_mem_kb = 1024 * 1024;
  std::vector<std::string> cmd;
  for (int i = 0; i < argc; ++i) cmd.emplace_back(argv[i]);
  f.cmdline = cmd;
  if (opts.pipe) f.event_desc.push_back(EventDesc{attr, "cpu-clock", {kId}});
  CpuTopology topo;
  topo.core_siblings.push_back(ncpu > 1 ? fmt::format("0-{}", ncpu - 1) : "0");
  for (long c = 0; c < ncpu; ++c) {
    topo.thread_siblings.push_back(std::to_string(c));
    topo.cpus.push_back({static_cast<std::uint32_t>(c), 0, 0});
  }
  topo.has_dies = true;
  topo.die_siblings = topo.core_siblings;
  f.cpu_topology = topo;
  f.pmu_mappings = {{1, "software"}, {2, "tracepoint"}};
  if (auto r = w->set_features(f); !r) {
    std::fprintf(stderr, "error: %s\n", r.error().message().c_str());
    std::exit(1);
  }
  return std::move(*w);
}

// Writes `r` with a sample_id of thread pid/tid at `time`; exits on error.
void put(record::PerfDataWriter& w, Record r, std::uint32_t pid, std::uint32_t tid,
         std::uint64_t time) {
  r.sample_id.fields = synth_attr().sample_type;
  r.sample_id.pid = pid;
  r.sample_id.tid = tid;
  r.sample_id.time = time;
  r.sample_id.id = kId;
  if (auto e = w.write(r); !e) {
    std::fprintf(stderr, "error: %s\n", e.error().message().c_str());
    std::exit(1);
  }
}

// perf report warns about kptr_restrict unless the kernel map is present, as perf record
// writes it: MMAP pid -1 "[kernel.kallsyms]_text" at _text.
void put_kernel_map(record::PerfDataWriter& w) {
  FILE* ks = std::fopen("/proc/kallsyms", "r");
  if (ks == nullptr) return;
  char line[512];
  unsigned long long text = 0, etext = 0;
  while (std::fgets(line, sizeof line, ks) != nullptr) {
    unsigned long long a = 0;
    char kind = 0;
    char sym[256] = {};
    if (std::sscanf(line, "%llx %c %255s", &a, &kind, sym) != 3) continue;
    if (std::strcmp(sym, "_text") == 0) text = a;
    if (std::strcmp(sym, "_etext") == 0) etext = a;
    if (text != 0 && etext != 0) break;
  }
  std::fclose(ks);
  if (text == 0) return;
  Record r;
  r.header.misc = PERF_RECORD_MISC_KERNEL;
  Mmap m;
  m.pid = 0xffffffffu;
  m.tid = 0;
  m.addr = text;
  m.len = etext > text ? etext - text : 0x1000000;
  m.pgoff = text;
  m.filename = "[kernel.kallsyms]_text";
  r.body = m;
  put(w, r, 0xffffffffu, 0xffffffffu, 0);
}

// An MMAP2 of `binary`'s second page at `addr` in pid/tid.
Record binary_map(const std::string& binary, const struct stat& bst, std::uint32_t pid,
                  std::uint32_t tid, std::uint64_t addr) {
  Record r;
  r.header.misc = PERF_RECORD_MISC_USER;
  Mmap2 m = test_support::text_mmap2(pid, tid, addr, 0x1000, 0x1000, binary);
  m.maj = static_cast<std::uint32_t>(major(bst.st_dev));
  m.min = static_cast<std::uint32_t>(minor(bst.st_dev));
  m.ino = bst.st_ino;
  r.body = m;
  return r;
}

int synth(int argc, char** argv) {
  std::string out = argv[2];
  std::string binary;
  std::vector<Stack> stacks;
  WriterOptions opts;
  std::uint64_t t = 1000000000ULL;  // the first record's time
  std::uint64_t step = 1000000;     // between samples
  for (int i = 3; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--binary" && i + 1 < argc) {
      binary = argv[++i];
    } else if (a == "--pipe") {
      opts.pipe = true;
    } else if (a == "-z" && i + 1 < argc) {
      opts.compress_level = std::atoi(argv[++i]);
    } else if (a == "--start" && i + 1 < argc) {
      t = std::strtoull(argv[++i], nullptr, 0);
    } else if (a == "--step" && i + 1 < argc) {
      step = std::strtoull(argv[++i], nullptr, 0);
    } else if (a == "--stack" && i + 1 < argc) {
      std::string s = argv[++i];
      Stack st;
      const auto colon = s.find(':');
      st.count = std::strtoull(s.c_str() + colon + 1, nullptr, 0);
      std::string list = s.substr(0, colon);
      std::size_t p = 0;
      while (p < list.size()) {
        std::size_t q = list.find(',', p);
        if (q == std::string::npos) q = list.size();
        st.addrs.push_back(std::strtoull(list.substr(p, q - p).c_str(), nullptr, 0));
        p = q + 1;
      }
      stacks.push_back(st);
    } else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  struct stat bst {};
  if (binary.empty() || ::stat(binary.c_str(), &bst) != 0) {
    std::fprintf(stderr, "need --binary PATH\n");
    return 2;
  }
  record::PerfDataWriter w = open_writer(out, opts, argc, argv);
  const std::uint32_t pid = 4242;
  const std::uint64_t base = 0x555555554000ULL;
  put_kernel_map(w);
  {
    Record r;
    r.body = Fork{pid, 1, pid, 1, t};
    put(w, r, pid, pid, t);
  }
  std::string comm = binary.substr(binary.rfind('/') + 1);
  {
    Record r;
    r.header.misc = PERF_RECORD_MISC_COMM_EXEC;
    r.body = Comm{pid, pid, comm};
    put(w, r, pid, pid, t);
  }
  put(w, binary_map(binary, bst, pid, pid, base + 0x1000), pid, pid, t);
  std::vector<std::uint64_t> chain;
  for (const auto& st : stacks) {
    for (std::uint64_t i = 0; i < st.count; ++i) {
      t += step;
      chain.clear();
      chain.push_back(PERF_CONTEXT_USER);
      for (std::uint64_t a : st.addrs) chain.push_back(base + a);
      Sample s;
      s.identifier = kId;
      s.ip = base + st.addrs.front();
      s.pid = s.tid = pid;
      s.time = t;
      s.cpu = 0;
      s.period = 1000000;
      s.callchain = U64Array::of(chain);
      Record r;
      r.header.misc = PERF_RECORD_MISC_USER;
      r.body = s;
      put(w, r, pid, pid, t);
    }
    if (auto e = w.finish_round(); !e) return 1;
  }
  {
    Record r;
    r.body = Exit{pid, 1, pid, 1, t + 1};
    put(w, r, pid, pid, t + 1);
  }
  if (auto e = w.finalize(); !e) {
    std::fprintf(stderr, "error: %s\n", e.error().message().c_str());
    return 1;
  }
  return 0;
}

// A thread table like a system-wide recording's, with every way perf report --tasks
// can learn (or not learn) of a thread: synthesized FORK (PERF_RECORD_MISC_FORK_EXEC,
// no maps copied), COMM and MMAP2 of running processes; threads known only from samples,
// from an EXIT or from another record's sample_id (not listed by perf); a COMM of a
// thread whose leader is unknown (perf adds the leader as ":PID"); a kernel FORK (maps
// copied) followed by an exec; FORKs from parents never named (":TID"); an MMAP2 of an
// unknown thread (listed with --mmaps only); a thread that exits (still listed); tids in
// more than one of perf's 256 buckets. Every record of a thread has its own sample_id.
int synth_tasks(int argc, char** argv) {
  const std::string out = argv[2];
  if (argc != 5 || std::string(argv[3]) != "--binary") {
    std::fprintf(stderr, "usage: perfdata_tool synth-tasks OUT --binary PATH\n");
    return 2;
  }
  const std::string binary = argv[4];
  struct stat bst {};
  if (::stat(binary.c_str(), &bst) != 0) {
    std::fprintf(stderr, "cannot stat %s\n", binary.c_str());
    return 2;
  }
  record::PerfDataWriter w = open_writer(out, {}, argc, argv);
  std::uint64_t t = 5000000000ULL;
  auto at = [&](Record r, std::uint32_t pid, std::uint32_t tid) { put(w, r, pid, tid, t += 1000); };
  auto fork_rec = [&](std::uint32_t pid, std::uint32_t ppid, std::uint32_t tid, std::uint32_t ptid,
                      bool synthesized) {
    Record r;
    if (synthesized) r.header.misc = PERF_RECORD_MISC_FORK_EXEC;
    r.body = Fork{pid, ppid, tid, ptid, t + 1000};
    at(r, pid, tid);
  };
  auto comm = [&](std::uint32_t pid, std::uint32_t tid, const char* name, bool exec) {
    Record r;
    if (exec) r.header.misc = PERF_RECORD_MISC_COMM_EXEC;
    r.body = Comm{pid, tid, name};
    at(r, pid, tid);
  };
  auto sample = [&](std::uint32_t pid, std::uint32_t tid) {
    Sample s;
    s.identifier = kId;
    s.ip = 0x555555555100ULL;
    s.pid = pid;
    s.tid = tid;
    s.time = t + 1000;
    s.period = 1000000;
    const std::uint64_t chain[] = {PERF_CONTEXT_USER, s.ip};
    s.callchain = U64Array::of(chain);
    Record r;
    r.header.misc = PERF_RECORD_MISC_USER;
    r.body = s;
    at(r, pid, tid);
  };
  auto exit_rec = [&](std::uint32_t pid, std::uint32_t ppid, std::uint32_t tid,
                      std::uint32_t ptid) {
    Record r;
    r.body = Exit{pid, ppid, tid, ptid, t + 1000};
    at(r, pid, tid);
  };
  put_kernel_map(w);
  // Synthesized (perf record -a's view of running tasks).
  fork_rec(1, 0, 1, 0, true);
  comm(1, 1, "init", false);
  fork_rec(100, 1, 100, 1, true);
  comm(100, 100, "proc_a", false);
  at(binary_map(binary, bst, 100, 100, 0x555555555000ULL), 100, 100);
  fork_rec(100, 100, 101, 100, true);
  comm(100, 101, "worker", false);
  fork_rec(100, 100, 356, 100, true);  // tid 356: bucket 100, after tid 100
  comm(100, 356, "worker2", false);
  if (auto e = w.finish_round(); !e) return 1;
  // What happened while recording.
  sample(100, 101);
  sample(100, 102);  // known only from samples
  sample(700, 700);
  exit_rec(100, 100, 103, 100);  // an EXIT of a thread never seen
  {
    Record r;  // another record's sample_id names an unknown thread
    r.body = Lost{kId, 3};
    at(r, 600, 600);
  }
  comm(200, 201, "lonely", false);      // leader 200 unknown
  fork_rec(300, 100, 300, 101, false);  // proc_a's worker forks: maps copied, named "worker"
  sample(300, 300);
  comm(300, 300, "child_b", true);
  at(binary_map(binary, bst, 300, 300, 0x7f0000001000ULL), 300, 300);
  fork_rec(100, 100, 104, 101, false);  // a thread that exits: still listed
  exit_rec(100, 100, 104, 101);
  exit_rec(300, 100, 300, 101);
  fork_rec(401, 400, 401, 400, false);  // parents never named: ":TID"
  fork_rec(402, 401, 402, 401, false);
  at(binary_map(binary, bst, 500, 501, 0x7f0000002000ULL), 500, 501);  // --mmaps only
  if (auto e = w.finish_round(); !e) return 1;
  if (auto e = w.finalize(); !e) {
    std::fprintf(stderr, "error: %s\n", e.error().message().c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: perfdata_tool dump|header|synth|synth-tasks FILE ...\n");
    return 2;
  }
  const std::string cmd = argv[1];
  if (cmd == "dump") return dump(argv[2]);
  if (cmd == "header") return header(argv[2]);
  if (cmd == "synth") return synth(argc, argv);
  if (cmd == "synth-tasks") return synth_tasks(argc, argv);
  std::fprintf(stderr, "unknown command %s\n", cmd.c_str());
  return 2;
}
