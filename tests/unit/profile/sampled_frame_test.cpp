// profile::sampled_frame(): the frame a sample was taken in, inline frames skipped.
#include <gtest/gtest.h>

#include "profile/profile.hpp"

namespace perfx::profile {
namespace {

TEST(SampledFrame, IsTheLeafWithoutItsInlineFrames) {
  Profile p;
  p.frames.resize(4);
  p.frames[0].function = "main";
  p.frames[1].function = "work";
  p.frames[2].function = "inlined_helper";
  p.frames[2].inlined = true;
  p.frames[3].function = "only_inline";
  p.frames[3].inlined = true;
  p.stacks = {{0, 1}, {0, 1, 2}, {}, {3}, {0, 9}};
  Sample s;
  s.stack = 0;
  EXPECT_EQ(sampled_frame(p, s), 1U);
  s.stack = 1;
  EXPECT_EQ(sampled_frame(p, s), 1U);  // the function the helper was inlined into
  s.stack = 2;
  EXPECT_EQ(sampled_frame(p, s), std::nullopt);  // empty stack
  s.stack = 3;
  EXPECT_EQ(sampled_frame(p, s), 3U);  // nothing outer: the inline frame itself
  s.stack = 4;
  EXPECT_EQ(sampled_frame(p, s), std::nullopt);  // frame index out of range
  s.stack = 5;
  EXPECT_EQ(sampled_frame(p, s), std::nullopt);  // stack index out of range
}

}  // namespace
}  // namespace perfx::profile
