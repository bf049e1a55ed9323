#include "sys/system_info.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>

#include "core/error_format.hpp"
#include "core/text.hpp"
#include "sys/pmu_sysfs.hpp"
#include "sys/unique_fd.hpp"

namespace perfx::sys {

Result<long long> read_int_file(const std::string& path) {
  PERFX_TRY(text, read_text_file(path));
  std::size_t b = 0;
  while (b < text.size() && (text[b] == ' ' || text[b] == '\t')) ++b;
  long long v = 0;
  const char* first = text.data() + b;
  const char* last = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || ptr == first) {
    return fail(Errc::kMalformedData, "{}: expected an integer, got '{}'", path, text);
  }
  return v;
}

Result<Capabilities> parse_proc_status_caps(std::string_view status_text) {
  const std::optional<std::string_view> value = core::line_value(status_text, "CapEff");
  if (!value) return fail(Errc::kMalformedData, "no CapEff line in /proc/self/status");
  std::uint64_t mask = 0;
  auto [ptr, ec] = std::from_chars(value->data(), value->data() + value->size(), mask, 16);
  if (ec != std::errc() || ptr == value->data()) {
    return fail(Errc::kMalformedData, "CapEff: bad hex value '{}'", *value);
  }
  return Capabilities{mask};
}

SystemReadings read_system_readings(const std::string& proc_root) {
  SystemReadings r;
  const std::string kernel = proc_root + "/sys/kernel/";
  auto int_opt = [&kernel](const char* name) -> std::optional<int> {
    auto v = read_int_file(kernel + name);
    if (!v) return std::nullopt;
    return static_cast<int>(*v);
  };
  r.paranoid = int_opt("perf_event_paranoid");
  r.max_sample_rate = int_opt("perf_event_max_sample_rate");
  r.mlock_kb = int_opt("perf_event_mlock_kb");
  r.max_stack = int_opt("perf_event_max_stack");
  r.cpu_time_max_percent = int_opt("perf_cpu_time_max_percent");
  if (auto status = read_text_file(proc_root + "/self/status")) {
    if (auto caps = parse_proc_status_caps(*status)) r.caps = *caps;
  }
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) == 0) {
    r.nofile_soft = lim.rlim_cur;
    r.nofile_hard = lim.rlim_max;
  }
  if (::getrlimit(RLIMIT_MEMLOCK, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY) {
    r.memlock_soft_kb = lim.rlim_cur / 1024;
  }
  r.uid = ::getuid();
  const long ncpu = ::sysconf(_SC_NPROCESSORS_CONF);
  r.configured_cpus = ncpu > 0 ? static_cast<int>(ncpu) : 0;
  return r;
}

std::uint64_t raise_fd_limit() noexcept {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return 0;
  if (lim.rlim_cur < lim.rlim_max) {
    rlimit raised = lim;
    raised.rlim_cur = lim.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) lim = raised;
  }
  return lim.rlim_cur;
}

}  // namespace perfx::sys
