// What the operator's writer reads from a pod: a change in status alone is no drift, and a claim pod's
// demand comes with the feed's DRA inventory.
#include <gtest/gtest.h>

#include "cache/dra/gpu_inventory.h"
#include "operator/writer/kube_cluster_writer.h"
#include "operator/writer/pod_drift.h"

namespace gangplank::op::testing {
namespace {

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
