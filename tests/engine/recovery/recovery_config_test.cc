// Restart backoff: none before the first restart, then exponential and capped.
#include "engine/recovery/recovery_config.h"

#include <gtest/gtest.h>

namespace gangplank::engine {
namespace {

TEST(RestartBackoff, NoneBeforeTheFirstRestartThenDoublingUpToTheCap) {
  const RecoveryConfig c;  // 30 s, at most 600 s.
  EXPECT_DOUBLE_EQ(RestartBackoff(0, c), 0);
  EXPECT_DOUBLE_EQ(RestartBackoff(1, c), 30);
  EXPECT_DOUBLE_EQ(RestartBackoff(2, c), 60);
  EXPECT_DOUBLE_EQ(RestartBackoff(3, c), 120);
  EXPECT_DOUBLE_EQ(RestartBackoff(6, c), 600);
  EXPECT_DOUBLE_EQ(RestartBackoff(1000, c), 600) << "no overflow however many restarts";
}

TEST(RestartBackoff, NegativeSettingsActAsZero) {
  RecoveryConfig c;
  c.backoff_seconds = -5;
  EXPECT_DOUBLE_EQ(RestartBackoff(3, c), 0);
  c.backoff_seconds = 30;
  c.max_backoff_seconds = -1;
  EXPECT_DOUBLE_EQ(RestartBackoff(3, c), 0);
}

}  // namespace
}  // namespace gangplank::engine
