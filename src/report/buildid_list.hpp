#pragma once
/// \file
/// `perfx buildid-list`: perf buildid-list's "<build-id> <path>" lines from a recording's
/// HEADER_BUILD_ID, in the file's order; with `hit` only the DSOs some sample's ip fell
/// in (perf's -H).

#include <set>
#include <string>
#include <vector>

#include "profile/profile.hpp"

namespace perfx::report {

/// One entry of the recording's HEADER_BUILD_ID.
struct BuildIdLine {
  std::string build_id;  ///< lower-case hex
  std::string filename;  ///< "/usr/lib/x86_64-linux-gnu/libc.so.6", "[kernel.kallsyms]"
};

/// The files of the DSOs the samples of `profile` were taken in (Frame::dso_path).
[[nodiscard]] std::set<std::string> sampled_dsos(const profile::Profile& profile);

/// One line per entry; `hit` (when not null) keeps the entries whose file name is in it.
[[nodiscard]] std::string buildid_list_text(const std::vector<BuildIdLine>& build_ids,
                                            const std::set<std::string>* hit);

/// Pipe mode (perf's way there): the build-ids the stream carried (all, or with
/// `with_hits` those of DSOs with samples), then those of the other DSOs with samples
/// whose build-id the profile knows (read from the files, as perf does).
[[nodiscard]] std::string buildid_list_text(const std::vector<BuildIdLine>& build_ids,
                                            const profile::Profile& profile, bool with_hits);

}  // namespace perfx::report
