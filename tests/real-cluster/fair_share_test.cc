// Fair share on the real control plane: two queues of weights 2 and 1 with endless backlogs converge to
// their weighted shares as jobs finish, and fair-share reclaim takes a queue down to its guarantee and
// never below it — every pod admitted by the operator, bound by kube-scheduler, run and removed by KWOK.
#include <gtest/gtest.h>

#include <thread>

#include "cache/feed/gangplank_resources.h"
#include "tests/real-cluster/support/real_cluster_test.h"

namespace gangplank::real_cluster {
namespace {

using cache::resources::queues;

class FairShareOnRealCluster : public RealClusterTest {
 protected:
  // GPUs held by bound pods that are neither finished nor being deleted, per queue label.
  std::map<std::string, int> BoundGpusByQueue() {
    std::map<std::string, int> out;
    for (const Json& pod : Pods()) {
      if (pod.value("/spec/nodeName"_json_pointer, std::string()).empty() || pod["metadata"].contains("deletionTimestamp")) continue;
      const std::string queue = pod.value("/metadata/labels"_json_pointer, Json::object()).value("gangplank.io/queue", "");
      out[queue] += std::stoi(pod.value("/spec/containers/0/resources/requests/nvidia.com~1gpu"_json_pointer, std::string("0")));
    }
    return out;
  }
  double QueueStatus(const std::string& queue, const std::string& field) {
    return client().Get(queues(), "", queue).value("/status"_json_pointer, Json::object()).value(field, -1.0);
  }
};

// 24 GPUs; "heavy" (weight 2) and "light" (weight 1) always have four 4-GPU pods waiting. A bound pod is
// removed after 1.5 s, as a finished job's would be; freed GPUs go to the queue furthest below its share.
TEST_F(FairShareOnRealCluster, TwoQueuesContendAndConvergeToTheirWeightedShares) {
  for (int i = 0; i < 6; ++i) Node("n" + std::to_string(i), 4);
  Pool("pool");
  Queue("heavy", Json::parse(R"({"weight":2})"));
  Queue("light", Json::parse(R"({"weight":1})"));
  std::map<std::string, int> submitted;
  std::map<std::string, std::chrono::steady_clock::time_point> bound_at;
  std::map<std::string, double> sum;
  int samples = 0;
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(30)) {
    const auto now = std::chrono::steady_clock::now();
    std::map<std::string, int> pending;
    for (const Json& pod : Pods()) {
      if (pod["metadata"].contains("deletionTimestamp")) continue;
      const std::string name = pod["metadata"]["name"];
      const std::string queue = pod.value("/metadata/labels"_json_pointer, Json::object()).value("gangplank.io/queue", "");
      if (pod.value("/spec/nodeName"_json_pointer, std::string()).empty()) {
        ++pending[queue];
        continue;
      }
      if (!bound_at.count(name)) bound_at[name] = now;
      if (now - bound_at[name] > std::chrono::milliseconds(1500)) client().Remove(kube::resources::Pods(), ns(), name);
    }
    for (const std::string queue : {"heavy", "light"}) {
      for (int p = pending[queue]; p < 4; ++p) Create(PodObject(queue + "-" + std::to_string(submitted[queue]++), PodSpec().Gpus(4).Queue(queue)));
    }
    if (now - start > std::chrono::seconds(10)) {  // Past the warm-up.
      for (const auto& [queue, gpus] : BoundGpusByQueue()) sum[queue] += gpus;
      ++samples;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  ASSERT_GT(samples, 20);
  const double heavy = sum["heavy"] / samples, light = sum["light"] / samples;
  EXPECT_NEAR(heavy, 16, 4) << "mean GPUs held by heavy; light " << light << "\n" << Logs();
  EXPECT_NEAR(light, 8, 4) << "mean GPUs held by light; heavy " << heavy;
  EXPECT_GT(heavy, light * 1.4);
  EXPECT_TRUE(WaitFor([&] { return QueueStatus("heavy", "fairShareGPUs") == 16 && QueueStatus("light", "fairShareGPUs") == 8; }))
      << client().Get(queues(), "", "heavy").dump() << client().Get(queues(), "", "light").dump();
}

// team-a (guarantee 16) runs three 8-GPU jobs on a 32-GPU pool; team-b asks for 16. Reclaim evicts one
// of team-a's (down to its share, which is its guarantee) and team-b starts; a second team-b gang would
// take team-a below its guarantee, so nothing more is ever taken and it waits saying why.
TEST_F(FairShareOnRealCluster, ReclaimTakesAQueueDownToItsGuaranteeAndNeverBelow) {
  for (int i = 0; i < 4; ++i) Node("n" + std::to_string(i), 8);
  Pool("pool", Json::parse(R"({"preemption":{"reclaim":true,"minWaitSeconds":0,"minRuntimeSeconds":0}})"));
  Queue("team-a", Json::parse(R"({"pools":[{"name":"pool","guaranteedGPUs":16}]})"));
  Queue("team-b");
  for (const std::string job : {"a1", "a2", "a3"}) CreateGang(job, 1, PodSpec().Gpus(8).Queue("team-a"));
  ASSERT_TRUE(WaitFor([&] { return AllBound({"a1-0", "a2-0", "a3-0"}); })) << Logs();
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // Past a minimum runtime of 0 s.

  CreateGang("b1", 2, PodSpec().Gpus(8).Queue("team-b"));
  ASSERT_TRUE(WaitFor([&] { return AllBound(Names("b1", 2)); })) << Logs();
  EXPECT_EQ(BoundGpusByQueue()["team-a"], 16);
  EXPECT_TRUE(WaitFor([&] { return Said("Reclaim"); })) << Logs();
  CreateGang("b2", 2, PodSpec().Gpus(8).Queue("team-b"));
  for (int i = 0; i < 16; ++i) {  // 4 s: several rounds with reclaim on.
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    ASSERT_GE(BoundGpusByQueue()["team-a"], 16) << "team-a went below its guarantee\n" << Logs();
  }
  EXPECT_TRUE(NodeOf("b2-0").empty());
  EXPECT_TRUE(Gated("b2-0"));
  EXPECT_FALSE(GangCondition("b2-0").value("reason", "").empty()) << "b2 must say why it waits";
}

}  // namespace
}  // namespace gangplank::real_cluster
