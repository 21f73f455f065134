#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cache/crd/pool_config.h"
#include "cache/crd/queue_access.h"
#include "cache/crd/queue_config.h"
#include "cache/objects/decode_error.h"
#include "tests/cache/support/decode_errors.h"

namespace gangplank::cache {
namespace {

using Json = nlohmann::json;
using testing::ErrorOf;

TEST(QueueConfig, ReadsTreeWeightsQuotasAndPolicy) {
  const QueueConfig q = QueueConfigFromObject(Json::parse(R"({"metadata":{"name":"team-a"},"spec":{
      "parent":"org","weight":2.5,"pools":[{"name":"a100","guaranteedGPUs":16,"limitGPUs":64},{"name":"h100"}],
      "preemption":{"withinQueue":"LowerPriority","minRuntimeSeconds":120}}})"));
  EXPECT_EQ(q.name, "team-a");
  EXPECT_EQ(q.parent, "org");
  EXPECT_DOUBLE_EQ(q.weight, 2.5);
  ASSERT_NE(q.QuotaIn("a100"), nullptr);
  EXPECT_EQ(q.QuotaIn("a100")->guaranteed_gpus, 16);
  EXPECT_EQ(q.QuotaIn("a100")->limit_gpus, 64);
  EXPECT_EQ(q.QuotaIn("h100")->guaranteed_gpus, 0);
  EXPECT_FALSE(q.QuotaIn("h100")->limit_gpus.has_value());
  EXPECT_EQ(q.QuotaIn("t4"), nullptr);  // Lists pools: only those.
  EXPECT_TRUE(q.preempt_lower_priority);
  EXPECT_EQ(q.min_runtime_seconds, 120);
}

TEST(QueueConfig, DefaultsAsTheCrdDeclares) {
  const QueueConfig q = QueueConfigFromObject(Json::parse(R"({"metadata":{"name":"solo"},"spec":{}})"));
  EXPECT_EQ(q.parent, "");
  EXPECT_DOUBLE_EQ(q.weight, 1);
  ASSERT_NE(q.QuotaIn("anything"), nullptr);  // No pools listed: every pool, no guarantee, no limit.
  EXPECT_FALSE(q.QuotaIn("anything")->limit_gpus.has_value());
  EXPECT_FALSE(q.preempt_lower_priority);
}

// A tenant writes its pods' queue label: a queue that names no namespaces takes only the namespaces an
// admin labelled for it.
TEST(QueueConfig, AQueueNamingNoNamespacesIsClosedButToTheNamespacesLabelledForIt) {
  const QueueConfig closed = QueueConfigFromObject(Json::parse(R"({"metadata":{"name":"team-a"},"spec":{}})"));
  EXPECT_FALSE(closed.namespaces.has_value());
  EXPECT_EQ(QueueAccessRefusal(closed, "ml", "team-a", 0), "");
  EXPECT_EQ(QueueAccessRefusal(closed, "intruder", "", 0),
            "namespace intruder may not use queue team-a (it lists no spec.namespaces and the namespace is not labelled "
            "gangplank.io/queue=team-a)");
  EXPECT_NE(QueueAccessRefusal(closed, "other", "team-b", 0), "");
  // Not named by the pod (the admin's default queue for namespaces without a label): the admin's choice.
  EXPECT_EQ(QueueAccessRefusal(closed, "unlabelled", "", 0, false), "");
}

TEST(QueueConfig, NamespacesAndMaxPriorityBoundWhoMayUseIt) {
  const QueueConfig q = QueueConfigFromObject(
      Json::parse(R"({"metadata":{"name":"team-a"},"spec":{"namespaces":["team-a","team-a-ci"],"maxPriority":500}})"));
  EXPECT_EQ(q.namespaces, (std::vector<std::string>{"team-a", "team-a-ci"}));
  EXPECT_EQ(q.max_priority, 500);
  EXPECT_EQ(QueueAccessRefusal(q, "team-a-ci", "", 500), "");
  EXPECT_EQ(QueueAccessRefusal(q, "team-a", "something-else", 0), "") << "listed: the namespace's label does not matter";
  EXPECT_EQ(QueueAccessRefusal(q, "team-b", "", 0), "namespace team-b may not use queue team-a (not in its spec.namespaces)");
  EXPECT_EQ(QueueAccessRefusal(q, "team-a", "", 501), "priority 501 is above queue team-a's maxPriority of 500");

  // "*" opens a queue to every namespace not bound to another (the admin's choice; closed otherwise).
  const QueueConfig open = QueueConfigFromObject(Json::parse(R"({"metadata":{"name":"shared"},"spec":{"namespaces":["*"]}})"));
  EXPECT_FALSE(open.max_priority.has_value());
  EXPECT_EQ(QueueAccessRefusal(open, "anyone", "", 1000000), "");
  EXPECT_EQ(QueueAccessRefusal(open, "team-b", "shared", 0), "");
  EXPECT_EQ(QueueAccessRefusal(open, "team-b", "team-b", 0),
            "namespace team-b is bound to queue team-b by its gangplank.io/queue label and may not use queue shared");
  EXPECT_EQ(ErrorOf([] { QueueConfigFromObject(Json::parse(R"({"metadata":{"name":"q"},"spec":{"maxPriority":"high"}})")); }),
            "spec.maxPriority: expected a whole number (a pod priority, 32 bits)");
  EXPECT_EQ(ErrorOf([] { QueueConfigFromObject(Json::parse(R"({"metadata":{"name":"q"},"spec":{"maxPriority":3000000000}})")); }),
            "spec.maxPriority: expected a whole number (a pod priority, 32 bits)");
  EXPECT_NE(ErrorOf([] { QueueConfigFromObject(Json::parse(R"({"metadata":{"name":"q"},"spec":{"namespaces":"team-a"}})")); }),
            "no error");
}

TEST(QueueConfig, BadFieldsAreNamed) {
  EXPECT_EQ(ErrorOf([] { QueueConfigFromObject(Json::parse(R"({"metadata":{"name":"q"},"spec":{"pools":[{"name":"p","limitGPUs":"lots"}]}})")); }),
            "spec.pools[0].limitGPUs: expected a whole number from 0 to 1000000000");
  EXPECT_EQ(ErrorOf([] { QueueConfigFromObject(Json::parse(R"({"metadata":{"name":"q"},"spec":{"pools":[{"name":"p","guaranteedGPUs":8,"limitGPUs":4}]}})")); }),
            "spec.pools[0]: limitGPUs must not be below guaranteedGPUs");
  EXPECT_EQ(ErrorOf([] { QueueConfigFromObject(Json::parse(R"({"metadata":{"name":"q"},"spec":{"parent":"q"}})")); }),
            "spec.parent: a queue cannot be its own parent");
  EXPECT_EQ(ErrorOf([] { QueueConfigFromObject(Json::parse(R"({"metadata":{"name":"q"},"spec":{"weight":-1}})")); }),
            "spec.weight: expected a number >= 0");
  EXPECT_EQ(ErrorOf([] { QueueConfigFromObject(Json::parse(R"({"metadata":{"name":"q"},"spec":{"preemption":{"withinQueue":"Always"}}})")); }),
            "spec.preemption.withinQueue: expected Never or LowerPriority, got 'Always'");
  EXPECT_EQ(ErrorOf([] { QueueConfigFromObject(Json::parse(R"({"spec":{}})")); }), "metadata.name: missing");
  EXPECT_EQ(ErrorOf([] { QueueConfigFromObject(Json::parse(R"({"metadata":{"name":"q"},"spec":[]})")); }),
            "spec: expected an object");
}

TEST(PoolConfig, ReadsSelectorTopologyAndKnobsWithDefaults) {
  const PoolConfig p = PoolConfigFromObject(Json::parse(R"({"metadata":{"name":"a100","generation":3},"spec":{
      "nodeSelector":{"pool":"a100"},"gpuModel":"A100","capacityType":"Spot",
      "topologyLevels":["topology.kubernetes.io/zone","kubernetes.io/hostname"],
      "admission":{"startTimeoutSeconds":60},"preemption":{"reclaim":false,"maxLostGPUHours":1.5}}})"));
  EXPECT_EQ(p.name, "a100");
  EXPECT_EQ(p.generation, 3);
  EXPECT_TRUE(p.spot);
  EXPECT_EQ(p.topology_levels.size(), 2u);
  EXPECT_EQ(p.admission.start_timeout_seconds, 60);
  EXPECT_EQ(p.admission.reserve_after_seconds, 1800);  // Default.
  EXPECT_FALSE(p.preemption.reclaim);
  EXPECT_DOUBLE_EQ(p.preemption.max_lost_gpu_hours, 1.5);
  EXPECT_EQ(p.preemption.max_gangs_per_hour, 10);
  EXPECT_TRUE(p.spot_handling.checkpoint_then_evict);

  engine::NodeSpec node;
  node.gpu_count = 8;
  node.gpu_model = "A100";
  node.labels = {{"pool", "a100"}};
  EXPECT_TRUE(p.Selects(node));
  node.gpu_model = "H100";
  EXPECT_FALSE(p.Selects(node));

  const PoolConfig d = PoolConfigFromObject(Json::parse(R"({"metadata":{"name":"all"},"spec":{}})"));
  EXPECT_EQ(d.topology_levels, DefaultTopologyLevels());
  EXPECT_FALSE(d.spot);
  node.labels.clear();
  EXPECT_TRUE(d.Selects(node));
  node.gpu_count = 0;
  EXPECT_FALSE(d.Selects(node));  // An empty selector takes nodes with GPUs only.
}

TEST(PoolConfig, RuntimePredictionIsOffUnlessAskedForAndItsBoundsAreChecked) {
  const PoolConfig off = PoolConfigFromObject(Json::parse(R"({"metadata":{"name":"p"},"spec":{}})"));
  EXPECT_FALSE(off.admission.prediction.enabled);
  const PoolConfig on = PoolConfigFromObject(Json::parse(R"({"metadata":{"name":"p"},"spec":{"admission":{
      "runtimePrediction":{"enabled":true,"backfillQuantile":0.95,"minSamples":3,"window":16,"checkpointGraceSeconds":0}}}})"));
  EXPECT_TRUE(on.admission.prediction.enabled);
  EXPECT_DOUBLE_EQ(on.admission.prediction.backfill_quantile, 0.95);
  EXPECT_EQ(on.admission.prediction.min_samples, 3);
  EXPECT_EQ(on.admission.prediction.window, 16);
  EXPECT_EQ(on.admission.prediction.checkpoint_grace_seconds, 0);
  auto error = [](const char* prediction) {
    return ErrorOf([&] {
      PoolConfigFromObject(Json::parse(std::string(R"({"metadata":{"name":"p"},"spec":{"admission":{"runtimePrediction":)") +
                                       prediction + "}}}"));
    });
  };
  EXPECT_EQ(error(R"({"backfillQuantile":0.2})"), "spec.admission.runtimePrediction.backfillQuantile: expected a quantile from 0.5 to 0.999");
  EXPECT_EQ(error(R"({"minSamples":0})"), "spec.admission.runtimePrediction.minSamples: expected at least 1");
  EXPECT_EQ(error(R"({"minSamples":8,"window":4})"), "spec.admission.runtimePrediction.window: must be at least minSamples");
  EXPECT_NE(error(R"({"enabled":"yes"})"), "");
}

TEST(PoolConfig, ConsolidationIsOffUnlessAskedForAndItsFieldsAreChecked) {
  const PoolConfig off = PoolConfigFromObject(Json::parse(R"({"metadata":{"name":"p"},"spec":{}})"));
  EXPECT_FALSE(off.preemption.consolidation.enabled);
  EXPECT_DOUBLE_EQ(off.preemption.consolidation.max_gpus, 4);
  EXPECT_DOUBLE_EQ(off.preemption.consolidation.max_lost_gpu_hours, 2);
  const PoolConfig on = PoolConfigFromObject(Json::parse(R"({"metadata":{"name":"p"},"spec":{"preemption":{
      "consolidation":{"enabled":true,"maxGPUs":2,"maxLostGPUHours":0.5}}}})"));
  EXPECT_TRUE(on.preemption.consolidation.enabled);
  EXPECT_DOUBLE_EQ(on.preemption.consolidation.max_gpus, 2);
  EXPECT_DOUBLE_EQ(on.preemption.consolidation.max_lost_gpu_hours, 0.5);
  EXPECT_TRUE(on.preemption.reclaim) << "the rest of spec.preemption keeps its defaults";
  auto error = [](const char* consolidation) {
    return ErrorOf([&] {
      PoolConfigFromObject(Json::parse(std::string(R"({"metadata":{"name":"p"},"spec":{"preemption":{"consolidation":)") +
                                       consolidation + "}}}"));
    });
  };
  EXPECT_NE(error(R"({"maxGPUs":-1})").find("spec.preemption.consolidation.maxGPUs"), std::string::npos);
  EXPECT_NE(error(R"({"enabled":"yes"})").find("spec.preemption.consolidation.enabled"), std::string::npos);
  EXPECT_NE(error(R"("on")"), "");
}

TEST(PoolConfig, SpotNodesByCapacityTypeOrTheSpotSelector) {
  engine::NodeSpec node;
  node.gpu_count = 8;
  node.labels = {{"lifecycle", "spot"}};
  const PoolConfig spot = PoolConfigFromObject(Json::parse(R"({"metadata":{"name":"s"},"spec":{"capacityType":"Spot"}})"));
  EXPECT_TRUE(spot.MarksSpot(node));
  const PoolConfig mixed = PoolConfigFromObject(
      Json::parse(R"({"metadata":{"name":"m"},"spec":{"spot":{"nodeSelector":{"lifecycle":"spot"}}}})"));
  EXPECT_TRUE(mixed.MarksSpot(node));
  node.labels = {{"lifecycle", "on-demand"}};
  EXPECT_FALSE(mixed.MarksSpot(node));
  const PoolConfig plain = PoolConfigFromObject(Json::parse(R"({"metadata":{"name":"p"},"spec":{}})"));
  EXPECT_FALSE(plain.MarksSpot(node));
  node.gpu_count = 0;
  EXPECT_FALSE(spot.MarksSpot(node));  // Not the pool's node at all.
}

TEST(PoolConfig, BadFieldsAreNamed) {
  EXPECT_EQ(ErrorOf([] { PoolConfigFromObject(Json::parse(R"({"metadata":{"name":"p"},"spec":{"capacityType":"Cheap"}})")); }),
            "spec.capacityType: expected OnDemand or Spot, got 'Cheap'");
  EXPECT_EQ(ErrorOf([] { PoolConfigFromObject(Json::parse(R"({"metadata":{"name":"p"},"spec":{"topologyLevels":["a","a"]}})")); }),
            "spec.topologyLevels[1]: level a is listed twice");
  EXPECT_EQ(ErrorOf([] { PoolConfigFromObject(Json::parse(R"({"metadata":{"name":"p"},"spec":{"nodeSelector":{"a":1}}})")); }),
            "spec.nodeSelector.a: expected a string");
  EXPECT_EQ(ErrorOf([] { PoolConfigFromObject(Json::parse(R"({"metadata":{"name":"p"},"spec":{"spot":{"reclaimPolicy":"Never"}}})")); }),
            "spec.spot.reclaimPolicy: expected CheckpointThenEvict or Evict, got 'Never'");
}

TEST(PoolConfig, ANodeBelongsToTheOnePoolThatSelectsItAndToNoneWhenTwoDo) {
  PoolConfig h100;
  h100.name = "h100";
  h100.node_selector = {{"nvidia.com/gpu.product", "H100"}};
  PoolConfig zone_a;
  zone_a.name = "zone-a";
  zone_a.node_selector = {{"topology.kubernetes.io/zone", "a"}};
  const std::vector<PoolConfig> pools{h100, zone_a};
  engine::NodeSpec node;
  node.gpu_count = 8;
  node.labels = {{"nvidia.com/gpu.product", "H100"}, {"topology.kubernetes.io/zone", "b"}};
  EXPECT_EQ(PoolsSelecting(pools, node), std::vector<int>{0});
  EXPECT_EQ(OwningPool(pools, node), 0);
  node.labels["topology.kubernetes.io/zone"] = "a";
  EXPECT_EQ(PoolsSelecting(pools, node), (std::vector<int>{0, 1}));
  EXPECT_EQ(OwningPool(pools, node), -1);  // Overlap: in neither, so no GPU counts twice.
  node.labels = {};
  EXPECT_EQ(OwningPool(pools, node), -1);
}

TEST(PoolConfig, ARelabelMovesANodeOnlyWhenItChangesItsPoolsOrTheirTopologyDomains) {
  PoolConfig h100;
  h100.name = "h100";
  h100.node_selector = {{"nvidia.com/gpu.product", "H100"}};
  h100.topology_levels = {"topology.kubernetes.io/zone", "nvidia.com/gpu.clique"};
  const std::vector<PoolConfig> pools{h100};
  engine::NodeSpec before;
  before.gpu_count = 8;
  before.labels = {{"nvidia.com/gpu.product", "H100"}, {"topology.kubernetes.io/zone", "a"}};
  engine::NodeSpec after = before;
  after.labels["beta.kubernetes.io/os"] = "linux";
  after.labels["nvidia.com/gfd.timestamp"] = "1764540000";
  EXPECT_TRUE(SamePlaceInPools(pools, before, after));
  after.labels["nvidia.com/gpu.clique"] = "c1";  // Into a clique it was in none of.
  EXPECT_FALSE(SamePlaceInPools(pools, before, after));
  after = before;
  after.labels["topology.kubernetes.io/zone"] = "b";
  EXPECT_FALSE(SamePlaceInPools(pools, before, after));
  after = before;
  after.labels.erase("nvidia.com/gpu.product");  // Out of the pool.
  EXPECT_FALSE(SamePlaceInPools(pools, before, after));
  engine::NodeSpec outside = after;  // In no pool: its zone is nobody's topology.
  outside.labels["topology.kubernetes.io/zone"] = "c";
  EXPECT_TRUE(SamePlaceInPools(pools, after, outside));
}

}  // namespace
}  // namespace gangplank::cache
