#include "engine/fairshare/fair_share.h"

#include <gtest/gtest.h>

#include <numeric>

#include "engine/fairshare/admission_order.h"
#include "engine/random.h"

namespace gangplank::engine {
namespace {

constexpr double kEps = 1e-9;
constexpr double kInf = std::numeric_limits<double>::infinity();

ShareInput Q(double weight, double demand, double guaranteed = 0, double limit = kInf) {
  return ShareInput{weight, guaranteed, limit, demand};
}

void ExpectShares(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << "queue " << i;
}

TEST(WaterFill, NoDemandNoShare) {
  ExpectShares(WaterFill(100, {Q(1, 100), Q(1, 0), Q(5, 0, 50)}), {100, 0, 0});
}

TEST(WaterFill, SplitsByWeight) {
  // 100 GPUs, weights 1:1:2, everyone wants more than it can get: 25, 25, 50.
  ExpectShares(WaterFill(100, {Q(1, 100), Q(1, 100), Q(2, 100)}), {25, 25, 50});
}

TEST(WaterFill, DemandBelowShareIsRedistributed) {
  // A only wants 20; B and C split the other 80.
  ExpectShares(WaterFill(100, {Q(1, 20), Q(1, 100), Q(1, 100)}), {20, 40, 40});
  // Weights 1:3 with the heavier queue wanting only 30: 70 / 30.
  ExpectShares(WaterFill(100, {Q(1, 100), Q(3, 30)}), {70, 30});
}

TEST(WaterFill, LimitCapsAndTheRestIsRedistributed) {
  ExpectShares(WaterFill(100, {Q(1, 100, 0, 10), Q(1, 100), Q(2, 100)}), {10, 30, 60});
}

TEST(WaterFill, GuaranteeAboveWeightedShare) {
  // Equal weights would give 33.3 each; A's guarantee 60 is a floor, B and C share 40 equally.
  ExpectShares(WaterFill(100, {Q(1, 100, 60), Q(1, 100), Q(1, 100)}), {60, 20, 20});
  // A guarantee below the weighted share changes nothing.
  ExpectShares(WaterFill(90, {Q(1, 100, 10), Q(1, 100), Q(1, 100)}), {30, 30, 30});
  // A guarantee larger than the demand only reserves the demand.
  ExpectShares(WaterFill(100, {Q(1, 15, 60), Q(1, 100)}), {15, 85});
}

TEST(WaterFill, GuaranteeWithoutDemandIsLentOut) {
  ExpectShares(WaterFill(100, {Q(1, 0, 60), Q(1, 100), Q(1, 100)}), {0, 50, 50});
}

TEST(WaterFill, OversubscribedGuaranteesScaleDown) {
  // Floors 60 + 140 > 100: scaled to 30 / 70.
  ExpectShares(WaterFill(100, {Q(1, 200, 60), Q(1, 200, 140)}), {30, 70});
}

TEST(WaterFill, ZeroWeightGetsGuaranteeAndOnlyIdleCapacity) {
  ExpectShares(WaterFill(100, {Q(0, 50), Q(1, 100)}), {0, 100});
  ExpectShares(WaterFill(100, {Q(0, 50, 10), Q(1, 100)}), {10, 90});
  ExpectShares(WaterFill(100, {Q(0, 50), Q(1, 30)}), {50, 30});
  // Two weight-0 queues share the idle 70 evenly, the smaller capped at its demand: 20 and 50.
  ExpectShares(WaterFill(100, {Q(0, 20), Q(0, 80), Q(1, 30)}), {20, 50, 30});
}

TEST(WaterFill, UnboundedDemandIsCappedByThePool) {
  ExpectShares(WaterFill(100, {Q(1, kInf), Q(1, kInf)}), {50, 50});
  ExpectShares(WaterFill(100, {Q(1, kInf), Q(1, 0)}), {100, 0});
}

TEST(WaterFill, EveryoneSatisfiedWhenCapacitySuffices) {
  ExpectShares(WaterFill(100, {Q(1, 10), Q(2, 20, 5, 15)}), {10, 15});
}

TEST(WaterFill, RandomInputsRespectCapsFloorsAndCapacity) {
  Rng rng(7);
  for (int round = 0; round < 2000; ++round) {
    const double capacity = static_cast<double>(rng.Below(200));
    std::vector<ShareInput> queues;
    const int n = 1 + static_cast<int>(rng.Below(8));
    for (int i = 0; i < n; ++i) {
      ShareInput q;
      q.weight = static_cast<double>(rng.Below(4));
      q.demand = rng.Below(3) == 0 ? 0 : static_cast<double>(rng.Below(120));
      q.guaranteed = rng.Below(2) == 0 ? 0 : static_cast<double>(rng.Below(60));
      q.limit = rng.Below(3) == 0 ? static_cast<double>(rng.Below(80)) : kInf;
      queues.push_back(q);
    }
    const std::vector<double> shares = WaterFill(capacity, queues);
    double sum = 0, caps = 0, floors = 0;
    for (int i = 0; i < n; ++i) {
      const double cap = std::min(queues[i].demand, queues[i].limit);
      const double floor = std::min(queues[i].guaranteed, cap);
      EXPECT_GE(shares[i], -kEps);
      EXPECT_LE(shares[i], cap + kEps);
      if (queues[i].demand == 0) {
        EXPECT_EQ(shares[i], 0);
      }
      sum += shares[i];
      caps += cap;
      floors += floor;
    }
    EXPECT_LE(sum, capacity + 1e-6);
    EXPECT_NEAR(sum, std::min(capacity, caps), 1e-6) << "not work-conserving, round " << round;
    if (floors <= capacity) {
      for (int i = 0; i < n; ++i) {
        EXPECT_GE(shares[i], std::min(queues[i].guaranteed, std::min(queues[i].demand, queues[i].limit)) - 1e-6);
      }
    }
  }
}

TEST(ComputeFairShares, HierarchyDividesEachParentsShare) {
  QueueNode root{"root", 1, 0, kInf, 0, {}};
  QueueNode team1{"team1", 1, 0, kInf, 0, {}};
  team1.children = {QueueNode{"a", 1, 0, kInf, 100, {}}, QueueNode{"b", 1, 0, kInf, 10, {}}};
  QueueNode team2{"team2", 1, 0, kInf, 0, {}};
  team2.children = {QueueNode{"c", 1, 0, kInf, 100, {}}};
  QueueNode idle{"idle", 5, 0, kInf, 0, {}};
  root.children = {team1, team2, idle};
  const QueueShare shares = ComputeFairShares(100, root);
  EXPECT_NEAR(shares.share, 100, kEps);
  ASSERT_EQ(shares.children.size(), 3u);
  EXPECT_NEAR(shares.children[0].share, 50, kEps);
  EXPECT_NEAR(shares.children[0].children[0].share, 40, kEps);
  EXPECT_NEAR(shares.children[0].children[1].share, 10, kEps);
  EXPECT_NEAR(shares.children[1].share, 50, kEps);
  EXPECT_NEAR(shares.children[1].children[0].share, 50, kEps);
  EXPECT_NEAR(shares.children[2].share, 0, kEps);
  EXPECT_NEAR(shares.children[0].demand, 110, kEps);
}

TEST(AdmissionOrder, FurthestBelowShareThenPriorityThenArrival) {
  std::vector<AdmissionCandidate> c = {
      {50, 100, 0, 1.0, 0},   // ratio 0.5
      {10, 100, 0, 5.0, 1},   // ratio 0.1, late
      {10, 100, 5, 9.0, 2},   // ratio 0.1, higher priority
      {10, 100, 0, 2.0, 3},   // ratio 0.1, earlier than #1
      {0, 0, 9, 0.0, 4},      // no fair share: last despite priority
  };
  EXPECT_EQ(AdmissionOrder(c), (std::vector<int>{2, 3, 1, 0, 4}));
  EXPECT_EQ(ShareRatio(5, 0), std::numeric_limits<double>::infinity());
}

}  // namespace
}  // namespace gangplank::engine
