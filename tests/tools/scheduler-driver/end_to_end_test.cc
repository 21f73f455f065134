// The driver binary end to end: the API-server double, the real gangplank-extender and the real
// gangplank-scheduler-driver, each a process on loopback (the double in-process). Pods land where the
// extender says, gated pods wait for their gate, planned pods land on their planned node, unschedulable
// pods say why and land once room appears, faults change nothing, and nothing is bound twice.
#include <gtest/gtest.h>

#include <map>
#include <thread>

#include "tests/tools/scheduler-driver/support/cluster_fixture.h"

namespace gangplank::scheduler_driver::testing {
namespace {

using DriverEndToEnd = ClusterFixture;

// Exactly one "bound" log line for the pod, across every driver run of the test.
#define EXPECT_BOUND_ONCE(pod) \
  EXPECT_EQ(DriverLogLines({R"("msg":"bound")", std::string(R"("pod":"ml/)") + (pod) + "\""}), 1) << "pod " << (pod)

TEST_F(DriverEndToEnd, UngatedPodLandsOnTheNodeTheExtenderRanksBestAndIsBoundOnce) {
  api_->put(PodObject("running", 6, "gpu-1"));  // Best fit for a 2-GPU pod: the nearly full gpu-1.
  StartDriver();
  const Json small = PodObject("small", 2);
  ASSERT_TRUE(WaitFor([&] {  // The extender has seen the running pod.
    return ExtenderBest(small) == "gpu-1";
  }));
  api_->put(small);
  ASSERT_TRUE(WaitFor([&] { return !NodeOf("small").empty(); })) << driver_->Log();
  EXPECT_EQ(NodeOf("small"), "gpu-1");
  EXPECT_EQ(PodScheduled("small").value("status", ""), "True");  // Set by the API server's binding.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // Any second binding would show by now.
  EXPECT_EQ(Metric("gangplank_scheduler_driver_pods_bound_total"), 1);
  EXPECT_EQ(Metric("gangplank_scheduler_driver_binding_conflicts_total"), 0);
  EXPECT_EQ(Metric("gangplank_scheduler_driver_extender_errors_total"), 0);
  EXPECT_BOUND_ONCE("small");
  EXPECT_EQ(DriverLogLines({R"("msg":"bound")", "ml/running"}), 0) << "a bound pod is not the driver's";
}

TEST_F(DriverEndToEnd, GatedPodIsLeftAloneUntilItsGateIsRemoved) {
  StartDriver();
  Json gated = PodObject("gated", 4);
  gated["spec"]["schedulingGates"] = Json::array({{{"name", "gangplank.io/admission"}}});
  api_->put(gated);
  std::this_thread::sleep_for(std::chrono::milliseconds(2000));
  EXPECT_EQ(NodeOf("gated"), "");
  EXPECT_TRUE(PodScheduled("gated").empty()) << "the driver wrote a condition on a gated pod";
  EXPECT_EQ(Metric("gangplank_scheduler_driver_schedule_attempts_total"), 0);
  EXPECT_EQ(DriverLogLines({"ml/gated"}), 0) << driver_->Log();

  client_->Patch(kube::resources::Pods(), "ml", "gated", kube::PatchType::kMerge,
                 Json{{"spec", {{"schedulingGates", nullptr}}}});
  ASSERT_TRUE(WaitFor([&] { return !NodeOf("gated").empty(); })) << driver_->Log();
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  EXPECT_EQ(Metric("gangplank_scheduler_driver_pods_bound_total"), 1);
  EXPECT_BOUND_ONCE("gated");
}

TEST_F(DriverEndToEnd, PodPlannedByTheOperatorLandsOnExactlyItsPlannedNode) {
  api_->put(PodObject("running", 6, "gpu-1"));  // Scores alone would pick gpu-1.
  StartDriver();
  Json planned = PodObject("planned", 2);
  planned["metadata"]["annotations"]["gangplank.io/planned-node"] = "gpu-3";
  ASSERT_TRUE(WaitFor([&] { return ExtenderBest(PodObject("probe", 2)) == "gpu-1"; }));
  api_->put(planned);
  ASSERT_TRUE(WaitFor([&] { return !NodeOf("planned").empty(); })) << driver_->Log();
  EXPECT_EQ(NodeOf("planned"), "gpu-3");
  // One node passed the extender's filter, so no prioritize call was needed.
  EXPECT_EQ(DriverLogLines({R"("msg":"bound")", "ml/planned", "feasible=gpu-3\""}), 1) << driver_->Log();
  EXPECT_BOUND_ONCE("planned");
}

TEST_F(DriverEndToEnd, PodThatFitsNowhereSaysWhyAndIsBoundOnceRoomAppears) {
  Json full = PodObject("team-a-full", 8, "gpu-0");  // team-a is at its 8-GPU limit.
  full["metadata"]["labels"]["gangplank.io/queue"] = "team-a";
  api_->put(full);
  StartDriver();
  Json more = PodObject("team-a-more", 2);
  more["metadata"]["labels"]["gangplank.io/queue"] = "team-a";
  // The extender has seen the full pod before the driver asks (else it may pass all three free nodes).
  ASSERT_TRUE(WaitFor([&] { return ExtenderPasses(more).empty(); }));
  api_->put(more);
  ASSERT_TRUE(WaitFor([&] { return PodScheduled("team-a-more").value("status", "") == "False"; })) << driver_->Log();
  const Json condition = PodScheduled("team-a-more");
  EXPECT_EQ(condition.value("reason", ""), "Unschedulable");
  EXPECT_EQ(condition.value("message", ""),
            "0/4 nodes are available: 1 Insufficient nvidia.com/gpu, 3 queue team-a at its limit of 8 GPUs in pool "
            "pool (uses 8, pod needs 2).");
  EXPECT_EQ(NodeOf("team-a-more"), "");
  EXPECT_GE(Metric("gangplank_scheduler_driver_filter_failures_total"), 1);

  // Retries back off, and the unchanged condition is not written again.
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  const double attempts = Metric("gangplank_scheduler_driver_schedule_attempts_total");
  EXPECT_GE(attempts, 2);
  EXPECT_LE(attempts, 4) << "backoff 1 s, 2 s, ...: at most a few attempts in 2.5 s";
  EXPECT_EQ(PodScheduled("team-a-more")["lastTransitionTime"], condition["lastTransitionTime"]);
  EXPECT_EQ(NodeOf("team-a-more"), "");

  // Room appears: the queue's pod finishes and is deleted. The driver retries at once (pods changed).
  ASSERT_TRUE(api_->Remove("pods", "ml", "team-a-full"));
  ASSERT_TRUE(WaitFor([&] { return !NodeOf("team-a-more").empty(); }, std::chrono::seconds(15))) << driver_->Log();
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  EXPECT_EQ(Metric("gangplank_scheduler_driver_pods_bound_total"), 1);
  EXPECT_EQ(Metric("gangplank_scheduler_driver_binding_conflicts_total"), 0);
  EXPECT_BOUND_ONCE("team-a-more");
}

TEST_F(DriverEndToEnd, FaultsOnBindingsAndWatchesChangeNothingAndNothingIsBoundTwice) {
  api_->put(PodObject("running", 6, "gpu-1"));
  StartDriver();
  // Bindings fail: three 500s (the binding did not happen), then three 429s with Retry-After.
  apiserver_double::FaultRule fail;
  fail.status = 500;
  fail.count = 3;
  fail.path_contains = "/binding";
  fail.method = "POST";
  api_->FailNext(fail);
  fail.status = 429;
  fail.retry_after_seconds = 1;
  api_->FailNext(fail);
  std::vector<std::string> names;
  for (int i = 0; i < 10; ++i) {
    names.push_back("job-" + std::to_string(i));
    api_->put(PodObject(names.back(), 2));
    if (i % 3 == 0) api_->DropWatches();  // Every informer (driver and extender) re-watches.
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
  }
  ASSERT_TRUE(WaitFor([&] {
    for (const auto& n : names) {
      if (NodeOf(n).empty()) return false;
    }
    return true;
  }, std::chrono::seconds(40))) << driver_->Log();

  // A restarted driver starts clean from its informers: it binds the newcomers and nothing else.
  EXPECT_EQ(StopDriver(), 0);
  StartDriver();
  api_->DropWatches();
  for (int i = 10; i < 13; ++i) {
    names.push_back("job-" + std::to_string(i));
    api_->put(PodObject(names.back(), 2));
  }
  ASSERT_TRUE(WaitFor([&] {
    for (const auto& n : names) {
      if (NodeOf(n).empty()) return false;
    }
    return true;
  }, std::chrono::seconds(30))) << driver_->Log();
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));

  std::map<std::string, int> gpus{{"gpu-1", 6}};
  for (const auto& n : names) {
    gpus[NodeOf(n)] += 2;
    EXPECT_BOUND_ONCE(n);
  }
  for (const auto& [node, used] : gpus) EXPECT_LE(used, 8) << node << " is overcommitted";
  EXPECT_EQ(Metric("gangplank_scheduler_driver_pods_bound_total"), 3);  // This run's.
  EXPECT_EQ(Metric("gangplank_scheduler_driver_binding_conflicts_total"), 0);
  EXPECT_EQ(DriverLogLines({"binding conflict"}), 0);
  EXPECT_GE(DriverLogLines({"scheduling attempt failed", "injected fault"}), 1) << "the 500s were seen";
}

TEST_F(DriverEndToEnd, WithoutItsExtenderNothingIsBoundAndThePodSaysWhy) {
  ASSERT_EQ(StopExtender(), 0);
  StartDriver({"--extender-timeout", "500ms"});
  api_->put(PodObject("waiting", 2));
  ASSERT_TRUE(WaitFor([&] { return PodScheduled("waiting").value("reason", "") == "SchedulerError"; })) << driver_->Log();
  EXPECT_NE(PodScheduled("waiting").value("message", "").find("/gangplank/filter"), std::string::npos)
      << PodScheduled("waiting");
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(NodeOf("waiting"), "");
  EXPECT_GE(Metric("gangplank_scheduler_driver_extender_errors_total"), 1);

  StartExtender();  // Back: the next retry (at most 10 s later) binds it.
  ASSERT_TRUE(WaitFor([&] { return !NodeOf("waiting").empty(); }, std::chrono::seconds(20))) << driver_->Log();
  EXPECT_BOUND_ONCE("waiting");
}

TEST_F(DriverEndToEnd, AnIgnorableExtenderThatIsDownIsSkipped) {
  ASSERT_EQ(StopExtender(), 0);
  StartDriver({"--extender-ignorable=true", "--extender-timeout", "300ms"});
  api_->put(PodObject("anyway", 2));
  ASSERT_TRUE(WaitFor([&] { return !NodeOf("anyway").empty(); })) << driver_->Log();
  EXPECT_EQ(NodeOf("anyway"), "gpu-0") << "in-tree feasible nodes only, no scores: the lowest name";
  EXPECT_GE(Metric("gangplank_scheduler_driver_extender_errors_total"), 1);
  EXPECT_BOUND_ONCE("anyway");
}

TEST_F(DriverEndToEnd, BindViaExtenderBindsThroughTheExtendersBindVerb) {
  StartDriver({"--bind-via-extender"});
  api_->put(PodObject("via-extender", 4));
  ASSERT_TRUE(WaitFor([&] { return !NodeOf("via-extender").empty(); })) << driver_->Log();
  // The driver logs the binding after the API server has it: wait for the line, not only the binding.
  EXPECT_TRUE(WaitFor([&] { return DriverLogLines({R"("msg":"bound")", "ml/via-extender", R"("via":"extender")"}) == 1; },
                      std::chrono::seconds(5)))
      << driver_->Log();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(Metric("gangplank_scheduler_driver_binding_conflicts_total"), 0);
}

}  // namespace
}  // namespace gangplank::scheduler_driver::testing
