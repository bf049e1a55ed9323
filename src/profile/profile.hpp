#pragma once
/// \file
/// The resolved profile is public (perfx/profile.hpp: perfx::Profile and its frames,
/// stacks, samples, threads, mappings and events); the library's modules name its types
/// in namespace perfx::profile, as they did before it was public.

#include "perfx/profile.hpp"

namespace perfx::profile {

using FrameKind = perfx::FrameKind;
using Mapping = perfx::ProfileMapping;
using Frame = perfx::ProfileFrame;
using Thread = perfx::ProfileThread;
using Sample = perfx::ProfileSample;
using Event = perfx::ProfileEvent;
using EventGroup = perfx::ProfileEventGroup;
using Profile = perfx::Profile;
using perfx::check_indices;
using perfx::event_unit;
using perfx::sampled_frame;

}  // namespace perfx::profile
