#include "kube/token_bucket.h"

#include <gtest/gtest.h>

namespace gangplank::kube {
namespace {

using namespace std::chrono_literals;

TEST(TokenBucketTest, BurstIsFreeThenRequestsAreSpacedAtQps) {
  TokenBucket bucket(10, 3);  // 10 qps = one token per 100 ms
  auto t0 = TokenBucket::Clock::now();
  EXPECT_EQ(bucket.Reserve(t0), 0ns);
  EXPECT_EQ(bucket.Reserve(t0), 0ns);
  EXPECT_EQ(bucket.Reserve(t0), 0ns);
  auto w1 = bucket.Reserve(t0);
  auto w2 = bucket.Reserve(t0);
  EXPECT_NEAR(std::chrono::duration<double>(w1).count(), 0.1, 1e-6);
  EXPECT_NEAR(std::chrono::duration<double>(w2).count(), 0.2, 1e-6);  // queued behind the first
}

TEST(TokenBucketTest, RefillsOverTimeUpToBurst) {
  TokenBucket bucket(2, 2);
  auto t0 = TokenBucket::Clock::now();
  EXPECT_TRUE(bucket.TryAcquire(t0));
  EXPECT_TRUE(bucket.TryAcquire(t0));
  EXPECT_FALSE(bucket.TryAcquire(t0));
  EXPECT_FALSE(bucket.TryAcquire(t0 + 400ms));
  EXPECT_TRUE(bucket.TryAcquire(t0 + 500ms));
  // A long idle period refills at most `burst` tokens.
  auto later = t0 + 100s;
  EXPECT_TRUE(bucket.TryAcquire(later));
  EXPECT_TRUE(bucket.TryAcquire(later));
  EXPECT_FALSE(bucket.TryAcquire(later));
}

TEST(TokenBucketTest, ZeroQpsDisablesLimiting) {
  TokenBucket bucket(0, 1);
  auto t0 = TokenBucket::Clock::now();
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(bucket.Reserve(t0), 0ns);
}

}  // namespace
}  // namespace gangplank::kube
