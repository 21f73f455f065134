#include "engine/fairshare/usage_ledger.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gangplank::engine {
namespace {

constexpr double kHour = 3600;
constexpr double kWeek = 7 * 24 * kHour;

UsageDecayConfig HalfLife(double seconds) {
  UsageDecayConfig c;
  c.half_life_seconds = seconds;
  return c;
}

TEST(UsageLedger, ConstantHoldingReadsItsGpusWhateverTheHalfLife) {
  for (double half_life : {0.0, kHour, 24 * kHour}) {
    UsageLedger ledger(HalfLife(half_life));
    const double now = kWeek + 1800;  // Half-way into a bucket: the current bucket is partial.
    ledger.Record("a", 8, 0, now);
    EXPECT_NEAR(ledger.DecayedGpus("a", now), 8, 1e-9) << half_life;
    EXPECT_NEAR(ledger.GpuHours("a", now), 8 * (167 + 0.5), 1e-9) << half_life;
  }
}

TEST(UsageLedger, AHalfLifeOlderBucketWeighsHalf) {
  const double half_life = 10 * kHour;  // Ten buckets.
  UsageLedger ledger(HalfLife(half_life));
  ledger.Record("old", 8, 0, kHour);
  ledger.Record("new", 8, half_life, half_life + kHour);
  const double now = 30 * kHour + 123;
  EXPECT_NEAR(ledger.DecayedGpus("old", now) / ledger.DecayedGpus("new", now), 0.5, 1e-12);
  // Without decay both weigh alike.
  UsageLedger flat(HalfLife(0));
  flat.Record("old", 8, 0, kHour);
  flat.Record("new", 8, half_life, half_life + kHour);
  EXPECT_DOUBLE_EQ(flat.DecayedGpus("old", now), flat.DecayedGpus("new", now));
}

TEST(UsageLedger, UsageThatLeftTheWindowIsForgotten) {
  UsageLedger ledger(HalfLife(24 * kHour));
  ledger.Record("a", 4, 0, kHour);
  EXPECT_GT(ledger.DecayedGpus("a", kWeek - 1), 0);  // Bucket 0 is the oldest of the window.
  EXPECT_NEAR(ledger.GpuHours("a", kWeek - 1), 4, 1e-12);
  EXPECT_EQ(ledger.DecayedGpus("a", kWeek + 1), 0);  // Gone one bucket later.
  EXPECT_EQ(ledger.GpuHours("a", kWeek + 1), 0);
  ledger.Prune(kWeek - 1);
  EXPECT_EQ(ledger.Buckets().size(), 1u);
  ledger.Prune(kWeek + 1);
  EXPECT_TRUE(ledger.Buckets().empty());
}

TEST(UsageLedger, AnIntervalIsSplitAcrossTheBucketsItSpans) {
  UsageLedger ledger(HalfLife(kHour));
  ledger.Record("a", 2, 1800, 9000);  // Half of bucket 0, all of bucket 1, half of bucket 2.
  const std::vector<UsageBucket> b = ledger.Buckets();
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].start, 0);
  EXPECT_DOUBLE_EQ(b[0].gpu_seconds, 3600);
  EXPECT_EQ(b[1].start, kHour);
  EXPECT_DOUBLE_EQ(b[1].gpu_seconds, 7200);
  EXPECT_EQ(b[2].start, 2 * kHour);
  EXPECT_DOUBLE_EQ(b[2].gpu_seconds, 3600);
  EXPECT_DOUBLE_EQ(ledger.GpuHours("a", 9000), 4);
  ledger.Record("a", 0, 0, kWeek);  // Holding nothing adds nothing.
  ledger.Record("a", 3, 100, 100);  // Neither does an empty interval.
  EXPECT_EQ(ledger.Buckets().size(), 3u);
}

TEST(UsageLedger, BucketsRestoreToTheSameLedger) {
  UsageLedger ledger(HalfLife(6 * kHour));
  ledger.Record("a", 8, 0, 40 * kHour);
  ledger.Record("b", 3, 20 * kHour + 17, 41 * kHour);
  UsageLedger restored(HalfLife(6 * kHour));
  restored.Restore(ledger.Buckets());
  ASSERT_EQ(restored.Buckets().size(), ledger.Buckets().size());
  for (const char* q : {"a", "b"}) {
    EXPECT_EQ(restored.DecayedGpus(q, 41 * kHour), ledger.DecayedGpus(q, 41 * kHour)) << q;
  }
  // A start read back from text a little off still lands in its bucket.
  UsageLedger rounded(HalfLife(6 * kHour));
  rounded.Restore({{"a", kHour - 1e-7, 100}});
  ASSERT_EQ(rounded.Buckets().size(), 1u);
  EXPECT_EQ(rounded.Buckets()[0].start, kHour);
}

TEST(UsageLedger, PastUsageIsWeightedAndZeroWhenOff) {
  UsageDecayConfig c = HalfLife(24 * kHour);
  c.weight = 2;
  UsageLedger ledger(c);
  ledger.Record("a", 4, 0, 10 * kHour);
  EXPECT_DOUBLE_EQ(ledger.PastUsage("a", 10 * kHour), 2 * ledger.DecayedGpus("a", 10 * kHour));
  EXPECT_EQ(ledger.PastUsage("unknown", 10 * kHour), 0);
  UsageLedger off(HalfLife(0));
  off.Record("a", 4, 0, 10 * kHour);
  EXPECT_GT(off.DecayedGpus("a", 10 * kHour), 0);
  EXPECT_EQ(off.PastUsage("a", 10 * kHour), 0);
}

TEST(UsageLedger, RefusesSenselessSettingsAndUsage) {
  UsageDecayConfig c;
  c.half_life_seconds = -1;
  EXPECT_THROW(UsageLedger{c}, std::invalid_argument);
  c = UsageDecayConfig{};
  c.window_seconds = 0;
  EXPECT_THROW(UsageLedger{c}, std::invalid_argument);
  c = UsageDecayConfig{};
  c.buckets = 0;
  EXPECT_THROW(UsageLedger{c}, std::invalid_argument);
  UsageLedger ledger;
  EXPECT_THROW(ledger.Record("a", -1, 0, 1), std::invalid_argument);
  EXPECT_THROW(ledger.Restore({{"a", 0, -5}}), std::invalid_argument);
}

}  // namespace
}  // namespace gangplank::engine
