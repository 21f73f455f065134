// The placeholder pods an autoscaled pool asks for a gang's nodes with: what they ask, that landed ones
// stay until all have landed, that a gang admitted or gone takes its placeholders with it, that an
// unserved request is reported and kept, and that a new leader finds the requests of the last one.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "operator/autoscaling/capacity_requests.h"
#include "tests/operator/support/fake_cluster_writer.h"

namespace gangplank::op {
namespace {

using Json = nlohmann::json;

cache::PoolConfig AutoscaledPool() {
  cache::PoolConfig pool;
  pool.name = "h100";
  pool.node_selector = {{"gpu", "h100"}};
  pool.autoscaling.enabled = true;
  pool.autoscaling.domain_label = "clique";
  pool.autoscaling.domains = {"c0", "c1"};
  pool.autoscaling.node_selector = {{"karpenter.sh/nodepool", "gpu"}};
  pool.autoscaling.provision_timeout_seconds = 60;
  return pool;
}

// A gang of `members` members of 8 GPUs each needing a node of its own in clique c1.
CapacityAsk Ask(const std::string& key, int members) {
  CapacityAsk ask;
  ask.gang_key = key;
  ask.domain_label = "clique";
  engine::NewNodes nodes;
  nodes.domain_value = "c1";
  for (int m = 0; m < members; ++m) {
    engine::PodRequest r;
    r.gpu_count = 8;
    r.gpu_milli = engine::kMilliPerGpu;
    r.host = {4000, 16384};
    r.tolerations.push_back({"nvidia.com/gpu", "Exists", "", "NoSchedule"});
    ask.members.push_back(r);
    nodes.members.push_back({m});
  }
  ask.nodes = nodes;
  return ask;
}

// The placeholder as the informer reports it: as created, on `node` when it landed.
cache::PodInfo AsReported(const Json& pod, const std::string& node = "", const std::string& created = "2026-11-30T10:00:00Z") {
  cache::PodInfo p;
  p.name = pod["metadata"]["name"];
  p.namespace_ = pod["metadata"]["namespace"];
  p.uid = "uid-" + p.name;
  p.creation_timestamp = created;
  for (const auto& [k, v] : pod["metadata"]["labels"].items()) p.labels[k] = v;
  for (const auto& [k, v] : pod["metadata"]["annotations"].items()) p.annotations[k] = v;
  p.node_name = node;
  return p;
}

class CapacityRequestsTest : public ::testing::Test {
 protected:
  testing::FakeClusterWriter writer_;
  CapacityRequests requests_{writer_, PlaceholderOptions{}};
  cache::PoolConfig pool_ = AutoscaledPool();

  std::map<std::string, CapacityNote> Round(const std::vector<CapacityAsk>& asks, const std::set<std::string>& waiting,
                                            double now, const std::set<std::string>& admitted = {}) {
    return requests_.Reconcile("h100", pool_, asks, waiting, admitted, now);
  }
  void Report(const cache::PodInfo& pod, bool removed = false) {
    std::string pool;
    ASSERT_TRUE(requests_.Observe(pod, removed, pool));
    EXPECT_EQ(pool, "h100");
  }
};

TEST_F(CapacityRequestsTest, APlaceholderPerMemberAsksWhatTheMemberAsksOnThePoolsNodesInTheChosenClique) {
  auto notes = Round({Ask("ml/train", 2)}, {"ml/train"}, 1000);
  ASSERT_EQ(writer_.created().size(), 2u);
  const Json pod = writer_.created()[0];
  EXPECT_EQ(pod["metadata"]["namespace"], "gangplank-system");
  EXPECT_EQ(pod["metadata"]["annotations"]["gangplank.io/capacity-for-gang"], "ml/train");
  EXPECT_EQ(pod["metadata"]["annotations"]["karpenter.sh/do-not-disrupt"], "true");
  EXPECT_EQ(pod["spec"]["schedulerName"], "default-scheduler");
  EXPECT_EQ(pod["spec"]["nodeSelector"], (Json{{"gpu", "h100"}, {"karpenter.sh/nodepool", "gpu"}, {"clique", "c1"}}));
  const Json& resources = pod["spec"]["containers"][0]["resources"];
  EXPECT_EQ(resources["requests"], (Json{{"nvidia.com/gpu", "8"}, {"cpu", "4000m"}, {"memory", "16384Mi"}}));
  EXPECT_EQ(resources["limits"], (Json{{"nvidia.com/gpu", "8"}}));
  EXPECT_EQ(pod["spec"]["tolerations"], Json::parse(R"([{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}])"));
  EXPECT_EQ(notes["ml/train"].reason, "AwaitingNodes");
  EXPECT_EQ(notes["ml/train"].message, "asked the autoscaler for 2 nodes in clique=c1");

  Round({Ask("ml/train", 2)}, {"ml/train"}, 1001);
  EXPECT_EQ(writer_.created().size(), 2u) << "a standing request is not asked again";
}

TEST_F(CapacityRequestsTest, LandedPlaceholdersHoldTheirNodesUntilAllHaveLandedThenAllGoAtOnce) {
  Round({Ask("ml/train", 2)}, {"ml/train"}, 1000);
  const auto created = writer_.created();
  Report(AsReported(created[0], "node-a"));
  Round({Ask("ml/train", 1)}, {"ml/train"}, 1005);
  EXPECT_TRUE(writer_.deleted().empty()) << "one landed, one pending: the landed one keeps its node";
  Report(AsReported(created[1], "node-b"));
  auto notes = Round({Ask("ml/train", 0)}, {"ml/train"}, 1010);
  EXPECT_EQ(writer_.deleted().size(), 2u);
  EXPECT_EQ(writer_.created().size(), 2u);
  // A round before the cache sees the room still finds the gang short: it is not asked for again.
  notes = Round({Ask("ml/train", 2)}, {"ml/train"}, 1012);
  EXPECT_EQ(writer_.created().size(), 2u);
  EXPECT_EQ(notes["ml/train"].message, "the autoscaler added the 2 nodes asked for in clique=c1");
  // Still short after the settling time (its nodes went to another gang): asked again.
  Round({Ask("ml/train", 2)}, {"ml/train"}, 1050);
  EXPECT_EQ(writer_.created().size(), 4u);
}

TEST_F(CapacityRequestsTest, APoolAsksForOneGangASecondOldestFirst) {
  Round({Ask("ml/old", 1), Ask("ml/young", 1)}, {"ml/old", "ml/young"}, 1000);
  ASSERT_EQ(writer_.created().size(), 1u);
  EXPECT_EQ(writer_.created()[0]["metadata"]["annotations"]["gangplank.io/capacity-for-gang"], "ml/old");
  EXPECT_EQ(requests_.NextDeadline("h100", pool_), 1001) << "a round in a second asks for the next";
  Round({Ask("ml/old", 1), Ask("ml/young", 1)}, {"ml/old", "ml/young"}, 1001);
  ASSERT_EQ(writer_.created().size(), 2u);
  EXPECT_EQ(writer_.created()[1]["metadata"]["annotations"]["gangplank.io/capacity-for-gang"], "ml/young");
  EXPECT_EQ(requests_.NextDeadline("h100", pool_), 1060.5) << "then only the timeout";
}

TEST_F(CapacityRequestsTest, AGangAdmittedOrGoneTakesItsPlaceholdersWithIt) {
  Round({Ask("ml/a", 1)}, {"ml/a"}, 1000);
  Round({Ask("ml/a", 1), Ask("ml/b", 1)}, {"ml/a", "ml/b"}, 1001);
  const auto created = writer_.created();
  ASSERT_EQ(created.size(), 2u);
  Round({}, {"ml/b"}, 1002, {"ml/a"});  // ml/a admitted (on room that came otherwise).
  ASSERT_EQ(writer_.deleted().size(), 1u);
  EXPECT_EQ(writer_.deleted()[0], created[0]["metadata"]["name"]);
  // ml/b out of the waiting ones for one refresh keeps its request; gone for good, it goes.
  Round({}, {}, 1003);
  Round({Ask("ml/b", 1)}, {"ml/b"}, 1004);
  Round({}, {}, 1005);
  EXPECT_EQ(writer_.deleted().size(), 1u);
  EXPECT_EQ(requests_.NextDeadline("h100", pool_), 1010);
  Round({}, {}, 1010);
  ASSERT_EQ(writer_.deleted().size(), 2u);
  EXPECT_EQ(writer_.deleted()[1], created[1]["metadata"]["name"]);
}

TEST_F(CapacityRequestsTest, ARequestUnservedPastTheTimeoutIsReportedOnceAndKept) {
  Round({Ask("ml/train", 2)}, {"ml/train"}, 1000);
  Report(AsReported(writer_.created()[0], "node-a"));
  EXPECT_EQ(requests_.NextDeadline("h100", pool_), 1060.5);
  auto notes = Round({Ask("ml/train", 1)}, {"ml/train"}, 1061);
  EXPECT_EQ(notes["ml/train"].reason, "NodesNotProvisioned");
  EXPECT_TRUE(notes["ml/train"].warning);
  EXPECT_EQ(notes["ml/train"].message,
            "the autoscaler has added room for 1 of the 2 members asked for (2 nodes in clique=c1), not all within 60 s; "
            "still asking");
  EXPECT_TRUE(writer_.deleted().empty()) << "the pending placeholder stays for the autoscaler to retry";
  EXPECT_EQ(writer_.created().size(), 2u);
  EXPECT_EQ(requests_.NextDeadline("h100", pool_), 1121.5);
}

TEST_F(CapacityRequestsTest, OfTwoGangsEachHoldingPartOfWhatTheAutoscalerMayAddTheYoungerGivesWay) {
  Round({Ask("ml/old", 2)}, {"ml/old"}, 1000);
  Round({Ask("ml/old", 2), Ask("ml/young", 2)}, {"ml/old", "ml/young"}, 1010);
  const auto created = writer_.created();
  ASSERT_EQ(created.size(), 4u);
  Report(AsReported(created[0], "node-a"));  // ml/old: one of two landed.
  Report(AsReported(created[2], "node-b"));  // ml/young: one of two landed; the NodePool's limit is reached.
  Round({Ask("ml/old", 1), Ask("ml/young", 1)}, {"ml/old", "ml/young"}, 1061);  // ml/old stalls alone.
  EXPECT_TRUE(writer_.deleted().empty());
  auto notes = Round({Ask("ml/old", 1), Ask("ml/young", 1)}, {"ml/old", "ml/young"}, 1071);  // ml/young stalls too.
  EXPECT_EQ(writer_.deleted(), (std::vector<std::string>{created[2]["metadata"]["name"], created[3]["metadata"]["name"]}))
      << "the younger gang's placeholders, landed or not, go";
  EXPECT_EQ(notes["ml/young"].message, "gave way to an older gang of the pool the autoscaler could not serve together with it");
  EXPECT_EQ(notes["ml/old"].reason, "NodesNotProvisioned");
  Round({Ask("ml/old", 1), Ask("ml/young", 2)}, {"ml/old", "ml/young"}, 1100);
  EXPECT_EQ(writer_.created().size(), 4u) << "it does not ask again before a timeout";
  Round({Ask("ml/old", 1), Ask("ml/young", 2)}, {"ml/old", "ml/young"}, 1132);
  EXPECT_EQ(writer_.created().size(), 6u) << "then it does";
}

TEST_F(CapacityRequestsTest, ANewLeaderFindsTheLastOnesRequestByItsPlaceholders) {
  Round({Ask("ml/train", 2)}, {"ml/train"}, 1000);
  const auto created = writer_.created();
  testing::FakeClusterWriter writer;
  CapacityRequests next(writer, PlaceholderOptions{});
  std::string pool;
  for (const Json& pod : created) ASSERT_TRUE(next.Observe(AsReported(pod, "", "1970-01-01T00:16:40Z"), false, pool));
  auto notes = next.Reconcile("h100", pool_, {Ask("ml/train", 2)}, {"ml/train"}, {}, 1010);
  EXPECT_TRUE(writer.created().empty()) << "asked again by the new leader";
  EXPECT_EQ(notes["ml/train"].message, "asked the autoscaler for 2 nodes in the pool");
}

TEST_F(CapacityRequestsTest, TenantPodsAndAGangNewNodesCannotHoldAreToldApart) {
  cache::PodInfo tenant;
  tenant.namespace_ = "ml";
  tenant.labels = {{"gangplank.io/capacity-for", "x"}};
  std::string pool;
  EXPECT_FALSE(requests_.Observe(tenant, false, pool)) << "a label in a tenant's namespace makes no placeholder";
  CapacityAsk too_big = Ask("ml/huge", 1);
  too_big.nodes.reset();
  too_big.why = "a member asks for 16 GPUs; a node the autoscaler adds has 8";
  auto notes = Round({too_big}, {"ml/huge"}, 1000);
  EXPECT_EQ(notes["ml/huge"].reason, "AutoscalerCannotHold");
  EXPECT_EQ(notes["ml/huge"].message, too_big.why);
  EXPECT_TRUE(writer_.created().empty());
}

}  // namespace
}  // namespace gangplank::op
