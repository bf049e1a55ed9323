#include "report/buildid_list.hpp"

#include <fmt/format.h>

namespace perfx::report {

std::string buildid_list_text(const std::vector<BuildIdLine>& build_ids,
                              const std::set<std::string>* hit) {
  std::string out;
  for (const auto& e : build_ids) {
    if (hit != nullptr && hit->count(e.filename) == 0) continue;
    out += fmt::format("{} {}\n", e.build_id, e.filename);
  }
  return out;
}

std::string buildid_list_text(const std::vector<BuildIdLine>& build_ids,
                              const profile::Profile& profile, bool with_hits) {
  const std::set<std::string> hit = sampled_dsos(profile);
  std::string out = buildid_list_text(build_ids, with_hits ? &hit : nullptr);
  std::set<std::string> listed;
  for (const auto& e : build_ids) listed.insert(e.filename);
  for (const auto& m : profile.mappings) {
    if (m.build_id.empty() || hit.count(m.file) == 0 || !listed.insert(m.file).second) continue;
    out += fmt::format("{} {}\n", m.build_id, m.file);
  }
  return out;
}

std::set<std::string> sampled_dsos(const profile::Profile& profile) {
  std::set<std::string> hit;
  for (const auto& s : profile.samples)
    if (const auto leaf = profile::sampled_frame(profile, s))
      hit.insert(profile.frames[*leaf].dso_path);
  return hit;
}

}  // namespace perfx::report
