// Assumed bindings (ClusterState::AssumeBound) as kube-scheduler's assume cache keeps them: held until
// the informer confirms them, kept while the informer still shows the pod unbound, undone when they
// expire unconfirmed; pods created and bound within the informer's lag are assumed from the binder's
// copy and forgotten if the informer never reports them.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "cache/state/assume_expiry.h"
#include "cache/state/cluster_state.h"
#include "tests/cache/support/state_builders.h"

namespace gangplank::cache {
namespace {

using namespace std::chrono_literals;
using testing::GpuNode;
using testing::GpuPod;
using Clock = std::chrono::steady_clock;

int FreeGpus(const ClusterState& state, const std::string& node) {
  return state.Read([&](const StateView& v) { return v.cluster().state(v.FindNode(node)).FullyFreeGpus(); });
}

size_t Assumed(const ClusterState& state) {
  return state.Read([](const StateView& v) { return v.assumed_count(); });
}

TEST(AssumeCache, UnconfirmedBindingExpiresAfterTheTtlAndThePodIsUnboundAgain) {
  ClusterState state;
  state.SetAssumedPodTtl(30s);
  state.UpsertNode(GpuNode("n1", 8));
  state.UpsertPod(GpuPod("p", {.gpus = 4}));
  ASSERT_TRUE(state.AssumeBound("uid-p", "n1"));
  EXPECT_EQ(FreeGpus(state, "n1"), 4);
  EXPECT_TRUE(state.ExpireAssumed(Clock::now() + 20s).empty()) << "not due yet";
  // The informer's events that still show the pod unbound (it has not caught up) keep the assumption.
  state.UpsertPod(GpuPod("p", {.gpus = 4, .priority = 3}));
  EXPECT_EQ(FreeGpus(state, "n1"), 4);
  EXPECT_EQ(Assumed(state), 1u);
  const std::vector<ExpiredAssumption> expired = state.ExpireAssumed(Clock::now() + 31s);
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].uid, "uid-p");
  EXPECT_EQ(expired[0].pod, "ml/p");
  EXPECT_EQ(expired[0].node, "n1");
  EXPECT_TRUE(expired[0].informer_saw_pod);
  EXPECT_EQ(FreeGpus(state, "n1"), 8);  // Back to what the informer says: pending, holding nothing.
  EXPECT_EQ(Assumed(state), 0u);
  state.Read([](const StateView& v) {
    ASSERT_NE(v.FindPod("uid-p"), nullptr);
    EXPECT_TRUE(v.FindPod("uid-p")->node.empty());
  });
  EXPECT_TRUE(state.ExpireAssumed(Clock::now() + 1h).empty()) << "expires once";
}

TEST(AssumeCache, ConfirmedBindingNeverExpires) {
  ClusterState state;
  state.SetAssumedPodTtl(1s);
  state.UpsertNode(GpuNode("n1", 8));
  state.UpsertPod(GpuPod("p", {.gpus = 2}));
  ASSERT_TRUE(state.AssumeBound("uid-p", "n1"));
  state.UpsertPod(GpuPod("p", {.node = "n1", .gpus = 2}));  // The informer confirms.
  EXPECT_EQ(Assumed(state), 0u);
  EXPECT_TRUE(state.ExpireAssumed(Clock::now() + 1h).empty());
  EXPECT_EQ(FreeGpus(state, "n1"), 6);
}

TEST(AssumeCache, ExpiredAssumptionGivesAPlannedPodItsReservationBack) {
  ClusterState state;
  state.SetAssumedPodTtl(5s);
  state.UpsertNode(GpuNode("n1", 8));
  state.UpsertNode(GpuNode("n2", 8));
  state.UpsertPod(GpuPod("p", {.planned = "n1", .gpus = 4}));
  ASSERT_TRUE(state.AssumeBound("uid-p", "n2"));
  EXPECT_EQ(FreeGpus(state, "n1"), 8);
  EXPECT_EQ(FreeGpus(state, "n2"), 4);
  ASSERT_EQ(state.ExpireAssumed(Clock::now() + 6s).size(), 1u);
  EXPECT_EQ(FreeGpus(state, "n1"), 4);
  EXPECT_EQ(FreeGpus(state, "n2"), 8);
  state.Read([](const StateView& v) { EXPECT_EQ(v.reservation_count(), 1u); });
}

TEST(AssumeCache, InformerReportingAnotherNodeOrTheEndReplacesTheAssumption) {
  ClusterState state;
  state.UpsertNode(GpuNode("n1", 8));
  state.UpsertNode(GpuNode("n2", 8));
  state.UpsertPod(GpuPod("a", {.gpus = 2}));
  state.UpsertPod(GpuPod("b", {.gpus = 2}));
  ASSERT_TRUE(state.AssumeBound("uid-a", "n1"));
  ASSERT_TRUE(state.AssumeBound("uid-b", "n1"));
  state.UpsertPod(GpuPod("a", {.node = "n2", .gpus = 2}));  // The API server's truth wins.
  state.UpsertPod(GpuPod("b", {.gpus = 2, .phase = "Failed"}));
  EXPECT_EQ(FreeGpus(state, "n1"), 8);
  EXPECT_EQ(FreeGpus(state, "n2"), 6);
  EXPECT_EQ(Assumed(state), 0u);
  EXPECT_TRUE(state.ExpireAssumed(Clock::now() + 1h).empty());
}

TEST(AssumeCache, PodTheInformerHasNotSeenIsAssumedFromTheBindersCopy) {
  ClusterState state;
  state.SetAssumedPodTtl(10s);
  state.UpsertNode(GpuNode("n1", 8));
  const PodInfo fresh = GpuPod("fresh", {.gang = "g", .gpus = 3});
  EXPECT_FALSE(state.AssumeBound("uid-fresh", "n1")) << "by UID alone there is nothing to hold";
  ASSERT_TRUE(state.AssumeBound(fresh, "n1"));
  EXPECT_EQ(FreeGpus(state, "n1"), 5);
  state.Read([](const StateView& v) {
    EXPECT_EQ(v.pod_count(), 1u);
    EXPECT_EQ(v.GangMembers("ml/g").size(), 1u);
  });
  // Never reported by the informer (created and deleted in its blind spot): forgotten on expiry.
  const auto expired = state.ExpireAssumed(Clock::now() + 11s);
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_FALSE(expired[0].informer_saw_pod);
  EXPECT_EQ(FreeGpus(state, "n1"), 8);
  state.Read([](const StateView& v) {
    EXPECT_EQ(v.pod_count(), 0u);
    EXPECT_EQ(v.FindPod("uid-fresh"), nullptr);
    EXPECT_TRUE(v.GangMembers("ml/g").empty());
  });
}

TEST(AssumeCache, LateInformerAddOfAnAssumedPodKeepsItHeldOnce) {
  ClusterState state;
  state.UpsertNode(GpuNode("n1", 8));
  ASSERT_TRUE(state.AssumeBound(GpuPod("fresh", {.gpus = 3}), "n1"));
  state.UpsertPod(GpuPod("fresh", {.gpus = 3}));  // The informer's ADDED, from before the binding.
  EXPECT_EQ(FreeGpus(state, "n1"), 5);
  state.UpsertPod(GpuPod("fresh", {.node = "n1", .gpus = 3}));  // Then the binding itself.
  EXPECT_EQ(FreeGpus(state, "n1"), 5);
  EXPECT_EQ(Assumed(state), 0u);
  state.DeletePod("uid-fresh");
  EXPECT_EQ(FreeGpus(state, "n1"), 8);
}

TEST(AssumeCache, DeletedAssumedPodLeavesNothingBehindAndZeroTtlNeverExpires) {
  ClusterState state;
  state.SetAssumedPodTtl(0s);
  state.UpsertNode(GpuNode("n1", 8));
  ASSERT_TRUE(state.AssumeBound(GpuPod("a", {.gpus = 1}), "n1"));
  ASSERT_TRUE(state.AssumeBound(GpuPod("b", {.gpus = 1}), "n1"));
  EXPECT_FALSE(state.AssumeBound(GpuPod("done", {.gpus = 1, .phase = "Succeeded"}), "n1"));
  EXPECT_FALSE(state.AssumeBound(GpuPod("elsewhere", {.node = "n2", .gpus = 1}), "n1"));
  state.DeletePod("uid-a");
  EXPECT_EQ(Assumed(state), 1u);
  EXPECT_TRUE(state.ExpireAssumed(Clock::time_point::max() - 1h).empty());
  EXPECT_EQ(FreeGpus(state, "n1"), 7);
}

TEST(AssumeCache, ExpiryRunsOnItsOwnThreadAndReportsWhatExpired) {
  ClusterState state;
  state.SetAssumedPodTtl(50ms);
  state.UpsertNode(GpuNode("n1", 8));
  std::atomic<int> reported{0};
  {
    AssumeExpiry expiry(state, 10ms, [&](const std::vector<ExpiredAssumption>& expired) {
      reported += static_cast<int>(expired.size());
    });
    ASSERT_TRUE(state.AssumeBound(GpuPod("p", {.gpus = 4}), "n1"));
    const auto deadline = Clock::now() + 10s;
    while (reported.load() == 0 && Clock::now() < deadline) std::this_thread::sleep_for(5ms);
  }  // Stops and joins.
  EXPECT_EQ(reported.load(), 1);
  EXPECT_EQ(FreeGpus(state, "n1"), 8);
}

}  // namespace
}  // namespace gangplank::cache
