// The controller alone: informer events become tracked gangs and pool work, GPUPools come and go as pool
// models (and are made afresh when their selector changes), overlapping selectors make both pools not
// Ready, and the Queue status sums the pools' figures. Real informers read the API-server double over
// HTTP; writes go to the in-memory cluster writer.
#include "operator/service/controller.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>

#include "apiserver-double/api_server_double.h"
#include "kube/config.h"
#include "operator/writer/kube_cluster_writer.h"
#include "tests/operator/support/fake_cluster_writer.h"
#include "tests/support/gpu_pod.h"
#include "tests/support/seed_namespace_and_crds.h"

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
          {"metadata", {{"name", name}, {"labels", {{"nvidia.com/gpu.product", product}}}}},
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

class ControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    api_.Start();
    ASSERT_NO_FATAL_FAILURE(gangplank::testing::SeedNamespaceAndCrds(api_));
    api_.put(Node("h100-0", "H100"));
    api_.put(Node("h100-1", "H100"));
    api_.put(Pool("h100", "H100"));
    api_.put(Queue("team-a", "h100"));
    kubeconfig_ = std::filesystem::temp_directory_path() / ("controller-test-" + std::to_string(::getpid()) + ".yaml");
    std::ofstream(kubeconfig_) << api_.KubeconfigYaml("ml");
    informers_ = std::make_unique<cache::SharedInformers>(
        std::make_shared<kube::RestClient>(kube::LoadKubeconfig({kubeconfig_.string()})));
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
    controller_.reset();
    if (informers_) informers_->Stop();
    feed_.reset();
    std::filesystem::remove(kubeconfig_);
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

  Json GangPod(const std::string& name, int gpus) {
    Json pod = gangplank::testing::GpuPod(name, "ml", "gangplank", gpus);
    pod["metadata"]["labels"]["gangplank.io/queue"] = "team-a";
    pod["spec"]["schedulingGates"] = Json::array({{{"name", "gangplank.io/admission"}}});
    return pod;
  }

  apiserver_double::ApiServerDouble api_;
  std::filesystem::path kubeconfig_;
  FakeClusterWriter writer_;
  NoObjects reader_;
  OperatorMetrics metrics_;
  std::unique_ptr<cache::SharedInformers> informers_;
  std::unique_ptr<cache::ClusterStateFeed> feed_;
  std::unique_ptr<Controller> controller_;
};

TEST_F(ControllerTest, PodEventsTrackGangsAndTheFollowerWritesNothing) {
  api_.put(GangPod("solo", 4));
  ASSERT_TRUE(WaitFor([&] { return controller_->tracker().Get("ml/Pod/solo").has_value(); }));
  std::this_thread::sleep_for(300ms);
  EXPECT_TRUE(writer_.log().empty()) << "a follower wrote";
  EXPECT_FALSE(writer_.StatusCondition("gpupools/h100"));

  ASSERT_TRUE(api_.Remove("pods", "ml", "solo"));
  EXPECT_TRUE(WaitFor([&] { return !controller_->tracker().Get("ml/Pod/solo").has_value(); }));
}

TEST_F(ControllerTest, TheLeaderAdmitsAGangAndWritesPoolAndQueueStatus) {
  controller_->SetLeader(true);
  writer_.Put(PodInfoFromJson(api_.put(GangPod("solo", 4))));  // The writer plays the API server's part in writes.
  ASSERT_TRUE(WaitFor([&] { return controller_->conditions().ReasonOf("ml/Pod/solo") == "Admitted"; }))
      << controller_->conditions().ReasonOf("ml/Pod/solo") << " " << controller_->conditions().MessageOf("ml/Pod/solo");
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
  api_.put(Node("a100-0", "A100"));
  api_.put(Pool("a100", "A100"));
  ASSERT_TRUE(WaitFor([&] { return HasPool("a100"); }));
  ASSERT_TRUE(api_.Remove("gpupools.gangplank.io", "", "a100"));
  EXPECT_TRUE(WaitFor([&] { return !HasPool("a100"); }));
  EXPECT_TRUE(HasPool("h100"));
}

TEST_F(ControllerTest, OverlappingSelectorsMakeBothPoolsNotReady) {
  controller_->SetLeader(true);
  ASSERT_TRUE(WaitFor([&] { return ReadyReason("gpupools/h100") == "Ready"; })) << ReadyReason("gpupools/h100");
  api_.put(Pool("also-h100", "H100"));
  EXPECT_TRUE(WaitFor([&] { return ReadyReason("gpupools/h100") == "OverlappingPools"; })) << ReadyReason("gpupools/h100");
  EXPECT_TRUE(WaitFor([&] { return ReadyReason("gpupools/also-h100") == "OverlappingPools"; }));
  // The overlap removed, the pool is Ready again (its model made afresh with its nodes).
  ASSERT_TRUE(api_.Remove("gpupools.gangplank.io", "", "also-h100"));
  EXPECT_TRUE(WaitFor([&] { return ReadyReason("gpupools/h100") == "Ready"; }, 20s)) << ReadyReason("gpupools/h100");
}

TEST_F(ControllerTest, AQueueWithAProblemIsNotReady) {
  controller_->SetLeader(true);
  Json orphan = Queue("orphan", "h100");
  orphan["spec"]["parent"] = "no-such-parent";
  api_.put(orphan);
  EXPECT_TRUE(WaitFor([&] {
    const auto c = writer_.StatusCondition("queues/orphan");
    return c && c->status == "False";
  })) << ReadyReason("queues/orphan");
}

}  // namespace
}  // namespace gangplank::op::testing
