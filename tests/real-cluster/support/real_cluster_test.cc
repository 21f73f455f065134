#include "tests/real-cluster/support/real_cluster_test.h"

#include <algorithm>
#include <iostream>
#include <set>
#include <thread>

#include "cache/feed/gangplank_resources.h"
#include "tests/support/gpu_pod.h"

namespace gangplank::real_cluster {
namespace {

using cache::resources::gpu_pools;
using cache::resources::queues;

constexpr char kCaseLabel[] = "gangplank.test/case";

}  // namespace

std::unique_ptr<ControlPlane> RealClusterTest::control_plane_;
std::string RealClusterTest::start_error_;
int RealClusterTest::cases_ = 0;

void RealClusterTest::StartControlPlane(const std::vector<std::string>& extra) {
  if (control_plane_ || !ControlPlane::UnavailableReason().empty()) return;
  control_plane_ = std::make_unique<ControlPlane>();
  // Conditions rewritten at once (the chart's default waits 30 s between rewrites of one pod's), and a
  // gang's first Waiting condition written after a second (the chart's: five).
  std::vector<std::string> args{"--operator-arg", "--condition-rewrite-seconds=1", "--operator-arg",
                                "--waiting-condition-delay-seconds=1"};
  args.insert(args.end(), extra.begin(), extra.end());
  start_error_ = control_plane_->Start(args);
}

void RealClusterTest::TearDownTestSuite() { control_plane_.reset(); }

void RealClusterTest::SetUp() {
  const std::string why = ControlPlane::UnavailableReason();
  if (!why.empty()) {
    if (ControlPlane::Required()) FAIL() << "GANGPLANK_REQUIRE_REAL_CLUSTER=1 but the control plane cannot run: " << why;
    GTEST_SKIP() << "real-cluster tests skipped: " << why;
  }
  ASSERT_EQ(start_error_, "") << "the real control plane did not start";
  namespace_ = "case-" + std::to_string(++cases_);
  // Pods of this namespace go to its queue unless they name one (the namespace label).
  client().Create(kube::resources::Namespaces(), "",
                  Json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", namespace_}}}});
  // Pods need the namespace's default ServiceAccount, which the controller manager adds.
  ASSERT_TRUE(WaitFor([&] {
    return Kubectl(cluster().kubeconfig(), {"get", "serviceaccount", "default", "-n", namespace_}).exit_code == 0;
  }));
}

void RealClusterTest::TearDown() {
  if (!control_plane_ || !start_error_.empty() || namespace_.empty()) return;
  if (HasFailure()) std::cerr << Logs();
  client().Remove(kube::resources::Namespaces(), "", namespace_);
  for (const auto& q : queues_) client().Remove(queues(), "", q);
  for (const auto& p : pools_) client().Remove(gpu_pools(), "", p);
  // The namespace's pods go first (KWOK finishes their graceful deletion), then the nodes.
  EXPECT_TRUE(WaitFor([&] { return !client().TryGet(kube::resources::Namespaces(), "", namespace_); }, std::chrono::seconds(120)))
      << "namespace " << namespace_ << " was not removed";
  for (const auto& n : nodes_) client().Remove(kube::resources::Nodes(), "", n);
  EXPECT_TRUE(WaitFor([&] {
    kube::ListOptions mine;
    mine.label_selector = kCaseLabel;
    return client().List(kube::resources::Nodes(), "", mine)["items"].empty();
  }));
}

bool RealClusterTest::WaitFor(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    try {
      if (condition()) return true;
    } catch (const std::exception&) {
      // An API call that failed this time (a conflict, a restart): look again.
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return condition();
}

void RealClusterTest::Node(const std::string& name, int gpus, const std::map<std::string, std::string>& labels) {
  const std::string g = std::to_string(gpus);
  Json l{{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"}, {"nvidia.com/gpu.count", g}};
  for (const auto& [k, v] : labels) l[k] = v;
  MakeNode(name, Json{{"cpu", "96"}, {"memory", "1024Gi"}, {"nvidia.com/gpu", g}, {"pods", "110"}}, l, Json::object());
}

void RealClusterTest::DraNode(const std::string& name, int gpus, const std::map<std::string, std::string>& labels, bool mig,
                              const std::map<std::string, std::string>& annotations) {
  Json l{{"gangplank.test/dra-gpus", std::to_string(gpus)}};
  if (mig) l["gangplank.test/dra-mig"] = "true";
  for (const auto& [k, v] : labels) l[k] = v;
  MakeNode(name, Json{{"cpu", "96"}, {"memory", "1024Gi"}, {"pods", "110"}}, l, annotations);
  ASSERT_TRUE(WaitFor([&] {
    kube::ListOptions on_node;
    on_node.field_selector = "spec.nodeName=" + name;
    return !client().List(kube::resources::ResourceSlices(), "", on_node)["items"].empty();
  })) << "no ResourceSlice was published for " << name << "\n" << cluster().LogTail("gangplank-dra-driver");
}

void RealClusterTest::ClaimTemplate(const std::string& name, const std::string& device_class, int count,
                                    const std::string& selector) {
  Json exactly{{"deviceClassName", device_class}, {"allocationMode", "ExactCount"}, {"count", count}};
  if (!selector.empty()) exactly["selectors"] = Json::array({{{"cel", {{"expression", selector}}}}});
  client().Create(kube::resources::ResourceClaimTemplates(), namespace_,
                  Json{{"apiVersion", "resource.k8s.io/v1"},
                       {"kind", "ResourceClaimTemplate"},
                       {"metadata", {{"name", name}, {"namespace", namespace_}}},
                       {"spec", {{"spec", {{"devices", {{"requests", Json::array({{{"name", "gpus"}, {"exactly", exactly}}})}}}}}}}});
}

void RealClusterTest::MakeNode(const std::string& name, const Json& amounts, const Json& labels, const Json& annotations) {
  Json l{{"kubernetes.io/hostname", name}, {"kubernetes.io/os", "linux"}, {"type", "kwok"}, {kCaseLabel, namespace_}};
  l.update(labels);
  Json a{{"kwok.x-k8s.io/node", "fake"}};
  a.update(annotations);
  client().Create(kube::resources::Nodes(), "",
                  Json{{"apiVersion", "v1"},
                       {"kind", "Node"},
                       {"metadata", {{"name", name}, {"labels", l}, {"annotations", a}}},
                       {"status", {{"capacity", amounts}, {"allocatable", amounts}}}});
  nodes_.push_back(name);
  // Ready (KWOK) and untainted (the node lifecycle controller lifts not-ready once KWOK reports Ready).
  ASSERT_TRUE(WaitFor([&] { return ReadyAndUntainted(client().Get(kube::resources::Nodes(), "", name)); })) << "node " << name << " did not become Ready and untainted\n" << cluster().LogTail("kwok");
}

void RealClusterTest::Pool(const std::string& name, const Json& spec) {
  Json s = spec;
  s["nodeSelector"][kCaseLabel] = namespace_;
  client().Create(gpu_pools(), "", Json{{"apiVersion", "gangplank.io/v1alpha1"}, {"kind", "GPUPool"}, {"metadata", {{"name", name}}}, {"spec", s}});
  pools_.push_back(name);
}

void RealClusterTest::Queue(const std::string& name, const Json& spec) {
  // Queues are closed but to the namespaces they name: this test's, unless the test says otherwise.
  Json s = spec;
  if (!s.contains("namespaces")) s["namespaces"] = Json::array({namespace_});
  client().Create(queues(), "", Json{{"apiVersion", "gangplank.io/v1alpha1"}, {"kind", "Queue"}, {"metadata", {{"name", name}}}, {"spec", s}});
  queues_.push_back(name);
}

Json RealClusterTest::PodObject(const std::string& name, const PodSpec& o) const {
  Json pod = gangplank::testing::GpuPod(name, namespace_, o.scheduler, o.gpus);
  if (o.gpus == 0) {
    Json& resources = pod["spec"]["containers"][0]["resources"];
    resources["requests"].erase("nvidia.com/gpu");
    resources.erase("limits");
  }
  if (!o.claim_template.empty()) {
    pod["spec"]["resourceClaims"] = Json::array({{{"name", "gpus"}, {"resourceClaimTemplateName", o.claim_template}}});
    pod["spec"]["containers"][0]["resources"]["claims"] = Json::array({{{"name", "gpus"}}});
  }
  if (!o.node.empty()) pod["spec"]["nodeName"] = o.node;
  if (!o.queue.empty()) pod["metadata"]["labels"]["gangplank.io/queue"] = o.queue;
  if (!o.gang.empty()) pod["metadata"]["labels"]["gangplank.io/gang"] = o.gang;
  if (o.gang_size > 0) pod["metadata"]["annotations"]["gangplank.io/gang-size"] = std::to_string(o.gang_size);
  for (const auto& [k, v] : o.labels) pod["metadata"]["labels"][k] = v;
  for (const auto& [k, v] : o.annotations) pod["metadata"]["annotations"][k] = v;
  return pod;
}

void RealClusterTest::ExemptFromFence() {
  client().Patch(kube::resources::Namespaces(), "", namespace_, kube::PatchType::kMerge,
                 Json{{"metadata", {{"labels", {{"gangplank.io/fence", "exempt"}}}}}});
  const Json probe = PodObject("fence-probe", PodSpec().Gpus(1).BoundTo("fence-probe"));
  ASSERT_TRUE(WaitFor([&] {
    return Kubectl(cluster().kubeconfig(), {"create", "--dry-run=server", "-f", "-"}, probe.dump()).exit_code == 0;
  })) << "namespace " << namespace_ << " is still fenced";
}

Json RealClusterTest::Create(const Json& pod) { return client().Create(kube::resources::Pods(), namespace_, pod); }

void RealClusterTest::CreateGang(const std::string& gang, int size, PodSpec spec) {
  spec.gang = gang;
  if (spec.gang_size == 0) spec.gang_size = size;
  for (int i = 0; i < size; ++i) Create(PodObject(gang + "-" + std::to_string(i), spec));
}

std::optional<Json> RealClusterTest::Pod(const std::string& name) {
  return client().TryGet(kube::resources::Pods(), namespace_, name);
}

std::string RealClusterTest::NodeOf(const std::string& pod) {
  const auto p = Pod(pod);
  return p ? p->value("/spec/nodeName"_json_pointer, std::string()) : "";
}

std::string RealClusterTest::AnnotationOf(const std::string& pod, const std::string& key) {
  const auto p = Pod(pod);
  return p ? p->value("/metadata/annotations"_json_pointer, Json::object()).value(key, "") : "";
}

bool RealClusterTest::Gated(const std::string& pod) {
  const auto p = Pod(pod);
  if (!p) return false;
  for (const Json& gate : p->value("/spec/schedulingGates"_json_pointer, Json::array())) {
    if (gate.value("name", "") == "gangplank.io/admission") return true;
  }
  return false;
}

bool RealClusterTest::Running(const std::string& pod) {
  const auto p = Pod(pod);
  return p && p->value("/status/phase"_json_pointer, std::string()) == "Running";
}

Json RealClusterTest::GangCondition(const std::string& pod) {
  const auto p = Pod(pod);
  if (!p) return Json::object();
  for (const Json& c : p->value("/status/conditions"_json_pointer, Json::array())) {
    if (c.value("type", "") == "gangplank.io/GangAdmitted") return c;
  }
  return Json::object();
}

std::string RealClusterTest::LabelOf(const std::string& node, const std::string& key) {
  const auto n = client().TryGet(kube::resources::Nodes(), "", node);
  return n ? n->value("/metadata/labels"_json_pointer, Json::object()).value(key, "") : "";
}

std::vector<Json> RealClusterTest::Pods(const std::string& label_selector) {
  kube::ListOptions selected;
  selected.label_selector = label_selector;
  const Json list = client().List(kube::resources::Pods(), namespace_, selected);
  return list.value("items", Json::array()).get<std::vector<Json>>();
}

bool RealClusterTest::AllBound(const std::vector<std::string>& pods) {
  return std::all_of(pods.begin(), pods.end(), [&](const std::string& p) { return !NodeOf(p).empty(); });
}

void RealClusterTest::ExpectOnOwnPlannedNodesIn(const std::vector<std::string>& pods, const std::string& key,
                                                const std::string& value) {
  std::set<std::string> nodes;
  for (const auto& p : pods) {
    EXPECT_EQ(LabelOf(NodeOf(p), key), value) << p;
    EXPECT_EQ(NodeOf(p), PlannedNodeOf(p)) << p;
    nodes.insert(NodeOf(p));
  }
  EXPECT_EQ(nodes.size(), pods.size()) << "pods shared a node";
}

std::vector<std::string> RealClusterTest::Names(const std::string& gang, int size) {
  std::vector<std::string> out;
  for (int i = 0; i < size; ++i) out.push_back(gang + "-" + std::to_string(i));
  return out;
}

bool RealClusterTest::Said(const std::string& reason, const std::string& part) {
  for (const Json& e : client().List(kube::resources::Events(), namespace_).value("items", Json::array())) {
    if (e.value("reason", "") == reason && e.value("message", "").find(part) != std::string::npos) return true;
  }
  return false;
}

std::string RealClusterTest::Logs() {
  std::string out;
  for (const char* c : {"gangplank-operator", "gangplank-extender", "kube-scheduler"}) {
    out += std::string("--- ") + c + " (tail)\n" + cluster().LogTail(c, 5000) + "\n";
  }
  return out;
}

}  // namespace gangplank::real_cluster
