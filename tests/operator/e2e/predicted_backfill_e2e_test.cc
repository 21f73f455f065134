// End to end on the real control plane: runtime prediction. The operator learns how long a gang ran
// when its pods go; a gang that declares no runtime starts on nodes reserved for another on its
// prediction; when it overstays and the reserved gang could start, it is asked to checkpoint, then
// evicted whole (BackfillOverrun), and the reserved gang starts on those nodes.
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "cache/feed/gangplank_resources.h"
#include "tests/operator/e2e/support/operator_cluster.h"

namespace gangplank::op::testing {
namespace {

using PredictedBackfillEndToEnd = OperatorCluster;

TEST_F(PredictedBackfillEndToEnd, ABackfillOnAPredictionIsEndedAtItsTimeForTheReservation) {
  for (int i = 0; i < 8; ++i) Node("n" + std::to_string(i));
  Pool("pool", Json::parse(R"({"preemption":{"reclaim":false},
      "admission":{"reserveAfterSeconds":1,
                   "runtimePrediction":{"enabled":true,"minSamples":1,"checkpointGraceSeconds":2}}})"));
  Queue("team-b");
  // Every pod of the namespace is team-b's, so the GPUs other schedulers' pods take here count (with
  // their elapsed time) in when the reserved nodes are expected free.
  client().Patch(kube::resources::Namespaces(), "", ns(), kube::PatchType::kMerge,
                 Json{{"metadata", {{"labels", {{"gangplank.io/queue", "team-b"}}}}}});
  StartOperator();

  // A 4-GPU gang that ran a few seconds and ended: what the predictor learns.
  Submit(PodObject("warm", PodOptions().Queue("team-b").Gpus(4)));
  ASSERT_TRUE(WaitFor([&] { return AllBound({"warm"}); })) << Logs();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  client().Remove(kube::resources::Pods(), ns(), "warm");
  ASSERT_TRUE(WaitFor([&] { return OperatorMetric("gangplank_operator_gang_runtime_seconds_count") == 1; })) << Logs();

  // n6 and n7 half full with other schedulers' pods (expected to go in an hour: as long again as they
  // ran, at least that), n0-n5 full with gangs that declare a day: G (two 8-GPU pods) reserves n6 and n7.
  Occupy("half-6", "n6", 4);
  Occupy("half-7", "n7", 4);
  std::vector<std::string> full;
  for (int i = 0; i < 6; ++i) {
    full.push_back("full-" + std::to_string(i));
    Submit(PodObject(full.back(), PodOptions().Queue("team-b").Gpus(8).Annotation("gangplank.io/expected-runtime", "86400")));
  }
  ASSERT_TRUE(WaitFor([&] { return AllBound(full); })) << Logs();
  SubmitGang("g", 2, PodOptions().Queue("team-b").Gpus(8));
  ASSERT_TRUE(WaitFor([&] { return GangCondition("g-0").value("reason", "") == "Reserved"; }))
      << GangCondition("g-0").dump() << Logs();

  // S declares no runtime; gangs like it ran seconds: it starts on a reserved node.
  Submit(PodObject("s", PodOptions().Queue("team-b").Gpus(4)));
  ASSERT_TRUE(WaitFor([&] { return AllBound({"s"}); })) << GangCondition("s").dump() << Logs();
  EXPECT_TRUE(NodeOf("s") == "n6" || NodeOf("s") == "n7") << NodeOf("s");
  EXPECT_TRUE(WaitFor([&] { return Said("Admitted", "gangs like it ran at most"); }))
      << GangCondition("s").dump() << GangCondition("g-0").dump();
  EXPECT_EQ(OperatorMetric("gangplank_operator_predicted_backfills_total"), 1);

  // The half-full nodes' other pods go: G could start there but for S, which overstays its prediction.
  client().Remove(kube::resources::Pods(), ns(), "half-6");
  client().Remove(kube::resources::Pods(), ns(), "half-7");
  ASSERT_TRUE(WaitFor([&] { return AnnotationOf("s", "gangplank.io/checkpoint-cause") == "BackfillOverrun"; }))
      << Logs();
  // The Event is recorded after the annotation, on the recorder's own thread.
  EXPECT_TRUE(WaitFor([&] { return Said("CheckpointRequested", "started on nodes reserved for"); })) << Logs();
  ASSERT_TRUE(WaitFor([&] { return !Pod("s"); })) << "ended after the checkpoint grace" << Logs();
  EXPECT_TRUE(WaitFor([&] { return Said("BackfillOverrun", "ending the whole gang to requeue it in its place"); })) << Logs();
  ASSERT_TRUE(WaitFor([&] { return AllBound({"g-0", "g-1"}); })) << GangCondition("g-0").dump() << Logs();
  EXPECT_EQ(std::set<std::string>({NodeOf("g-0"), NodeOf("g-1")}), (std::set<std::string>{"n6", "n7"}));
  // The pool's status remembers that S overstayed, for a new leader.
  const Json pool = client().Get(cache::resources::gpu_pools(), "", "pool");
  bool overran = false;
  for (const Json& b : pool["status"].value("backfills", Json::array())) {
    overran = overran || (b.value("gang", "") == ns() + "/Pod/s" && b.value("overran", false));
  }
  EXPECT_TRUE(overran) << pool["status"].dump();
}

}  // namespace
}  // namespace gangplank::op::testing
