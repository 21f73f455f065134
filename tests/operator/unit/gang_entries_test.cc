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

namespace gangplank::op {
namespace {

// A framework replaced one lost worker of a running gang that requires one NVLink clique: the
// replacement is pinned to the clique its gang runs in, not placed as a gang of its own elsewhere.
TEST(GangEntries, AReplacementMemberOfARunningGangIsPinnedToItsGangsDomain) {
  cache::ClusterState state;
  for (const auto& [node, clique] : {std::pair{"a0", "k0"}, std::pair{"a1", "k0"}, std::pair{"b0", "k1"}}) {
    state.UpsertNode(cache::testing::GpuNode(node, 8, "H100", {{"nvidia.com/gpu.clique", clique}}));
  }
  cache::PodInfo running = cache::testing::GpuPod("train-0", {.node = "a0", .gpus = 8});
  running.annotations["gangplank.io/topology-required"] = "nvidia.com/gpu.clique";
  state.UpsertPod(running);
  cache::PodInfo replacement = cache::testing::GpuPod("train-2", {.gpus = 8});
  replacement.annotations["gangplank.io/topology-required"] = "nvidia.com/gpu.clique";

  Gang gang = WaitingGang({running, replacement});
  gang.members[0].gated = false;
  EntryContext context;
  context.queue = "team-a";
  context.size = GangSize{2, "test"};
  const GangEntries entries = state.Read([&](const cache::StateView& v) { return BuildGangEntries(gang, context, v); });
  ASSERT_TRUE(entries.running.has_value());
  ASSERT_TRUE(entries.waiting.has_value()) << entries.block_reason << ": " << entries.block_message;
  ASSERT_EQ(entries.waiting->request.members.size(), 1u);
  EXPECT_EQ(entries.waiting->request.members[0].node_selector.at("nvidia.com/gpu.clique"), "k0");

  // Without a required level the replacement goes wherever it fits.
  for (Member& m : gang.members) m.pod.annotations.erase("gangplank.io/topology-required");
  const GangEntries free = state.Read([&](const cache::StateView& v) { return BuildGangEntries(gang, context, v); });
  ASSERT_TRUE(free.waiting.has_value());
  EXPECT_TRUE(free.waiting->request.members[0].node_selector.empty());
}

}  // namespace
}  // namespace gangplank::op

namespace gangplank::op {
namespace {

// A placeholder pod labelled into a gang long before its other members buys the gang no place in its
// queue: the gang arrives when its last needed member does (review item L3).
TEST(GangEntries, AGangArrivesWhenItIsCompleteNotWithAnOldPlaceholder) {
  Gang g = WaitingGang({cache::testing::GpuPod("train-0", {.gpus = 8}), cache::testing::GpuPod("train-1", {.gpus = 8}),
                        cache::testing::GpuPod("train-2", {.gpus = 8})});
  g.members[0].created = 10;    // The placeholder, an hour early.
  g.members[1].created = 3600;
  g.members[2].created = 3610;  // Spare: the gang needs two.
  cache::ClusterState state;
  EntryContext context;
  context.queue = "team-a";
  context.size = GangSize{2, "test"};
  const GangEntries entries = state.Read([&](const cache::StateView& view) { return BuildGangEntries(g, context, view); });
  ASSERT_TRUE(entries.waiting.has_value()) << entries.block_reason;
  EXPECT_EQ(entries.waiting->arrival, 3600);
}

}  // namespace
}  // namespace gangplank::op

namespace gangplank::op {
namespace {

// An operator killed while planning an 8-pod gang: one member still carries the old plan (its write
// landed after the kill), the other seven wait. Were the planned member counted as running, the seven
// would be admitted as its "replacements" under a second admission and the gang split in two (seen in
// CI). Nothing of the gang is admitted until recovery has finished or rolled back the old plan; the
// same holds when this copy of the gang is older than the view (the view already has the plan).
TEST(GangEntries, AGatedMemberHoldingAPlanKeepsTheRestOfItsGangWaiting) {
  cache::ClusterState state;
  for (int i = 0; i < 8; ++i) state.UpsertNode(cache::testing::GpuNode("n" + std::to_string(i), 8, "H100"));
  std::vector<cache::PodInfo> pods;
  for (int i = 0; i < 8; ++i) pods.push_back(cache::testing::GpuPod("first-" + std::to_string(i), {.gpus = 4}));
  pods[2].annotations["gangplank.io/planned-node"] = "n2";
  state.UpsertPod(pods[2]);
  EntryContext context;
  context.queue = "team-a";
  context.size = GangSize{8, "test"};

  Gang gang = WaitingGang(pods);
  gang.members[2].planned_node = "n2";
  gang.members[2].admission_id = "old";
  const GangEntries half = state.Read([&](const cache::StateView& v) { return BuildGangEntries(gang, context, v); });
  EXPECT_FALSE(half.waiting.has_value()) << "the seven were admitted beside a half-written plan";

  Gang stale = WaitingGang(pods);  // This copy predates the plan the view already holds.
  const GangEntries behind = state.Read([&](const cache::StateView& v) { return BuildGangEntries(stale, context, v); });
  EXPECT_FALSE(behind.waiting.has_value()) << "a copy older than the view was planned";

  // Once the old plan is gone, the gang waits whole again.
  pods[2].annotations.erase("gangplank.io/planned-node");
  state.UpsertPod(pods[2]);
  const GangEntries whole = state.Read([&](const cache::StateView& v) { return BuildGangEntries(stale, context, v); });
  ASSERT_TRUE(whole.waiting.has_value()) << whole.block_reason << ": " << whole.block_message;
  EXPECT_EQ(whole.waiting->request.members.size(), 8u);
  EXPECT_EQ(whole.waiting->request.min_members, 8);
}

}  // namespace
}  // namespace gangplank::op

namespace gangplank::op {
namespace {

// A native PodGroup's terms reach the engine: its topology key when the pool has that level (else the
// pod's annotation stands), its resolved priority over the pods', and basic{} as one pod at a time even
// once some of the group run.
TEST(GangEntries, ANativePodGroupsTermsReachTheEngine) {
  cache::ClusterState state({"nvidia.com/gpu.clique", "kubernetes.io/hostname"});
  state.UpsertNode(cache::testing::GpuNode("a0", 8, "H100", {{"nvidia.com/gpu.clique", "k0"}}));
  cache::PodInfo a = cache::testing::GpuPod("train-0", {.gpus = 8});
  cache::PodInfo b = cache::testing::GpuPod("train-1", {.gpus = 8});
  a.priority = b.priority = 5;
  a.annotations["gangplank.io/topology-required"] = "kubernetes.io/hostname";
  Gang gang = WaitingGang({a, b});
  EntryContext context;
  context.queue = "team-a";
  GangSize size{2, "PodGroup ml/train spec.schedulingPolicy.gang.minCount"};
  size.topology_key = "nvidia.com/gpu.clique";
  size.priority = 1000;
  context.size = size;
  auto build = [&] { return state.Read([&](const cache::StateView& v) { return BuildGangEntries(gang, context, v); }); };
  GangEntries entries = build();
  ASSERT_TRUE(entries.waiting.has_value()) << entries.block_reason << ": " << entries.block_message;
  EXPECT_EQ(entries.waiting->request.required_level, "nvidia.com/gpu.clique");
  EXPECT_EQ(entries.waiting->request.priority, 1000);
  EXPECT_EQ(entries.waiting->request.min_members, 2);

  // A key the pool does not know is the scheduler's own business: the pod's annotation stays.
  context.size->topology_key = "example.com/rack";
  context.size->priority.reset();
  entries = build();
  ASSERT_TRUE(entries.waiting.has_value());
  EXPECT_EQ(entries.waiting->request.required_level, "kubernetes.io/hostname");
  EXPECT_EQ(entries.waiting->request.priority, 5);

  // basic{}: one at a time, also beside a running member (a gang would admit its replacements together).
  context.size = GangSize{1, "PodGroup ml/serve spec.schedulingPolicy.basic (each pod on its own)"};
  context.size->singly = true;
  cache::PodInfo running = cache::testing::GpuPod("serve-0", {.node = "a0", .gpus = 4});
  state.UpsertPod(running);
  gang = WaitingGang({running, cache::testing::GpuPod("serve-1", {.gpus = 2}), cache::testing::GpuPod("serve-2", {.gpus = 2})});
  gang.members[0].gated = false;
  gang.members[2].created = 200;  // serve-1 (100) is older.
  entries = build();
  ASSERT_TRUE(entries.running.has_value());
  ASSERT_TRUE(entries.waiting.has_value()) << entries.block_reason;
  EXPECT_EQ(entries.waiting->request.min_members, 1);
  ASSERT_EQ(entries.waiting_pods.size(), 1u);  // One pod at a time, the oldest first.
  EXPECT_EQ(entries.waiting_pods[0].name, "serve-1");
}

}  // namespace
}  // namespace gangplank::op

namespace gangplank::op {
namespace {

// An exclusive LeaderWorkerSet group is planned as its leader plus copies of it for the workers still to
// come. Their number is the tenant's own field: a group that could never fit the pool is refused before
// any copy is made, so a declared size of tens of thousands costs a round nothing.
TEST(GangEntries, AGroupWhoseLaterMembersCouldNeverFitThePoolIsRefusedUnplanned) {
  cache::ClusterState state;
  state.UpsertNode(cache::testing::GpuNode("a0", 8, "H100"));
  state.UpsertNode(cache::testing::GpuNode("a1", 8, "H100"));
  Gang gang = WaitingGang({cache::testing::GpuPod("serve-0", {.gpus = 8})});
  gang.members[0].request.gpu_count = 8;
  gang.members[0].request.gpu_milli = engine::kMilliPerGpu;
  EntryContext context;
  context.queue = "team-a";
  context.size = GangSize{1, "LeaderWorkerSet ml/serve spec.leaderWorkerTemplate.size"};
  auto build = [&](int later) {
    context.size->later_members = later;
    return state.Read([&](const cache::StateView& v) { return BuildGangEntries(gang, context, v); });
  };

  const GangEntries fits = build(1);  // 2 x 8 GPUs on 16.
  ASSERT_TRUE(fits.waiting.has_value()) << fits.block_reason << ": " << fits.block_message;
  EXPECT_EQ(fits.waiting->request.members.size(), 2u);

  for (int later : {2, 99999}) {
    const GangEntries refused = build(later);
    EXPECT_FALSE(refused.waiting.has_value()) << later;
    EXPECT_EQ(refused.block_reason, "GangExceedsPool");
  }
  EXPECT_EQ(build(2).block_message, "3 members of 8 GPUs each ask more than the pool's 16 GPUs");

  // Members without GPUs are bounded by the pods the pool's nodes may run.
  gang.members[0].request = engine::PodRequest{};
  EXPECT_TRUE(build(219).waiting.has_value());
  EXPECT_EQ(build(220).block_message, "221 members are more pods than the pool's 2 nodes may run (110 each)");
}

// An exclusive LeaderWorkerSet group is of its namespace's exclusive class, waiting and running, so the
// engine keeps the namespace's other groups out of its domain, as its pods' anti-affinity will.
TEST(GangEntries, AnExclusiveLeaderWorkerSetGroupIsOfItsNamespacesExclusiveClass) {
  cache::ClusterState state({"nvidia.com/gpu.clique", "kubernetes.io/hostname"});
  state.UpsertNode(cache::testing::GpuNode("a0", 8, "H100", {{"nvidia.com/gpu.clique", "k0"}}));
  state.UpsertNode(cache::testing::GpuNode("a1", 8, "H100", {{"nvidia.com/gpu.clique", "k0"}}));
  cache::PodInfo running = cache::testing::GpuPod("serve-0-1", {.node = "a0", .gpus = 8});
  state.UpsertPod(running);
  Gang gang = WaitingGang({running, cache::testing::GpuPod("serve-0-2", {.gpus = 8})});
  gang.members[0].gated = false;
  EntryContext context;
  context.queue = "team-a";
  GangSize size{2, "LeaderWorkerSet ml/serve exclusive-topology"};
  size.topology_key = "nvidia.com/gpu.clique";
  size.exclusive_domain = true;
  context.size = size;
  auto build = [&] { return state.Read([&](const cache::StateView& v) { return BuildGangEntries(gang, context, v); }); };
  GangEntries entries = build();
  ASSERT_TRUE(entries.waiting.has_value()) << entries.block_reason << ": " << entries.block_message;
  ASSERT_TRUE(entries.running.has_value());
  EXPECT_EQ(entries.waiting->request.exclusive_class, "LeaderWorkerSet groups of ml");
  EXPECT_EQ(entries.running->exclusive_class, "LeaderWorkerSet groups of ml");
  EXPECT_EQ(entries.waiting->request.required_level, "nvidia.com/gpu.clique");

  context.size->topology_key = "example.com/rack";  // Not a level of the pool: kube-scheduler's to keep.
  entries = build();
  EXPECT_EQ(entries.waiting->request.exclusive_class, "");
  EXPECT_EQ(entries.running->exclusive_class, "");
  context.size->topology_key = "nvidia.com/gpu.clique";
  context.size->exclusive_domain = false;  // A native PodGroup's topology: one domain, not an exclusive one.
  EXPECT_EQ(build().waiting->request.exclusive_class, "");
}

// Consolidation may move a running lone pod only when its controller recreates it, and places it as the
// pod itself asks; a bare pod would be gone, and a gang of several is never moved. Only a pool that
// consolidates has the request copied.
TEST(GangEntries, OnlyALonePodWithAControllerMayBeMovedAndAsItAsks) {
  cache::ClusterState state;
  state.UpsertNode(cache::testing::GpuNode("a0", 8, "A100"));
  cache::PodInfo pod = cache::testing::GpuPod("eval-0", {.node = "a0", .gpus = 2});
  state.UpsertPod(pod);
  bool consolidates = true;
  auto build = [&](const Gang& gang, int size) {
    EntryContext context;
    context.queue = "team-a";
    context.size = GangSize{size, "test"};
    context.movable = consolidates;
    return state.Read([&](const cache::StateView& v) { return BuildGangEntries(gang, context, v); });
  };
  Gang gang = WaitingGang({pod});
  gang.members[0].gated = false;
  gang.members[0].request.gpu_count = 2;
  gang.members[0].request.gpu_milli = engine::kMilliPerGpu;
  gang.members[0].request.node_selector = {{"example.com/disk", "ssd"}};
  GangEntries entries = build(gang, 1);
  ASSERT_TRUE(entries.running.has_value()) << entries.block_reason << ": " << entries.block_message;
  EXPECT_FALSE(entries.running->move_as.has_value()) << "a bare pod has no controller to recreate it";

  gang.members[0].pod.controller = cache::OwnerRef{"batch/v1", "Job", "eval", "uid-1"};
  entries = build(gang, 1);
  ASSERT_TRUE(entries.running && entries.running->move_as);
  EXPECT_EQ(entries.running->move_as->gpu_count, 2);
  EXPECT_EQ(entries.running->move_as->node_selector.at("example.com/disk"), "ssd") << "moved only where it may run";
  gang.members[0].pod.resource_claims = {{"gpus", "shared-gpus", ""}};  // A claim other pods may hold too.
  entries = build(gang, 1);
  ASSERT_TRUE(entries.running.has_value());
  EXPECT_FALSE(entries.running->move_as.has_value()) << "a shared claim keeps its devices where the pod ran";
  gang.members[0].pod.resource_claims = {{"gpus", "", "one-gpu"}};  // Made from a template: its own.
  EXPECT_TRUE(build(gang, 1).running->move_as.has_value());
  gang.members[0].pod.resource_claims.clear();
  consolidates = false;
  entries = build(gang, 1);
  ASSERT_TRUE(entries.running.has_value());
  EXPECT_FALSE(entries.running->move_as.has_value()) << "a pool that does not consolidate copies no request";
  consolidates = true;

  cache::PodInfo other = cache::testing::GpuPod("eval-1", {.node = "a0", .gpus = 2});
  state.UpsertPod(other);
  Gang pair = WaitingGang({pod, other});
  for (Member& m : pair.members) {
    m.gated = false;
    m.pod.controller = cache::OwnerRef{"batch/v1", "Job", "eval", "uid-1"};
  }
  entries = build(pair, 2);
  ASSERT_TRUE(entries.running.has_value()) << entries.block_reason << ": " << entries.block_message;
  EXPECT_FALSE(entries.running->move_as.has_value());
}

}  // namespace
}  // namespace gangplank::op
