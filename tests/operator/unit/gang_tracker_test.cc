#include "operator/gangs/gang_tracker.h"

#include <gtest/gtest.h>

#include "tests/cache/support/state_builders.h"

namespace gangplank::op {
namespace {

cache::PodInfo Managed(const std::string& name, const std::string& gang, bool gated = true) {
  cache::PodInfo p = cache::testing::GpuPod(name, {.gang = gang, .gpus = 8});
  p.scheduler_name = "gangplank";
  p.resource_version = "1";
  if (gated) p.scheduling_gates = {"gangplank.io/admission"};
  return p;
}

TEST(GangTracker, GroupsManagedPodsByGang) {
  GangTracker tracker({"gangplank"});
  EXPECT_EQ(tracker.Upsert(Managed("w-1", "g")), std::vector<std::string>{"ml/g"});
  tracker.Upsert(Managed("w-0", "g"));
  cache::PodInfo foreign = Managed("other", "g", false);
  foreign.scheduler_name = "default-scheduler";
  EXPECT_TRUE(tracker.Upsert(foreign).empty());  // Not gangplank's.
  const auto gang = tracker.Share("ml/g");
  ASSERT_TRUE(gang);
  ASSERT_EQ(gang->members.size(), 2u);
  EXPECT_EQ(gang->members[0].pod.name, "w-0");  // Ordered by name.
  EXPECT_TRUE(gang->members[0].gated);
  EXPECT_EQ(gang->members[0].request.gpu_count, 8);
}

TEST(GangTracker, LonePodsFinishedPodsAndMoves) {
  GangTracker tracker({"gangplank"});
  tracker.Upsert(Managed("solo", ""));
  EXPECT_TRUE(tracker.Share("ml/Pod/solo"));
  cache::PodInfo moved = Managed("solo", "g2");
  moved.resource_version = "2";
  EXPECT_EQ(tracker.Upsert(moved), (std::vector<std::string>{"ml/Pod/solo", "ml/g2"}));
  EXPECT_FALSE(tracker.Share("ml/Pod/solo"));
  cache::PodInfo done = moved;
  done.phase = "Succeeded";
  EXPECT_EQ(tracker.Upsert(done), std::vector<std::string>{"ml/g2"});
  EXPECT_EQ(tracker.size(), 0u);
}

// Writes admission never reads (status conditions, including gangplank's own) wake nothing.
TEST(GangTracker, StatusOnlyUpdatesTouchNoGang) {
  GangTracker tracker({"gangplank"});
  cache::PodInfo p = Managed("w-0", "g");
  tracker.Upsert(p);
  p.resource_version = "2";  // Only the status changed.
  EXPECT_TRUE(tracker.Upsert(p).empty());
  EXPECT_EQ(tracker.Share("ml/g")->members[0].pod.resource_version, "2");  // Still the newest copy.
  p.resource_version = "3";
  p.scheduling_gates.clear();
  EXPECT_EQ(tracker.Upsert(p), std::vector<std::string>{"ml/g"});
  EXPECT_EQ(tracker.Remove("uid-w-0"), std::vector<std::string>{"ml/g"});
  EXPECT_TRUE(tracker.Remove("uid-w-0").empty());
}

// A reader's shared snapshot never changes under it (a pod's change replaces the gang whole), and a gang
// no reader holds is changed in place instead of being copied on every member's update.
TEST(GangTracker, ASharedSnapshotNeverChangesAndAnUnsharedGangIsChangedInPlace) {
  GangTracker tracker({"gangplank"});
  tracker.Upsert(Managed("w-0", "g"));
  const Gang* before = tracker.Share("ml/g").get();
  tracker.Upsert(Managed("w-1", "g"));
  EXPECT_EQ(tracker.Share("ml/g").get(), before) << "nobody held it: changed in place";

  const std::shared_ptr<const Gang> held = tracker.Share("ml/g");
  cache::PodInfo released = Managed("w-0", "g", false);
  released.resource_version = "2";
  tracker.Upsert(released);
  tracker.Upsert(Managed("w-2", "g"));
  tracker.Remove("uid-w-1");
  ASSERT_EQ(held->members.size(), 2u);
  EXPECT_TRUE(held->members[0].gated) << "the reader's snapshot changed under it";
  EXPECT_EQ(held->members[1].pod.name, "w-1");
  const auto now = tracker.Share("ml/g");
  EXPECT_NE(now.get(), held.get());
  ASSERT_EQ(now->members.size(), 2u);
  EXPECT_FALSE(now->members[0].gated);
  EXPECT_EQ(now->members[1].pod.name, "w-2");
}

}  // namespace
}  // namespace gangplank::op
