#include "profile/profile.hpp"

#include "core/error_format.hpp"

namespace perfx {

std::optional<std::uint32_t> sampled_frame(const Profile& p, const ProfileSample& s) {
  if (s.stack >= p.stacks.size()) return std::nullopt;
  const auto& stack = p.stacks[s.stack];
  for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
    if (*it >= p.frames.size()) return std::nullopt;
    if (!p.frames[*it].inlined || std::next(it) == stack.rend()) return *it;
  }
  return std::nullopt;
}

Result<void> check_indices(const Profile& p) {
  for (const ProfileSample& s : p.samples) {
    if (s.stack >= p.stacks.size())
      return fail(Errc::kInvalidArgument, "sample refers to stack {} of {}", s.stack,
                  p.stacks.size());
  }
  for (std::size_t i = 0; i < p.stacks.size(); ++i) {
    for (std::uint32_t f : p.stacks[i]) {
      if (f >= p.frames.size())
        return fail(Errc::kInvalidArgument, "stack {} refers to frame {} of {}", i, f,
                    p.frames.size());
    }
  }
  return {};
}

std::string event_unit(std::string_view event_name) {
  return event_name == "cpu-clock" || event_name == "task-clock" ? "nanoseconds" : "events";
}

}  // namespace perfx
