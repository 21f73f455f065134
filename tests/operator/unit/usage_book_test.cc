// A pool's usage ledger kept in its GPUPool status (operator/model/usage_book.h): what one leader writes,
// the next reads back to the same GPU-hours and decayed usage; buckets of another width, or malformed
// entries, are not taken.
#include <gtest/gtest.h>

#include "operator/model/usage_book.h"

namespace gangplank::op {
namespace {

engine::UsageDecayConfig Config(double window = 7 * 24 * 3600.0) {
  engine::UsageDecayConfig c;
  c.half_life_seconds = 86400;
  c.window_seconds = window;
  return c;
}

TEST(UsageBook, WhatTheStatusKeepsReadsBackToTheSameUsage) {
  engine::UsageLedger written(Config());
  const double now = 1'800'000'000;
  written.Record("research", 16, now - 50'000, now - 10'000);
  written.Record("prod", 8, now - 3'600, now);
  const nlohmann::json status = nlohmann::json::parse(UsageStatus(written).dump());  // As the API server keeps it.
  EXPECT_EQ(status["bucketSeconds"], 3600);
  ASSERT_EQ(status["queues"].size(), 2u);
  EXPECT_EQ(status["queues"][0]["name"], "prod");

  engine::UsageLedger read(Config());
  RestoreUsage(read, status);
  for (const char* q : {"research", "prod"}) {
    EXPECT_NEAR(read.GpuHours(q, now), written.GpuHours(q, now), 1e-6) << q;
    EXPECT_NEAR(read.DecayedGpus(q, now), written.DecayedGpus(q, now), 1e-6) << q;
  }
  EXPECT_NEAR(read.GpuHours("research", now), 16 * 40'000 / 3600.0, 1e-3);
}

TEST(UsageBook, BucketsOfAnotherWidthOrMalformedEntriesAreNotTaken) {
  engine::UsageLedger written(Config());
  written.Record("research", 16, 1'800'000'000 - 7'200, 1'800'000'000);
  engine::UsageLedger narrower(Config(24 * 3600.0));
  RestoreUsage(narrower, UsageStatus(written));
  EXPECT_TRUE(narrower.Buckets().empty());

  engine::UsageLedger read(Config());
  for (const char* bad : {R"(null)", R"("usage")", R"({"queues":[]})",
                          R"({"bucketSeconds":3600,"queues":[{"name":"a","starts":[0,3600],"gpuSeconds":[5]}]})",
                          R"({"bucketSeconds":3600,"queues":[{"name":"a","starts":["x"],"gpuSeconds":[5]}]})",
                          R"({"bucketSeconds":3600,"queues":[{"name":"a","starts":[0],"gpuSeconds":[-5]}]})",
                          R"({"bucketSeconds":3600,"queues":[{"starts":[0],"gpuSeconds":[5]}]})"}) {
    RestoreUsage(read, nlohmann::json::parse(bad));
    EXPECT_TRUE(read.Buckets().empty()) << bad;
  }
}

}  // namespace
}  // namespace gangplank::op
