#include "sys/synthesize_tracing.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <set>

#include "sys/synthesize.hpp"

namespace perfx::sys {
namespace {

void put(std::vector<std::byte>& out, const void* p, std::size_t n) {
  const auto* b = static_cast<const std::byte*>(p);
  out.insert(out.end(), b, b + n);
}
template <typename T>
void put_int(std::vector<std::byte>& out, T v) {
  put(out, &v, sizeof(v));
}
void put_cstr(std::vector<std::byte>& out, const std::string& s) {
  put(out, s.c_str(), s.size() + 1);
}

}  // namespace

Result<std::vector<std::byte>> build_tracing_data(
    const std::string& tracefs_root,
    const std::vector<std::pair<std::string, std::string>>& tracepoints) {
  std::vector<std::byte> out;
  const unsigned char magic[3] = {23, 8, 68};
  put(out, magic, 3);
  put(out, "tracing", 7);
  put_cstr(out, "0.6");
  put_int<std::uint8_t>(out, 0);  // little endian (x86_64; perf writes the host's order)
  put_int<std::uint8_t>(out, static_cast<std::uint8_t>(sizeof(long)));
  put_int<std::uint32_t>(out, static_cast<std::uint32_t>(::sysconf(_SC_PAGESIZE)));

  const std::string events = tracefs_root + "/events";
  for (const char* name : {"header_page", "header_event"}) {
    auto text = slurp_file(events + "/" + name);
    if (!text) return tl::unexpected(std::move(text).error().context("tracing data"));
    put_cstr(out, name);
    put_int<std::uint64_t>(out, text->size());
    put(out, text->data(), text->size());
  }

  // ftrace-internal events (system "ftrace") are listed apart, others by system.
  std::map<std::string, std::set<std::string>> systems;
  for (const auto& [sys, name] : tracepoints) systems[sys].insert(name);
  auto put_system_formats = [&](const std::string& sys,
                                const std::set<std::string>& names) -> Result<void> {
    put_int<std::uint32_t>(out, static_cast<std::uint32_t>(names.size()));
    for (const auto& n : names) {
      const std::string path = events + "/" + sys + "/" + n + "/format";
      auto text = slurp_file(path);
      if (!text) return tl::unexpected(std::move(text).error().context("tracing data"));
      put_int<std::uint64_t>(out, text->size());
      put(out, text->data(), text->size());
    }
    return {};
  };
  auto ftrace = systems.find("ftrace");
  if (ftrace != systems.end()) {
    PERFX_CHECK(put_system_formats("ftrace", ftrace->second));
    systems.erase(ftrace);
  } else {
    put_int<std::uint32_t>(out, 0);
  }
  put_int<std::uint32_t>(out, static_cast<std::uint32_t>(systems.size()));
  for (const auto& [sys, names] : systems) {
    put_cstr(out, sys);
    PERFX_CHECK(put_system_formats(sys, names));
  }
  put_int<std::uint32_t>(out, 0);  // kallsyms: perf report reads /proc/kallsyms itself
  auto printk = slurp_file(tracefs_root + "/printk_formats");
  if (printk) {
    put_int<std::uint32_t>(out, static_cast<std::uint32_t>(printk->size()));
    put(out, printk->data(), printk->size());
  } else {
    put_int<std::uint32_t>(out, 0);
  }
  put_int<std::uint64_t>(out, 0);  // saved_cmdlines: comms come from COMM records
  return out;
}

}  // namespace perfx::sys
