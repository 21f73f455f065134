// The scheduling queue: PrioritySort order, backoff doubling to its cap, a cluster change waking every
// backing-off pod with its backoff reset, and what happens to the pod in flight meanwhile.
#include <gtest/gtest.h>

#include <thread>

#include "tools/scheduler-driver/scheduling_queue.h"

namespace gangplank::scheduler_driver {
namespace {

using std::chrono::milliseconds;

QueueOrder Pod(const std::string& key, int priority = 0, const std::string& created = "2026-01-01T00:00:00Z") {
  return {priority, created, key};
}

milliseconds Left(const SchedulingQueue& q, const std::string& key) {
  const auto at = q.ReadyAt(key);
  return at ? std::chrono::duration_cast<milliseconds>(*at - SchedulingQueue::Clock::now()) : milliseconds(-1);
}

TEST(SchedulingQueue, PopsInPriorityOrderAndDedupes) {
  SchedulingQueue q(milliseconds(1000), milliseconds(10000));
  q.Add(Pod("ml/low", 0));
  q.Add(Pod("ml/high", 10));
  q.Add(Pod("ml/low", 0));
  EXPECT_EQ(q.Waiting(), 2u);
  EXPECT_EQ(q.Pop(), "ml/high");
  q.Done("ml/high");
  EXPECT_EQ(q.Pop(), "ml/low");
  q.Done("ml/low");
  EXPECT_EQ(q.Waiting(), 0u);
}

TEST(SchedulingQueue, BackoffDoublesUpToItsCap) {
  SchedulingQueue q(milliseconds(1000), milliseconds(3000));
  q.Add(Pod("ml/p"));
  const std::string key = *q.Pop();
  q.Backoff(key);
  EXPECT_NEAR(Left(q, key).count(), 1000, 100);
  q.MoveAllToActive();  // (only to get it back in flight quickly)
  ASSERT_EQ(q.Pop(), key);
  EXPECT_EQ(q.Failures(key), 0) << "a cluster change restarts the backoff";
  q.Backoff(key);
  q.Add(Pod("ml/p"));  // A relevant change to the pod itself: active at once, failures kept.
  ASSERT_EQ(q.Pop(), key);
  q.Backoff(key);
  EXPECT_EQ(q.Failures(key), 2);
  EXPECT_NEAR(Left(q, key).count(), 2000, 100);
  q.Add(Pod("ml/p"));
  ASSERT_EQ(q.Pop(), key);
  q.Backoff(key);
  q.Add(Pod("ml/p"));
  ASSERT_EQ(q.Pop(), key);
  q.Backoff(key);
  EXPECT_EQ(q.Failures(key), 4);
  EXPECT_NEAR(Left(q, key).count(), 3000, 100) << "capped";
}

TEST(SchedulingQueue, ABackingOffPodComesBackWhenItsTimeIsUp) {
  SchedulingQueue q(milliseconds(50), milliseconds(50));
  q.Add(Pod("ml/p"));
  q.Backoff(*q.Pop());
  const auto start = SchedulingQueue::Clock::now();
  EXPECT_EQ(q.Pop(), "ml/p");
  EXPECT_GE(SchedulingQueue::Clock::now() - start, milliseconds(40));
}

TEST(SchedulingQueue, AClusterChangeDuringTheAttemptRetriesAtOnce) {
  SchedulingQueue q(milliseconds(10000), milliseconds(10000));
  q.Add(Pod("ml/p"));
  const std::string key = *q.Pop();
  q.MoveAllToActive();  // e.g. a pod was deleted while the extender was being asked.
  q.Backoff(key);
  EXPECT_FALSE(q.ReadyAt(key).has_value());
  EXPECT_EQ(q.Pop(), key);
}

TEST(SchedulingQueue, RemovedInFlightIsDroppedAndShutdownWakesThePopper) {
  SchedulingQueue q(milliseconds(1000), milliseconds(1000));
  q.Add(Pod("ml/p"));
  const std::string key = *q.Pop();
  q.Remove(key);  // Bound by someone else meanwhile.
  q.Backoff(key);
  EXPECT_EQ(q.Waiting(), 0u);
  std::thread stopper([&] {
    std::this_thread::sleep_for(milliseconds(50));
    q.Shutdown();
  });
  EXPECT_EQ(q.Pop(), std::nullopt);
  stopper.join();
}

}  // namespace
}  // namespace gangplank::scheduler_driver
