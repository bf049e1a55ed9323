#pragma once
// The one-bit flags of perf_event_attr (the word at offset 40) in declaration order, with
// perf's names: the attr dump (`perfx::describe_attr`, perf -vv) and the perf.data
// event-description printer (evlist -v, report --header) both walk this list.

#include <cstdint>
#include <span>
#include <string>

#include "perfx/raw.hpp"

namespace perfx::core {

/// One named bit of a flag word.
struct BitName {
  std::uint64_t bit;
  const char* name;
};

/// The bits of `value` that `names` names, in table order and joined with '|' ("ID|GROUP");
/// with `show_unknown`, the bits left over end it in hex ("|0x4000000").
std::string bit_names(std::uint64_t value, std::span<const BitName> names, bool show_unknown);

/// The set bits of a sample_type as perf names them ("IP|TID|TIME|CALLCHAIN"); bits it
/// does not know end it in hex ("|0x4000000").
std::string sample_type_names(std::uint64_t sample_type);

/// perf's names of the PERF_FORMAT_* bits.
inline constexpr BitName kReadFormatBits[] = {
    {PERF_FORMAT_TOTAL_TIME_ENABLED, "TOTAL_TIME_ENABLED"},
    {PERF_FORMAT_TOTAL_TIME_RUNNING, "TOTAL_TIME_RUNNING"},
    {PERF_FORMAT_ID, "ID"},
    {PERF_FORMAT_GROUP, "GROUP"},
    {PERF_FORMAT_LOST, "LOST"},
};

/// The set bits of a read_format as perf names them ("TOTAL_TIME_ENABLED|ID"); bits it does
/// not know are left out.
std::string read_format_names(std::uint64_t read_format);

/// Calls `fn(name, value)` for each flag bit of `a`, in the kernel's declaration order.
template <typename Fn>
void for_each_attr_flag(const raw::EventAttr& a, Fn&& fn) {
  const auto f = [&fn](const char* name, std::uint64_t v) { fn(name, v); };
  f("disabled", a.disabled);
  f("inherit", a.inherit);
  f("pinned", a.pinned);
  f("exclusive", a.exclusive);
  f("exclude_user", a.exclude_user);
  f("exclude_kernel", a.exclude_kernel);
  f("exclude_hv", a.exclude_hv);
  f("exclude_idle", a.exclude_idle);
  f("mmap", a.mmap);
  f("comm", a.comm);
  f("freq", a.freq);
  f("inherit_stat", a.inherit_stat);
  f("enable_on_exec", a.enable_on_exec);
  f("task", a.task);
  f("watermark", a.watermark);
  f("precise_ip", a.precise_ip);
  f("mmap_data", a.mmap_data);
  f("sample_id_all", a.sample_id_all);
  f("exclude_host", a.exclude_host);
  f("exclude_guest", a.exclude_guest);
  f("exclude_callchain_kernel", a.exclude_callchain_kernel);
  f("exclude_callchain_user", a.exclude_callchain_user);
  f("mmap2", a.mmap2);
  f("comm_exec", a.comm_exec);
  f("use_clockid", a.use_clockid);
  f("context_switch", a.context_switch);
  f("write_backward", a.write_backward);
  f("namespaces", a.namespaces);
  f("ksymbol", a.ksymbol);
  f("bpf_event", a.bpf_event);
  f("aux_output", a.aux_output);
  f("cgroup", a.cgroup);
  f("text_poke", a.text_poke);
  f("build_id", a.build_id);
  f("inherit_thread", a.inherit_thread);
  f("remove_on_exec", a.remove_on_exec);
  f("sigtrap", a.sigtrap);
}

}  // namespace perfx::core
