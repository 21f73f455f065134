// GPU time a restart throws away: from the saved progress to the restart.
#include "engine/recovery/lost_work.h"

#include <gtest/gtest.h>

namespace gangplank::engine {
namespace {

TEST(RestartLostGpuSeconds, CountsFromTheLastCheckpointOrTheStart) {
  EXPECT_DOUBLE_EQ(RestartLostGpuSeconds(8, 1000, std::nullopt, 1600), 8 * 600);
  EXPECT_DOUBLE_EQ(RestartLostGpuSeconds(8, 1000, 1500, 1600), 8 * 100);
}

TEST(RestartLostGpuSeconds, ACheckpointFromBeforeTheRunSavedNothingOfIt) {
  EXPECT_DOUBLE_EQ(RestartLostGpuSeconds(4, 1000, 400, 1100), 4 * 100);
}

TEST(RestartLostGpuSeconds, NeverNegative) {
  EXPECT_DOUBLE_EQ(RestartLostGpuSeconds(4, 1000, 1200, 1100), 0);
  EXPECT_DOUBLE_EQ(RestartLostGpuSeconds(-1, 0, std::nullopt, 100), 0);
}

}  // namespace
}  // namespace gangplank::engine
