#pragma once
/// \file
/// perf report's trace sort key while loading: each tracepoint sample's formatted fields
/// (through libtraceevent and the live tracefs formats), interned into Profile::traces.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "perfx/recording.hpp"
#include "perfx/records.hpp"
#include "profile/profile.hpp"
#include "profile/trace_formats.hpp"

namespace perfx::profile {

/// Interns the trace text of samples (ProfileOptions::trace_output).
class SampleTraces {
 public:
  explicit SampleTraces(const ProfileOptions& options) : options_(options) {}

  /// The index in `prof.traces` of sample `s`'s text, or Profile::kNoTrace when event
  /// `event` (named `name`, of attr type `type`) is not a tracepoint.
  std::uint32_t intern(Profile& prof, std::size_t event, std::uint32_t type,
                       const std::string& name, const record::Sample& s);

 private:
  const ProfileOptions& options_;
  TraceFormats formats_;
  std::vector<std::uint8_t> loaded_;  // per event: 0 not yet, 1 loaded (or tried)
  std::unordered_map<std::string, std::uint32_t> ids_;
};

}  // namespace perfx::profile
