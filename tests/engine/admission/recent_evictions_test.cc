#include "engine/admission/recent_evictions.h"

#include <gtest/gtest.h>

namespace gangplank::engine {
namespace {

// The window is (now - window, now]: a time exactly window seconds old has left it, as the round's
// budget counts (round_eviction.cc).
TEST(PruneRecentEvictions, DropsTimesThatLeftTheWindowKeepingTheOrder) {
  std::vector<double> times = {100, 5000, 3600, 3601, 7200};
  PruneRecentEvictions(times, 7200, 3600);
  EXPECT_EQ(times, (std::vector<double>{5000, 3601, 7200}));
  PruneRecentEvictions(times, 20000, 3600);
  EXPECT_TRUE(times.empty());
  PruneRecentEvictions(times, 0, 3600);
  EXPECT_TRUE(times.empty());
}

TEST(PruneRecentEvictions, AZeroWindowKeepsOnlyLaterTimes) {
  std::vector<double> times = {10, 20, 30};
  PruneRecentEvictions(times, 20, 0);
  EXPECT_EQ(times, (std::vector<double>{30}));
}

}  // namespace
}  // namespace gangplank::engine
