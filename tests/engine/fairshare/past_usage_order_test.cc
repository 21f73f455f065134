// Time-based fair share in admission order and reclaim: past usage counts beside GPUs held now.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/fairshare/admission_order.h"
#include "tests/engine/admission/admission_fixture.h"

// In the fixture's namespace, so its helpers need no using-declarations.
namespace gangplank::engine::testing {
namespace {

TEST(PastUsageOrder, OfTwoQueuesHoldingAlikeTheOneThatUsedMoreGoesSecond) {
  // Equal fair shares (8), equal holdings (2): a arrived first, but used more lately.
  std::vector<AdmissionCandidate> c = {{2, 8, 0, 1.0, 0, 6}, {2, 8, 0, 5.0, 1, 1}};
  EXPECT_EQ(AdmissionOrder(c), (std::vector<int>{1, 0}));
  c[0].queue_past_usage = 0;
  c[1].queue_past_usage = 0;
  EXPECT_EQ(AdmissionOrder(c), (std::vector<int>{0, 1}));  // Today's order: arrival.
  EXPECT_EQ(ShareRatio(2, 8, 6), 1.0);
  EXPECT_EQ(HeldAtRatio(1.0, 8, 6), 2.0);
}

TEST(PastUsageOrder, AZeroPastUsageLeavesTheRatioBitForBit) {
  for (double held : {0.0, 1.0 / 3, 7.25, 1e-9}) {
    EXPECT_EQ(ShareRatio(held, 3.7, 0), ShareRatio(held, 3.7));
    EXPECT_EQ(HeldAtRatio(held, 3.7, 0), held * 3.7);
  }
}

// Queues a and b of weight 1 on one rack of `nodes` 8-GPU nodes, with these past usages.
Scenario TwoQueues(int nodes, double a_past, double b_past) {
  Scenario s(SmallCluster(1, nodes));
  s.Queue("a").Queue("b");
  s.QueueNamed("a").past_usage = a_past;
  s.QueueNamed("b").past_usage = b_past;
  return s;
}

// One 8-GPU node; a and b each run a 2-GPU gang and wait with a 4-GPU gang: only one of those fits.
// Fair shares 4 and 4, held 2 and 2; b's gang arrived first.
Scenario TwoQueuesHoldingAlike(double a_past, double b_past) {
  Scenario s = TwoQueues(1, a_past, b_past);
  s.Running("ra", "a", 0, {{"k0-n0", 2}}).Running("rb", "b", 0, {{"k0-n0", 2}});
  s.Waiting("wa", "a", 20, 1, 4).Waiting("wb", "b", 10, 1, 4);
  s.input.now = 100;
  return s;
}

TEST(PastUsageOrder, TheRoundAdmitsTheQueueThatUsedLessLately) {
  Scenario today = TwoQueuesHoldingAlike(0, 0);
  EXPECT_THAT(AdmittedNames(today.input, Decide(today)), ::testing::ElementsAre("wb"));  // Arrival breaks the tie.
  Scenario b_used_more = TwoQueuesHoldingAlike(0, 3);
  EXPECT_THAT(AdmittedNames(b_used_more.input, Decide(b_used_more)), ::testing::ElementsAre("wa"));
  Scenario a_used_more = TwoQueuesHoldingAlike(3, 0);
  EXPECT_THAT(AdmittedNames(a_used_more.input, Decide(a_used_more)), ::testing::ElementsAre("wb"));
}

TEST(PastUsageOrder, ARoundRefusesNegativePastUsage) {
  Scenario s = TwoQueuesHoldingAlike(-1, 0);
  EXPECT_THROW(Decide(s), std::invalid_argument);
}

// Two 8-GPU nodes; a runs four 4-GPU gangs (16 GPUs), b waits with one 4-GPU gang. Fair shares: b 4,
// a 12. Without history a may be taken down to b's ratio (0): one gang goes.
Scenario ReclaimFromA(double a_past, double b_past) {
  Scenario s = TwoQueues(2, a_past, b_past);
  s.Running("A1", "a", 0, {{"k0-n0", 4}}).Running("A2", "a", 10, {{"k0-n0", 4}});
  s.Running("A3", "a", 20, {{"k0-n1", 4}}).Running("A4", "a", 30, {{"k0-n1", 4}});
  s.Waiting("B", "b", 100, 1, 4);
  s.input.now = 10000;
  return s;
}

TEST(PastUsageReclaim, TheBeneficiarysPastRaisesTheFloorAndTheVictimsLowersIt) {
  Scenario plain = ReclaimFromA(0, 0);
  EXPECT_EQ(VictimNames(plain.input, Decide(plain, WithReclaim())).size(), 1u);
  // b used 12 GPUs lately: its ratio is (0 + 12) / 4 = 3, so a may keep 3 x 12 = 36 > 16: nothing to take.
  Scenario b_used_more = ReclaimFromA(0, 12);
  EXPECT_THAT(VictimNames(b_used_more.input, Decide(b_used_more, WithReclaim())), ::testing::IsEmpty());
  // a used 30 lately as well: its floor is 36 - 30 = 6 GPUs, so one 4-GPU gang may go again.
  Scenario both_used = ReclaimFromA(30, 12);
  EXPECT_EQ(VictimNames(both_used.input, Decide(both_used, WithReclaim())).size(), 1u);
}

}  // namespace
}  // namespace gangplank::engine::testing
