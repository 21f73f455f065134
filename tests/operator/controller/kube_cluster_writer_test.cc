// The operator's pod writes against the API-server double over HTTP: a write carries the resourceVersion
// it read, is made again when only the pod's status moved since (kube-scheduler's SchedulingGated
// condition, a kubelet's report), and refuses when anything the plan read changed.
#include "operator/writer/kube_cluster_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "apiserver-double/api_server_double.h"
#include "cache/dra/gpu_inventory.h"
#include "cache/objects/conventions.h"
#include "kube/config.h"
#include "operator/writer/pod_drift.h"
#include "tests/support/gpu_pod.h"
#include "tests/support/seed_namespace_and_crds.h"

namespace gangplank::op::testing {
namespace {

using Json = nlohmann::json;

class KubeClusterWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    api_.Start();
    ASSERT_NO_FATAL_FAILURE(gangplank::testing::SeedNamespaceAndCrds(api_));
    kubeconfig_ = std::filesystem::temp_directory_path() / ("writer-test-" + std::to_string(::getpid()) + ".yaml");
    std::ofstream(kubeconfig_) << api_.KubeconfigYaml("ml");
    client_ = std::make_shared<kube::Client>(std::make_shared<kube::RestClient>(kube::LoadKubeconfig({kubeconfig_.string()})));
    writer_ = std::make_unique<KubeClusterWriter>(client_, "gangplank-operator", nullptr);
    Json pod = gangplank::testing::GpuPod("p0", "ml", "gangplank", 4);
    pod["metadata"]["labels"]["gangplank.io/queue"] = "team-a";
    pod["spec"]["schedulingGates"] = Json::array({{{"name", std::string(cache::kAdmissionGate)}}});
    client_->Create(kube::resources::Pods(), "ml", pod);
    read_ = *writer_->ReadPod("ml", "p0");
  }
  void TearDown() override { std::filesystem::remove(kubeconfig_); }

  // What kube-scheduler writes on a gated pod: a status condition, which moves the resourceVersion.
  void MarkSchedulingGated() {
    const Json patch{{"status", {{"conditions", Json::array({{{"type", "PodScheduled"}, {"status", "False"},
                                                              {"reason", "SchedulingGated"}}})}}}};
    client_->Patch(kube::resources::Pods(), "ml", "p0", kube::PatchType::kStrategicMerge, patch, "status");
  }

  apiserver_double::ApiServerDouble api_;
  std::filesystem::path kubeconfig_;
  std::shared_ptr<kube::Client> client_;
  std::unique_ptr<KubeClusterWriter> writer_;
  cache::PodInfo read_;
};

TEST_F(KubeClusterWriterTest, PlanIsWrittenWhenOnlyThePodsStatusMovedSinceItWasRead) {
  MarkSchedulingGated();
  ASSERT_NE(writer_->ReadPod("ml", "p0")->resource_version, read_.resource_version);
  const cache::PodInfo planned = writer_->PlanPod(read_, "node-1", "adm-1");
  EXPECT_EQ(planned.PlannedNode(), "node-1");
  EXPECT_EQ(planned.Annotation(cache::kAdmissionIdAnnotation), "adm-1");
  // The release that follows works from the pod as stored, and its status moving again is no obstacle.
  MarkSchedulingGated();
  const Json other_condition{{"status", {{"conditions", Json::array({{{"type", "gangplank.io/GangAdmitted"},
                                                                      {"status", "True"}, {"reason", "Admitted"}}})}}}};
  client_->Patch(kube::resources::Pods(), "ml", "p0", kube::PatchType::kStrategicMerge, other_condition, "status");
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
  EXPECT_EQ(client_->Get(kube::resources::Pods(), "ml", "p0")["spec"].value("activeDeadlineSeconds", 0), 600);
}

TEST_F(KubeClusterWriterTest, PlanIsRefusedWhenALabelTheRoundReadChanged) {
  MarkSchedulingGated();
  client_->Patch(kube::resources::Pods(), "ml", "p0", kube::PatchType::kMerge,
                 {{"metadata", {{"labels", {{"gangplank.io/queue", "team-b"}}}}}});
  EXPECT_THROW(writer_->PlanPod(read_, "node-1", "adm-1"), PodChanged);
  EXPECT_EQ(writer_->ReadPod("ml", "p0")->PlannedNode(), "") << "nothing written on the changed pod";
}

TEST_F(KubeClusterWriterTest, ReleaseIsRefusedWhenAnotherGateWasRemovedMeanwhile) {
  Json two_gates = Json::array({{{"name", std::string(cache::kAdmissionGate)}}, {{"name", "example.com/quota"}}});
  client_->Patch(kube::resources::Pods(), "ml", "p0", kube::PatchType::kMerge, {{"spec", {{"schedulingGates", two_gates}}}});
  const cache::PodInfo with_two = *writer_->ReadPod("ml", "p0");
  client_->Patch(kube::resources::Pods(), "ml", "p0", kube::PatchType::kMerge,
                 {{"spec", {{"schedulingGates", Json::array({{{"name", std::string(cache::kAdmissionGate)}}})}}}});
  EXPECT_THROW(writer_->ReleasePod(with_two), PodChanged) << "the gate list written would put the other gate back";
}

TEST_F(KubeClusterWriterTest, WriteToAPodThatIsGoneSaysSo) {
  client_->Remove(kube::resources::Pods(), "ml", "p0");
  EXPECT_THROW(writer_->PlanPod(read_, "node-1", "adm-1"), PodChanged);
}

TEST(PodDrift, StatusAndResourceVersionAloneAreNoChange) {
  cache::PodInfo read;
  read.name = "p0";
  read.uid = "u1";
  read.resource_version = "10";
  read.labels = {{"gangplank.io/queue", "a"}};
  read.scheduling_gates = {"gangplank.io/admission"};
  cache::PodInfo now = read;
  now.resource_version = "11";
  now.phase = "Pending";
  now.nominated_node_name = "n1";
  EXPECT_TRUE(OnlyStatusMoved(read, now));
  now.annotations["x"] = "1";
  EXPECT_FALSE(OnlyStatusMoved(read, now));
  now = read;
  now.uid = "u2";  // the same name, another pod
  EXPECT_FALSE(OnlyStatusMoved(read, now));
  now = read;
  now.tolerations.push_back({"k", "Exists", "", "NoSchedule"});
  EXPECT_FALSE(OnlyStatusMoved(read, now));
}

}  // namespace
}  // namespace gangplank::op::testing

namespace gangplank::op::testing {
namespace {

// The pod the writer reads back is the one the operator assumes: with the feed's DRA inventory it
// carries its claims' demand as the informer's copy does (without, a claim pod just admitted counted no
// GPU against its queue until that copy came, and claim pods raced past a queue limit).
TEST(PodInfoFromJson, ReadsAClaimPodsDemandWithTheInventory) {
  const nlohmann::json pod = nlohmann::json::parse(R"({"apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "slice-0", "namespace": "ml", "uid": "u-0"},
    "spec": {"schedulerName": "gangplank", "containers": [{"name": "main", "image": "x"}],
             "resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": "gone"}]}})");
  EXPECT_EQ(PodInfoFromJson(pod).dra, nullptr) << "no inventory: no claim read";
  const cache::dra::GpuInventory gpus;
  const cache::PodInfo read = PodInfoFromJson(pod, nullptr, &gpus);
  ASSERT_NE(read.dra, nullptr);
  ASSERT_EQ(read.dra->problems.size(), 1u);
  EXPECT_NE(read.dra->problems[0].find("\"gone\" does not exist"), std::string::npos) << read.dra->problems[0];
}

}  // namespace
}  // namespace gangplank::op::testing
