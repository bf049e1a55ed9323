// perfx::latch_stop_signals() (perfx/system.hpp): after it, SIGINT/SIGTERM outside a
// session are remembered, not fatal; a SignalPipe installed later starts with the
// latched signal and gives the latch back when it goes (timeout's second SIGINT).
#include <gtest/gtest.h>
#include <signal.h>

#include "perfx/system.hpp"
#include "sys/signals.hpp"

namespace perfx {
namespace {

// Puts the default dispositions back so that later tests in this process die on Ctrl-C.
struct DefaultsAfter {
  ~DefaultsAfter() {
    (void)::signal(SIGINT, SIG_DFL);
    (void)::signal(SIGTERM, SIG_DFL);
    (void)take_stop_signal();
  }
};

TEST(StopSignals, LatchedSignalIsKeptAndStartsTheNextSession) {
  DefaultsAfter restore;
  latch_stop_signals();
  ASSERT_EQ(::raise(SIGTERM), 0);  // not fatal now
  EXPECT_EQ(take_stop_signal(), SIGTERM);
  EXPECT_EQ(take_stop_signal(), 0);

  ASSERT_EQ(::raise(SIGINT), 0);  // before the session: it stops the session at once
  {
    auto pipe = sys::SignalPipe::install({SIGINT, SIGTERM});
    ASSERT_TRUE(pipe);
    EXPECT_EQ(pipe->take(), std::vector<int>{SIGINT});
    EXPECT_EQ(take_stop_signal(), 0);  // taken by the session
    ASSERT_EQ(::raise(SIGINT), 0);     // during it: the session's
    EXPECT_EQ(pipe->take(), std::vector<int>{SIGINT});
  }
  ASSERT_EQ(::raise(SIGINT), 0);  // after it: the latch again, not the default action
  EXPECT_EQ(take_stop_signal(), SIGINT);
}

}  // namespace
}  // namespace perfx
