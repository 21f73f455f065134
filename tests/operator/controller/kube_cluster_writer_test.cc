// The operator's pod writes against the real kube-apiserver: a write carries the resourceVersion
// it read, is made again when only the pod's status moved since (kube-scheduler's SchedulingGated
// condition, a kubelet's report), and refuses when anything the plan read changed.
#include "operator/writer/kube_cluster_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cache/objects/conventions.h"
#include "tests/support/gpu_pod.h"
#include "tests/support/real_api_test.h"

namespace gangplank::op::testing {
namespace {

using Json = nlohmann::json;

class KubeClusterWriterTest : public gangplank::testing::RealApiTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(RealApiTest::SetUp());
    if (IsSkipped()) return;
    client_ = shared_client();
    writer_ = std::make_unique<KubeClusterWriter>(client_, "gangplank-operator", nullptr);
    client_->Create(kube::resources::Pods(), ns(), GatedPod("p0", {std::string(cache::kAdmissionGate)}));
    read_ = *writer_->ReadPod(ns(), "p0");
  }

  Json GatedPod(const std::string& name, const std::vector<std::string>& gates) {
    Json pod = gangplank::testing::GpuPod(name, ns(), "gangplank", 4);
    pod["metadata"]["labels"]["gangplank.io/queue"] = "team-a";
    pod["spec"]["schedulingGates"] = Json::array();
    for (const auto& gate : gates) pod["spec"]["schedulingGates"].push_back({{"name", gate}});
    return pod;
  }

  // What kube-scheduler writes on a gated pod: a status condition, which moves the resourceVersion.
  // (kube-apiserver sets that condition itself on a gated pod's create; the message makes each write a
  // change.)
  void MarkSchedulingGated() {
    const Json patch{{"status", {{"conditions", Json::array({{{"type", "PodScheduled"}, {"status", "False"},
                                                              {"reason", "SchedulingGated"},
                                                              {"message", "gated, seen " + std::to_string(++marks_)}}})}}}};
    client_->Patch(kube::resources::Pods(), ns(), "p0", kube::PatchType::kStrategicMerge, patch, "status");
  }

  std::shared_ptr<kube::Client> client_;
  std::unique_ptr<KubeClusterWriter> writer_;
  int marks_ = 0;
  cache::PodInfo read_;
};

TEST_F(KubeClusterWriterTest, PlanIsWrittenWhenOnlyThePodsStatusMovedSinceItWasRead) {
  MarkSchedulingGated();
  ASSERT_NE(writer_->ReadPod(ns(), "p0")->resource_version, read_.resource_version);
  const cache::PodInfo planned = writer_->PlanPod(read_, "node-1", "adm-1");
  EXPECT_EQ(planned.PlannedNode(), "node-1");
  EXPECT_EQ(planned.Annotation(cache::kAdmissionIdAnnotation), "adm-1");
  // The release that follows works from the pod as stored, and its status moving again is no obstacle.
  MarkSchedulingGated();
  const Json other_condition{{"status", {{"conditions", Json::array({{{"type", "gangplank.io/GangAdmitted"},
                                                                      {"status", "True"}, {"reason", "Admitted"}}})}}}};
  client_->Patch(kube::resources::Pods(), ns(), "p0", kube::PatchType::kStrategicMerge, other_condition, "status");
  const cache::PodInfo released = writer_->ReleasePod(planned);
  EXPECT_FALSE(released.HasAdmissionGate());
}

// A backfill onto another gang's reservation is held to its declared runtime: the plan carries it as
// spec.activeDeadlineSeconds (the kubelet then ends the pod); a plan without one writes none.
TEST_F(KubeClusterWriterTest, APlanHeldToARuntimeWritesItsActiveDeadline) {
  const cache::PodInfo plain = writer_->PlanPod(read_, "node-1", "adm-1");
  EXPECT_FALSE(plain.active_deadline_seconds);
  cache::PodInfo held = writer_->UnplanPod(plain);
  held.active_deadline_seconds = 600;
  const cache::PodInfo planned = writer_->PlanPod(held, "node-1", "adm-2");
  EXPECT_EQ(planned.active_deadline_seconds, std::optional<std::int64_t>(600));
  EXPECT_EQ(client_->Get(kube::resources::Pods(), ns(), "p0")["spec"].value("activeDeadlineSeconds", 0), 600);
}

TEST_F(KubeClusterWriterTest, PlanIsRefusedWhenALabelTheRoundReadChanged) {
  MarkSchedulingGated();
  client_->Patch(kube::resources::Pods(), ns(), "p0", kube::PatchType::kMerge,
                 {{"metadata", {{"labels", {{"gangplank.io/queue", "team-b"}}}}}});
  EXPECT_THROW(writer_->PlanPod(read_, "node-1", "adm-1"), PodChanged);
  EXPECT_EQ(writer_->ReadPod(ns(), "p0")->PlannedNode(), "") << "nothing written on the changed pod";
}

// The write that removes the gate pins the pod to its planned node by a metadata.name term, which the
// API server accepts on a gated pod without required node affinity (and kube-scheduler's NodeAffinity
// PreFilter narrows the cycle to), keeping the pod's preferred terms.
TEST_F(KubeClusterWriterTest, ReleasePinsThePodToItsPlannedNode) {
  client_->Patch(kube::resources::Pods(), ns(), "p0", kube::PatchType::kMerge, Json::parse(R"({"spec":{"affinity":{"nodeAffinity":
      {"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"preference":{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]}}]}}}})"));
  const cache::PodInfo planned = writer_->PlanPod(*writer_->ReadPod(ns(), "p0"), "node-1", "adm-1");
  EXPECT_FALSE(writer_->ReleasePod(planned).HasAdmissionGate());
  const Json affinity = client_->Get(kube::resources::Pods(), ns(), "p0")["spec"]["affinity"]["nodeAffinity"];
  EXPECT_EQ(affinity["requiredDuringSchedulingIgnoredDuringExecution"], Json::parse(R"({"nodeSelectorTerms":
      [{"matchFields":[{"key":"metadata.name","operator":"In","values":["node-1"]}]}]})"));
  EXPECT_EQ(affinity["preferredDuringSchedulingIgnoredDuringExecution"].size(), 1u);
  // A gang of one: planned, released and pinned in one write.
  client_->Create(kube::resources::Pods(), ns(), GatedPod("p1", {std::string(cache::kAdmissionGate)}));
  const cache::PodInfo sole = writer_->PlanAndReleasePod(*writer_->ReadPod(ns(), "p1"), "node-2", "adm-2");
  EXPECT_EQ(sole.PlannedNode(), "node-2");
  EXPECT_EQ(client_->Get(kube::resources::Pods(), ns(), "p1")["spec"]["affinity"]["nodeAffinity"]
                ["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]["matchFields"][0]["values"],
            Json::array({"node-2"}));
}

// A pod with required node affinity of its own keeps it as written: it is released unpinned (the
// extender's filter still holds it to its planned node).
TEST_F(KubeClusterWriterTest, ReleaseLeavesThePodsOwnRequiredNodeAffinityAlone) {
  Json pod = GatedPod("p1", {std::string(cache::kAdmissionGate)});
  const Json own = Json::parse(R"({"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]}]})");
  pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = own;
  client_->Create(kube::resources::Pods(), ns(), pod);
  const cache::PodInfo read = *writer_->ReadPod(ns(), "p1");
  EXPECT_TRUE(read.required_node_affinity);
  EXPECT_FALSE(writer_->ReleasePod(writer_->PlanPod(read, "node-1", "adm-1")).HasAdmissionGate());
  EXPECT_EQ(client_->Get(kube::resources::Pods(), ns(), "p1")["spec"]["affinity"]["nodeAffinity"]
                ["requiredDuringSchedulingIgnoredDuringExecution"], own);
}

// A tenant may add required node affinity to their gated pod after gangplank read it: the release is
// refused and planned again, never written over the tenant's terms.
TEST_F(KubeClusterWriterTest, ReleaseIsRefusedWhenThePodGainedRequiredNodeAffinity) {
  const cache::PodInfo planned = writer_->PlanPod(read_, "node-1", "adm-1");
  client_->Patch(kube::resources::Pods(), ns(), "p0", kube::PatchType::kMerge, Json::parse(R"({"spec":{"affinity":{"nodeAffinity":
      {"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]}]}}}}})"));
  EXPECT_THROW(writer_->ReleasePod(planned), PodChanged);
  EXPECT_TRUE(writer_->ReadPod(ns(), "p0")->HasAdmissionGate());
}

// (Gates can only be removed after a pod is created: this pod is created with both.)
TEST_F(KubeClusterWriterTest, ReleaseIsRefusedWhenAnotherGateWasRemovedMeanwhile) {
  client_->Create(kube::resources::Pods(), ns(), GatedPod("p1", {std::string(cache::kAdmissionGate), "example.com/quota"}));
  const cache::PodInfo with_two = *writer_->ReadPod(ns(), "p1");
  client_->Patch(kube::resources::Pods(), ns(), "p1", kube::PatchType::kMerge,
                 {{"spec", {{"schedulingGates", Json::array({{{"name", std::string(cache::kAdmissionGate)}}})}}}});
  EXPECT_THROW(writer_->ReleasePod(with_two), PodChanged) << "the gate list written would put the other gate back";
}

TEST_F(KubeClusterWriterTest, WriteToAPodThatIsGoneSaysSo) {
  client_->Remove(kube::resources::Pods(), ns(), "p0");
  EXPECT_THROW(writer_->PlanPod(read_, "node-1", "adm-1"), PodChanged);
}

}  // namespace
}  // namespace gangplank::op::testing
