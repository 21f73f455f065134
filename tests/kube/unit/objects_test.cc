#include "kube/objects.h"

#include <gtest/gtest.h>

#include "kube/list_watch.h"

namespace gangplank::kube {
namespace {

const char* kPod = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"w-0","namespace":"ml","uid":"u-1",
"resourceVersion":"17","generation":1,"labels":{"gang":"g1","app":"x"},
"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{huge}","note":"drop","gangplank.io/gang-size":"4"},
"ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":"j","uid":"u-j","controller":true}],
"deletionTimestamp":null},
"spec":{"schedulerName":"gangplank","nodeName":"n1","priority":100,"activeDeadlineSeconds":86400,"schedulingGates":[{"name":"gangplank.io/gang"}],
"schedulingGroup":{"podGroupName":"w"},
"initContainers":[{"name":"i","resources":{"requests":{"cpu":"2","memory":"1Gi"}}}],
"containers":[{"name":"a","resources":{"requests":{"cpu":"500m","nvidia.com/gpu":"1"}}},
{"name":"b","resources":{"requests":{"cpu":"250m","memory":"512Mi"}}},{"name":"c"}]},
"status":{"phase":"Running","conditions":[{"type":"PodScheduled","status":"True"}]}})";

TEST(ObjectsTest, DecodesThePodFieldsTheProjectNeeds) {
  ObjectDecoder<Pod> decoder;
  Pod pod = decoder.DecodeObject(kPod);
  EXPECT_EQ(pod.meta.key(), "ml/w-0");
  EXPECT_EQ(pod.meta.uid, "u-1");
  EXPECT_EQ(pod.meta.resource_version, "17");
  EXPECT_EQ(pod.meta.labels.find("gang"), "g1");
  EXPECT_EQ(pod.meta.labels.size(), 2u);
  EXPECT_FALSE(pod.meta.annotations.contains("kubectl.kubernetes.io/last-applied-configuration"));
  EXPECT_FALSE(pod.meta.annotations.contains("note")) << "a pod keeps gangplank's annotations only";
  EXPECT_EQ(pod.meta.annotations.find("gangplank.io/gang-size"), "4");
  ASSERT_EQ(pod.meta.owner_references.size(), 1u);
  EXPECT_TRUE(pod.meta.owner_references[0].controller);
  EXPECT_TRUE(pod.meta.deletion_timestamp.empty());
  EXPECT_EQ(pod.node_name, "n1");
  EXPECT_EQ(pod.scheduler_name, "gangplank");
  EXPECT_EQ(pod.priority, 100);
  EXPECT_EQ(pod.active_deadline_seconds, 86400);
  EXPECT_EQ(pod.phase, "Running");
  EXPECT_EQ(pod.scheduling_gates, std::vector<std::string>{"gangplank.io/gang"});
  EXPECT_EQ(pod.pod_group_name, "w");
  // cpu: max(500m + 250m, init 2) = 2000m; memory: max(512Mi, 1Gi) = 1Gi; gpu 1.
  EXPECT_EQ(FindAmount(pod.requests, "cpu")->milli, 2000);
  EXPECT_EQ(FindAmount(pod.requests, "memory")->milli, 1024LL * 1024 * 1024 * 1000);
  EXPECT_EQ(FindAmount(pod.requests, "nvidia.com/gpu")->milli, 1000);
  ASSERT_EQ(pod.conditions.size(), 1u);
  EXPECT_EQ(pod.conditions.find("PodScheduled"), "True");
}

// What admission needs to plan a pod where it can run: selectors, tolerations, and the request as
// kube-scheduler sees it (limits stand in for missing requests, overhead is added).
TEST(ObjectsTest, DecodesSchedulingConstraintsAndDefaultsRequestsFromLimits) {
  ObjectDecoder<Pod> decoder;
  Pod pod = decoder.DecodeObject(R"({"metadata":{"name":"p","namespace":"ml"},"spec":{
    "nodeSelector":{"pool":"a100","zone":"z1"},
    "tolerations":[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"},{"key":"spot","value":"yes"}],
    "overhead":{"cpu":"100m"},
    "containers":[{"name":"a","resources":{"limits":{"nvidia.com/gpu":"8","cpu":"4"},"requests":{"cpu":"2"}}}]}})");
  EXPECT_EQ(pod.node_selector.find("pool"), "a100");
  EXPECT_EQ(pod.node_selector.size(), 2u);
  ASSERT_EQ(pod.tolerations.size(), 2u);
  EXPECT_EQ(pod.tolerations[0].op, "Exists");
  EXPECT_EQ(pod.tolerations[1].value, "yes");
  EXPECT_EQ(FindAmount(pod.requests, "nvidia.com/gpu")->milli, 8000);  // From the limit.
  EXPECT_EQ(FindAmount(pod.requests, "cpu")->milli, 2100);             // The request wins; plus overhead.
}

// Whether the pod has required node affinity of its own (the release pins only a pod that has none);
// preferred terms and a null are not required ones, and whatever follows the affinity is still read.
TEST(ObjectsTest, TellsWhetherThePodHasRequiredNodeAffinity) {
  ObjectDecoder<Pod> decoder;
  auto required = [&](const std::string& affinity) {
    const Pod pod = decoder.DecodeObject(R"({"metadata":{"name":"p","namespace":"ml"},"spec":{"affinity":)" + affinity +
                                         R"(,"schedulerName":"gangplank"}})");
    EXPECT_EQ(pod.scheduler_name, "gangplank") << affinity;
    return pod.required_node_affinity;
  };
  EXPECT_TRUE(required(R"({"podAffinity":{"x":[1,{"y":2}]},"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":
      {"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]}]}}})"));
  EXPECT_FALSE(required(R"({"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"preference":{}}]}})"));
  EXPECT_FALSE(required(R"({"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":null}})"));
  EXPECT_FALSE(required(R"({"nodeAffinity":null})"));
  EXPECT_FALSE(required("null"));
  EXPECT_FALSE(required("{}"));
}

TEST(ObjectsTest, DecodesNodes) {
  ObjectDecoder<Node> decoder;
  Node node = decoder.DecodeObject(R"({"metadata":{"name":"n1","resourceVersion":"3"},
    "spec":{"unschedulable":true,"taints":[{"key":"k","value":"v","effect":"NoSchedule"}]},
    "status":{"capacity":{"nvidia.com/gpu":"8","cpu":"96"},"allocatable":{"nvidia.com/gpu":"8","cpu":"95500m"},
    "conditions":[{"type":"Ready","status":"True"}]}})");
  EXPECT_EQ(node.meta.key(), "n1");
  EXPECT_TRUE(node.unschedulable);
  ASSERT_EQ(node.taints.size(), 1u);
  EXPECT_EQ(node.taints[0].effect, "NoSchedule");
  EXPECT_EQ(FindAmount(node.allocatable, "cpu")->milli, 95500);
  EXPECT_EQ(FindAmount(node.capacity, "nvidia.com/gpu")->milli, 8000);
}

// What gang-level fault recovery reads: conditions' reasons and times, taints' timeAdded, why a pod failed.
TEST(ObjectsTest, DecodesWhatFaultSignalsRead) {
  ObjectDecoder<Node> nodes;
  Node node = nodes.DecodeObject(R"({"metadata":{"name":"gpu-17"},
    "spec":{"taints":[{"key":"node.kubernetes.io/unreachable","effect":"NoSchedule"},
      {"key":"node.kubernetes.io/unreachable","effect":"NoExecute","timeAdded":"2026-03-02T10:14:53Z"}]},
    "status":{"conditions":[{"type":"Ready","status":"Unknown","lastHeartbeatTime":"2026-03-02T10:13:58Z",
      "lastTransitionTime":"2026-03-02T10:14:48Z","reason":"NodeStatusUnknown","message":"Kubelet stopped posting node status."}]}})");
  ASSERT_EQ(node.taints.size(), 2u);
  EXPECT_EQ(node.taints[0].time_added, "");
  EXPECT_EQ(node.taints[1].time_added, "2026-03-02T10:14:53Z");
  EXPECT_EQ(node.conditions.find("Ready"), "Unknown");
  ASSERT_EQ(node.condition_details.size(), 1u);
  EXPECT_EQ(node.condition_details[0].type, "Ready");
  EXPECT_EQ(node.condition_details[0].reason, "NodeStatusUnknown");
  EXPECT_EQ(node.condition_details[0].message, "Kubelet stopped posting node status.");
  EXPECT_EQ(node.condition_details[0].last_transition_time, "2026-03-02T10:14:48Z");

  ObjectDecoder<Pod> pods;
  Pod failed = pods.DecodeObject(R"({"metadata":{"name":"w-3","namespace":"ml"},"status":{"phase":"Failed",
    "initContainerStatuses":[{"name":"init","state":{"terminated":{"exitCode":0,"reason":"Completed"}}}],
    "containerStatuses":[{"name":"sidecar","state":{"running":{"startedAt":"2026-03-02T07:58:31Z"}}},
      {"name":"pytorch","state":{"terminated":{"exitCode":137,"reason":"OOMKilled","startedAt":"2026-03-02T07:58:31Z",
        "finishedAt":"2026-03-02T10:02:43Z"}},"lastState":{}}]}})");
  ASSERT_TRUE(failed.failure && failed.failure->container);
  EXPECT_EQ(failed.failure->container->name, "pytorch");
  EXPECT_EQ(failed.failure->container->exit_code, 137);
  EXPECT_EQ(failed.failure->container->reason, "OOMKilled");
  EXPECT_EQ(failed.failure->container->finished_at, "2026-03-02T10:02:43Z");
  Pod evicted = pods.DecodeObject(R"({"metadata":{"name":"w-4","namespace":"ml"},"status":{"phase":"Failed","reason":"Evicted",
    "message":"The node was low on resource: memory.","containerStatuses":[{"name":"pytorch","state":{"terminated":{
      "exitCode":137,"reason":"ContainerStatusUnknown","startedAt":null,"finishedAt":null}}}]}})");
  ASSERT_TRUE(evicted.failure && evicted.failure->container);
  EXPECT_EQ(evicted.failure->reason, "Evicted");
  EXPECT_EQ(evicted.failure->message, "The node was low on resource: memory.");
  EXPECT_EQ(evicted.failure->container->finished_at, "");
  Pod init_failed = pods.DecodeObject(R"({"metadata":{"name":"w-5","namespace":"ml"},"status":{"phase":"Failed",
    "containerStatuses":[{"name":"pytorch","state":{"waiting":{"reason":"PodInitializing"}}}],
    "initContainerStatuses":[{"name":"fetch","state":{"terminated":{"exitCode":1,"reason":"Error"}}}]}})");
  ASSERT_TRUE(init_failed.failure && init_failed.failure->container);
  EXPECT_EQ(init_failed.failure->container->name, "fetch");
  EXPECT_FALSE(pods.DecodeObject(R"({"metadata":{"name":"w-6"},"status":{"phase":"Running"}})").failure);
}

TEST(ObjectsTest, ListPageMetadataMayComeAfterItems) {
  ObjectDecoder<Node> decoder;
  auto page = decoder.DecodeList(
      R"({"kind":"NodeList","items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}],"metadata":{"resourceVersion":"99","continue":"tok"}})");
  EXPECT_EQ(page.resource_version, "99");
  EXPECT_EQ(page.continue_token, "tok");
  ASSERT_EQ(page.items.size(), 2u);
  EXPECT_EQ(page.items[1].meta.name, "b");
  auto empty = decoder.DecodeList(R"({"metadata":{"resourceVersion":"5"},"items":null})");
  EXPECT_TRUE(empty.items.empty());
}

TEST(ObjectsTest, WatchEventsIncludingBookmarkAndInStreamError) {
  ObjectDecoder<Pod> decoder;
  auto added = decoder.DecodeEvent(R"({"type":"ADDED","object":{"metadata":{"name":"p","namespace":"d","resourceVersion":"5"}}})");
  EXPECT_EQ(added.type, WatchEventType::kAdded);
  EXPECT_EQ(added.resource_version, "5");
  EXPECT_EQ(added.object.meta.key(), "d/p");
  // "object" before "type" must work too.
  auto modified = decoder.DecodeEvent(R"({"object":{"metadata":{"name":"p","resourceVersion":"6"}},"type":"MODIFIED"})");
  EXPECT_EQ(modified.type, WatchEventType::kModified);
  EXPECT_EQ(modified.resource_version, "6");
  auto bookmark = decoder.DecodeEvent(
      R"({"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"12"}}})");
  EXPECT_EQ(bookmark.type, WatchEventType::kBookmark);
  EXPECT_EQ(bookmark.resource_version, "12");
  auto error = decoder.DecodeEvent(
      R"j({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (50)","reason":"Expired","code":410}})j");
  EXPECT_EQ(error.type, WatchEventType::kError);
  ASSERT_TRUE(error.error);
  EXPECT_TRUE(IsRelistError(error.error));
  EXPECT_THROW(decoder.DecodeEvent(R"({"type":"EXPLODED","object":{}})"), DecodeError);
  EXPECT_THROW(decoder.DecodeEvent(R"({"type":"ADDED","object":{"metadata":{"name":5}}})"), DecodeError);
  EXPECT_THROW(decoder.DecodeEvent(R"({"type":"ADDED","obj)"), DecodeError);
}

TEST(ObjectsTest, GenericObjectsKeepRawJsonAndMetadata) {
  ObjectDecoder<GenericObject> decoder;
  auto obj = decoder.DecodeObject(R"({"apiVersion":"gangplank.io/v1","kind":"GPUPool","metadata":{"name":"p","generation":3,"labels":{"a":"b"}},"spec":{"x":[1,2]}})");
  EXPECT_EQ(obj.meta.name, "p");
  EXPECT_EQ(obj.meta.generation, 3);
  EXPECT_NE(obj.json.find("\"spec\":{\"x\":[1,2]}"), std::string::npos);
}

TEST(CompactStringMapTest, KeepsOrderAndFindsByKey) {
  CompactStringMap m;
  EXPECT_TRUE(m.empty());
  m.Add("a", "1");
  m.Add("", "empty key");
  m.Add("long-key-with-slashes/and.dots", std::string(300, 'x'));
  EXPECT_EQ(m.size(), 3u);
  EXPECT_EQ(m.find("a"), "1");
  EXPECT_EQ(m.find(""), "empty key");
  EXPECT_EQ(m.find("long-key-with-slashes/and.dots")->size(), 300u);
  EXPECT_EQ(m.find("b"), std::nullopt);
  std::vector<std::string> keys;
  for (auto [k, v] : m) keys.emplace_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"a", "", "long-key-with-slashes/and.dots"}));
}

TEST(QuantityTest, ParsesKubernetesQuantities) {
  EXPECT_EQ(ParseQuantityMilli("100m"), 100);
  EXPECT_EQ(ParseQuantityMilli("1"), 1000);
  EXPECT_EQ(ParseQuantityMilli("1.5"), 1500);
  EXPECT_EQ(ParseQuantityMilli("2Ki"), 2048000);
  EXPECT_EQ(ParseQuantityMilli("1k"), 1000000);
  EXPECT_EQ(ParseQuantityMilli("1e3"), 1000000);
  EXPECT_EQ(ParseQuantityMilli("0.5m"), 1);  // rounds up
  EXPECT_EQ(ParseQuantityMilli("-1"), -1000);
  EXPECT_FALSE(ParseQuantityMilli(""));
  EXPECT_FALSE(ParseQuantityMilli("abc"));
  EXPECT_FALSE(ParseQuantityMilli("1Xi"));
  EXPECT_FALSE(ParseQuantityMilli("99999999999999999P"));
}

}  // namespace
}  // namespace gangplank::kube
