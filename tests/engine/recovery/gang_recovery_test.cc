// Gang-level fault recovery decisions (engine/recovery/gang_recovery.h): one test or more per rule of
// its header, whole gangs only.
#include "engine/recovery/gang_recovery.h"

#include <gtest/gtest.h>

#include <cmath>

#include "recovery_test_support.h"

namespace gangplank::engine::recovery_test {
namespace {

// Rule 1.
TEST(GangRecovery, TerminatingFailedAndUnaffectedGangsAreLeftAloneAndIgnoreDecidesNothing) {
  GangHealth leaving = Gang("leaving", {"gpu-1"});
  leaving.terminating = true;
  GangHealth failed = Gang("failed", {"gpu-1"});
  failed.failed = true;
  GangHealth ignored = Gang("ignored", {"gpu-1"});
  ignored.config.policy = RecoveryPolicy::kIgnore;
  const std::vector<NodeFault> faults{Fault("gpu-1", FaultCause::kNodeUnreachable, kNow - 600, false)};
  const RecoveryPlan plan = PlanGangRecovery(faults, {leaving, failed, ignored, Gang("elsewhere", {"gpu-2"})}, kNow);
  EXPECT_TRUE(plan.decisions.empty());
  EXPECT_TRUE(std::isinf(plan.next_wakeup));
}

// Rule 2, lost hosts.
TEST(GangRecovery, ALostHostIsWaitedForUntilItsGraceThenRestartsTheGangAtOnceAwayFromIt) {
  const GangHealth g = Gang("train", {"gpu-1", "gpu-17"});
  const RecoveryPlan early =
      PlanGangRecovery({Fault("gpu-17", FaultCause::kNodeNotReady, kNow - 20, false)}, {g}, kNow);
  const RecoveryDecision wait = Only(early);
  EXPECT_EQ(wait.action, RecoveryAction::kWait) << "a kubelet restart is no lost host";
  EXPECT_DOUBLE_EQ(wait.wait_until, kNow + 40);
  EXPECT_DOUBLE_EQ(early.next_wakeup, kNow + 40);

  const RecoveryDecision d =
      Only(PlanGangRecovery({Fault("gpu-17", FaultCause::kNodeNotReady, kNow - 65, false)}, {g}, kNow));
  EXPECT_EQ(d.action, RecoveryAction::kRestart) << "nobody is left on a lost host to checkpoint";
  EXPECT_EQ(d.cause, FaultCause::kNodeNotReady);
  EXPECT_EQ(d.node, "gpu-17");
  EXPECT_EQ(d.message, "node gpu-17 NotReady for 65 s");
  EXPECT_EQ(d.avoid_nodes, std::vector<std::string>{"gpu-17"});
  EXPECT_DOUBLE_EQ(d.fault_since, kNow - 65);
}

// Rule 2, live hosts; rule 5d.
TEST(GangRecovery, ASickGpuOnALiveHostAsksForACheckpointThenRestartsOnTheAcknowledgement) {
  GangHealth g = Gang("train", {"gpu-3", "gpu-4"});
  const std::vector<NodeFault> faults{Fault("gpu-3", FaultCause::kNodeCondition, kNow - 1, true)};
  const RecoveryPlan ask = PlanGangRecovery(faults, {g}, kNow);
  EXPECT_EQ(Only(ask).action, RecoveryAction::kRequestCheckpoint);
  EXPECT_DOUBLE_EQ(Only(ask).deadline, kNow + 120);
  EXPECT_DOUBLE_EQ(ask.next_wakeup, kNow + 120);

  g.checkpoint_deadline = kNow + 120;
  const RecoveryPlan waiting = PlanGangRecovery(faults, {g}, kNow + 10);
  EXPECT_EQ(Only(waiting).action, RecoveryAction::kWait);
  EXPECT_DOUBLE_EQ(waiting.next_wakeup, kNow + 120) << "the deadline given is kept, not recomputed";

  g.checkpoint_done = true;
  g.checkpoint_done_at = kNow + 20;
  const RecoveryDecision done = Only(PlanGangRecovery(faults, {g}, kNow + 20));
  EXPECT_EQ(done.action, RecoveryAction::kRestart);
  EXPECT_TRUE(done.checkpointed);
  EXPECT_EQ(done.avoid_nodes, std::vector<std::string>{"gpu-3"});
}

TEST(GangRecovery, WithoutAnAcknowledgementTheGangIsRestartedAtTheDeadline) {
  GangHealth g = Gang("train", {"gpu-3"});
  g.checkpoint_deadline = kNow + 120;
  const RecoveryDecision late =
      Only(PlanGangRecovery({Fault("gpu-3", FaultCause::kQuarantine, kNow, true)}, {g}, kNow + 120));
  EXPECT_EQ(late.action, RecoveryAction::kRestart);
  EXPECT_FALSE(late.checkpointed);
}

TEST(GangRecovery, ARequestOrAcknowledgementFromBeforeTheFaultBelongsToAnEarlierEvent) {
  GangHealth g = Gang("train", {"gpu-3"});
  const std::vector<NodeFault> faults{Fault("gpu-3", FaultCause::kNodeCondition, kNow - 1, true)};
  g.checkpoint_deadline = kNow - 500;  // A withdrawn spot notice asked it.
  g.checkpoint_done = true;
  g.checkpoint_done_at = kNow - 550;
  EXPECT_EQ(Only(PlanGangRecovery(faults, {g}, kNow)).action, RecoveryAction::kRequestCheckpoint);

  g.checkpoint_deadline = kNow + 120;  // Asked anew; the old acknowledgement does not answer it.
  EXPECT_EQ(Only(PlanGangRecovery(faults, {g}, kNow + 10)).action, RecoveryAction::kWait);
}

TEST(GangRecovery, AnAcknowledgementInTheFaultsOwnSecondCounts) {
  // Annotations carry whole seconds: a fault first seen at .7 s answered within that second reads .0 s.
  GangHealth g = Gang("train", {"gpu-3"});
  g.checkpoint_deadline = kNow + 120;
  g.checkpoint_done = true;
  g.checkpoint_done_at = kNow;
  const RecoveryDecision d =
      Only(PlanGangRecovery({Fault("gpu-3", FaultCause::kQuarantine, kNow + 0.7, true)}, {g}, kNow + 1));
  EXPECT_EQ(d.action, RecoveryAction::kRestart);
  EXPECT_TRUE(d.checkpointed);
}

TEST(GangRecovery, AGpuShortfallAndAQuarantineSayWhatHappened) {
  NodeFault shortfall = Fault("gpu-03", FaultCause::kGpuShortfall, kNow, true);
  shortfall.gpus_allocatable = 6;
  shortfall.gpus_allocated = 8;
  const RecoveryDecision s = Only(PlanGangRecovery({shortfall}, {Gang("a", {"gpu-03"})}, kNow));
  EXPECT_EQ(s.message, "GPU allocatable on gpu-03 fell to 6, gangs hold 8");
  EXPECT_EQ(s.cause, FaultCause::kGpuShortfall);
  NodeFault quarantine = Fault("gpu-05", FaultCause::kQuarantine, kNow, true);
  quarantine.signal = "cordoned, taint nvidia.com/gpu-xid-error:NoSchedule";
  EXPECT_EQ(Only(PlanGangRecovery({quarantine}, {Gang("b", {"gpu-05"})}, kNow)).message,
            "node gpu-05 quarantined (cordoned, taint nvidia.com/gpu-xid-error:NoSchedule)");
}

// Rule 3.
TEST(GangRecovery, AFailedOrDeletedMemberRestartsTheWholeGangAtOnceWithoutBlamingItsNode) {
  GangHealth g = Gang("train", {"gpu-1", "gpu-2"});
  g.member_faults = {Member("ml/train-1", "gpu-2", FaultCause::kMemberFailed, kNow - 3)};
  const RecoveryDecision d = Only(PlanGangRecovery({}, {g}, kNow));
  EXPECT_EQ(d.action, RecoveryAction::kRestart);
  EXPECT_EQ(d.cause, FaultCause::kMemberFailed);
  EXPECT_EQ(d.message, "member ml/train-1 Failed on node gpu-2");
  EXPECT_TRUE(d.avoid_nodes.empty()) << "the node is not at fault";
  EXPECT_TRUE(d.charged) << "the gang's own failure counts against its restart limit";
}

// A JobSet's failure policy (or LeaderWorkerSet, a training operator, KubeRay) restarts its gang itself:
// its failed member is not gangplank's to restart, nor charged, while the controller has the below-minimum
// grace to mend it; a gang still short past it is restarted; a fault of its node is gangplank's at once.
TEST(GangRecovery, AGangWhoseControllerMendsItsMembersIsLeftToItForTheGraceUnlessItsNodeIsAtFault) {
  GangHealth g = Gang("train", {"gpu-1", "gpu-2"});
  g.controller_mends_members = true;
  g.member_faults = {Member("ml/train-1", "gpu-2", FaultCause::kMemberFailed, kNow - 3)};
  const RecoveryPlan whole = PlanGangRecovery({}, {g}, kNow);
  EXPECT_TRUE(whole.decisions.empty()) << "the failed member restarted the gang";
  EXPECT_TRUE(std::isinf(whole.next_wakeup)) << whole.next_wakeup;

  g.members = 1;  // The controller deleted the rest to make them again.
  g.below_minimum_since = kNow - 10;
  const RecoveryPlan mending = PlanGangRecovery({}, {g}, kNow);
  EXPECT_EQ(Only(mending).action, RecoveryAction::kWait);
  EXPECT_DOUBLE_EQ(mending.next_wakeup, kNow + 290);
  const RecoveryDecision late = Only(PlanGangRecovery({}, {g}, kNow + 290));
  EXPECT_EQ(late.action, RecoveryAction::kRestart) << "the controller never mended it";
  EXPECT_EQ(late.cause, FaultCause::kBelowMinimum);
  g.members = 2;
  g.below_minimum_since.reset();

  const RecoveryDecision node = Only(PlanGangRecovery({Fault("gpu-1", FaultCause::kQuarantine, kNow, false)}, {g}, kNow));
  EXPECT_EQ(node.action, RecoveryAction::kRestart);
  EXPECT_EQ(node.cause, FaultCause::kQuarantine);
  EXPECT_FALSE(node.charged);
}

TEST(GangRecovery, AGangBelowItsMinimumWaitsForTheGraceThenIsRestartedWhole) {
  GangHealth g = Gang("train", {"gpu-1", "gpu-2", "gpu-3", "gpu-4"});
  g.members = 3;
  g.below_minimum_since = kNow - 100;
  const RecoveryPlan waiting = PlanGangRecovery({}, {g}, kNow);
  EXPECT_EQ(Only(waiting).action, RecoveryAction::kWait);
  EXPECT_DOUBLE_EQ(waiting.next_wakeup, kNow + 200);
  const RecoveryDecision d = Only(PlanGangRecovery({}, {g}, kNow + 201));
  EXPECT_EQ(d.action, RecoveryAction::kRestart);
  EXPECT_EQ(d.cause, FaultCause::kBelowMinimum);
  EXPECT_EQ(d.message, "3 of 4 members running for 301 s");
}

TEST(GangRecovery, WithReplacementMembersALostMemberIsWaitedForUntilTheBelowMinimumGrace) {
  GangHealth g = Gang("elastic", {"gpu-1", "gpu-2"});
  g.config.replace_members = true;
  g.members = 1;
  g.member_faults = {Member("ml/elastic-1", "gpu-2", FaultCause::kMemberDeleted, kNow - 10)};
  g.below_minimum_since = kNow - 10;
  const RecoveryPlan waiting = PlanGangRecovery({}, {g}, kNow);
  EXPECT_EQ(Only(waiting).action, RecoveryAction::kWait);
  EXPECT_DOUBLE_EQ(waiting.next_wakeup, kNow + 290);
  const RecoveryDecision d = Only(PlanGangRecovery({}, {g}, kNow + 291));
  EXPECT_EQ(d.action, RecoveryAction::kRestart);
  EXPECT_EQ(d.cause, FaultCause::kBelowMinimum);
  EXPECT_EQ(d.message, "1 of 2 members running for 301 s");

  g.members = 2;  // The replacement joined in time: nothing to do.
  EXPECT_TRUE(PlanGangRecovery({}, {g}, kNow + 291).decisions.empty());
}

// Rule 4.
TEST(GangRecovery, FailGangFailsWithTheFaultsMessageOnceItCounts) {
  GangHealth g = Gang("train", {"gpu-1"});
  g.config.policy = RecoveryPolicy::kFailGang;
  const std::vector<NodeFault> faults{Fault("gpu-1", FaultCause::kNodeUnreachable, kNow - 30, false)};
  EXPECT_EQ(Only(PlanGangRecovery(faults, {g}, kNow)).action, RecoveryAction::kWait) << "still within its grace";
  const RecoveryDecision d = Only(PlanGangRecovery(faults, {g}, kNow + 30));
  EXPECT_EQ(d.action, RecoveryAction::kFail);
  EXPECT_EQ(d.message, "node gpu-1 unreachable for 60 s");
}

// Rule 5a.
TEST(GangRecovery, PastTheRestartLimitTheGangIsFailedSayingWhy) {
  GangHealth g = Gang("train", {"gpu-1"});
  g.member_faults = {Member("ml/train-0", "gpu-1", FaultCause::kMemberFailed, kNow)};
  g.restarts = 3;
  g.last_restart_at = kNow - 5;  // Failing goes before any backoff.
  const RecoveryDecision over = Only(PlanGangRecovery({}, {g}, kNow));
  EXPECT_EQ(over.action, RecoveryAction::kFail);
  EXPECT_EQ(over.message, "restart limit 3 reached; member ml/train-0 Failed on node gpu-1");

  GangHealth never = Gang("never", {"gpu-1"});
  never.member_faults = g.member_faults;
  never.config.restart_limit = 0;
  EXPECT_EQ(Only(PlanGangRecovery({}, {never}, kNow)).action, RecoveryAction::kFail);
}

// Rule 5b.
TEST(GangRecovery, RestartsBackOffExponentiallyFromTheLastOne) {
  GangHealth g = Gang("train", {"gpu-1"});
  g.member_faults = {Member("ml/train-0", "gpu-1", FaultCause::kMemberFailed, kNow)};
  g.restarts = 2;
  g.last_restart_at = kNow - 50;  // The third restart waits 60 s after the second.
  const RecoveryPlan backing_off = PlanGangRecovery({}, {g}, kNow);
  EXPECT_EQ(Only(backing_off).action, RecoveryAction::kWait);
  EXPECT_DOUBLE_EQ(Only(backing_off).wait_until, kNow + 10);
  EXPECT_DOUBLE_EQ(backing_off.next_wakeup, kNow + 10);
  EXPECT_EQ(Only(PlanGangRecovery({}, {g}, kNow + 10)).action, RecoveryAction::kRestart);
}

// Rule 5, what is charged.
TEST(GangRecovery, ANodesFaultIsNeverChargedSoItNeitherExhaustsTheLimitNorWaitsForTheBackoff) {
  GangHealth g = Gang("train", {"gpu-1", "gpu-2"});
  g.restarts = 3;  // Its limit, the last restart 5 s ago.
  g.last_restart_at = kNow - 5;
  const RecoveryDecision lost =
      Only(PlanGangRecovery({Fault("gpu-2", FaultCause::kNodeUnreachable, kNow - 60, false)}, {g}, kNow));
  EXPECT_EQ(lost.action, RecoveryAction::kRestart);
  EXPECT_FALSE(lost.charged);

  // A member that died on a node that lost a GPU: the device is gone, its pods fit in what is left, so the
  // shortfall restarts nobody, but it explains the failure.
  NodeFault gpu_gone = Fault("gpu-1", FaultCause::kGpuShortfall, kNow, true);
  gpu_gone.gpus_allocatable = 7;
  gpu_gone.gpus_allocated = 4;
  g.member_faults = {Member("ml/train-0", "gpu-1", FaultCause::kMemberFailed, kNow)};
  const RecoveryDecision died = Only(PlanGangRecovery({gpu_gone}, {g}, kNow));
  EXPECT_EQ(died.action, RecoveryAction::kRestart);
  EXPECT_FALSE(died.charged);
  EXPECT_EQ(died.avoid_nodes, std::vector<std::string>{"gpu-1"});

  // The same member on a healthy node: its own failure, past the limit.
  EXPECT_EQ(Only(PlanGangRecovery({}, {g}, kNow)).action, RecoveryAction::kFail);
}

// Rule 5c.
TEST(GangRecovery, ALostHostAmongLiveOnesSkipsTheCheckpointAndSoDoesNoGrace) {
  GangHealth g = Gang("train", {"gpu-1", "gpu-2"});
  const std::vector<NodeFault> faults{Fault("gpu-1", FaultCause::kNodeCondition, kNow - 9, true),
                                      Fault("gpu-2", FaultCause::kNodeUnreachable, kNow - 100, false)};
  EXPECT_EQ(Only(PlanGangRecovery(faults, {g}, kNow)).action, RecoveryAction::kRestart);
  g.config.checkpoint_grace_seconds = 0;
  EXPECT_EQ(Only(PlanGangRecovery({faults[0]}, {g}, kNow)).action, RecoveryAction::kRestart);
}

// Rule 6.
TEST(GangRecovery, SeveralFaultsMakeOneDecisionNamedAfterALostHostElseTheEarliest) {
  GangHealth hit = Gang("hit", {"gpu-1", "gpu-2"});
  hit.member_faults = {Member("ml/hit-0", "gpu-1", FaultCause::kMemberFailed, kNow - 5)};
  const std::vector<NodeFault> faults{Fault("gpu-1", FaultCause::kNodeCondition, kNow - 9, true),
                                      Fault("gpu-2", FaultCause::kNodeUnreachable, kNow - 100, false)};
  const RecoveryDecision d = Only(PlanGangRecovery(faults, {hit}, kNow));
  EXPECT_EQ(d.cause, FaultCause::kNodeUnreachable);
  EXPECT_EQ(d.avoid_nodes, (std::vector<std::string>{"gpu-1", "gpu-2"}));
  EXPECT_DOUBLE_EQ(d.fault_since, kNow - 100);

  const RecoveryDecision earliest = Only(PlanGangRecovery({faults[0]}, {hit}, kNow));
  EXPECT_EQ(earliest.cause, FaultCause::kNodeCondition) << "9 s ago, before the member failed";
  EXPECT_EQ(earliest.action, RecoveryAction::kRestart) << "the lost member rules out a checkpoint";
}

TEST(GangRecovery, DecisionsComeInInputOrderAndTheEarliestWaitWakesTheCaller) {
  const std::vector<NodeFault> faults{Fault("gpu-1", FaultCause::kNodeNotReady, kNow - 10, false),
                                      Fault("gpu-2", FaultCause::kNodeCondition, kNow, true)};
  const RecoveryPlan plan =
      PlanGangRecovery(faults, {Gang("z", {"gpu-2"}), Gang("a", {"gpu-1"}), Gang("m", {"gpu-3"})}, kNow);
  ASSERT_EQ(plan.decisions.size(), 2u);
  EXPECT_EQ(plan.decisions[0].gang, "z");
  EXPECT_EQ(plan.decisions[1].gang, "a");
  EXPECT_DOUBLE_EQ(plan.next_wakeup, kNow + 50);
}

TEST(GangRecovery, AHostLostDuringACheckpointWaitWakesTheCallerWhenItsGraceEnds) {
  GangHealth g = Gang("train", {"gpu-1", "gpu-2"});
  g.checkpoint_deadline = kNow + 115;
  const std::vector<NodeFault> faults{Fault("gpu-1", FaultCause::kNodeCondition, kNow - 5, true),
                                      Fault("gpu-2", FaultCause::kNodeNotReady, kNow - 30, false)};
  const RecoveryPlan plan = PlanGangRecovery(faults, {g}, kNow);
  EXPECT_EQ(Only(plan).action, RecoveryAction::kWait);
  EXPECT_DOUBLE_EQ(plan.next_wakeup, kNow + 30) << "then the lost host restarts it without waiting more";
  EXPECT_EQ(Only(PlanGangRecovery(faults, {g}, kNow + 30)).action, RecoveryAction::kRestart);
}

}  // namespace
}  // namespace gangplank::engine::recovery_test

namespace gangplank::engine::recovery_test {
namespace {

// Rule 7: a checkpoint asked for a fault that is gone is taken back; a request of a notice, or one
// whose fault still counts or is pending, stays.
TEST(GangRecovery, AFaultsCheckpointRequestIsWithdrawnOnceTheFaultIsGone) {
  GangHealth asked = Gang("asked", {"gpu-3"});
  asked.checkpoint_deadline = kNow + 60;
  asked.checkpoint_asked_for_fault = true;
  GangHealth noticed = Gang("noticed", {"gpu-5"});
  noticed.checkpoint_deadline = kNow + 60;  // A spot notice's: not fault recovery's to take back.
  GangHealth still = Gang("still", {"gpu-4"});
  still.checkpoint_deadline = kNow + 60;
  still.checkpoint_asked_for_fault = true;
  const std::vector<NodeFault> faults{Fault("gpu-4", FaultCause::kNodeCondition, kNow - 30, true)};
  const RecoveryPlan plan = PlanGangRecovery(faults, {asked, noticed, still}, kNow);
  EXPECT_EQ(plan.withdrawn, std::vector<std::string>{"asked"});
  ASSERT_EQ(plan.decisions.size(), 1u);
  EXPECT_EQ(plan.decisions[0].gang, "still");
  EXPECT_EQ(plan.decisions[0].action, RecoveryAction::kWait) << "its request stands until the deadline";

  GangHealth quiet = Gang("quiet", {"gpu-3"});
  quiet.checkpoint_asked_for_fault = true;  // No request standing: nothing to take back.
  EXPECT_TRUE(PlanGangRecovery({}, {quiet}, kNow).withdrawn.empty());
}

}  // namespace
}  // namespace gangplank::engine::recovery_test
