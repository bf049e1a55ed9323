#pragma once
/// \file
/// perf.data -> profile::Profile: decodes the samples of a recording (file or pipe),
/// replays the process model (MMAP/MMAP2/COMM/FORK/EXIT), symbolizes every unique
/// address once (ELF symtab/dynsym, separate debug files, kallsyms, JIT maps, DWARF
/// lines and inline frames) and interns frames and stacks.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "perfx/error.hpp"
#include "profile/off_cpu.hpp"
#include "profile/profile.hpp"
#include "profile/thread_filter.hpp"
#include "record/perf_data_reader.hpp"

namespace perfx::profile {

/// What load_profile() resolves and keeps: the public perfx::ProfileOptions
/// (perfx/recording.hpp). Defaults give what `perf report` shows.
using LoadOptions = perfx::ProfileOptions;

/// Reads the perf.data at `path` ("-" = stdin, pipe mode) into a Profile.
/// Each Sample of the result is one recorded sample (Profile::samples in time order, as
/// perf processes them); Profile::stacks are interned (root first). Frames are one per
/// unique (DSO, address), plus one per inline level with inline_frames.
/// Errors: kNotFound / kIo when the file cannot be read; kMalformedData (with the
/// byte offset) when it is truncated or corrupt.
[[nodiscard]] Result<Profile> load_profile(const std::string& path,
                                           const LoadOptions& options = {});
/// The same from an open reader, read from where it stands to its end (a stream can be
/// read once: the caller keeps the reader for its attrs and features afterwards).
[[nodiscard]] Result<Profile> load_profile_from(record::PerfDataReader& reader,
                                                const LoadOptions& options = {});

}  // namespace perfx::profile
