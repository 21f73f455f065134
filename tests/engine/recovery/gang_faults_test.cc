// Which faults count against a gang now and which once their grace ends (rules 2 and 3 of
// engine/recovery/gang_recovery.h).
#include "engine/recovery/gang_faults.h"

#include <gtest/gtest.h>

#include "recovery_test_support.h"

namespace gangplank::engine::recovery_test {
namespace {

GangFaults Of(const GangHealth& gang, const std::vector<NodeFault>& faults, double now = kNow) {
  return FaultsOf(gang, IndexByNode(faults), now);
}

TEST(GangFaults, ALostHostIsPendingUntilItsGraceEndsThenCountsAndCannotCheckpoint) {
  const GangHealth g = Gang("train", {"gpu-1", "gpu-17"});
  // A caller that calls a lost host alive is not believed: nobody runs there to checkpoint.
  const std::vector<NodeFault> faults{Fault("gpu-17", FaultCause::kNodeNotReady, kNow - 20, true)};
  const GangFaults early = Of(g, faults);
  EXPECT_TRUE(early.counted.empty());
  ASSERT_EQ(early.pending.size(), 1u);
  EXPECT_DOUBLE_EQ(early.pending[0].counts_at, kNow + 40);

  const GangFaults late = Of(g, faults, kNow + 40);
  ASSERT_EQ(late.counted.size(), 1u);
  EXPECT_EQ(late.counted[0].message, "node gpu-17 NotReady for 60 s");
  EXPECT_FALSE(late.counted[0].checkpointable);
}

TEST(GangFaults, ConditionsAndQuarantinesCountAtOnceAndALiveHostCanCheckpoint) {
  const std::vector<NodeFault> faults{Fault("gpu-1", FaultCause::kNodeCondition, kNow, true),
                                      Fault("gpu-2", FaultCause::kQuarantine, kNow, false)};
  const GangFaults f = Of(Gang("g", {"gpu-1", "gpu-2"}), faults);
  ASSERT_EQ(f.counted.size(), 2u);
  EXPECT_TRUE(f.pending.empty());
  EXPECT_TRUE(f.counted[0].checkpointable);
  EXPECT_FALSE(f.counted[1].checkpointable) << "the caller said the host no longer runs pods";
}

// A node moving its GPUs between the device plugin and DRA, or a device plugin restarting, offers none for a
// moment: a shortfall counts only once it has lasted the node grace.
// A DRA device taint on a GPU a member holds is its gang's fault, at once, the node's other GPUs still good:
// the gang is not kept off the node, nor charged; under NoSchedule it still runs and can checkpoint.
TEST(GangFaults, AFencedGpuIsAFaultOfTheGangHoldingItNotOfItsNode) {
  GangHealth g = Gang("g", {"gpu-1"});
  g.device_faults.push_back({"ml/w-0", "gpu-1", "gpu.nvidia.com/gpu-1/gpu-3", "xid=79:NoSchedule", kNow - 5});
  GangFaults f = Of(g, {});
  ASSERT_EQ(f.counted.size(), 1u);
  EXPECT_EQ(f.counted[0].cause, FaultCause::kDeviceTaint);
  EXPECT_TRUE(f.counted[0].checkpointable);
  EXPECT_FALSE(f.counted[0].node_to_blame);
  EXPECT_FALSE(f.counted[0].charged);
  EXPECT_EQ(f.counted[0].message, "GPU gpu.nvidia.com/gpu-1/gpu-3 of member ml/w-0 on node gpu-1 tainted xid=79:NoSchedule");
  g.device_faults[0].taint = "xid=79:NoExecute";  // Kubernetes evicts the pods itself: nothing to checkpoint.
  f = Of(g, {});
  ASSERT_EQ(f.counted.size(), 1u);
  EXPECT_FALSE(f.counted[0].checkpointable);
  EXPECT_EQ(FaultCauseName(FaultCause::kDeviceTaint), "DeviceTainted");
  EXPECT_FALSE(IsNodeCause(FaultCause::kDeviceTaint));
}

TEST(GangFaults, AShortfallCountsAfterTheNodeGraceAndALiveHostCanCheckpoint) {
  NodeFault shortfall = Fault("gpu-3", FaultCause::kGpuShortfall, kNow, true);
  shortfall.gpus_allocatable = 6;
  shortfall.gpus_allocated = 8;
  const GangHealth g = Gang("g", {"gpu-3"});
  const GangFaults early = Of(g, {shortfall});
  EXPECT_TRUE(early.counted.empty());
  ASSERT_EQ(early.pending.size(), 1u);
  EXPECT_DOUBLE_EQ(early.pending[0].counts_at, kNow + g.config.node_grace_seconds);
  const GangFaults late = Of(g, {shortfall}, kNow + g.config.node_grace_seconds);
  ASSERT_EQ(late.counted.size(), 1u);
  EXPECT_TRUE(late.counted[0].checkpointable);
  EXPECT_EQ(late.counted[0].message, "GPU allocatable on gpu-3 fell to 6, gangs hold 8");
}

TEST(GangFaults, AShortfallIsNoFaultOnceTheNodeOffersWhatItsPodsHold) {
  NodeFault recovered = Fault("gpu-3", FaultCause::kGpuShortfall, kNow, true);
  recovered.gpus_allocatable = 8;
  recovered.gpus_allocated = 8;
  const GangFaults f = Of(Gang("g", {"gpu-3"}), {recovered});
  EXPECT_TRUE(f.counted.empty());
  EXPECT_TRUE(f.pending.empty());
}

TEST(GangFaults, AMemberFailingOnAFaultyNodeBlamesTheNodeEvenWhenThatFaultDoesNotCount) {
  NodeFault recovered = Fault("gpu-3", FaultCause::kGpuShortfall, kNow, true);
  recovered.gpus_allocatable = 7;
  recovered.gpus_allocated = 7;
  GangHealth g = Gang("g", {"gpu-3", "gpu-4"});
  g.member_faults = {Member("ml/g-0", "gpu-3", FaultCause::kMemberFailed, kNow),
                     Member("ml/g-1", "gpu-4", FaultCause::kMemberFailed, kNow)};
  const GangFaults f = Of(g, {recovered});
  ASSERT_EQ(f.counted.size(), 2u) << "the shortfall itself does not count";
  EXPECT_TRUE(f.counted[0].node_to_blame);
  EXPECT_FALSE(f.counted[0].charged);
  EXPECT_FALSE(f.counted[1].node_to_blame);
  EXPECT_TRUE(f.counted[1].charged);
}

TEST(GangFaults, OnlyTheGangsOwnNodesCountEachOnceInItsNodeOrder) {
  GangHealth g = Gang("g", {"gpu-2", "gpu-1", "gpu-2"});
  const std::vector<NodeFault> faults{Fault("gpu-1", FaultCause::kQuarantine, kNow, true),
                                      Fault("gpu-9", FaultCause::kQuarantine, kNow, true),
                                      Fault("gpu-2", FaultCause::kNodeCondition, kNow, true)};
  const GangFaults f = Of(g, faults);
  ASSERT_EQ(f.counted.size(), 2u);
  EXPECT_EQ(f.counted[0].node, "gpu-2");
  EXPECT_EQ(f.counted[1].node, "gpu-1");
}

TEST(GangFaults, AMemberFailedOrDeletedCountsAtOnceAfterTheNodeFaults) {
  GangHealth g = Gang("g", {"gpu-1", "gpu-2"});
  g.member_faults = {Member("ml/g-1", "gpu-2", FaultCause::kMemberDeleted, kNow - 5)};
  const GangFaults f = Of(g, {Fault("gpu-1", FaultCause::kNodeCondition, kNow, true)});
  ASSERT_EQ(f.counted.size(), 2u);
  EXPECT_EQ(f.counted[1].cause, FaultCause::kMemberDeleted);
  EXPECT_EQ(f.counted[1].message, "member ml/g-1 deleted while its gang ran on node gpu-2");
  EXPECT_FALSE(f.counted[1].checkpointable) << "a gang short of a member cannot checkpoint";
}

TEST(GangFaults, BelowItsMinimumAGangIsPendingForTheGraceThenCounts) {
  GangHealth g = Gang("g", {"gpu-1", "gpu-2", "gpu-3"});
  g.members = 2;
  g.below_minimum_since = kNow - 100;
  const GangFaults early = Of(g, {});
  ASSERT_EQ(early.pending.size(), 1u);
  EXPECT_EQ(early.pending[0].cause, FaultCause::kBelowMinimum);
  EXPECT_DOUBLE_EQ(early.pending[0].counts_at, kNow + 200);
  const GangFaults late = Of(g, {}, kNow + 200);
  ASSERT_EQ(late.counted.size(), 1u);
  EXPECT_EQ(late.counted[0].message, "2 of 3 members running for 300 s");
}

TEST(GangFaults, AGangWholeAgainIsNotBelowItsMinimumWhateverTheCallerRemembers) {
  GangHealth g = Gang("g", {"gpu-1", "gpu-2"});
  g.below_minimum_since = kNow - 1000;
  EXPECT_TRUE(Of(g, {}).pending.empty());
  EXPECT_TRUE(Of(g, {}).counted.empty());
}

TEST(GangFaults, WithReplacementMembersALostMemberOnlyStartsTheBelowMinimumGrace) {
  GangHealth g = Gang("elastic", {"gpu-1", "gpu-2"});
  g.config.replace_members = true;
  g.members = 1;
  g.member_faults = {Member("ml/elastic-1", "gpu-2", FaultCause::kMemberFailed, kNow - 10)};
  // The caller has not noted the gang below its minimum yet: the lost member says since when.
  const GangFaults f = Of(g, {});
  EXPECT_TRUE(f.counted.empty());
  ASSERT_EQ(f.pending.size(), 1u);
  EXPECT_EQ(f.pending[0].cause, FaultCause::kBelowMinimum);
  EXPECT_DOUBLE_EQ(f.pending[0].counts_at, kNow - 10 + 300);

  g.members = 2;  // The replacement joined.
  EXPECT_TRUE(Of(g, {}).pending.empty());
  EXPECT_TRUE(Of(g, {}).counted.empty());
}

}  // namespace
}  // namespace gangplank::engine::recovery_test
