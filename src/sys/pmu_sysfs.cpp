// sysfs PMU reader.

#include "sys/pmu_sysfs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>

#include "core/error_format.hpp"
#include "sys/unique_fd.hpp"

namespace perfx::sys {
namespace {

std::vector<std::string> list_dir(const std::string& dir, bool dirs_only) {
  std::vector<std::string> out;
  for (DirEntry& e : read_dir(dir)) {
    // sysfs PMU entries are symlinks to the device directories.
    if (!dirs_only || e.type == DT_DIR || e.type == DT_LNK || e.type == DT_UNKNOWN) {
      out.push_back(std::move(e.name));
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> list_pmus(const std::string& pmu_dir) { return list_dir(pmu_dir, true); }

Result<event::PmuInfo> read_pmu(const std::string& pmu_dir, std::string_view name) {
  if (!plain_name(name)) return fail(Errc::kNotFound, "unknown PMU '{}'", name);
  const std::string dir = pmu_dir + "/" + std::string(name);
  auto type_text = read_text_file(dir + "/type");
  if (!type_text) {
    if (type_text.error().code() == Errc::kNotFound) {
      return fail(Errc::kNotFound, "unknown PMU '{}' (no {}/type)", name, dir);
    }
    return tl::unexpected(std::move(type_text).error());
  }
  event::PmuInfo pmu;
  pmu.name = std::string(name);
  {
    const std::string& t = *type_text;
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), pmu.type);
    if (ec != std::errc() || ptr != t.data() + t.size()) {
      return fail(Errc::kMalformedData, "{}/type: '{}' is not a PMU type number", dir, t);
    }
  }
  for (const auto& f : list_dir(dir + "/format", false)) {
    PERFX_TRY(text, read_text_file(dir + "/format/" + f));
    PERFX_TRY(field, event::parse_format_field(f, text));
    pmu.format.push_back(std::move(field));
  }
  const auto event_files = list_dir(dir + "/events", false);
  for (const auto& f : event_files) {
    if (f.ends_with(".unit") || f.ends_with(".scale") || f.ends_with(".per-pkg") ||
        f.ends_with(".snapshot")) {
      continue;
    }
    auto terms = read_text_file(dir + "/events/" + f);
    if (!terms) continue;  // unreadable alias: not usable, not fatal
    event::PmuAlias alias;
    alias.name = f;
    alias.terms = *terms;
    if (std::binary_search(event_files.begin(), event_files.end(), f + ".unit")) {
      alias.unit = read_text_file(dir + "/events/" + f + ".unit").value_or("");
    }
    if (std::binary_search(event_files.begin(), event_files.end(), f + ".scale")) {
      alias.scale = read_text_file(dir + "/events/" + f + ".scale").value_or("");
    }
    pmu.aliases.push_back(std::move(alias));
  }
  return pmu;
}

}  // namespace perfx::sys
