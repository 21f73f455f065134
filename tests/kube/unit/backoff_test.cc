#include "kube/backoff.h"

#include <gtest/gtest.h>

namespace gangplank::kube {
namespace {

using namespace std::chrono_literals;

TEST(BackoffTest, GrowsByFactorWithJitterUpToTheCap) {
  BackoffPolicy policy{100ms, 2.0, 1.0, 1000ms, 120000ms};
  Backoff backoff(policy, 42);
  auto now = Backoff::Clock::now();
  std::chrono::milliseconds base = 100ms;
  for (int i = 0; i < 8; ++i) {
    auto d = backoff.next(now);
    EXPECT_GE(d, base) << "step " << i;
    EXPECT_LT(d, 2 * base) << "jitter 1.0 adds at most 100%";
    base = std::min<std::chrono::milliseconds>(base * 2, 1000ms);
    now += 10ms;
  }
}

TEST(BackoffTest, ResetsAfterAQuietPeriodAndOnDemand) {
  BackoffPolicy policy{100ms, 2.0, 0.0, 10000ms, 1000ms};
  Backoff backoff(policy, 1);
  auto now = Backoff::Clock::now();
  EXPECT_EQ(backoff.next(now), 100ms);
  EXPECT_EQ(backoff.next(now + 10ms), 200ms);
  EXPECT_EQ(backoff.next(now + 20ms), 400ms);
  EXPECT_EQ(backoff.next(now + 5000ms), 100ms) << "no failure for longer than reset_after";
  EXPECT_EQ(backoff.next(now + 5010ms), 200ms);
  backoff.Reset();
  EXPECT_EQ(backoff.next(now + 5020ms), 100ms);
}

TEST(BackoffTest, JitterSpreadsDelays) {
  Backoff a(BackoffPolicy{}, 1);
  Backoff b(BackoffPolicy{}, 2);
  auto now = Backoff::Clock::now();
  EXPECT_NE(a.next(now), b.next(now)) << "two clients must not retry in lockstep";
}

}  // namespace
}  // namespace gangplank::kube
