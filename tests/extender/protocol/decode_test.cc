#include "extender/protocol/decode.h"

#include <gtest/gtest.h>

#include "cache/objects/decode_error.h"
#include "tests/extender/support/go_fixtures.h"

namespace gangplank::extender {
namespace {

using testing::FilterArgsByName;
using testing::FilterArgsWithNodes;
using testing::GoJson;
using testing::GoNode;
using testing::GoPod;
using testing::Json;
using testing::NodeSpecFixture;
using testing::PodSpecFixture;

std::string DecodeFailure(const std::function<void()>& decode) {
  try {
    decode();
  } catch (const cache::DecodeError& e) {
    return e.what();
  }
  return "<decoded without error>";
}

PodSpecFixture RichPod() {
  PodSpecFixture p;
  p.labels = {{"gangplank.io/gang", "llama"}, {"gangplank.io/queue", "team-a"}};
  p.annotations = {{"gangplank.io/gpu-models", "A100|H100"}, {"note", "a<b && c>d \u2028 \xc3\xa9"}};
  p.node_selector = {{"cloud.google.com/gke-nodepool", "a100-pool"}};
  p.tolerations = {{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}};
  p.init_containers = {testing::ContainerSpec{{{"cpu", "8"}}, {}}};
  p.priority = 1000;
  return p;
}

TEST(DecodeExtenderArgs, NodeCacheCapableBodyAsKubeSchedulerSendsIt) {
  std::string body = FilterArgsByName(GoPod(RichPod()), {"n1", "n2", "n3"});
  ASSERT_NE(body.find("\\u003c"), std::string::npos);  // The fixture really carries Go's escapes.
  ASSERT_NE(body.find("\"Nodes\":null"), std::string::npos);
  ASSERT_NE(body.find("managedFields"), std::string::npos);
  RequestDecoder decoder;
  const ExtenderArgs args = decoder.DecodeExtenderArgs(body);
  EXPECT_FALSE(args.nodes.has_value());
  ASSERT_TRUE(args.node_names.has_value());
  EXPECT_EQ(*args.node_names, (std::vector<std::string_view>{"n1", "n2", "n3"}));
  EXPECT_EQ(args.CandidateNames(), (std::vector<std::string_view>{"n1", "n2", "n3"}));
  const cache::PodInfo& pod = args.pod;
  EXPECT_EQ(pod.name, "train-0");
  EXPECT_EQ(pod.namespace_, "team-a");
  EXPECT_EQ(pod.uid, "6c4a1b9e-0000-4000-8000-000000000001");
  EXPECT_EQ(pod.labels.at("gangplank.io/gang"), "llama");
  EXPECT_EQ(pod.annotations.at("note"), "a<b && c>d \u2028 \xc3\xa9");  // \u003c etc. unescaped.
  EXPECT_EQ(pod.annotations.at("gangplank.io/gpu-models"), "A100|H100");
  EXPECT_EQ(pod.node_selector.at("cloud.google.com/gke-nodepool"), "a100-pool");
  ASSERT_EQ(pod.tolerations.size(), 2u);
  EXPECT_EQ(pod.tolerations[0].key, "nvidia.com/gpu");
  EXPECT_EQ(pod.tolerations[0].op, "Exists");
  EXPECT_EQ(pod.tolerations[1].effect, "NoExecute");
  ASSERT_EQ(pod.containers.size(), 1u);
  EXPECT_EQ(pod.containers[0].requests,
            (cache::ResourceList{{"cpu", "4"}, {"memory", "16Gi"}, {"nvidia.com/gpu", "1"}}));
  EXPECT_EQ(pod.containers[0].limits, (cache::ResourceList{{"nvidia.com/gpu", "1"}}));
  ASSERT_EQ(pod.init_containers.size(), 1u);
  EXPECT_EQ(pod.priority, 1000);
  EXPECT_EQ(pod.phase, "Pending");
  EXPECT_EQ(pod.scheduler_name, "gangplank");
  EXPECT_TRUE(pod.node_name.empty());
}

TEST(DecodeExtenderArgs, MultiMegabyteNodeListKeepsEachNodesExactText) {
  std::vector<Json> nodes;
  std::vector<std::string> texts;
  for (int i = 0; i < 1500; ++i) {
    NodeSpecFixture n;
    n.name = "gpu-node-" + std::to_string(i);
    n.images = 12;
    n.labels = {{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"}, {"zone", i % 2 ? "a&b" : "<c>"}};
    nodes.push_back(GoNode(n));
    texts.push_back(GoJson(nodes.back()));
  }
  std::string body = FilterArgsWithNodes(GoPod(PodSpecFixture{}), nodes);
  ASSERT_GT(body.size(), 4u << 20) << "fixture should be multi-MB";
  RequestDecoder decoder;
  const ExtenderArgs args = decoder.DecodeExtenderArgs(body);
  EXPECT_FALSE(args.node_names.has_value());
  ASSERT_TRUE(args.nodes.has_value());
  ASSERT_EQ(args.nodes->size(), 1500u);
  for (size_t i = 0; i < texts.size(); i += 97) {
    EXPECT_EQ((*args.nodes)[i].name, "gpu-node-" + std::to_string(i));
    EXPECT_EQ((*args.nodes)[i].raw_json, texts[i]);
  }
  EXPECT_EQ(args.CandidateNames().back(), "gpu-node-1499");
}

TEST(DecodeExtenderArgs, KeysMatchCaseInsensitivelyLikeGo) {
  Json args;
  args["pod"] = GoPod(PodSpecFixture{});
  args["nodenames"] = Json::array({"a"});
  std::string body = GoJson(args);
  RequestDecoder decoder;
  EXPECT_EQ(decoder.DecodeExtenderArgs(body).node_names->at(0), "a");
}

// Kubernetes 1.37's spec.schedulingGroup names the pod's native PodGroup, its gang for the extender too.
TEST(DecodeExtenderArgs, APodsSchedulingGroupNamesItsNativePodGroup) {
  Json args;
  args["Pod"] = GoPod(PodSpecFixture{});
  args["Pod"]["spec"]["schedulingGroup"] = {{"podGroupName", "train-workers"}};
  args["NodeNames"] = Json::array({"a"});
  RequestDecoder decoder;
  std::string body = GoJson(args);
  EXPECT_EQ(decoder.DecodeExtenderArgs(body).pod.pod_group_name, "train-workers");
  args["Pod"]["spec"]["schedulingGroup"] = nullptr;
  body = GoJson(args);
  EXPECT_EQ(decoder.DecodeExtenderArgs(body).pod.pod_group_name, "");
}

TEST(DecodeExtenderArgs, BadBodiesGiveErrorsThatSayWhatAndWhere) {
  RequestDecoder decoder;
  auto failure = [&](std::string body) { return DecodeFailure([&] { decoder.DecodeExtenderArgs(body); }); };
  EXPECT_EQ(failure(""), "empty body: expected a JSON object");
  EXPECT_EQ(failure("[1,2]"), "expected a JSON object, got an array");
  EXPECT_EQ(failure(R"({"Pod":"x","NodeNames":[]})"), "Pod: expected an object, got a string");
  EXPECT_EQ(failure(R"({"Pod":null,"NodeNames":[]})"), "Pod: is null; kube-scheduler always sends the pod");
  EXPECT_EQ(failure(R"({"NodeNames":[]})"), "Pod: missing");
  EXPECT_EQ(failure(R"({"Pod":{},"NodeNames":{"a":1}})"), "NodeNames: expected an array, got an object");
  EXPECT_EQ(failure(R"({"Pod":{},"NodeNames":["a",7]})"), "NodeNames[1]: expected a string, got a number");
  EXPECT_EQ(failure(R"({"Pod":{"spec":{"containers":[{"resources":{"requests":[]}}]}},"NodeNames":[]})"),
            "Pod.spec.containers[0].resources.requests: expected an object, got an array");
  EXPECT_EQ(failure(R"({"Pod":{"spec":{"priority":"high"}},"NodeNames":[]})"),
            "Pod.spec.priority: expected an integer, got a string");
  EXPECT_EQ(failure(R"({"Pod":{},"Nodes":{"items":[{"metadata":{}}]}})"), "Nodes.items[0].metadata.name: missing");
  EXPECT_NE(failure(R"({"Pod":{},"NodeNames":["a")").find("truncated"), std::string::npos);
}

TEST(DecodeExtenderArgs, EveryTruncationOfARealBodyIsAnErrorNeverACrash) {
  const std::string full = FilterArgsByName(GoPod(RichPod()), {"n1", "n2"});
  RequestDecoder decoder;
  int errors = 0;
  for (size_t cut = 0; cut < full.size(); cut += 3) {
    std::string body = full.substr(0, cut);
    try {
      decoder.DecodeExtenderArgs(body);
    } catch (const cache::DecodeError&) {
      ++errors;
    }
  }
  EXPECT_EQ(errors, static_cast<int>((full.size() + 2) / 3));
  std::string body = full;
  EXPECT_NO_THROW(decoder.DecodeExtenderArgs(body));  // The decoder is reusable after errors.
}

TEST(DecodePreemptionArgs, MetaVictimsWhenNodeCacheCapable) {
  std::string body = testing::PreemptArgsMeta(GoPod(PodSpecFixture{}), {{"n1", {"u1", "u2"}}, {"n2", {"u3"}}}, 2);
  RequestDecoder decoder;
  const ExtenderPreemptionArgs args = decoder.DecodePreemptionArgs(body);
  EXPECT_FALSE(args.node_to_victims.has_value());
  ASSERT_TRUE(args.node_to_meta_victims.has_value());
  EXPECT_EQ(args.node_to_meta_victims->at("n1").uids, (std::vector<std::string_view>{"u1", "u2"}));
  EXPECT_EQ(args.node_to_meta_victims->at("n1").num_pdb_violations, 2);
  EXPECT_EQ(args.CandidateVictims().at("n2").uids, (std::vector<std::string_view>{"u3"}));
}

TEST(DecodePreemptionArgs, FullVictimPodsOtherwise) {
  PodSpecFixture victim;
  victim.uid = "victim-uid";
  victim.node_name = "n1";
  victim.phase = "Running";
  std::string body = testing::PreemptArgsFull(GoPod(PodSpecFixture{}), {{"n1", {GoPod(victim)}}});
  RequestDecoder decoder;
  const ExtenderPreemptionArgs args = decoder.DecodePreemptionArgs(body);
  EXPECT_FALSE(args.node_to_meta_victims.has_value());
  ASSERT_TRUE(args.node_to_victims.has_value());
  EXPECT_EQ(args.node_to_victims->at("n1").pods.at(0).node_name, "n1");
  EXPECT_EQ(args.CandidateVictims().at("n1").uids, (std::vector<std::string_view>{"victim-uid"}));
}

TEST(DecodePreemptionArgs, VictimWithoutUidIsAnError) {
  std::string body = R"({"Pod":{},"NodeNameToVictims":null,"NodeNameToMetaVictims":{"n1":{"Pods":[{}]}}})";
  RequestDecoder decoder;
  EXPECT_EQ(DecodeFailure([&] { decoder.DecodePreemptionArgs(body); }), "NodeNameToMetaVictims.n1.Pods[0].UID: missing");
}

TEST(DecodeBindingArgs, GoFieldNames) {
  std::string body = R"({"PodName":"p","PodNamespace":"ns","PodUID":"u","Node":"n1"})";
  RequestDecoder decoder;
  const ExtenderBindingArgs args = decoder.DecodeBindingArgs(body);
  EXPECT_EQ(args.pod_name, "p");
  EXPECT_EQ(args.pod_namespace, "ns");
  EXPECT_EQ(args.pod_uid, "u");
  EXPECT_EQ(args.node, "n1");
  std::string missing = R"({"PodName":"p"})";
  EXPECT_EQ(DecodeFailure([&] { decoder.DecodeBindingArgs(missing); }), "Node: missing");
}

TEST(DecodeObjects, NodeFromInformerJson) {
  NodeSpecFixture n;
  n.labels = {{"nvidia.com/gpu.product", "H100"}};
  n.taints = {{{"key", "nvidia.com/gpu"}, {"value", "present"}, {"effect", "NoSchedule"}}};
  n.unschedulable = true;
  std::string json = GoJson(GoNode(n));
  RequestDecoder decoder;
  const cache::NodeInfo node = decoder.DecodeNode(json);
  EXPECT_EQ(node.name, "gpu-node-0");
  EXPECT_EQ(node.labels.at("nvidia.com/gpu.product"), "H100");
  ASSERT_EQ(node.taints.size(), 1u);
  EXPECT_EQ(node.taints[0].value, "present");
  EXPECT_TRUE(node.unschedulable);
  EXPECT_NE(std::find(node.allocatable.begin(), node.allocatable.end(),
                      std::pair<std::string, std::string>{"nvidia.com/gpu", "8"}),
            node.allocatable.end());
}

}  // namespace
}  // namespace gangplank::extender
