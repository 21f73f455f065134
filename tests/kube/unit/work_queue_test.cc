#include "kube/work_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <set>
#include <thread>
#include <vector>

namespace gangplank::kube {
namespace {

using namespace std::chrono_literals;

WorkQueueOptions no_overall_limit() {
  WorkQueueOptions o;
  o.overall_qps = 0;
  return o;
}

TEST(WorkQueueTest, DuplicateAddsBeforeProcessingCollapse) {
  WorkQueue q(no_overall_limit());
  q.Add("ns/a");
  q.Add("ns/b");
  q.Add("ns/a");
  q.Add("ns/a");
  EXPECT_EQ(q.length(), 2u);
  EXPECT_EQ(q.GetFor(10ms), "ns/a");
  EXPECT_EQ(q.GetFor(10ms), "ns/b");
  EXPECT_EQ(q.GetFor(10ms), std::nullopt);
}

TEST(WorkQueueTest, KeyAddedWhileProcessingIsRequeuedOnDoneNotHandedOut) {
  WorkQueue q(no_overall_limit());
  q.Add("k");
  auto key = q.GetFor(10ms);
  ASSERT_EQ(key, "k");
  q.Add("k");  // an event arrives while a worker reconciles k
  EXPECT_EQ(q.GetFor(20ms), std::nullopt) << "k must not go to a second worker while processing";
  q.done("k");
  EXPECT_EQ(q.GetFor(10ms), "k");
  q.done("k");
  EXPECT_EQ(q.GetFor(10ms), std::nullopt);
}

TEST(WorkQueueTest, ManyWorkersNeverProcessOneKeyConcurrently) {
  WorkQueue q(no_overall_limit());
  std::mutex m;
  std::set<std::string> in_flight;
  std::atomic<int> violations{0};
  std::atomic<int> processed{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < 4; ++w) {
    workers.emplace_back([&] {
      while (auto key = q.Get()) {
        {
          std::lock_guard lock(m);
          if (!in_flight.insert(*key).second) ++violations;
        }
        std::this_thread::sleep_for(50us);
        {
          std::lock_guard lock(m);
          in_flight.erase(*key);
        }
        ++processed;
        q.done(*key);
      }
    });
  }
  for (int i = 0; i < 5000; ++i) q.Add("key-" + std::to_string(i % 7));
  for (int i = 0; i < 200 && q.length() > 0; ++i) std::this_thread::sleep_for(5ms);
  std::this_thread::sleep_for(20ms);
  q.shutdown();
  for (auto& t : workers) t.join();
  EXPECT_EQ(violations.load(), 0);
  EXPECT_GE(processed.load(), 7);
  EXPECT_LT(processed.load(), 5000) << "bursts of adds should collapse";
}

TEST(WorkQueueTest, RateLimitedBackoffGrowsExponentiallyAndForgetResets) {
  WorkQueueOptions o = no_overall_limit();
  o.base_delay = 10ms;
  o.max_delay = 50ms;
  WorkQueue q(o);
  EXPECT_EQ(q.PeekBackoff("k"), 10ms);
  q.AddRateLimited("k");
  EXPECT_EQ(q.failures("k"), 1);
  EXPECT_EQ(q.PeekBackoff("k"), 20ms);
  q.AddRateLimited("k");
  q.AddRateLimited("k");
  EXPECT_EQ(q.PeekBackoff("k"), 50ms);  // capped (10 * 2^3 = 80)
  q.Forget("k");
  EXPECT_EQ(q.failures("k"), 0);
  EXPECT_EQ(q.PeekBackoff("k"), 10ms);
}

TEST(WorkQueueTest, RateLimitedAddBecomesReadyOnlyAfterItsDelay) {
  WorkQueueOptions o = no_overall_limit();
  o.base_delay = 80ms;
  WorkQueue q(o);
  auto start = std::chrono::steady_clock::now();
  q.AddRateLimited("k");
  EXPECT_EQ(q.length(), 0u);
  auto key = q.GetFor(2s);
  ASSERT_EQ(key, "k");
  EXPECT_GE(std::chrono::steady_clock::now() - start, 75ms);
}

TEST(WorkQueueTest, AddAfterOrdersByDueTime) {
  WorkQueue q(no_overall_limit());
  q.AddAfter("late", 60ms);
  q.AddAfter("early", 20ms);
  EXPECT_EQ(q.GetFor(1s), "early");
  EXPECT_EQ(q.GetFor(1s), "late");
}

// A key requeued again and again while it waits keeps one timer, at the earliest time asked for, so a
// busy controller's periodic requeues never multiply into extra rounds.
TEST(WorkQueueTest, AddAfterKeepsOneTimerPerKeyAtTheEarliestTime) {
  WorkQueue q(no_overall_limit());
  for (int i = 0; i < 100; ++i) q.AddAfter("busy", 200ms);
  q.AddAfter("busy", 20ms);  // Earlier: replaces the waiting one.
  q.AddAfter("busy", 500ms);  // Later: ignored.
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(q.GetFor(1s), "busy");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 150ms);
  q.done("busy");
  EXPECT_EQ(q.GetFor(400ms), std::nullopt);  // Nothing else was left waiting.
}

TEST(WorkQueueTest, ShutdownWakesBlockedWorkers) {
  WorkQueue q(no_overall_limit());
  std::optional<std::string> got = "unset";
  std::thread worker([&] { got = q.Get(); });
  std::this_thread::sleep_for(20ms);
  q.shutdown();
  worker.join();
  EXPECT_EQ(got, std::nullopt);
  q.Add("ignored");
  EXPECT_EQ(q.length(), 0u);
}

TEST(WorkQueueTest, OverallTokenBucketDelaysRetriesBeyondBurst) {
  WorkQueueOptions o;
  o.base_delay = 1ms;
  o.overall_qps = 10;
  o.overall_burst = 1;
  WorkQueue q(o);
  auto start = std::chrono::steady_clock::now();
  q.AddRateLimited("a");
  q.AddRateLimited("b");  // over the burst: ~100 ms from the overall limiter
  ASSERT_TRUE(q.GetFor(1s));
  ASSERT_TRUE(q.GetFor(1s));
  EXPECT_GE(std::chrono::steady_clock::now() - start, 90ms);
}

}  // namespace
}  // namespace gangplank::kube
