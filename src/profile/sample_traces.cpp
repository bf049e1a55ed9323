#include "profile/sample_traces.hpp"

#include <linux/perf_event.h>

namespace perfx::profile {

std::uint32_t SampleTraces::intern(Profile& prof, std::size_t event, std::uint32_t type,
                                   const std::string& name, const record::Sample& s) {
  if (type != PERF_TYPE_TRACEPOINT) return Profile::kNoTrace;
  if (event >= loaded_.size()) loaded_.resize(event + 1, 0);
  if (loaded_[event] == 0) {
    (void)formats_.load(options_.tracefs, name);  // (no format: perf's empty text)
    loaded_[event] = 1;
  }
  std::string text = formats_.format(s.raw, static_cast<int>(s.cpu), s.time, options_.raw_trace);
  auto [it, added] =
      ids_.try_emplace(std::move(text), static_cast<std::uint32_t>(prof.traces.size()));
  if (added) prof.traces.push_back(it->first);
  return it->second;
}

}  // namespace perfx::profile
