// The controller alone: informer events become tracked gangs and pool work, GPUPools come and go as pool
// models (and are made afresh when their selector changes), overlapping selectors make both pools not
// Ready, and the Queue status sums the pools' figures. Real informers read the real kube-apiserver
// (tests/support/real_api_test.h); writes go to the in-memory cluster writer.
#include "operator/service/controller.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cache/feed/gangplank_resources.h"
#include "kube/config.h"
#include "operator/writer/kube_cluster_writer.h"
#include "tests/operator/support/fake_cluster_writer.h"
#include "tests/support/gpu_pod.h"
#include "tests/support/real_api_test.h"

namespace gangplank::op::testing {
namespace {

using Json = nlohmann::json;
using namespace std::chrono_literals;

class NoObjects : public ObjectReader {
 public:
  std::optional<Json> Get(const std::string&, const std::string&, const std::string&, const std::string&) override {
    return std::nullopt;
  }
};

Json Node(const std::string& name, const std::string& product) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", {{"nvidia.com/gpu.product", product}}},
                        {"annotations", {{"kwok.x-k8s.io/node", "fake"}}}}},
          {"spec", Json::object()},
          {"status",
           {{"allocatable", {{"cpu", "64"}, {"memory", "512Gi"}, {"nvidia.com/gpu", "8"}, {"pods", "110"}}},
            {"capacity", {{"cpu", "64"}, {"memory", "512Gi"}, {"nvidia.com/gpu", "8"}, {"pods", "110"}}}}}};
}

Json Pool(const std::string& name, const std::string& product) {
  return {{"apiVersion", "gangplank.io/v1alpha1"},
          {"kind", "GPUPool"},
          {"metadata", {{"name", name}}},
          {"spec", {{"nodeSelector", {{"nvidia.com/gpu.product", product}}}}}};
}

Json Queue(const std::string& name, const std::string& pool) {
  return {{"apiVersion", "gangplank.io/v1alpha1"},
          {"kind", "Queue"},
          {"metadata", {{"name", name}}},
          {"spec", {{"namespaces", Json::array({"*"})}, {"pools", Json::array({{{"name", pool}, {"guaranteedGPUs", 8}}})}}}};
}

class ControllerTest : public gangplank::testing::RealApiTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(RealApiTest::SetUp());
    if (IsSkipped()) return;
    Put(Node("h100-0", "H100"));
    Put(Node("h100-1", "H100"));
    Put(Pool("h100", "H100"));
    Put(Queue("team-a", "h100"));
    informers_ = std::make_unique<cache::SharedInformers>(
        std::make_shared<kube::RestClient>(kube::LoadKubeconfig({plane().kubeconfig()})));
    feed_ = std::make_unique<cache::ClusterStateFeed>(*informers_);
    ControllerOptions options;
    options.queue_status_delay = 50ms;
    controller_ = std::make_unique<Controller>(*informers_, *feed_, writer_, reader_, metrics_, options);
    informers_->Start();
    feed_->Start();
    controller_->Start();
    ASSERT_TRUE(WaitFor([&] { return controller_->synced(); })) << controller_->NotReadyReason();
  }

  void TearDown() override {
    // The informers first, as the operator's main stops them: a node's heartbeat delivered to a
    // controller already gone would be a use after free.
    if (controller_) controller_->Stop();
    if (informers_) informers_->Stop();
    controller_.reset();
    feed_.reset();
    RealApiTest::TearDown();
  }

  static bool WaitFor(const std::function<bool()>& condition, std::chrono::milliseconds timeout = 10s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (condition()) return true;
      std::this_thread::sleep_for(20ms);
    }
    return condition();
  }

  bool HasPool(const std::string& name) {
    const std::vector<std::string> pools = controller_->PoolNames();
    return std::find(pools.begin(), pools.end(), name) != pools.end();
  }

  std::string ReadyReason(const std::string& status_key) {
    const auto c = writer_.StatusCondition(status_key);
    return c ? c->reason : "";
  }

  std::string Key(const std::string& pod) const { return ns() + "/Pod/" + pod; }
  Json GangPod(const std::string& name, int gpus) {
    Json pod = gangplank::testing::GpuPod(name, ns(), "gangplank", gpus);
    pod["metadata"]["labels"]["gangplank.io/queue"] = "team-a";
    pod["spec"]["schedulingGates"] = Json::array({{{"name", "gangplank.io/admission"}}});
    return pod;
  }

  FakeClusterWriter writer_;
  NoObjects reader_;
  OperatorMetrics metrics_;
  std::unique_ptr<cache::SharedInformers> informers_;
  std::unique_ptr<cache::ClusterStateFeed> feed_;
  std::unique_ptr<Controller> controller_;
};

TEST_F(ControllerTest, PodEventsTrackGangsAndTheFollowerWritesNothing) {
  Put(GangPod("solo", 4));
  ASSERT_TRUE(WaitFor([&] { return controller_->tracker().Share(Key("solo")) != nullptr; }));
  std::this_thread::sleep_for(300ms);
  EXPECT_TRUE(writer_.log().empty()) << "a follower wrote";
  EXPECT_FALSE(writer_.StatusCondition("gpupools/h100"));

  ASSERT_TRUE(Remove(kube::resources::Pods(), "solo"));
  EXPECT_TRUE(WaitFor([&] { return !controller_->tracker().Share(Key("solo")); }));
}

TEST_F(ControllerTest, TheLeaderAdmitsAGangAndWritesPoolAndQueueStatus) {
  controller_->SetLeader(true);
  writer_.Put(PodInfoFromJson(Put(GangPod("solo", 4))));  // The writer plays the API server's part in writes.
  ASSERT_TRUE(WaitFor([&] { return controller_->conditions().ReasonOf(Key("solo")) == "Admitted"; }))
      << controller_->conditions().ReasonOf(Key("solo")) << " " << controller_->conditions().MessageOf(Key("solo"));
  EXPECT_TRUE(WaitFor([&] { return ReadyReason("gpupools/h100") == "Ready"; })) << ReadyReason("gpupools/h100");
  ASSERT_TRUE(WaitFor([&] {
    const auto status = writer_.Status("queues/team-a");
    return status && status->value("fairShareGPUs", 0.0) > 0;
  })) << writer_.Status("queues/team-a").value_or(Json()).dump();
  const Json status = *writer_.Status("queues/team-a");
  ASSERT_EQ(status["pools"].size(), 1u) << status.dump();
  EXPECT_EQ(status["pools"][0]["name"], "h100");
  EXPECT_EQ(status["pools"][0]["guaranteedGPUs"], 8);
  EXPECT_EQ(status["fairShareGPUs"], status["pools"][0]["fairShareGPUs"]);  // Summed over its one pool.
  EXPECT_EQ(ReadyReason("queues/team-a"), "Ready");
}

TEST_F(ControllerTest, PoolsComeAndGoWithTheirGPUPools) {
  ASSERT_TRUE(HasPool("h100"));
  Put(Node("a100-0", "A100"));
  Put(Pool("a100", "A100"));
  ASSERT_TRUE(WaitFor([&] { return HasPool("a100"); }));
  ASSERT_TRUE(Remove(cache::resources::gpu_pools(), "a100"));
  EXPECT_TRUE(WaitFor([&] { return !HasPool("a100"); }));
  EXPECT_TRUE(HasPool("h100"));
}

TEST_F(ControllerTest, OverlappingSelectorsMakeBothPoolsNotReady) {
  controller_->SetLeader(true);
  ASSERT_TRUE(WaitFor([&] { return ReadyReason("gpupools/h100") == "Ready"; })) << ReadyReason("gpupools/h100");
  Put(Pool("also-h100", "H100"));
  EXPECT_TRUE(WaitFor([&] { return ReadyReason("gpupools/h100") == "OverlappingPools"; })) << ReadyReason("gpupools/h100");
  EXPECT_TRUE(WaitFor([&] { return ReadyReason("gpupools/also-h100") == "OverlappingPools"; }));
  // The overlap removed, the pool is Ready again (its model made afresh with its nodes).
  ASSERT_TRUE(Remove(cache::resources::gpu_pools(), "also-h100"));
  EXPECT_TRUE(WaitFor([&] { return ReadyReason("gpupools/h100") == "Ready"; }, 20s)) << ReadyReason("gpupools/h100");
}

TEST_F(ControllerTest, AQueueWithAProblemIsNotReady) {
  controller_->SetLeader(true);
  Json orphan = Queue("orphan", "h100");
  orphan["spec"]["parent"] = "no-such-parent";
  Put(orphan);
  EXPECT_TRUE(WaitFor([&] {
    const auto c = writer_.StatusCondition("queues/orphan");
    return c && c->status == "False";
  })) << ReadyReason("queues/orphan");
}

// A label added to a node that moves it to no other pool or domain is seen in place: a pod selecting
// it waits until a node has it and is then admitted. A relabel that takes a node into another pool
// reads the pools' health again.
TEST_F(ControllerTest, RelabelledNodesAreSeenByAdmissionAndPoolHealth) {
  controller_->SetLeader(true);
  Json pod = GangPod("picky", 4);
  pod["spec"]["nodeSelector"] = {{"example.com/rack", "r7"}};
  writer_.Put(PodInfoFromJson(Put(pod)));
  ASSERT_TRUE(WaitFor([&] { return ReadyReason("gpupools/h100") == "Ready"; })) << ReadyReason("gpupools/h100");
  std::this_thread::sleep_for(500ms);
  ASSERT_NE(controller_->conditions().ReasonOf(Key("picky")), "Admitted") << "no node has the label yet";
  Json rack = Node("h100-1", "H100");
  rack["metadata"]["labels"]["example.com/rack"] = "r7";
  Put(rack);
  EXPECT_TRUE(WaitFor([&] { return controller_->conditions().ReasonOf(Key("picky")) == "Admitted"; }))
      << controller_->conditions().ReasonOf(Key("picky")) << " " << controller_->conditions().MessageOf(Key("picky"));

  Put(Pool("a100", "A100"));
  ASSERT_TRUE(WaitFor([&] { return ReadyReason("gpupools/a100") == "NoNodes"; })) << ReadyReason("gpupools/a100");
  Put(Node("h100-0", "A100"));  // Relabelled into the other pool.
  EXPECT_TRUE(WaitFor([&] { return ReadyReason("gpupools/a100") == "Ready"; })) << ReadyReason("gpupools/a100");
}

}  // namespace
}  // namespace gangplank::op::testing
