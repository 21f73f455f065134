// GPUs from Dynamic Resource Allocation: what a node offers from the ResourceSlices NVIDIA's DRA driver
// publishes (whole GPUs, MIG partitions of a partitionable GPU, fenced devices), and what a pod asks through
// claims, templates, firstAvailable and DeviceClass extended resources, counted once.
#include "cache/dra/gpu_inventory.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cache/objects/convert.h"
#include "cache/objects/decode_error.h"

namespace gangplank::cache::dra {
namespace {

using nlohmann::json;

const char* kGpuSelector = "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'";
const char* kMigSelector = "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'";

json Class(const std::string& name, const std::string& selector, const std::string& extended = "") {
  json c = {{"metadata", {{"name", name}}}, {"spec", {{"selectors", {{{"cel", {{"expression", selector}}}}}}}}};
  if (!extended.empty()) c["spec"]["extendedResourceName"] = extended;
  return c;
}

json Gpu(int i, const std::string& product = "NVIDIA H100 80GB HBM3") {
  return {{"name", "gpu-" + std::to_string(i)},
          {"attributes",
           {{"type", {{"string", "gpu"}}},
            {"uuid", {{"string", "GPU-" + std::to_string(i)}}},
            {"productName", {{"string", product}}},
            {"cudaComputeCapability", {{"version", "9.0.0"}}}}},
          {"capacity", {{"memory", {{"value", "80Gi"}}}}}};
}

json Slice(const std::string& node, const json& devices, const std::string& name = "") {
  return {{"metadata", {{"name", name.empty() ? node + "-gpu.nvidia.com" : name}}},
          {"spec",
           {{"driver", "gpu.nvidia.com"},
            {"nodeName", node},
            {"pool", {{"name", node}, {"generation", 1}, {"resourceSliceCount", 1}}},
            {"devices", devices}}}};
}

json WholeGpus(const std::string& node, int n) {
  json devices = json::array();
  for (int i = 0; i < n; ++i) devices.push_back(Gpu(i));
  return Slice(node, devices);
}

// One partitionable H100 as NVIDIA publishes it: a counter set of eight memory slices (its own slice), the
// full GPU taking every counter, and MIG devices taking their placements' slices.
std::vector<json> PartitionableGpu(const std::string& node) {
  json counters = {{"multiprocessors", {{"value", "132"}}}};
  for (int s = 0; s < 8; ++s) counters["memory-slice-" + std::to_string(s)] = {{"value", "1"}};
  json sets = {{"metadata", {{"name", node + "-counters"}}},
               {"spec",
                {{"driver", "gpu.nvidia.com"},
                 {"nodeName", node},
                 {"pool", {{"name", node}, {"generation", 1}, {"resourceSliceCount", 2}}},
                 {"sharedCounters", {{{"name", "gpu-0-counter-set"}, {"counters", counters}}}}}}};
  json full = Gpu(0);
  full["consumesCounters"] = {{{"counterSet", "gpu-0-counter-set"}, {"counters", counters}}};
  auto mig = [&](const std::string& profile, int id, int start, int size, int sms) {
    json used = {{"multiprocessors", {{"value", std::to_string(sms)}}}};
    for (int s = start; s < start + size; ++s) used["memory-slice-" + std::to_string(s)] = {{"value", "1"}};
    std::string compact = profile;
    compact.erase(std::remove(compact.begin(), compact.end(), '.'), compact.end());
    return json{{"name", "gpu-0-mig-" + compact + "-" + std::to_string(id) + "-" + std::to_string(start)},
                {"attributes",
                 {{"type", {{"string", "mig"}}},
                  {"profile", {{"string", profile}}},
                  {"parentUUID", {{"string", "GPU-0"}}},
                  {"productName", {{"string", "NVIDIA H100 80GB HBM3"}}}}},
                {"consumesCounters", {{{"counterSet", "gpu-0-counter-set"}, {"counters", used}}}}};
  };
  json devices = {full, mig("1g.10gb", 19, 0, 1, 16), mig("1g.10gb", 19, 1, 1, 16), mig("3g.40gb", 9, 4, 4, 60)};
  json slice = Slice(node, devices, node + "-devices");
  slice["spec"]["pool"]["resourceSliceCount"] = 2;
  return {sets, slice};
}

// `requests` is one request or a list of them (a braced single json is a copy, not a list).
json Claim(const std::string& ns, const std::string& name, const json& requests) {
  const json list = requests.is_array() ? requests : json::array({requests});
  return {{"metadata", {{"namespace", ns}, {"name", name}, {"uid", "claim-" + name}}},
          {"spec", {{"devices", {{"requests", list}}}}}};
}

json Exactly(const std::string& name, const std::string& cls, int count, const std::string& selector = "") {
  json e = {{"deviceClassName", cls}, {"allocationMode", "ExactCount"}, {"count", count}};
  if (!selector.empty()) e["selectors"] = {{{"cel", {{"expression", selector}}}}};
  return {{"name", name}, {"exactly", e}};
}

class GpuInventoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    inv.UpsertClass(DeviceClassFromObject(Class("gpu.nvidia.com", kGpuSelector, "nvidia.com/gpu")));
    inv.UpsertClass(DeviceClassFromObject(Class("mig.nvidia.com", kMigSelector)));
    inv.UpsertClass(DeviceClassFromObject(Class("nic.example.com", "device.driver == 'nic.example.com'")));
  }

  PodInfo PodWithClaims(std::vector<PodClaimRef> claims) {
    PodInfo pod;
    pod.name = "p";
    pod.namespace_ = "ml";
    pod.uid = "uid-p";
    pod.containers.push_back({});
    pod.resource_claims = std::move(claims);
    return pod;
  }

  engine::PodRequest RequestOf(PodInfo pod) {
    inv.NotePod(pod);
    pod.dra = inv.DemandOf(pod);
    return ToPodRequest(pod);
  }

  std::string FailureOf(PodInfo pod) {
    pod.dra = inv.DemandOf(pod);
    try {
      ToPodRequest(pod);
    } catch (const DecodeError& e) {
      return e.what();
    }
    return "<converted>";
  }

  GpuInventory inv;
};

TEST_F(GpuInventoryTest, WholeGpusOfANodeAndItsModelAsFeatureDiscoverySpellsIt) {
  const Affected a = inv.UpsertSlice(ResourceSliceFromObject(WholeGpus("n1", 8)));
  EXPECT_EQ(a.nodes, std::set<std::string>{"n1"});
  const NodeDraGpus g = inv.GpusOf("n1");
  EXPECT_EQ(g.gpus, 8);
  EXPECT_EQ(g.model, "NVIDIA-H100-80GB-HBM3");
  EXPECT_EQ(inv.GpusOf("n2").gpus, 0);
  // Counted with the node's device-plugin GPUs, so one node of each kind is one pool.
  NodeInfo node;
  node.name = "n1";
  node.allocatable = {{"cpu", "96"}, {"memory", "1Ti"}};
  node.dra = g;
  const engine::NodeSpec spec = ToNodeSpec(node);
  EXPECT_EQ(spec.gpu_count, 8);
  EXPECT_EQ(spec.gpu_model, "NVIDIA-H100-80GB-HBM3");
}

TEST_F(GpuInventoryTest, OnlyGovernedClassesCountAsGpus) {
  inv.UpsertSlice(ResourceSliceFromObject(WholeGpus("n1", 4)));
  EXPECT_EQ(inv.SetGpuClasses({"mig.nvidia.com"}).all, true);
  // gpu.nvidia.com still counts: its extendedResourceName is nvidia.com/gpu.
  EXPECT_EQ(inv.GpusOf("n1").gpus, 4);
  inv.UpsertClass(DeviceClassFromObject(Class("gpu.nvidia.com", kGpuSelector)));
  EXPECT_EQ(inv.GpusOf("n1").gpus, 0);
}

TEST_F(GpuInventoryTest, AFencedGpuOffersNothingAndSaysWhy) {
  json slice = WholeGpus("n1", 8);
  slice["spec"]["devices"][3]["taints"] = {{{"key", "gangplank.test/xid"}, {"value", "79"}, {"effect", "NoExecute"},
                                            {"timeAdded", "2026-11-28T10:00:00Z"}}};
  slice["spec"]["devices"][5]["taints"] = {{{"key", "note"}, {"effect", "None"}}};
  inv.UpsertSlice(ResourceSliceFromObject(slice));
  const NodeDraGpus g = inv.GpusOf("n1");
  EXPECT_EQ(g.gpus, 7);
  ASSERT_EQ(g.fenced.size(), 1u);
  EXPECT_EQ(g.fenced[0].device, "gpu.nvidia.com/n1/gpu-3");
  EXPECT_EQ(g.fenced[0].taint, "gangplank.test/xid=79:NoExecute");
  EXPECT_EQ(g.fenced[0].since, "2026-11-28T10:00:00Z");
}

// A fenced GPU a pod still holds counts as the node's until the claim lets go of it, so the pod stays
// accounted while its gang is moved; then the node offers one GPU less.
TEST_F(GpuInventoryTest, AFencedGpuStillHeldCountsUntilReleased) {
  json slice = WholeGpus("n1", 8);
  slice["spec"]["devices"][3]["taints"] = {{{"key", "xid"}, {"value", "79"}, {"effect", "NoSchedule"}}};
  inv.UpsertSlice(ResourceSliceFromObject(slice));
  json claim = Claim("ml", "held", {Exactly("gpus", "gpu.nvidia.com", 1)});
  const json result = {{"request", "gpus"}, {"driver", "gpu.nvidia.com"}, {"pool", "n1"}, {"device", "gpu-3"}};
  claim["status"]["allocation"]["devices"]["results"] = json::array({result});
  EXPECT_EQ(inv.UpsertClaim(ResourceClaimFromObject(claim)).nodes, std::set<std::string>{"n1"});
  EXPECT_EQ(inv.GpusOf("n1").gpus, 8);
  EXPECT_EQ(inv.GpusOf("n1").fenced.size(), 1u);
  EXPECT_EQ(inv.DeleteClaim("ml", "held").nodes, std::set<std::string>{"n1"});
  EXPECT_EQ(inv.GpusOf("n1").gpus, 7);
}

TEST_F(GpuInventoryTest, MigPartitionsShareTheirGpuByMemorySlices) {
  for (const json& s : PartitionableGpu("m1")) inv.UpsertSlice(ResourceSliceFromObject(s));
  EXPECT_EQ(inv.GpusOf("m1").gpus, 1);  // The partitions are the full GPU's, not GPUs of their own.
  inv.UpsertClaim(ResourceClaimFromObject(Claim("ml", "small", {Exactly("mig", "mig.nvidia.com", 1,
                                                                       "device.attributes['gpu.nvidia.com'].profile == '1g.10gb'")})));
  engine::PodRequest r = RequestOf(PodWithClaims({{"mig", "small", ""}}));
  EXPECT_TRUE(r.IsSharing());
  EXPECT_EQ(r.gpu_milli, 125);  // One of eight memory slices.
  inv.UpsertClaim(ResourceClaimFromObject(Claim("ml", "half", {Exactly("mig", "mig.nvidia.com", 1,
                                                                      "device.attributes['gpu.nvidia.com'].profile == '3g.40gb'")})));
  EXPECT_EQ(RequestOf(PodWithClaims({{"mig", "half", ""}})).gpu_milli, 500);
  // Two 3g.40gb partitions are a whole GPU's worth: counted as one whole GPU.
  inv.UpsertClaim(ResourceClaimFromObject(Claim("ml", "two", {Exactly("mig", "mig.nvidia.com", 2,
                                                                     "device.attributes['gpu.nvidia.com'].profile == '3g.40gb'")})));
  r = RequestOf(PodWithClaims({{"mig", "two", ""}}));
  EXPECT_EQ(r.gpu_count, 1);
  EXPECT_EQ(r.gpu_milli, engine::kMilliPerGpu);
}

TEST_F(GpuInventoryTest, StaticMigPartitionsBringTheirParentGpu) {
  json devices = json::array();
  for (int start : {0, 1}) {
    devices.push_back({{"name", "gpu-0-mig-1g10gb-19-" + std::to_string(start)},
                       {"attributes", {{"type", {{"string", "mig"}}}, {"profile", {{"string", "1g.10gb"}}},
                                       {"parentUUID", {{"string", "GPU-A"}}}}}});
  }
  inv.UpsertSlice(ResourceSliceFromObject(Slice("s1", devices)));
  EXPECT_EQ(inv.GpusOf("s1").gpus, 1);
}

TEST_F(GpuInventoryTest, ClaimFromATemplateCountsItsRequestsThenItsAllocation) {
  inv.UpsertSlice(ResourceSliceFromObject(WholeGpus("n1", 8)));
  inv.UpsertTemplate(ResourceClaimTemplateFromObject(
      {{"metadata", {{"namespace", "ml"}, {"name", "four"}}},
       {"spec", {{"spec", {{"devices", {{"requests", json::array({Exactly("gpus", "gpu.nvidia.com", 4)})}}}}}}}}));
  PodInfo pod = PodWithClaims({{"gpus", "", "four"}});
  engine::PodRequest r = RequestOf(pod);
  EXPECT_EQ(r.gpu_count, 4);
  EXPECT_EQ(r.gpu_models, std::vector<std::string>{"NVIDIA-H100-80GB-HBM3"});
  // The claim made from it, allocated: what was allocated, and which devices the pod holds.
  pod.claim_statuses = {{"gpus", "p-gpus-x7k"}};
  json claim = Claim("ml", "p-gpus-x7k", {Exactly("gpus", "gpu.nvidia.com", 4)});
  claim["status"] = {{"allocation", {{"devices", {{"results", json::array()}}}}}, {"reservedFor", {{{"uid", "uid-p"}}}}};
  for (int i = 0; i < 3; ++i) {
    claim["status"]["allocation"]["devices"]["results"].push_back(
        {{"request", "gpus"}, {"driver", "gpu.nvidia.com"}, {"pool", "n1"}, {"device", "gpu-" + std::to_string(i)}});
  }
  inv.NotePod(pod);
  const Affected a = inv.UpsertClaim(ResourceClaimFromObject(claim));
  EXPECT_EQ(a.pods, std::set<std::string>{"uid-p"});  // The pod is read again.
  pod.dra = inv.DemandOf(pod);
  ASSERT_TRUE(pod.dra);
  EXPECT_TRUE(pod.dra->allocated);
  EXPECT_EQ(pod.dra->whole_gpus, 3);  // What the scheduler really allocated, not what was asked.
  ASSERT_EQ(pod.dra->held.size(), 3u);
  EXPECT_EQ(pod.dra->held[0].node, "n1");
  EXPECT_EQ(pod.dra->held[0].device, "gpu.nvidia.com/n1/gpu-0");
}

TEST_F(GpuInventoryTest, FirstAvailableCountsItsLargestAlternativeUntilAllocated) {
  inv.UpsertSlice(ResourceSliceFromObject(WholeGpus("n1", 8)));
  // Asking for an impossible small thing first does not make a large ask cheap.
  json request = {{"name", "any"},
                  {"firstAvailable",
                   {{{"name", "tiny"}, {"deviceClassName", "gpu.nvidia.com"}, {"count", 1},
                     {"selectors", {{{"cel", {{"expression", "device.attributes['gpu.nvidia.com'].productName == 'B300'"}}}}}}},
                    {{"name", "big"}, {"deviceClassName", "gpu.nvidia.com"}, {"count", 8}}}}};
  inv.UpsertClaim(ResourceClaimFromObject(Claim("ml", "fa", {request})));
  EXPECT_EQ(RequestOf(PodWithClaims({{"any", "fa", ""}})).gpu_count, 8);
}

TEST_F(GpuInventoryTest, AllocationModeAllCountsTheLargestNode) {
  inv.UpsertSlice(ResourceSliceFromObject(WholeGpus("n1", 8)));
  inv.UpsertSlice(ResourceSliceFromObject(WholeGpus("n2", 4)));
  json all = {{"name", "all"}, {"exactly", {{"deviceClassName", "gpu.nvidia.com"}, {"allocationMode", "All"}}}};
  inv.UpsertClaim(ResourceClaimFromObject(Claim("ml", "all", {all})));
  EXPECT_EQ(RequestOf(PodWithClaims({{"all", "all", ""}})).gpu_count, 8);
}

TEST_F(GpuInventoryTest, NonGpuClaimsCountNothing) {
  inv.UpsertSlice(ResourceSliceFromObject(WholeGpus("n1", 8)));
  json nic = Slice("n1", {{{"name", "eth0"}}}, "n1-nic");
  nic["spec"]["driver"] = "nic.example.com";
  inv.UpsertSlice(ResourceSliceFromObject(nic));
  inv.UpsertClaim(ResourceClaimFromObject(Claim("ml", "net", {Exactly("nic", "nic.example.com", 1)})));
  EXPECT_FALSE(RequestOf(PodWithClaims({{"nic", "net", ""}})).WantsGpu());
}

TEST_F(GpuInventoryTest, ClassExtendedResourcesCountLikeClaims) {
  inv.UpsertSlice(ResourceSliceFromObject(WholeGpus("n1", 8)));
  PodInfo pod = PodWithClaims({});
  pod.containers[0].limits = {{"deviceclass.resource.kubernetes.io/gpu.nvidia.com", "2"}};
  EXPECT_EQ(RequestOf(pod).gpu_count, 2);
  // nvidia.com/gpu served by DRA is counted from the containers, once, not again from its class.
  PodInfo plain = PodWithClaims({});
  plain.containers[0].limits = {{"nvidia.com/gpu", "8"}};
  plain.extended_resource_claim = "p-extended-resources-abc";
  EXPECT_EQ(RequestOf(plain).gpu_count, 8);
}

TEST_F(GpuInventoryTest, UnsatisfiableClaimsSayWhyAndWaitButABoundPodStillHoldsWhatItHas) {
  inv.UpsertSlice(ResourceSliceFromObject(WholeGpus("n1", 8)));
  inv.UpsertClaim(ResourceClaimFromObject(Claim("ml", "bad", {Exactly("x", "no-such-class", 1)})));
  EXPECT_EQ(FailureOf(PodWithClaims({{"x", "bad", ""}})),
            "spec.resourceClaims: ResourceClaim \"bad\" request \"x\": DeviceClass \"no-such-class\" does not exist");
  EXPECT_EQ(FailureOf(PodWithClaims({{"x", "gone", ""}})), "spec.resourceClaims: ResourceClaim \"gone\" does not exist");
  EXPECT_EQ(FailureOf(PodWithClaims({{"x", "", "gone"}})),
            "spec.resourceClaims: ResourceClaimTemplate \"gone\" does not exist");
  // A GPU class nobody publishes a matching device of: counted as asked, and the pod waits.
  inv.UpsertClaim(ResourceClaimFromObject(
      Claim("ml", "b300", {Exactly("g", "gpu.nvidia.com", 2, "device.attributes['gpu.nvidia.com'].productName == 'B300'")})));
  PodInfo pod = PodWithClaims({{"g", "b300", ""}});
  EXPECT_NE(FailureOf(pod).find("no device in the cluster matches it"), std::string::npos);
  pod.node_name = "n1";
  pod.dra = inv.DemandOf(pod);
  EXPECT_EQ(ToPodRequest(pod).gpu_count, 2);
}

TEST_F(GpuInventoryTest, MalformedSlicesAreRefusedNamingTheField) {
  json bad = WholeGpus("n1", 2);
  bad["spec"]["devices"][1]["attributes"]["type"] = {{"float", 1.5}};
  try {
    ResourceSliceFromObject(bad);
    FAIL() << "decoded";
  } catch (const DecodeError& e) {
    EXPECT_EQ(std::string(e.what()), "spec.devices[1].attributes.type: expected one of bool, int, string, version");
  }
  bad = WholeGpus("n1", 1);
  bad["spec"]["devices"][0]["capacity"]["memory"]["value"] = "lots";
  EXPECT_THROW(ResourceSliceFromObject(bad), DecodeError);
}

TEST_F(GpuInventoryTest, SelectorsThatFailMatchNothingAndSaySo) {
  inv.UpsertSlice(ResourceSliceFromObject(WholeGpus("n1", 8)));
  inv.UpsertClaim(ResourceClaimFromObject(
      Claim("ml", "typo", {Exactly("g", "gpu.nvidia.com", 1, "device.attributes['gpu.nvidia.com'].prodName == 'x'")})));
  const std::string why = FailureOf(PodWithClaims({{"g", "typo", ""}}));
  EXPECT_NE(why.find("request \"g\""), std::string::npos) << why;
  EXPECT_NE(why.find("prodName"), std::string::npos) << why;
}

TEST_F(GpuInventoryTest, DeletingASliceTakesItsGpusAndTellsWhoToReadAgain) {
  inv.UpsertSlice(ResourceSliceFromObject(WholeGpus("n1", 8)));
  inv.UpsertTemplate(ResourceClaimTemplateFromObject(
      {{"metadata", {{"namespace", "ml"}, {"name", "one"}}},
       {"spec", {{"spec", {{"devices", {{"requests", json::array({Exactly("g", "gpu.nvidia.com", 1)})}}}}}}}}));
  inv.NotePod(PodWithClaims({{"g", "", "one"}}));
  const Affected a = inv.DeleteSlice("n1-gpu.nvidia.com");
  EXPECT_EQ(a.nodes, std::set<std::string>{"n1"});
  EXPECT_EQ(a.pods, std::set<std::string>{"uid-p"});  // Its demand was an estimate from the devices.
  EXPECT_EQ(inv.GpusOf("n1").gpus, 0);
}

// A driver republishes its pool as a new slice of the next generation, then deletes the old one (the
// resourceslice controller does): the node's GPUs, and a taint the new one carries, survive the old one's going.
TEST_F(GpuInventoryTest, ANewGenerationOfAPoolReplacesTheOldOneWhicheverGoesFirst) {
  inv.UpsertSlice(ResourceSliceFromObject(WholeGpus("n1", 8)));
  json next = WholeGpus("n1", 8);
  next["metadata"]["name"] = "n1-gpu.nvidia.com-2";
  next["spec"]["pool"]["generation"] = 2;
  next["spec"]["devices"][3]["taints"] = {{{"key", "xid"}, {"value", "79"}, {"effect", "NoSchedule"}}};
  inv.UpsertSlice(ResourceSliceFromObject(next));
  EXPECT_EQ(inv.GpusOf("n1").gpus, 7);
  EXPECT_EQ(inv.DeleteSlice("n1-gpu.nvidia.com").nodes, std::set<std::string>{"n1"});
  const NodeDraGpus g = inv.GpusOf("n1");
  EXPECT_EQ(g.gpus, 7);
  ASSERT_EQ(g.fenced.size(), 1u);
  EXPECT_EQ(g.fenced[0].device, "gpu.nvidia.com/n1/gpu-3");
  // The newer one gone first: the older one's devices count again.
  inv.UpsertSlice(ResourceSliceFromObject(WholeGpus("n1", 8)));
  inv.DeleteSlice("n1-gpu.nvidia.com-2");
  EXPECT_EQ(inv.GpusOf("n1").gpus, 8);
}

}  // namespace
}  // namespace gangplank::cache::dra
