// The fault sequence: Llama 3's rate and mix, seeded and reproducible, no fault on a node out of service.
#include "simulator/faults/fault_sequence.h"

#include <gtest/gtest.h>

#include <map>

namespace gangplank::simulator {
namespace {

FaultModel Model(double per_node_day, std::uint64_t seed = 1) {
  FaultModel m;
  m.nodes = 200;
  m.faults_per_node_day = per_node_day;
  m.mix = Llama3FaultMix();
  m.repair_seconds = 4 * 3600;
  m.horizon = 100 * 86400;
  m.seed = seed;
  return m;
}

TEST(FaultSequence, Llama3sRateAndMixAreTheirPublishedCounts) {
  EXPECT_NEAR(Llama3FaultsPerNodeDay(), 419.0 / (2048 * 54), 1e-12);
  const FaultMix mix = Llama3FaultMix();
  EXPECT_DOUBLE_EQ(mix.gpu, 268);
  EXPECT_DOUBLE_EQ(mix.host, 56);
  EXPECT_DOUBLE_EQ(mix.maintenance, 32);
  EXPECT_DOUBLE_EQ(mix.software, 63);
}

TEST(FaultSequence, DrawsTheRateAndTheMixOverManyNodeDays) {
  const std::vector<InjectedFault> faults = DrawFaults(Model(0.05));  // 1000 expected over 20,000 node-days.
  EXPECT_GT(faults.size(), 900u);
  EXPECT_LT(faults.size(), 1100u);
  std::map<FaultKind, double> share;
  for (const InjectedFault& f : faults) share[f.kind] += 1.0 / static_cast<double>(faults.size());
  EXPECT_NEAR(share[FaultKind::kGpu], 268.0 / 419, 0.05);
  EXPECT_NEAR(share[FaultKind::kHost], 56.0 / 419, 0.04);
  EXPECT_NEAR(share[FaultKind::kMaintenance], 32.0 / 419, 0.03);
  EXPECT_NEAR(share[FaultKind::kSoftware], 63.0 / 419, 0.04);
}

TEST(FaultSequence, OrderedSeededAndNoFaultWhileANodeIsOut) {
  const std::vector<InjectedFault> a = DrawFaults(Model(0.5, 7));
  const std::vector<InjectedFault> b = DrawFaults(Model(0.5, 7));
  const std::vector<InjectedFault> other = DrawFaults(Model(0.5, 8));
  ASSERT_EQ(a.size(), b.size());
  ASSERT_FALSE(a.empty());
  EXPECT_NE(a.front().at, other.front().at);
  std::map<engine::NodeId, double> back_at;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].at, b[i].at);
    EXPECT_EQ(a[i].gpu, b[i].gpu);
    if (i > 0) {
      EXPECT_LE(a[i - 1].at, a[i].at);
    }
    EXPECT_GE(a[i].at, back_at[a[i].node]) << "node " << a[i].node << " failed again while out of service";
    back_at[a[i].node] = a[i].repaired_at;
    EXPECT_EQ(a[i].repaired_at, TakesNodeOut(a[i].kind) ? a[i].at + 4 * 3600 : a[i].at);
    EXPECT_GE(a[i].gpu, 0);
    EXPECT_LT(a[i].gpu, 8);
  }
  EXPECT_TRUE(DrawFaults(Model(0)).empty());
}

}  // namespace
}  // namespace gangplank::simulator
