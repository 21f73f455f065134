// The utilization window: samples per gang in time order, none older than its max age.
#include "engine/idle/utilization_window.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gangplank::engine {
namespace {

TEST(UtilizationWindow, KeepsSamplesNoOlderThanItsMaxAge) {
  UtilizationWindow w(300);
  for (double t = 0; t <= 1000; t += 60) w.Add("g", {t, 1});
  const auto& s = w.Samples("g");
  ASSERT_FALSE(s.empty());
  EXPECT_DOUBLE_EQ(s.front().time, 660);  // Exactly 300 s older than the newest: kept.
  EXPECT_DOUBLE_EQ(s.back().time, 960);
  EXPECT_EQ(s.size(), 6u);
}

TEST(UtilizationWindow, ALateSampleGoesWhereItBelongs) {
  UtilizationWindow w(1000);
  w.Add("g", {100, 1});
  w.Add("g", {300, 3});
  w.Add("g", {200, std::nullopt});
  const auto& s = w.Samples("g");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_DOUBLE_EQ(s[1].time, 200);
  EXPECT_FALSE(s[1].percent.has_value());
}

TEST(UtilizationWindow, PruneForgetsGangsThatStoppedReporting) {
  UtilizationWindow w(300);
  w.Add("ended", {0, 1});
  w.Add("running", {900, 1});
  w.Prune(1000);
  EXPECT_EQ(w.gangs(), 1u);
  EXPECT_TRUE(w.Samples("ended").empty());
  EXPECT_EQ(w.Samples("running").size(), 1u);
  w.Forget("running");
  EXPECT_EQ(w.gangs(), 0u);
}

TEST(UtilizationWindow, RefusesANonPositiveMaxAge) {
  EXPECT_THROW(UtilizationWindow(0), std::invalid_argument);
}

}  // namespace
}  // namespace gangplank::engine
