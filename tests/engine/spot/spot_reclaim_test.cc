#include "engine/spot/spot_reclaim.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gangplank::engine {
namespace {

SpotConfig Config(SpotPolicy policy = SpotPolicy::kCheckpointThenEvict) {
  SpotConfig c;
  c.policy = policy;
  c.checkpoint_grace_seconds = 90;
  c.eviction_margin_seconds = 15;
  return c;
}

GangOnNodes Gang(std::string name, std::vector<NodeId> nodes) {
  GangOnNodes g;
  g.name = std::move(name);
  g.nodes = std::move(nodes);
  return g;
}

TEST(SpotReclaim, AGangWithOneMemberOnADoomedNodeIsAskedToCheckpointWhole) {
  const std::vector<NodeNotice> notices{{2, 1000, 1120}};
  const SpotPlan plan =
      PlanSpotReclaim(notices, {Gang("train", {1, 2, 3, 4}), Gang("other", {5, 6})}, 1000, Config());
  ASSERT_EQ(plan.decisions.size(), 1u);
  EXPECT_EQ(plan.decisions[0].gang, "train");
  EXPECT_EQ(plan.decisions[0].action, SpotAction::kRequestCheckpoint);
  EXPECT_EQ(plan.decisions[0].node, 2);
  EXPECT_DOUBLE_EQ(plan.decisions[0].deadline, 1090);  // Grace (90 s) ends before the margin (1105).
  EXPECT_DOUBLE_EQ(plan.next_wakeup, 1090);
}

TEST(SpotReclaim, AShortNoticeLeavesTheMarginBeforeTheNodeGoes) {
  const SpotPlan plan = PlanSpotReclaim({{7, 1000, 1030}}, {Gang("g", {7})}, 1000, Config());
  ASSERT_EQ(plan.decisions.size(), 1u);
  EXPECT_DOUBLE_EQ(plan.decisions[0].deadline, 1015);  // GKE's 30 s notice: 30 - 15.
}

TEST(SpotReclaim, NoTimeLeftEvictsAtOnceWithoutAskingForACheckpoint) {
  const SpotPlan plan = PlanSpotReclaim({{7, 1000, 1010}}, {Gang("g", {7})}, 1000, Config());
  ASSERT_EQ(plan.decisions.size(), 1u);
  EXPECT_EQ(plan.decisions[0].action, SpotAction::kEvict);
  EXPECT_FALSE(plan.decisions[0].checkpointed);
  EXPECT_TRUE(std::isinf(plan.next_wakeup));
}

TEST(SpotReclaim, AnAcknowledgedCheckpointEvictsBeforeTheDeadline) {
  GangOnNodes g = Gang("g", {1, 2});
  g.checkpoint_deadline = 1090;
  g.checkpoint_done = true;
  const SpotPlan plan = PlanSpotReclaim({{2, 1000, 1120}}, {g}, 1040, Config());
  ASSERT_EQ(plan.decisions.size(), 1u);
  EXPECT_EQ(plan.decisions[0].action, SpotAction::kEvict);
  EXPECT_TRUE(plan.decisions[0].checkpointed);
  EXPECT_EQ(plan.decisions[0].reason, "checkpoint done");
}

TEST(SpotReclaim, WaitsForTheAcknowledgementUntilTheDeadlineThenEvictsAnyway) {
  GangOnNodes g = Gang("g", {1, 2});
  g.checkpoint_deadline = 1090;
  const SpotPlan waiting = PlanSpotReclaim({{2, 1000, 1120}}, {g}, 1050, Config());
  ASSERT_EQ(waiting.decisions.size(), 1u);
  EXPECT_EQ(waiting.decisions[0].action, SpotAction::kWait);
  EXPECT_DOUBLE_EQ(waiting.next_wakeup, 1090);  // The deadline given earlier is kept, not recomputed.

  const SpotPlan late = PlanSpotReclaim({{2, 1000, 1120}}, {g}, 1090, Config());
  ASSERT_EQ(late.decisions.size(), 1u);
  EXPECT_EQ(late.decisions[0].action, SpotAction::kEvict);
  EXPECT_FALSE(late.decisions[0].checkpointed);
}

TEST(SpotReclaim, ADeadlineOrAcknowledgementFromAnEarlierNoticeDoesNotCount) {
  GangOnNodes g = Gang("g", {2});
  g.checkpoint_deadline = 590;  // Asked during a notice that was withdrawn.
  g.checkpoint_done = true;
  g.checkpoint_done_at = 560;
  const SpotPlan plan = PlanSpotReclaim({{2, 1000, 1120}}, {g}, 1000, Config());
  ASSERT_EQ(plan.decisions.size(), 1u);
  EXPECT_EQ(plan.decisions[0].action, SpotAction::kRequestCheckpoint);
  EXPECT_DOUBLE_EQ(plan.decisions[0].deadline, 1090);
  // Asked anew; an acknowledgement written since counts.
  g.checkpoint_deadline = 1090;
  g.checkpoint_done_at = 1030;
  const SpotPlan acked = PlanSpotReclaim({{2, 1000, 1120}}, {g}, 1040, Config());
  EXPECT_EQ(acked.decisions[0].action, SpotAction::kEvict);
  EXPECT_TRUE(acked.decisions[0].checkpointed);
}

TEST(SpotReclaim, TheMemberNodeThatGoesFirstSetsTheDeadline) {
  const SpotPlan plan = PlanSpotReclaim({{1, 1000, 1300}, {2, 1000, 1040}}, {Gang("g", {1, 2})}, 1000, Config());
  ASSERT_EQ(plan.decisions.size(), 1u);
  EXPECT_EQ(plan.decisions[0].node, 2);
  EXPECT_DOUBLE_EQ(plan.decisions[0].deadline, 1025);
}

TEST(SpotReclaim, TerminatingGangsAndGangsOffDoomedNodesAreLeftAlone) {
  GangOnNodes leaving = Gang("leaving", {2});
  leaving.terminating = true;
  const SpotPlan plan = PlanSpotReclaim({{2, 1000, 1120}}, {leaving, Gang("safe", {3})}, 1000, Config());
  EXPECT_TRUE(plan.decisions.empty());
}

TEST(SpotReclaim, EvictOnNoticeEvictsAtOnceAndIgnoreDoesNothing) {
  const std::vector<NodeNotice> notices{{2, 1000, 1120}};
  const SpotPlan evict = PlanSpotReclaim(notices, {Gang("g", {2})}, 1000, Config(SpotPolicy::kEvictOnNotice));
  ASSERT_EQ(evict.decisions.size(), 1u);
  EXPECT_EQ(evict.decisions[0].action, SpotAction::kEvict);
  EXPECT_TRUE(PlanSpotReclaim(notices, {Gang("g", {2})}, 1000, Config(SpotPolicy::kIgnore)).decisions.empty());
}

// Review (issue 31): a checkpoint request outlived its cause. A gang asked for a notice that no longer
// covers any of its nodes (the disruption was cancelled) has the request taken back, whatever the policy;
// a gang still on a doomed node, one asked for another cause, and a terminating one keep theirs.
TEST(SpotReclaim, ACheckpointRequestIsWithdrawnOnceItsNoticeIsGone) {
  GangOnNodes asked = Gang("asked", {1, 2});
  asked.checkpoint_asked_for_notice = true;
  asked.checkpoint_deadline = 1090;
  GangOnNodes still = Gang("still", {3});
  still.checkpoint_asked_for_notice = true;
  still.checkpoint_deadline = 1090;
  GangOnNodes other_cause = Gang("fault", {4});
  other_cause.checkpoint_deadline = 1090;
  GangOnNodes leaving = Gang("leaving", {5});
  leaving.checkpoint_asked_for_notice = true;
  leaving.terminating = true;
  const std::vector<GangOnNodes> gangs{asked, still, other_cause, leaving};
  for (SpotPolicy policy : {SpotPolicy::kCheckpointThenEvict, SpotPolicy::kEvictOnNotice, SpotPolicy::kIgnore}) {
    const SpotPlan plan = PlanSpotReclaim({{3, 1000, 1120}}, gangs, 1050, Config(policy));
    EXPECT_EQ(plan.withdrawn, std::vector<std::string>{"asked"});
    for (const SpotDecision& d : plan.decisions) EXPECT_EQ(d.gang, "still");
  }
  EXPECT_EQ(PlanSpotReclaim({}, gangs, 1050, Config()).withdrawn, (std::vector<std::string>{"asked", "still"}))
      << "every notice gone";
}

}  // namespace
}  // namespace gangplank::engine
