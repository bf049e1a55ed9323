#include "report/record_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <span>
#include <string_view>

#include "core/build_id_note.hpp"
#include "core/c_hex.hpp"

namespace perfx::report {
namespace {

// perf_event__fprintf_namespaces(): four {dev, inode} pairs a line.
std::string namespaces_text(const record::Namespaces& ns) {
  static constexpr std::string_view kNames[] = {"net",  "uts", "ipc",   "pid",
                                                "user", "mnt", "cgroup"};
  std::string out = fmt::format("PERF_RECORD_NAMESPACES {}/{} - nr_namespaces: {}\n\t\t[",
                                static_cast<std::int32_t>(ns.pid),
                                static_cast<std::int32_t>(ns.tid), ns.nr_namespaces);
  const std::size_t n = std::min<std::size_t>(ns.nr_namespaces, ns.link_info.size() / 2);
  for (std::size_t i = 0; i < n; ++i) {
    if (i != 0 && i % 4 == 0) out += "\n\t\t ";
    fmt::format_to(std::back_inserter(out), "{}/{}: {}/{:#x}{}", i,
                   i < std::size(kNames) ? kNames[i] : "UNKNOWN", ns.dev(i), ns.inode(i),
                   i + 1 != ns.nr_namespaces ? ", " : "]\n");
  }
  return out;
}

// perf_event__fprintf_text_poke() without the kernel symbol of the address (perfx reads
// no kcore), then the old and the new bytes, 16 a line.
std::string text_poke_text(const record::TextPoke& tp) {
  std::string out = fmt::format("PERF_RECORD_TEXT_POKE {:x}  old len {} new len {}\n", tp.addr,
                                tp.old_len, tp.new_len);
  auto bytes = [&out](std::span<const std::byte> b, std::string_view which) {
    for (std::size_t i = 0; i < b.size(); ++i) {
      if (i % 16 == 0) fmt::format_to(std::back_inserter(out), "            {} bytes:", which);
      fmt::format_to(std::back_inserter(out), " {:02x}", static_cast<unsigned>(b[i]));
      if (i % 16 == 15 || i + 1 == b.size()) out += '\n';
    }
  };
  bytes(tp.old_bytes, "Old");
  bytes(tp.new_bytes, "New");
  return out;
}

}  // namespace

std::string side_band_text(const record::Record& r) {
  if (const auto* c = r.get<record::Comm>()) {
    return fmt::format("PERF_RECORD_COMM{}: {}:{}/{}\n",
                       (r.header.misc & PERF_RECORD_MISC_COMM_EXEC) ? " exec" : "", c->comm, c->pid,
                       c->tid);
  }
  if (const auto* fk = r.get<record::Fork>())
    return fmt::format("PERF_RECORD_FORK({}:{}):({}:{})\n", fk->pid, fk->tid, fk->ppid, fk->ptid);
  if (const auto* e = r.get<record::Exit>())
    return fmt::format("PERF_RECORD_EXIT({}:{}):({}:{})\n", e->pid, e->tid, e->ppid, e->ptid);
  if (const auto* m = r.get<record::Mmap>()) {
    return fmt::format("PERF_RECORD_MMAP {}/{}: [{}({}) @ {}]: {} {}\n",
                       static_cast<std::int32_t>(m->pid), m->tid, core::c_alt_hex(m->addr),
                       core::c_alt_hex(m->len), core::c_alt_hex(m->pgoff),
                       (r.header.misc & PERF_RECORD_MISC_MMAP_DATA) ? 'r' : 'x', m->filename);
  }
  if (const auto* m2 = r.get<record::Mmap2>()) {
    std::string prot;
    prot += (m2->prot & 1u) ? 'r' : '-';
    prot += (m2->prot & 2u) ? 'w' : '-';
    prot += (m2->prot & 4u) ? 'x' : '-';
    prot += (m2->flags & 1u) ? 's' : 'p';
    if (m2->has_build_id) {
      return fmt::format(
          "PERF_RECORD_MMAP2 {}/{}: [{}({}) @ {} <{}>]: {} {}\n",
          static_cast<std::int32_t>(m2->pid), m2->tid, core::c_alt_hex(m2->addr),
          core::c_alt_hex(m2->len), core::c_alt_hex(m2->pgoff),
          core::build_id_hex(m2->build_id.data(), std::min<std::size_t>(m2->build_id_size, 20)),
          prot, m2->filename);
    }
    return fmt::format("PERF_RECORD_MMAP2 {}/{}: [{}({}) @ {} {:02x}:{:02x} {} {}]: {} {}\n",
                       static_cast<std::int32_t>(m2->pid), m2->tid, core::c_alt_hex(m2->addr),
                       core::c_alt_hex(m2->len), core::c_alt_hex(m2->pgoff), m2->maj, m2->min,
                       m2->ino, m2->ino_generation, prot, m2->filename);
  }
  if (const auto* l = r.get<record::Lost>())
    return fmt::format("PERF_RECORD_LOST lost {}\n", l->lost);
  if (const auto* ns = r.get<record::Namespaces>()) return namespaces_text(*ns);
  if (const auto* cg = r.get<record::Cgroup>())
    return fmt::format("PERF_RECORD_CGROUP cgroup: {} {}\n", cg->id, cg->path);
  if (const auto* k = r.get<record::Ksymbol>()) {
    return fmt::format("PERF_RECORD_KSYMBOL addr {:x} len {} type {} flags {:#x} name {}\n",
                       k->addr, k->len, k->ksym_type, k->flags, k->name);
  }
  if (const auto* b = r.get<record::BpfEvent>())
    return fmt::format("PERF_RECORD_BPF_EVENT type {}, flags {}, id {}\n", b->type, b->flags,
                       b->id);
  if (const auto* tp = r.get<record::TextPoke>()) return text_poke_text(*tp);
  const bool sw = r.get<record::Switch>() != nullptr;
  if (const auto* cw = r.get<record::SwitchCpuWide>(); sw || cw != nullptr) {
    // perf_event__fprintf_switch()
    const bool out = (r.header.misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;
    const char* dir = !out                                                         ? "IN         "
                      : (r.header.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0 ? "OUT preempt"
                                                                                   : "OUT        ";
    const char* name = sw ? "SWITCH" : "SWITCH_CPU_WIDE";
    if (sw) return fmt::format("PERF_RECORD_{} {}\n", name, dir);
    return fmt::format("PERF_RECORD_{} {}  {} pid/tid: {:5}/{:<5}\n", name, dir,
                       out ? "next" : "prev", static_cast<std::int32_t>(cw->next_prev_pid),
                       static_cast<std::int32_t>(cw->next_prev_tid));
  }
  return {};
}

}  // namespace perfx::report
