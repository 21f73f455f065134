// GPUs from Dynamic Resource Allocation on the real Kubernetes 1.37 control plane: KWOK nodes whose GPUs
// only a DRA driver publishes (tests/support/dra-driver, shaped like NVIDIA's), the real kube-scheduler's
// DynamicResources plugin allocating them, and gangplank counting them like any GPU: gangs asking
// nvidia.com/gpu (a DRA-backed extended resource) or a claim template admitted whole, a queue limit a
// claim cannot get around, device-plugin and DRA nodes in one pool, a fenced GPU restarting its gang, MIG
// partitions counted by their share, and bad claims said without breaking anything else.
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "cache/feed/gangplank_resources.h"
#include "tests/real-cluster/support/real_cluster_test.h"

namespace gangplank::real_cluster {
namespace {

class DraOnRealCluster : public RealClusterTest {
 public:
  static void SetUpTestSuite() { StartControlPlane({"--dra"}); }

 protected:
  // The ResourceClaim serving a pod's GPUs: its template claim, else the one kube-scheduler made for
  // its DRA-backed nvidia.com/gpu; null while there is none.
  Json ClaimOf(const std::string& pod) {
    const std::optional<Json> p = Pod(pod);
    if (!p) return nullptr;
    std::string name = p->value("/status/extendedResourceClaimStatus/resourceClaimName"_json_pointer, std::string());
    for (const Json& s : p->value("/status/resourceClaimStatuses"_json_pointer, Json::array())) {
      name = s.value("resourceClaimName", name);
    }
    if (name.empty()) return nullptr;
    return client().TryGet(kube::resources::ResourceClaims(), ns(), name).value_or(nullptr);
  }
  // The devices allocated to a pod's claim, as "<pool>/<device>".
  std::vector<std::string> DevicesOf(const std::string& pod) {
    std::vector<std::string> out;
    const Json claim = ClaimOf(pod);
    if (claim.is_null()) return out;
    for (const Json& r : claim.value("/status/allocation/devices/results"_json_pointer, Json::array())) {
      out.push_back(r.value("pool", "") + "/" + r.value("device", ""));
    }
    return out;
  }
  bool Gone(const std::string& pod) {
    const std::optional<Json> p = Pod(pod);
    return !p || p->contains("/metadata/deletionTimestamp"_json_pointer);
  }
  Json PoolStatus(const std::string& pool) {
    return client().Get(cache::resources::gpu_pools(), "", pool).value("status", Json::object());
  }
  int BoundCount(const std::vector<std::string>& pods) {
    int n = 0;
    for (const auto& p : pods) n += NodeOf(p).empty() ? 0 : 1;
    return n;
  }
};

// Three DRA nodes in one NVLink clique and four in another (the driver labels the clique from the node's
// fabric, as NVIDIA's compute-domain plugin does): a 4 x 8-GPU gang asking plain nvidia.com/gpu, which no
// node has in its allocatable, is admitted whole in the clique that holds it, and kube-scheduler allocates
// each member eight devices of its own planned node.
TEST_F(DraOnRealCluster, AGangAskingNvidiaGpuOnDraNodesIsAdmittedWholeInOneClique) {
  for (int i = 0; i < 3; ++i) DraNode("a" + std::to_string(i), 8, {}, false, {{"gangplank.test/gpu-clique", "clique-a"}});
  for (int i = 0; i < 4; ++i) DraNode("b" + std::to_string(i), 8, {}, false, {{"gangplank.test/gpu-clique", "clique-b"}});
  ASSERT_TRUE(WaitFor([&] { return LabelOf("b3", "nvidia.com/gpu.clique") == "clique-b"; }));
  Pool("dra", Json::parse(R"({"topologyLevels":["nvidia.com/gpu.clique","kubernetes.io/hostname"]})"));
  Queue("team-a");
  ASSERT_TRUE(WaitFor([&] { return PoolStatus("dra").value("capacityGPUs", 0) == 56; })) << PoolStatus("dra").dump() << Logs();
  CreateGang("train", 4,
             PodSpec().Gpus(8).Queue("team-a").Annotation("gangplank.io/topology-required", "nvidia.com/gpu.clique"));
  ASSERT_TRUE(WaitFor([&] { return AllBound(Names("train", 4)); })) << Logs();
  std::set<std::string> nodes;
  for (const auto& p : Names("train", 4)) {
    EXPECT_EQ(LabelOf(NodeOf(p), "nvidia.com/gpu.clique"), "clique-b") << p;
    EXPECT_EQ(NodeOf(p), PlannedNodeOf(p)) << p;
    nodes.insert(NodeOf(p));
    ASSERT_TRUE(WaitFor([&] { return DevicesOf(p).size() == 8; })) << p << ": " << ClaimOf(p).dump();
    for (const std::string& d : DevicesOf(p)) EXPECT_EQ(d.substr(0, d.find('/')), NodeOf(p)) << p;
  }
  EXPECT_EQ(nodes.size(), 4u);
  EXPECT_TRUE(WaitFor([&] { return GangCondition("train-0").value("reason", "") == "Admitted"; })) << Logs();
}

TEST_F(DraOnRealCluster, AGangFromAResourceClaimTemplateIsAdmittedWhole) {
  for (int i = 0; i < 3; ++i) DraNode("t" + std::to_string(i), 8);
  Pool("dra");
  Queue("team-a");
  ClaimTemplate("eight", "gpu.nvidia.com", 8);
  CreateGang("train", 2, PodSpec().ClaimTemplate("eight").Queue("team-a"));
  ASSERT_TRUE(WaitFor([&] { return AllBound(Names("train", 2)); })) << Logs();
  for (const auto& p : Names("train", 2)) {
    EXPECT_EQ(NodeOf(p), PlannedNodeOf(p)) << p;
    ASSERT_TRUE(WaitFor([&] { return DevicesOf(p).size() == 8; })) << p << ": " << ClaimOf(p).dump();
  }
  // The pool's status counts them: 16 of 24 GPUs held by the queue.
  EXPECT_TRUE(WaitFor([&] {
    for (const Json& q : PoolStatus("dra").value("queues", Json::array())) {
      if (q.value("name", "") == "team-a") return q.value("usedGPUs", 0.0) == 16;
    }
    return false;
  })) << PoolStatus("dra").dump();
}

// The attack: a queue limited to 8 GPUs, and a tenant asking for GPUs through claims only, which gangplank
// used to count as none (and kube-scheduler never sent to the extender). Four 8-GPU claim gangs: one runs,
// the others wait for the queue.
TEST_F(DraOnRealCluster, AClaimOnlyGangGetsNoMoreThanItsQueueLimit) {
  for (int i = 0; i < 4; ++i) DraNode("q" + std::to_string(i), 8);
  Pool("dra");
  Queue("capped", Json::parse(R"({"pools":[{"name":"dra","limitGPUs":8}]})"));
  ClaimTemplate("eight", "gpu.nvidia.com", 8);
  std::vector<std::string> pods;
  for (int i = 0; i < 4; ++i) {
    pods.push_back("grab-" + std::to_string(i));
    Create(PodObject(pods.back(), PodSpec().ClaimTemplate("eight").Queue("capped")));
  }
  ASSERT_TRUE(WaitFor([&] { return BoundCount(pods) == 1; })) << BoundCount(pods) << " of 4 bound\n" << Logs();
  std::this_thread::sleep_for(std::chrono::seconds(5));  // Long enough for a second to slip through.
  EXPECT_EQ(BoundCount(pods), 1) << Logs();
  int at_limit = 0;
  for (const auto& p : pods) {
    if (!NodeOf(p).empty()) continue;
    EXPECT_TRUE(Gated(p)) << p;
    at_limit += GangCondition(p).value("reason", "") == "QueueAtLimit" ? 1 : 0;
  }
  EXPECT_EQ(at_limit, 3) << Logs();
}

TEST_F(DraOnRealCluster, DevicePluginAndDraNodesServeOneGangInOnePool) {
  Node("dp0", 8);
  Node("dp1", 8);
  DraNode("dra0", 8);
  DraNode("dra1", 8);
  Pool("mixed");
  Queue("team-a");
  ASSERT_TRUE(WaitFor([&] { return PoolStatus("mixed").value("capacityGPUs", 0) == 32; })) << PoolStatus("mixed").dump();
  CreateGang("train", 4, PodSpec().Gpus(8).Queue("team-a"));
  ASSERT_TRUE(WaitFor([&] { return AllBound(Names("train", 4)); })) << Logs();
  std::set<std::string> nodes;
  for (const auto& p : Names("train", 4)) {
    nodes.insert(NodeOf(p));
    // On a DRA node kube-scheduler serves nvidia.com/gpu from devices; on a device-plugin node it does not.
    const bool dra = NodeOf(p).rfind("dra", 0) == 0;
    EXPECT_EQ(DevicesOf(p).size(), dra ? 8u : 0u) << p;
  }
  EXPECT_EQ(nodes, (std::set<std::string>{"dp0", "dp1", "dra0", "dra1"}));
}

// A GPU health tool fences one GPU of a running gang with a device taint: the gang is restarted, and when
// its pods come back they land where eight GPUs are free, not on the node with seven.
TEST_F(DraOnRealCluster, ADeviceTaintOnAHeldGpuRestartsItsGangElsewhere) {
  DraNode("f0", 8);
  DraNode("f1", 8);
  Pool("dra", Json{{"faultRecovery", {{"checkpointGraceSeconds", 0}}}});
  Queue("team-a");
  CreateGang("train", 1, PodSpec().Gpus(8).Queue("team-a"));
  ASSERT_TRUE(WaitFor([&] { return AllBound(Names("train", 1)) && DevicesOf("train-0").size() == 8; })) << Logs();
  const std::string sick = NodeOf("train-0");
  client().Patch(kube::resources::Nodes(), "", sick, kube::PatchType::kMerge,
                 Json{{"metadata", {{"annotations", {{"gangplank.test/dra-device-taints", "gpu-3=gangplank.test/xid:79:NoSchedule"}}}}}});
  ASSERT_TRUE(WaitFor([&] { return Gone("train-0"); })) << Logs();
  EXPECT_TRUE(WaitFor([&] { return Said("GangRestarted", "gpu-3"); })) << Logs();
  if (Pod("train-0")) client().Remove(kube::resources::Pods(), ns(), "train-0");
  ASSERT_TRUE(WaitFor([&] { return !Pod("train-0"); }));
  CreateGang("train", 1, PodSpec().Gpus(8).Queue("team-a"));
  ASSERT_TRUE(WaitFor([&] { return AllBound(Names("train", 1)); })) << Logs();
  EXPECT_NE(NodeOf("train-0"), sick);
}

// MIG partitions count as their share of a GPU's memory slices (docs/cluster-admins.md): a 3g.40gb takes four of
// eight, half a GPU, so a queue limited to one GPU runs two of them and the third waits for the queue, on a node
// with room for more.
TEST_F(DraOnRealCluster, MigPartitionsCountAsTheirShareOfAGpu) {
  DraNode("mig0", 2, {}, true);
  Pool("mig");
  Queue("slices", Json::parse(R"({"pools":[{"name":"mig","limitGPUs":1}]})"));
  ClaimTemplate("half", "mig.nvidia.com", 1, "device.attributes['gpu.nvidia.com'].profile == '3g.40gb'");
  std::vector<std::string> pods;
  for (int i = 0; i < 3; ++i) {
    pods.push_back("slice-" + std::to_string(i));
    Create(PodObject(pods.back(), PodSpec().ClaimTemplate("half").Queue("slices")));
  }
  ASSERT_TRUE(WaitFor([&] { return BoundCount(pods) == 2; })) << Logs();
  std::this_thread::sleep_for(std::chrono::seconds(5));
  EXPECT_EQ(BoundCount(pods), 2);
  for (const auto& p : pods) {
    if (NodeOf(p).empty()) {
      EXPECT_EQ(GangCondition(p).value("reason", ""), "QueueAtLimit") << GangCondition(p).dump();
      continue;
    }
    ASSERT_TRUE(WaitFor([&] { return DevicesOf(p).size() == 1; })) << p;
    EXPECT_NE(DevicesOf(p)[0].find("-mig-3g40gb-"), std::string::npos) << DevicesOf(p)[0];
  }
  EXPECT_TRUE(WaitFor([&] { return PoolStatus("mig").value("capacityGPUs", 0) == 2; })) << PoolStatus("mig").dump();
}

// Bad input: a template naming a class that does not exist is said on the gang, and a device whose driver
// publishes an attribute of the wrong type is no GPU; neither stops a good gang beside them.
TEST_F(DraOnRealCluster, BadClaimsAndMalformedDevicesAreSaidAndBreakNothingElse) {
  DraNode("g0", 8);
  Pool("dra");
  Queue("team-a");
  // An admin's slice whose "GPU" says type 7: the classes' selectors fail on it, so it offers nothing.
  const Json odd_device{{"name", "odd-0"}, {"attributes", {{"type", {{"int", 7}}}}}};
  const Json odd_spec{{"driver", "gpu.nvidia.com"},
                      {"nodeName", "g0"},
                      {"pool", {{"name", ns() + "-odd"}, {"generation", 1}, {"resourceSliceCount", 1}}},
                      {"devices", Json::array({odd_device})}};
  client().Create(kube::resources::ResourceSlices(), "",
                  Json{{"apiVersion", "resource.k8s.io/v1"}, {"kind", "ResourceSlice"},
                       {"metadata", {{"name", ns() + "-odd"}}}, {"spec", odd_spec}});
  ClaimTemplate("nowhere", "no-such-class.example.com", 1);
  Create(PodObject("lost", PodSpec().ClaimTemplate("nowhere").Queue("team-a")));
  ASSERT_TRUE(WaitFor([&] { return GangCondition("lost").value("reason", "") == "InvalidPod"; })) << Logs();
  EXPECT_NE(GangCondition("lost").value("message", "").find("DeviceClass \"no-such-class.example.com\" does not exist"),
            std::string::npos)
      << GangCondition("lost").dump();
  CreateGang("good", 1, PodSpec().Gpus(8).Queue("team-a"));
  EXPECT_TRUE(WaitFor([&] { return AllBound(Names("good", 1)); })) << Logs();
  EXPECT_EQ(PoolStatus("dra").value("capacityGPUs", 0), 8) << PoolStatus("dra").dump();
  EXPECT_TRUE(Gated("lost"));
  client().Remove(kube::resources::ResourceSlices(), "", ns() + "-odd");
}

}  // namespace
}  // namespace gangplank::real_cluster
