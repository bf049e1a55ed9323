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

namespace perfx::profile {
namespace {

TEST(CheckIndices, NamesTheFirstBadSampleOrStack) {
  Profile p;
  p.frames.resize(2);
  p.stacks = {{0, 1}};
  p.samples.resize(1);
  EXPECT_TRUE(check_indices(p));
  p.samples[0].stack = 3;
  auto bad = check_indices(p);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(), "sample refers to stack 3 of 1");
  p.samples[0].stack = 0;
  p.stacks[0].push_back(7);
  bad = check_indices(p);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(), "stack 0 refers to frame 7 of 2");
}

}  // namespace
}  // namespace perfx::profile
