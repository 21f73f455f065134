// End to end, real processes on loopback: gangs held until they fit whole and landing in one topology
// domain, two queues converging to their weighted shares, and a gang that names a missing queue.
#include <gtest/gtest.h>

#include <thread>

#include "tests/operator/e2e/support/operator_cluster.h"

namespace gangplank::op::testing {
namespace {

using OperatorEndToEnd = OperatorCluster;

// Two NVLink domains of 8 nodes x 8 GPUs. One node in each is taken by another scheduler's pod, so no
// domain can hold an 8 x 8-GPU gang that requires one: it waits, whole, and says why. When a domain
// frees up, all eight land in it at once, each bound exactly once.
TEST_F(OperatorEndToEnd, EightPodGangIsHeldUntilAllEightFitThenLandsInOneDomain) {
  for (int c = 0; c < 2; ++c) {
    for (int i = 0; i < 8; ++i) {
      Node("c" + std::to_string(c) + "-n" + std::to_string(i), {8, {{"nvidia.com/gpu.clique", "clique-" + std::to_string(c)}}});
    }
  }
  Occupy("other-0", "c0-n0", 8);
  Occupy("other-1", "c1-n3", 4);
  Pool("h100", Json::parse(R"({"topologyLevels":["nvidia.com/gpu.clique","kubernetes.io/hostname"]})"));
  Queue("team-a");
  StartAll();

  PodOptions o;
  o.queue = "team-a";
  o.gang = "train";
  o.gang_size = 8;
  o.annotations = {{"gangplank.io/topology-required", "nvidia.com/gpu.clique"}};
  for (int i = 0; i < 7; ++i) Submit(PodObject("train-" + std::to_string(i), o));
  ASSERT_TRUE(WaitFor([&] {
    return GangCondition("train-0").value("message", "") == "7 of 8 pods exist (size from annotation gangplank.io/gang-size)";
  })) << GangCondition("train-0").dump() << Logs();
  EXPECT_EQ(GangCondition("train-0").value("reason", ""), "GangIncomplete");
  Submit(PodObject("train-7", o));
  ASSERT_TRUE(WaitFor([&] { return GangCondition("train-0").value("reason", "") == "TopologyUnsatisfiable"; })) << Logs();
  EXPECT_EQ(GangCondition("train-0").value("message", ""), "needs 64 GPUs in one NVLink domain; largest free is 60")
      << GangCondition("train-0").dump();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  for (int i = 0; i < 8; ++i) EXPECT_TRUE(Gated("train-" + std::to_string(i)));  // Held back whole.

  // Clique 1 frees up: the whole gang goes there.
  ASSERT_TRUE(api_->Remove("pods", "ml", "other-1"));
  ASSERT_TRUE(WaitFor([&] {
    for (int i = 0; i < 8; ++i) {
      if (NodeOf("train-" + std::to_string(i)).empty()) return false;
    }
    return true;
  })) << Logs();
  std::set<std::string> nodes;
  for (int i = 0; i < 8; ++i) {
    const std::string pod = "train-" + std::to_string(i);
    EXPECT_EQ(LabelOf(NodeOf(pod), "nvidia.com/gpu.clique"), "clique-1") << pod;
    EXPECT_EQ(NodeOf(pod), PlannedNodeOf(pod)) << pod;
    nodes.insert(NodeOf(pod));
  }
  EXPECT_EQ(nodes.size(), 8u);
  EXPECT_TRUE(WaitFor([&] { return GangCondition("train-0").value("reason", "") == "Admitted"; })) << Logs();
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  EXPECT_EQ(DriverMetric("gangplank_scheduler_driver_pods_bound_total"), 8);
  EXPECT_EQ(DriverMetric("gangplank_scheduler_driver_binding_conflicts_total"), 0);
  EXPECT_EQ(OperatorMetric("gangplank_operator_admissions_total"), 1);
  EXPECT_EQ(HalfAdmittedGang(), "");
}

// A pool of 24 GPUs, queues of weight 2 and 1 with endless backlogs of 4-GPU jobs that run for a
// moment each. As jobs finish, freed GPUs go to the queue furthest below its fair share: usage
// converges to 16 and 8, and the Queue status says so.
TEST_F(OperatorEndToEnd, TwoQueuesContendAndConvergeToTheirWeightedShares) {
  for (int i = 0; i < 6; ++i) Node("n" + std::to_string(i), {4, {}});
  Pool("pool");
  Queue("heavy", Json::parse(R"({"weight":2})"));
  Queue("light", Json::parse(R"({"weight":1})"));
  StartAll();
  std::map<std::string, int> submitted;
  auto top_up = [&] {
    for (const std::string queue : {"heavy", "light"}) {
      int pending = 0;
      for (const Json& pod : api_->List("pods", "ml")) {
        if (pod.value("/metadata/labels/gangplank.io~1queue"_json_pointer, std::string()) == queue &&
            pod.value("/spec/nodeName"_json_pointer, std::string()).empty()) {
          ++pending;
        }
      }
      for (; pending < 4; ++pending) {
        PodOptions o;
        o.gpus = 4;
        o.queue = queue;
        Submit(PodObject(queue + "-" + std::to_string(submitted[queue]++), o));
      }
    }
  };
  std::map<std::string, std::chrono::steady_clock::time_point> bound_at;
  std::map<std::string, double> sum;
  int samples = 0;
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(24)) {
    top_up();
    const auto now = std::chrono::steady_clock::now();
    for (const Json& pod : api_->List("pods", "ml")) {
      const std::string name = pod["metadata"]["name"];
      if (pod.value("/spec/nodeName"_json_pointer, std::string()).empty()) continue;
      if (!bound_at.count(name)) bound_at[name] = now;
      if (now - bound_at[name] > std::chrono::milliseconds(1500)) {
        ASSERT_TRUE(api_->Remove("pods", "ml", name));  // Finished and gone, as a Job's pod would be.
      }
    }
    if (now - start > std::chrono::seconds(8)) {  // Past the warm-up.
      for (const auto& [queue, gpus] : BoundGpusByQueue()) sum[queue] += gpus;
      ++samples;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  ASSERT_GT(samples, 20);
  const double heavy = sum["heavy"] / samples, light = sum["light"] / samples;
  EXPECT_NEAR(heavy, 16, 3) << "mean GPUs held by heavy; light " << light << "\n" << Logs();
  EXPECT_NEAR(light, 8, 3) << "mean GPUs held by light; heavy " << heavy;
  EXPECT_GT(heavy, light * 1.4);
  ASSERT_TRUE(WaitFor([&] {
    const auto q = api_->Get("queues.gangplank.io", "", "heavy");
    return q && q->value("/status/fairShareGPUs"_json_pointer, 0.0) == 16;
  })) << api_->Get("queues.gangplank.io", "", "heavy")->dump();
  EXPECT_EQ(api_->Get("queues.gangplank.io", "", "light")->value("/status/fairShareGPUs"_json_pointer, 0.0), 8);
  EXPECT_EQ(DriverMetric("gangplank_scheduler_driver_binding_conflicts_total"), 0);
}

// A pod naming a queue that does not exist waits with a condition that says so; the operator keeps
// admitting everything else.
TEST_F(OperatorEndToEnd, PodNamingAMissingQueueGetsAClearConditionAndTheOperatorKeepsServing) {
  Node("n0", {8, {}});
  Pool("pool");
  Queue("team-a");
  StartAll();
  PodOptions lost;
  lost.queue = "ghost";
  lost.gpus = 1;
  Submit(PodObject("lost", lost));
  ASSERT_TRUE(WaitFor([&] { return GangCondition("lost").value("reason", "") == "QueueNotFound"; })) << Logs();
  EXPECT_EQ(GangCondition("lost").value("message", ""), "queue ghost does not exist");
  EXPECT_EQ(GangCondition("lost").value("status", ""), "False");
  PodOptions fine;
  fine.queue = "team-a";
  fine.gpus = 1;
  Submit(PodObject("fine", fine));
  ASSERT_TRUE(WaitFor([&] { return !NodeOf("fine").empty(); })) << Logs();
  EXPECT_TRUE(Gated("lost"));
  // The queue appears: the pod is admitted.
  Queue("ghost");
  ASSERT_TRUE(WaitFor([&] { return !NodeOf("lost").empty(); })) << Logs();
}

}  // namespace
}  // namespace gangplank::op::testing
