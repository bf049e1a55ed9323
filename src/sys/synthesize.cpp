#include "sys/synthesize.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>
#include <string_view>

#include "core/build_id_note.hpp"
#include "core/error_format.hpp"
#include "core/text.hpp"
#include "record/encoder.hpp"
#include "record/records.hpp"
#include "sys/unique_fd.hpp"

namespace perfx::sys {
namespace {

std::vector<pid_t> numeric_entries(const std::string& dir) {
  std::vector<pid_t> out;
  std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(dir.c_str()), ::closedir);
  if (!d) return out;
  while (dirent* e = ::readdir(d.get())) {
    int v = 0;
    const char* end = e->d_name + std::strlen(e->d_name);
    auto [p, ec] = std::from_chars(e->d_name, end, v);
    if (ec == std::errc() && p == end && v > 0) out.push_back(v);
  }
  std::sort(out.begin(), out.end());
  return out;
}

int to_int(std::string_view s) {
  int v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

record::SampleId zero_id(const record::SampleLayout& layout) {
  record::SampleId id;
  id.fields =
      layout.sample_type & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
                            PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER);
  return id;
}

Result<void> emit(record::Record::Body body, std::uint16_t misc, const record::SampleLayout& layout,
                  std::vector<std::byte>& out) {
  record::Record r;
  r.header.type = record::type_of_body(body);
  r.header.misc = misc;
  r.body = std::move(body);
  r.sample_id = zero_id(layout);
  return record::encode_record(r, layout, out);
}

struct ElfCloser {
  void operator()(Elf* e) const { elf_end(e); }
};

}  // namespace

std::vector<MapsEntry> parse_proc_maps(const std::string& text) {
  std::vector<MapsEntry> out;
  for (const std::string_view line : core::lines(text)) {
    // start-end perms offset maj:min inode [path]
    MapsEntry m;
    const char* p = line.data();
    const char* end = p + line.size();
    auto hex = [&](std::uint64_t& v) {
      auto r = std::from_chars(p, end, v, 16);
      if (r.ec != std::errc()) return false;
      p = r.ptr;
      return true;
    };
    auto skip = [&](char c) {
      if (p < end && *p == c) {
        ++p;
        return true;
      }
      return false;
    };
    std::uint64_t maj = 0, min = 0;
    if (!hex(m.start) || !skip('-') || !hex(m.end) || !skip(' ')) continue;
    if (end - p < 5) continue;
    if (p[0] == 'r') m.prot |= PROT_READ;
    if (p[1] == 'w') m.prot |= PROT_WRITE;
    if (p[2] == 'x') m.prot |= PROT_EXEC;
    m.flags = p[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
    p += 4;
    if (!skip(' ') || !hex(m.pgoff) || !skip(' ') || !hex(maj) || !skip(':') || !hex(min) ||
        !skip(' ')) {
      continue;
    }
    auto r = std::from_chars(p, end, m.ino, 10);
    if (r.ec != std::errc()) continue;
    p = r.ptr;
    while (p < end && *p == ' ') ++p;
    m.path.assign(p, end);
    m.maj = static_cast<std::uint32_t>(maj);
    m.min = static_cast<std::uint32_t>(min);
    out.push_back(std::move(m));
  }
  return out;
}

Result<void> synthesize_comm(pid_t pid, const std::string& comm, const record::SampleLayout& layout,
                             std::vector<std::byte>& out) {
  record::Comm c;
  c.pid = static_cast<std::uint32_t>(pid);
  c.tid = static_cast<std::uint32_t>(pid);
  c.comm = comm;
  return emit(c, 0, layout, out);
}

Result<void> synthesize_namespaces(pid_t pid, pid_t tid, const record::SampleLayout& layout,
                                   std::vector<std::byte>& out, const std::string& proc_root) {
  // perf's NET_NS_INDEX .. CGROUP_NS_INDEX order.
  static constexpr const char* kNames[] = {"net", "uts", "ipc", "pid", "user", "mnt", "cgroup"};
  std::vector<std::uint64_t> info;
  for (const char* name : kNames) {
    struct stat st {};
    const std::string path = proc_root + "/" + std::to_string(tid) + "/ns/" + name;
    const bool ok = ::stat(path.c_str(), &st) == 0;
    info.push_back(ok ? static_cast<std::uint64_t>(st.st_dev) : 0);
    info.push_back(ok ? static_cast<std::uint64_t>(st.st_ino) : 0);
  }
  record::Namespaces ns;
  ns.pid = static_cast<std::uint32_t>(pid);
  ns.tid = static_cast<std::uint32_t>(tid);
  ns.nr_namespaces = std::size(kNames);
  ns.link_info = record::U64Array::of(info);
  return emit(ns, 0, layout, out);
}

Result<void> synthesize_cgroups(const record::SampleLayout& layout, std::vector<std::byte>& out,
                                const std::string& root) {
  std::vector<std::string> todo{root};
  while (!todo.empty()) {
    const std::string dir = todo.back();
    todo.pop_back();
    // A cgroup's id is its 8-byte file handle (perf's struct cgroupfs_handle).
    alignas(file_handle) unsigned char handle[sizeof(file_handle) + sizeof(std::uint64_t)] = {};
    auto* fh = reinterpret_cast<file_handle*>(handle);
    fh->handle_bytes = sizeof(std::uint64_t);
    int mount_id = 0;
    if (::name_to_handle_at(AT_FDCWD, dir.c_str(), fh, &mount_id, 0) == 0) {
      record::Cgroup c;
      std::memcpy(&c.id, handle + sizeof(file_handle), sizeof(c.id));
      std::string rel = dir.substr(root.size());
      if (rel.empty()) rel = "/";
      c.path = rel;
      PERFX_CHECK(emit(c, 0, layout, out));
    }
    // Children in readdir order, each before the next sibling (perf's depth-first walk).
    std::vector<std::string> kids;
    if (DIR* d = ::opendir(dir.c_str())) {
      while (const dirent* e = ::readdir(d)) {
        if (e->d_type != DT_DIR || std::strcmp(e->d_name, ".") == 0 ||
            std::strcmp(e->d_name, "..") == 0)
          continue;
        kids.push_back(dir + (dir.back() == '/' ? "" : "/") + e->d_name);
      }
      ::closedir(d);
    }
    todo.insert(todo.end(), kids.rbegin(), kids.rend());
  }
  return {};
}

Result<void> synthesize_process(pid_t pid, const record::SampleLayout& layout,
                                const SynthOptions& opt, std::vector<std::byte>& out) {
  const std::string base = opt.proc_root + "/" + std::to_string(pid);
  auto status = slurp_file(base + "/status");
  if (!status) return {};  // exited meanwhile
  const int tgid = to_int(core::line_value(*status, "Tgid").value_or(""));
  if (tgid != pid) return {};  // a thread listed on its own: handled with its process
  const int ppid = to_int(core::line_value(*status, "PPid").value_or(""));
  std::vector<pid_t> tids = numeric_entries(base + "/task");
  if (tids.empty()) tids.push_back(pid);
  const std::size_t before = out.size();
  for (pid_t tid : tids) {
    auto comm = slurp_file(base + "/task/" + std::to_string(tid) + "/comm");
    if (!comm) continue;
    std::string name = *comm;
    while (!name.empty() && name.back() == '\n') name.pop_back();
    // As perf: FORK first, then COMM (a FORK copies the parent's comm). The main thread's parent is
    // PPid; other threads are "forked" by the main one.
    record::Fork f;
    f.pid = static_cast<std::uint32_t>(tgid);
    f.tid = static_cast<std::uint32_t>(tid);
    f.ppid = static_cast<std::uint32_t>(tid == tgid ? ppid : tgid);
    f.ptid = f.ppid;
    // perf marks its synthesized FORKs: readers do not copy the parent's maps for them.
    PERFX_CHECK(emit(f, PERF_RECORD_MISC_FORK_EXEC, layout, out));
    if (opt.namespaces) PERFX_CHECK(synthesize_namespaces(tgid, tid, layout, out, opt.proc_root));
    record::Comm c;
    c.pid = static_cast<std::uint32_t>(tgid);
    c.tid = static_cast<std::uint32_t>(tid);
    c.comm = name;
    PERFX_CHECK(emit(c, 0, layout, out));
  }
  if (out.size() == before) return {};
  auto maps = slurp_file(base + "/maps");
  if (!maps) return {};
  for (const MapsEntry& m : parse_proc_maps(*maps)) {
    if ((m.prot & PROT_EXEC) == 0 && !opt.mmap_data) continue;
    if (m.path.empty() && (m.prot & PROT_EXEC) == 0) continue;
    record::Mmap2 mm;
    mm.pid = static_cast<std::uint32_t>(tgid);
    mm.tid = static_cast<std::uint32_t>(tgid);
    mm.addr = m.start;
    mm.len = m.end - m.start;
    mm.pgoff = m.pgoff;
    mm.maj = m.maj;
    mm.min = m.min;
    mm.ino = m.ino;
    mm.prot = m.prot;
    mm.flags = m.flags;
    std::string name = m.path.empty() ? std::string("//anon") : m.path;
    // "(deleted)" files keep their name like perf does.
    mm.filename = name;
    std::uint16_t misc = PERF_RECORD_MISC_USER;
    if ((m.prot & PROT_EXEC) == 0) misc |= PERF_RECORD_MISC_MMAP_DATA;
    PERFX_CHECK(emit(mm, misc, layout, out));
  }
  return {};
}

Result<std::size_t> synthesize_all_processes(const record::SampleLayout& layout,
                                             const SynthOptions& opt, std::vector<std::byte>& out) {
  std::size_t n = 0;
  for (pid_t pid : numeric_entries(opt.proc_root)) {
    const std::size_t before = out.size();
    PERFX_CHECK(synthesize_process(pid, layout, opt, out));
    if (out.size() != before) ++n;
  }
  return n;
}

Result<void> synthesize_kernel_mmap(const record::SampleLayout& layout, std::vector<std::byte>& out,
                                    const std::string& kallsyms) {
  PERFX_TRY(text, slurp_file(kallsyms));
  std::uint64_t stext = 0, etext = 0, first_module = 0;
  for (const std::string_view line : core::lines(text)) {
    std::uint64_t addr = 0;
    auto r = std::from_chars(line.data(), line.data() + line.size(), addr, 16);
    if (r.ec != std::errc()) continue;
    std::string_view rest(r.ptr, static_cast<std::size_t>(line.data() + line.size() - r.ptr));
    if (rest.size() < 3) continue;
    std::string_view name = rest.substr(3);
    if (name == "_text") stext = addr;
    if (name == "_etext") etext = addr;
    if (first_module == 0 && name.find('[') != std::string_view::npos &&
        name.find("[__builtin") == std::string_view::npos) {
      first_module = addr;
    }
  }
  if (stext == 0) {
    return fail(Errc::kNotFound, "no _text address in {} (kptr_restrict hides kernel addresses?)",
                kallsyms);
  }
  std::uint64_t end = etext > stext ? etext : ~std::uint64_t{0};
  if (first_module > stext && first_module < end) end = first_module;
  record::Mmap m;
  m.pid = static_cast<std::uint32_t>(-1);
  m.tid = 0;
  m.addr = stext;
  m.len = end - stext;
  m.pgoff = stext;
  m.filename = "[kernel.kallsyms]_text";
  return emit(m, PERF_RECORD_MISC_KERNEL, layout, out);
}

std::optional<std::vector<std::uint8_t>> read_elf_build_id(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return std::nullopt;
  elf_version(EV_CURRENT);
  std::unique_ptr<Elf, ElfCloser> elf(elf_begin(fd.get(), ELF_C_READ_MMAP, nullptr));
  if (!elf || elf_kind(elf.get()) != ELF_K_ELF) return std::nullopt;
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf.get(), scn)) != nullptr) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != SHT_NOTE) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || data->d_buf == nullptr) continue;
    auto id = core::build_id_from_notes(
        std::span(static_cast<const std::byte*>(data->d_buf), data->d_size));
    if (id) return id;
  }
  return std::nullopt;
}

std::optional<std::vector<std::uint8_t>> read_kernel_build_id(const std::string& notes) {
  auto text = slurp_file(notes);
  if (!text) return std::nullopt;
  return core::build_id_from_notes(std::as_bytes(std::span(text->data(), text->size())));
}

void HitTracker::add_map(std::uint32_t pid, std::uint64_t start, std::uint64_t len,
                         std::string_view name) {
  auto [it, inserted] =
      file_index_.try_emplace(std::string(name), static_cast<std::uint32_t>(files_.size()));
  if (inserted) {
    files_.emplace_back(name);
    hit_.push_back(false);
  }
  maps_[pid][start] = Map{start + len, it->second};
}

void HitTracker::feed(std::span<const std::byte> rec) {
  if (rec.size() < 8) return;
  std::uint32_t type = 0;
  std::uint16_t misc = 0;
  std::memcpy(&type, rec.data(), 4);
  std::memcpy(&misc, rec.data() + 4, 2);
  auto u32 = [&](std::size_t off) {
    std::uint32_t v = 0;
    if (off + 4 <= rec.size()) std::memcpy(&v, rec.data() + off, 4);
    return v;
  };
  auto u64 = [&](std::size_t off) {
    std::uint64_t v = 0;
    if (off + 8 <= rec.size()) std::memcpy(&v, rec.data() + off, 8);
    return v;
  };
  auto name_at = [&](std::size_t off) -> std::string_view {
    if (off >= rec.size()) return {};
    const char* s = reinterpret_cast<const char*>(rec.data() + off);
    return std::string_view(s, strnlen(s, rec.size() - off));
  };
  switch (type) {
    case PERF_RECORD_SAMPLE: {
      ++samples_;
      const std::uint16_t mode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
      if (layout_.time_offset >= 0) {
        const std::uint64_t t = u64(static_cast<std::size_t>(layout_.time_offset));
        if (first_time_ == 0 || t < first_time_) first_time_ = t;
        if (t > last_time_) last_time_ = t;
      }
      if (mode == PERF_RECORD_MISC_KERNEL) {
        kernel_hit_ = true;
        return;
      }
      if (layout_.ip_offset < 0 || layout_.tid_offset < 0) return;
      const std::uint64_t ip = u64(static_cast<std::size_t>(layout_.ip_offset));
      const std::uint32_t pid = u32(static_cast<std::size_t>(layout_.tid_offset));
      auto pit = maps_.find(pid);
      if (pit == maps_.end()) return;
      auto it = pit->second.upper_bound(ip);
      if (it == pit->second.begin()) return;
      --it;
      if (ip < it->second.end) hit_[it->second.file] = true;
      return;
    }
    case PERF_RECORD_MMAP:
      if ((misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL) return;
      add_map(u32(8), u64(16), u64(24), name_at(40));
      return;
    case PERF_RECORD_MMAP2:
      if ((misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL) return;
      add_map(u32(8), u64(16), u64(24), name_at(72));
      return;
    case PERF_RECORD_COMM:
      if ((misc & PERF_RECORD_MISC_COMM_EXEC) != 0) maps_.erase(u32(8));
      return;
    default:
      return;
  }
}

std::vector<std::string> HitTracker::hit_files() const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < files_.size(); ++i) {
    if (hit_[i] && !files_[i].empty() && files_[i].front() == '/') out.push_back(files_[i]);
  }
  return out;
}

}  // namespace perfx::sys
