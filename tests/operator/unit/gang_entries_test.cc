// What a gang tells the engine about how long it runs (EASY backfill onto reserved nodes, and when a
// running gang's nodes free up): the pods' kubelet-enforced activeDeadlineSeconds, else the
// gangplank.io/expected-runtime annotation; nothing when neither is a positive number.
#include "operator/model/gang_entries.h"

#include <gtest/gtest.h>

#include "cache/state/cluster_state.h"
#include "tests/cache/support/state_builders.h"

namespace gangplank::op {
namespace {

Gang WaitingGang(const std::vector<cache::PodInfo>& pods) {
  Gang g;
  g.key = "ml/train";
  g.namespace_ = "ml";
  for (const cache::PodInfo& p : pods) {
    Member m;
    m.pod = p;
    m.gated = true;
    m.created = 100;
    g.members.push_back(m);
  }
  return g;
}

std::optional<double> DeclaredRuntime(const std::vector<cache::PodInfo>& pods) {
  cache::ClusterState state;
  EntryContext context;
  context.queue = "team-a";
  context.size = GangSize{static_cast<int>(pods.size()), "test"};
  const GangEntries entries =
      state.Read([&](const cache::StateView& view) { return BuildGangEntries(WaitingGang(pods), context, view); });
  EXPECT_TRUE(entries.waiting.has_value()) << entries.block_reason << ": " << entries.block_message;
  return entries.waiting ? entries.waiting->expected_runtime : std::nullopt;
}

TEST(GangEntries, AGangDeclaresItsRuntimeByActiveDeadlineElseByAnnotation) {
  cache::PodInfo a = cache::testing::GpuPod("train-0", {.gpus = 8});
  cache::PodInfo b = cache::testing::GpuPod("train-1", {.gpus = 8});
  EXPECT_FALSE(DeclaredRuntime({a, b}).has_value());

  a.annotations["gangplank.io/expected-runtime"] = "3600";
  EXPECT_EQ(DeclaredRuntime({a, b}), 3600);
  b.annotations["gangplank.io/expected-runtime"] = "7200";
  EXPECT_EQ(DeclaredRuntime({a, b}), 7200) << "the gang runs as long as its longest member";

  // The kubelet-enforced deadline wins over the pod's own annotation: it cannot be understated.
  b.active_deadline_seconds = 600;
  EXPECT_EQ(DeclaredRuntime({a, b}), 3600);
  a.active_deadline_seconds = 900;
  EXPECT_EQ(DeclaredRuntime({a, b}), 900);

  cache::PodInfo bad = cache::testing::GpuPod("train-0", {.gpus = 8});
  for (const char* text : {"soon", "-5", "0", "3600s", "inf"}) {
    bad.annotations["gangplank.io/expected-runtime"] = text;
    EXPECT_FALSE(DeclaredRuntime({bad}).has_value()) << text;
  }
}

}  // namespace
}  // namespace gangplank::op
