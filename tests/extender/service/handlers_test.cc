#include "extender/service/extender_handlers.h"

#include <gtest/gtest.h>

#include "tests/extender/support/go_fixtures.h"
#include "tests/cache/support/state_builders.h"

namespace gangplank::extender {
namespace {

using testing::GoNode;
using testing::GoPod;
using testing::Json;

// Three 8-GPU nodes; n2 is full, n3 has T4s. The pod asks for 4 A100 GPUs.
class HandlersTest : public ::testing::Test {
 protected:
  HandlersTest() : handlers_(state_, metrics_, {}) {
    state_.UpsertNode(cache::testing::GpuNode("n1", 8, "A100"));
    state_.UpsertNode(cache::testing::GpuNode("n2", 8, "A100"));
    state_.UpsertNode(cache::testing::GpuNode("n3", 8, "T4"));
    state_.UpsertPod(cache::testing::GpuPod("busy", {.node = "n2", .gpus = 8}));
    state_.MarkSynced();
  }

  static Json Pod() {
    testing::PodSpecFixture p;
    p.containers = {{{{"cpu", "2"}, {"nvidia.com/gpu", "4"}}, {{"nvidia.com/gpu", "4"}}}};
    p.annotations = {{"gangplank.io/gpu-models", "A100"}};
    return GoPod(p);
  }

  static std::vector<Json> Nodes() {
    std::vector<Json> nodes;
    for (const char* n : {"n1", "n2", "n3"}) {
      testing::NodeSpecFixture f;
      f.name = n;
      nodes.push_back(GoNode(f));
    }
    return nodes;
  }

  cache::ClusterState state_;
  ExtenderMetrics metrics_;
  ExtenderHandlers handlers_;
};

TEST_F(HandlersTest, FilterByNamesAnswersNodeNames) {
  std::string body = testing::FilterArgsByName(Pod(), {"n1", "n2", "n3"});
  const Reply r = handlers_.Filter(body);
  ASSERT_EQ(r.status, 200) << r.body;
  const Json j = Json::parse(r.body);
  EXPECT_TRUE(j["Nodes"].is_null());
  EXPECT_EQ(j["NodeNames"], Json::array({"n1"}));
  EXPECT_EQ(j["FailedNodes"]["n2"], "needs 4 free GPUs, node has 0");
  EXPECT_EQ(j["FailedAndUnresolvableNodes"]["n3"], "node has GPU model T4, pod allows only A100");
  EXPECT_EQ(j["Error"], "");
}

TEST_F(HandlersTest, FilterWithNodeListEchoesTheNodeObjects) {
  const std::vector<Json> nodes = Nodes();
  std::string body = testing::FilterArgsWithNodes(Pod(), nodes);
  const Reply r = handlers_.Filter(body);
  ASSERT_EQ(r.status, 200) << r.body;
  const Json j = Json::parse(r.body);
  EXPECT_TRUE(j["NodeNames"].is_null());
  ASSERT_EQ(j["Nodes"]["items"].size(), 1u);
  EXPECT_EQ(j["Nodes"]["metadata"], Json::object());
  EXPECT_EQ(j["Nodes"]["items"][0], nodes[0]);  // The node object exactly as sent.
  EXPECT_NE(r.body.find(testing::GoJson(nodes[0])), std::string::npos);  // Byte for byte, escapes kept.
}

TEST_F(HandlersTest, PrioritizeAnswersABareArrayInInputOrderBothModes) {
  for (bool by_name : {true, false}) {
    std::string body = by_name ? testing::FilterArgsByName(Pod(), {"n3", "n1", "n2"})
                               : testing::FilterArgsWithNodes(Pod(), {Nodes()[2], Nodes()[0], Nodes()[1]});
    const Reply r = handlers_.Prioritize(body);
    ASSERT_EQ(r.status, 200) << r.body;
    const Json j = Json::parse(r.body);
    ASSERT_TRUE(j.is_array());
    ASSERT_EQ(j.size(), 3u);
    EXPECT_EQ(j[0]["Host"], "n3");
    EXPECT_EQ(j[0]["Score"], 0);  // Wrong model: does not fit.
    EXPECT_EQ(j[1]["Host"], "n1");
    EXPECT_GE(j[1]["Score"].get<int>(), 0);
    EXPECT_LE(j[1]["Score"].get<int>(), 10);
  }
}

TEST_F(HandlersTest, PreemptAnswersMetaVictimsInBothModes) {
  std::string meta = testing::PreemptArgsMeta(Pod(), {{"n2", {"uid-busy"}}});
  Reply r = handlers_.Preempt(meta);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, R"js({"NodeNameToMetaVictims":{"n2":{"Pods":[{"UID":"uid-busy"}],"NumPDBViolations":0}}})js");
  testing::PodSpecFixture victim;
  victim.uid = "uid-busy";
  victim.node_name = "n2";
  std::string full = testing::PreemptArgsFull(Pod(), {{"n2", {GoPod(victim)}}});
  r = handlers_.Preempt(full);
  EXPECT_EQ(r.body, R"js({"NodeNameToMetaVictims":{"n2":{"Pods":[{"UID":"uid-busy"}],"NumPDBViolations":0}}})js");
}

// kube-scheduler deletes the victims the extender granted on the node it picks, nominates the preemptor
// there and retries it, often before the deletions reach the extender's informer. The filter then
// counts the granted victims as gone on that node; refusing it would send kube-scheduler to preempt a
// second set of victims on another node.
TEST_F(HandlersTest, FilterCountsGrantedVictimsGoneOnTheNodeKubeSchedulerNominated) {
  state_.UpsertPod(cache::testing::GpuPod("other", {.node = "n1", .gpus = 8}));
  const auto filter_n1_n2 = [&](const Json& pod) {
    std::string body = testing::FilterArgsByName(pod, {"n1", "n2"});
    const Reply r = handlers_.Filter(body);
    EXPECT_EQ(r.status, 200) << r.body;
    return Json::parse(r.body)["NodeNames"];
  };
  Json pod = Pod();
  EXPECT_EQ(filter_n1_n2(pod), Json::array()) << "both nodes are full";
  std::string preempt = testing::PreemptArgsMeta(pod, {{"n1", {"uid-other"}}, {"n2", {"uid-busy"}}});
  ASSERT_EQ(handlers_.Preempt(preempt).status, 200);
  EXPECT_EQ(filter_n1_n2(pod), Json::array()) << "granted, but kube-scheduler has acted on neither node yet";

  pod["status"]["nominatedNodeName"] = "n2";
  EXPECT_EQ(filter_n1_n2(pod), Json::array({"n2"})) << "n2's victim still cached, but deleted for this pod";
  Json stranger = pod;
  stranger["metadata"]["uid"] = "another-preemptor";
  EXPECT_EQ(filter_n1_n2(stranger), Json::array()) << "a grant is for its own preemptor only";

  // Without a nomination, a granted victim that has left the cache shows kube-scheduler acted there.
  pod["status"].erase("nominatedNodeName");
  state_.UpsertPod(cache::testing::GpuPod("busy", {.node = "n2", .gpus = 2}));
  state_.UpsertPod(cache::testing::GpuPod("busy-mate", {.node = "n2", .gpus = 6}));
  preempt = testing::PreemptArgsMeta(pod, {{"n2", {"uid-busy", "uid-busy-mate"}}});
  ASSERT_EQ(handlers_.Preempt(preempt).status, 200);
  EXPECT_EQ(filter_n1_n2(pod), Json::array());
  state_.DeletePod("uid-busy");
  EXPECT_EQ(filter_n1_n2(pod), Json::array({"n2"})) << "one victim deleted, its mate's deletion not seen yet";
  EXPECT_EQ(filter_n1_n2(stranger), Json::array()) << "2 GPUs free: not enough for a pod without the grant";
}

TEST_F(HandlersTest, PodsWithoutManagedResourcesPassThroughUntouched) {
  ExtenderHandlers managed(state_, metrics_, HandlerOptions{{"gangplank.io/gpu-milli"}, "fragpack", 100, nullptr});
  std::string body = testing::FilterArgsByName(Pod(), {"n1", "n2", "n3"});
  const Json j = Json::parse(managed.Filter(body).body);
  EXPECT_EQ(j["NodeNames"], Json::array({"n1", "n2", "n3"}));
  EXPECT_EQ(j["FailedNodes"], Json::object());
}

TEST_F(HandlersTest, PodProblemsAreFilterErrorsAndBadBodiesAre400) {
  testing::PodSpecFixture bad;
  bad.containers = {{{{"cpu", "two"}}, {}}};
  std::string body = testing::FilterArgsByName(GoPod(bad), {"n1"});
  Reply r = handlers_.Filter(body);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(Json::parse(r.body)["Error"],
            "pod team-a/train-0: spec.containers[0].resources.requests.cpu: invalid quantity \"two\": no digits");
  EXPECT_TRUE(Json::parse(r.body)["NodeNames"].is_null());  // Nothing passes.
  std::string garbage = R"({"Pod":{"metadata":{"name":3}},"NodeNames":[]})";
  r = handlers_.Filter(garbage);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(Json::parse(r.body)["Error"], "cannot decode ExtenderArgs: Pod.metadata.name: expected a string, got a number");
  std::string truncated = R"({"Pod":{)";
  EXPECT_EQ(handlers_.Prioritize(truncated).status, 400);
  std::string wrong = R"({"Pod":{},"NodeNameToMetaVictims":[]})";
  r = handlers_.Preempt(wrong);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(Json::parse(r.body)["Error"],
            "cannot decode ExtenderPreemptionArgs: NodeNameToMetaVictims: expected an object, got an array");
}

TEST(HandlersUnsynced, FilterRefusesUntilTheCacheHasSynced) {
  cache::ClusterState state;
  ExtenderMetrics metrics;
  ExtenderHandlers handlers(state, metrics, {});
  std::string body = testing::FilterArgsByName(GoPod({}), {"n1"});
  EXPECT_EQ(Json::parse(handlers.Filter(body).body)["Error"],
            "gangplank-extender: the cluster-state cache has not synced yet");
  EXPECT_THROW(ExtenderHandlers(state, metrics, HandlerOptions{{}, "no-such-policy", 1, nullptr}), std::invalid_argument);
}

}  // namespace
}  // namespace gangplank::extender
