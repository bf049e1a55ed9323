#pragma once
/// \file
/// pprof export: a gzip-compressed perftools.profiles.Profile (src/report/profile.proto),
/// readable by `pprof`, Pyroscope, Parca and other pprof readers.

#include <ostream>
#include <string>

#include "perfx/error.hpp"
#include "profile/profile.hpp"
#include "report/export.hpp"

namespace perfx::report {

/// Builds the serialized (uncompressed) profile.proto bytes of `profile`.
/// Every event gets two sample values: its sample count ("samples"/"count" for a
/// single-event profile, "<event>_samples"/"count" otherwise) and its summed period
/// ("cpu"/"nanoseconds" for clock events, "<event>"/unit otherwise). Samples are
/// aggregated per (stack, thread) with labels pid, tid (numbers) and comm.
[[nodiscard]] Result<std::string> build_pprof(const profile::Profile& profile,
                                              const ExportOptions& options);

/// Writes build_pprof()'s bytes gzip-compressed (what `pprof` reads).
[[nodiscard]] Result<void> write_pprof(const profile::Profile& profile, std::ostream& out,
                                       const ExportOptions& options);

/// gzip-compresses `data` (RFC 1952), as pprof files are stored.
[[nodiscard]] Result<std::string> gzip_compress(std::string_view data);

/// Inflates gzip `data` (for tests and readers).
[[nodiscard]] Result<std::string> gzip_decompress(std::string_view data);

}  // namespace perfx::report
