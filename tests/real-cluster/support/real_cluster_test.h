// The fixture of the gangplank scenarios on the real control plane (control_plane.h): one control plane
// for the whole test binary; each test gets its own namespace, KWOK nodes, GPUPools and Queues, all
// removed when it ends. Pods are created through the real API server, so the operator's webhook gates
// them, the real kube-scheduler schedules them through the extender and binds them, and KWOK runs them.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tests/real-cluster/support/control_plane.h"

namespace gangplank::real_cluster {

using Json = nlohmann::json;

// A pod's options, set by chaining: PodSpec().Gpus(8).Queue("team-a").Gang("train", 4).
struct PodSpec {
  int gpus = 8;
  std::string queue;        // gangplank.io/queue label ("" = the namespace's)
  std::string gang;         // gangplank.io/gang label ("" = none)
  int gang_size = 0;        // gangplank.io/gang-size annotation (0 = none)
  std::string scheduler = "gangplank";
  std::string node;         // spec.nodeName: bound at creation, no scheduler involved
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::string claim_template;  // A ResourceClaimTemplate the pod's claim "gpus" is made from ("" = none).

  PodSpec& Gpus(int n) { gpus = n; return *this; }
  // GPUs through a claim from this template only (no nvidia.com/gpu in its containers).
  PodSpec& ClaimTemplate(std::string t) { gpus = 0; claim_template = std::move(t); return *this; }
  PodSpec& Queue(std::string q) { queue = std::move(q); return *this; }
  PodSpec& Gang(std::string g, int size) { gang = std::move(g); gang_size = size; return *this; }
  // Another scheduler's pod bound to `n` at creation (gangplank only sees it use GPUs).
  PodSpec& BoundTo(std::string n) { scheduler = "default-scheduler"; node = std::move(n); return *this; }
  PodSpec& Label(const std::string& k, std::string v) { labels[k] = std::move(v); return *this; }
  PodSpec& Annotation(const std::string& k, std::string v) { annotations[k] = std::move(v); return *this; }
};

class RealClusterTest : public ::testing::Test {
 public:
  static void SetUpTestSuite() { StartControlPlane({}); }
  static void TearDownTestSuite();
  // Starts the binary's control plane once, with more scripts/real-cluster.sh arguments (a suite whose
  // cluster is configured differently calls it from its own SetUpTestSuite).
  static void StartControlPlane(const std::vector<std::string>& extra);
  static bool WaitFor(const std::function<bool()>& condition, std::chrono::milliseconds timeout = std::chrono::seconds(60));

 protected:
  void SetUp() override;
  void TearDown() override;

  ControlPlane& cluster() { return *control_plane_; }
  kube::Client& client() { return control_plane_->client(); }
  const std::string& ns() const { return namespace_; }

  // --- The test's objects. ---
  // A KWOK node with `gpus` GPUs and the labels GPU Feature Discovery and the topology keys would give.
  void Node(const std::string& name, int gpus = 8, const std::map<std::string, std::string>& labels = {});
  // A KWOK node whose `gpus` GPUs come from Dynamic Resource Allocation: none in its allocatable, a
  // ResourceSlice the DRA test driver (tests/support/dra-driver) publishes for it, NVIDIA's way (MIG
  // partitionable devices with `mig`); waits until the slices are there.
  void DraNode(const std::string& name, int gpus = 8, const std::map<std::string, std::string>& labels = {},
               bool mig = false, const std::map<std::string, std::string>& annotations = {});
  // A ResourceClaimTemplate of this test's namespace asking `count` devices of `device_class`.
  void ClaimTemplate(const std::string& name, const std::string& device_class, int count, const std::string& selector = "");
  // A GPUPool of this test's nodes (its nodeSelector is added to `spec`).
  void Pool(const std::string& name, const Json& spec = Json::object());
  // A Queue open to this test's namespace (spec.namespaces, unless `spec` sets it).
  void Queue(const std::string& name, const Json& spec = Json::object());
  Json PodObject(const std::string& name, const PodSpec& spec) const;
  // Labels this test's namespace gangplank.io/fence=exempt, as a cluster admin does for system pods that
  // take GPUs outside gangplank (the chart's fence refuses GPU pods bound at creation or of another
  // scheduler anywhere else), and waits until the API server admits such a pod there.
  void ExemptFromFence();
  // Created through the API server (admission, the webhook included); returns the pod as stored.
  Json Create(const Json& pod);
  void CreateGang(const std::string& gang, int size, PodSpec spec);

  // --- Looking. ---
  std::optional<Json> Pod(const std::string& name);
  std::string NodeOf(const std::string& pod);
  // One annotation of a pod ("" when it or the pod is missing).
  std::string AnnotationOf(const std::string& pod, const std::string& key);
  std::string PlannedNodeOf(const std::string& pod) { return AnnotationOf(pod, "gangplank.io/planned-node"); }
  bool Gated(const std::string& pod);
  bool Running(const std::string& pod);
  Json GangCondition(const std::string& pod);
  std::string LabelOf(const std::string& node, const std::string& key);
  std::vector<Json> Pods(const std::string& label_selector = "");
  bool AllBound(const std::vector<std::string>& pods);
  // Each pod is bound to its planned node, each on a node of its own, all where node label `key` is `value`.
  void ExpectOnOwnPlannedNodesIn(const std::vector<std::string>& pods, const std::string& key, const std::string& value);
  static std::vector<std::string> Names(const std::string& gang, int size);
  // An event in this namespace with `reason` whose message contains `part`.
  bool Said(const std::string& reason, const std::string& part = "");
  // The tails of gangplank's and kube-scheduler's logs, for failure messages.
  std::string Logs();

 private:
  static std::unique_ptr<ControlPlane> control_plane_;
  static std::string start_error_;
  static int cases_;
  std::string namespace_;
  void MakeNode(const std::string& name, const Json& amounts, const Json& labels, const Json& annotations);
  std::vector<std::string> nodes_;
  std::vector<std::string> pools_;
  std::vector<std::string> queues_;
};

}  // namespace gangplank::real_cluster
