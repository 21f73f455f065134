// Consolidation in the reconciler: with spec.preemption.consolidation on, a waiting whole-node pod of a
// queue with room in its fair share gets a node emptied by moving a lone pod its controller recreates
// into the hole on the other node: a Consolidation event on the moved gang, the evictions metric by
// kind, and no charge to the pool's eviction budget. A bare pod is never moved, and nothing is unless
// the GPUPool asks.
#include <gtest/gtest.h>

#include "tests/operator/support/reconciler_fixture.h"

namespace gangplank::op {
namespace {

class Consolidating : public testing::ReconcilerTest {
 protected:
  void SetUp() override { Configure(true); }

  void Configure(bool enabled) {
    pool_.preemption.reclaim = false;
    pool_.preemption.consolidation.enabled = enabled;
    Remake();
    Node("n0", 8, "r0");
    Node("n1", 8, "r1");
  }

  // A 4-GPU pod of team-b running on `node` for hours, which checkpointed a minute ago; owned by a Job
  // unless `bare`.
  void Half(const std::string& name, const std::string& node, bool bare = false) {
    cache::PodInfo p = AdmittedPod(name, "", 4, "team-b", node);
    if (!bare) p.controller = cache::OwnerRef{"batch/v1", "Job", name, "uid-job-" + name};
    Add(p);
  }

  // Two half-busy nodes and team-a's 8-GPU pod, waiting past preemption.minWaitSeconds.
  void Fragmented(bool bare = false) {
    Half("eval-a", "n0", bare);
    Half("eval-b", "n1", bare);
    Waiting("big-0", "big", 8, "team-a", 1);
    now_ += pool_.preemption.min_wait_seconds + 1;
  }
};

TEST_F(Consolidating, AControllersLonePodIsMovedSoAWholeNodePodCanStart) {
  Fragmented();
  Reconcile();
  ASSERT_EQ(writer_.evicted().size(), 1u) << Reason("uid-big-0") << ": " << Message("uid-big-0");
  EXPECT_TRUE(HasEvent("Consolidation", "it fits on free GPUs elsewhere")) << writer_.log().back();
  EXPECT_TRUE(model_->recent_evictions.empty()) << "a move is not charged to maxGangsPerHour";
  EXPECT_NE(metrics_.Scrape().find("kind=\"Consolidation\""), std::string::npos);
  EXPECT_TRUE(Gated("uid-big-0")) << "it starts once the moved pod is gone";
}

TEST_F(Consolidating, ABarePodIsNeverMoved) {
  Fragmented(true);
  Reconcile();
  EXPECT_TRUE(writer_.evicted().empty());
}

TEST_F(Consolidating, NothingMovesUnlessTheGpuPoolAsks) {
  Configure(false);
  Fragmented();
  Reconcile();
  EXPECT_TRUE(writer_.evicted().empty());
}

}  // namespace
}  // namespace gangplank::op
