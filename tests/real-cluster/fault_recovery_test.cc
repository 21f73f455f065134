// Gang-level fault recovery on the real control plane (issue 19): a member deleted while its gang runs, a
// node quarantined by a GPU health tool, a GPU condition, a GPU allocatable drop and the restart limit,
// each carried out by the operator on gangs the stock kube-scheduler bound. The restart record lands in
// the GPUPool's status, where a new leader reads it back.
#include <gtest/gtest.h>

#include <thread>

#include "base/time_format.h"
#include "cache/feed/gangplank_resources.h"
#include "tests/real-cluster/support/real_cluster_test.h"

namespace gangplank::real_cluster {
namespace {

class FaultRecovery : public RealClusterTest {
 protected:
  // A 2 x 8-GPU gang of bare pods on three 8-GPU nodes, bound by kube-scheduler.
  void RunningGang(const Json& recovery = Json::object()) {
    for (int i = 0; i < 3; ++i) Node("n" + std::to_string(i), 8);
    Json spec = Json::object();
    if (!recovery.empty()) spec["faultRecovery"] = recovery;
    Pool("pool", spec);
    Queue("team-a");
    CreateGang("train", 2, PodSpec().Gpus(8).Queue("team-a"));
    ASSERT_TRUE(WaitFor([&] { return AllBound(Names("train", 2)); })) << Logs();
  }
  // The pool's record of one gang's restarts (null when none).
  Json RestartRecord(const std::string& gang_suffix) {
    const Json pool = client().Get(cache::resources::gpu_pools(), "", "pool");
    for (const Json& r : pool.value("/status/gangRestarts"_json_pointer, Json::array())) {
      const std::string gang = r.value("gang", "");
      if (gang.size() >= gang_suffix.size() && gang.compare(gang.size() - gang_suffix.size(), gang_suffix.size(), gang_suffix) == 0) {
        return r;
      }
    }
    return nullptr;
  }
  bool Gone(const std::string& pod) {
    const std::optional<Json> p = Pod(pod);
    return !p || p->contains("/metadata/deletionTimestamp"_json_pointer);
  }
  void PatchNodeStatus(const std::string& node, const Json& status) {
    const KubectlResult r = Kubectl(cluster().kubeconfig(), {"patch", "node", node, "--subresource=status", "--type=strategic",
                                                             "-p", Json{{"status", status}}.dump()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
};

// Before: Kubernetes replaced the one pod; its peer kept its GPUs, hanging in a collective.
TEST_F(FaultRecovery, AMemberDeletedWhileItRunsRestartsTheWholeGang) {
  RunningGang();
  ASSERT_TRUE(client().Remove(kube::resources::Pods(), ns(), "train-1"));
  ASSERT_TRUE(WaitFor([&] { return Gone("train-0"); })) << "the rest of the gang kept its GPUs\n" << Logs();
  EXPECT_TRUE(WaitFor([&] { return Said("GangRestarted", "member " + ns() + "/train-1 deleted while its gang ran"); })) << Logs();
  ASSERT_TRUE(WaitFor([&] { return RestartRecord("/train") != nullptr; })) << Logs();
  const Json record = RestartRecord("/train");
  EXPECT_EQ(record.value("restarts", 0), 1) << record.dump();
  EXPECT_EQ(record.value("cause", ""), "MemberDeleted") << record.dump();
  EXPECT_FALSE(record.value("failed", true)) << record.dump();
  EXPECT_GE(cluster().OperatorMetric("gangplank_operator_gang_restarts_total"), 1);

  // The owner brings the pods back (a Job would): the gang is admitted whole again.
  ASSERT_TRUE(WaitFor([&] { return !Pod("train-0") && !Pod("train-1"); }));
  CreateGang("train", 2, PodSpec().Gpus(8).Queue("team-a"));
  EXPECT_TRUE(WaitFor([&] { return AllBound(Names("train", 2)); })) << Logs();
}

// A GPU health tool quarantines a node (cordon + its taint): the node still runs the pods, so the gang is
// asked to checkpoint first, and restarted whole once a member says it is done.
TEST_F(FaultRecovery, AQuarantinedNodeAsksForACheckpointThenRestartsTheGangAwayFromIt) {
  RunningGang();
  const std::string sick = NodeOf("train-0");
  client().Patch(kube::resources::Nodes(), "", sick, kube::PatchType::kMerge,
                 Json{{"spec", {{"unschedulable", true}, {"taints", Json::array({{{"key", "nvidia.com/gpu-xid-error"}, {"value", "79"}, {"effect", "NoSchedule"}}})}}}});
  ASSERT_TRUE(WaitFor([&] { return !AnnotationOf("train-1", "gangplank.io/checkpoint-requested").empty(); })) << Logs();
  EXPECT_TRUE(Said("CheckpointRequested", "node " + sick + " quarantined")) << Logs();
  EXPECT_FALSE(Gone("train-0")) << "restarted before its checkpoint";
  // The job's answer, stamped now (an acknowledgement older than the fault belongs to an earlier request).
  client().Patch(kube::resources::Pods(), ns(), "train-1", kube::PatchType::kMerge,
                 Json{{"metadata", {{"annotations", {{"gangplank.io/checkpoint-done", base::FormatTime(std::chrono::system_clock::now())}}}}}});
  ASSERT_TRUE(WaitFor([&] { return Gone("train-0") && Gone("train-1"); })) << Logs();
  EXPECT_TRUE(WaitFor([&] { return Said("GangRestarted", "after its checkpoint"); })) << Logs();
  ASSERT_TRUE(WaitFor([&] { return RestartRecord("/train") != nullptr; }));
  EXPECT_EQ(RestartRecord("/train").value("avoidNodes", Json::array()), Json::array({sick}));
}

// The health tool lifts its quarantine before the deadline: the request is taken back (a job never keeps
// checkpointing, or stops, for a fault that is gone) and the gang runs on where it is.
TEST_F(FaultRecovery, AQuarantineLiftedBeforeTheDeadlineWithdrawsTheCheckpointRequest) {
  RunningGang(Json{{"checkpointGraceSeconds", 600}});
  const std::string sick = NodeOf("train-0");
  client().Patch(kube::resources::Nodes(), "", sick, kube::PatchType::kMerge,
                 Json{{"spec", {{"unschedulable", true}, {"taints", Json::array({{{"key", "nvidia.com/gpu-xid-error"}, {"value", "79"}, {"effect", "NoSchedule"}}})}}}});
  ASSERT_TRUE(WaitFor([&] { return !AnnotationOf("train-1", "gangplank.io/checkpoint-requested").empty(); })) << Logs();
  EXPECT_EQ(AnnotationOf("train-1", "gangplank.io/checkpoint-cause"), "Fault");
  client().Patch(kube::resources::Nodes(), "", sick, kube::PatchType::kMerge,
                 Json{{"spec", {{"unschedulable", nullptr}, {"taints", nullptr}}}});
  ASSERT_TRUE(WaitFor([&] {
    return AnnotationOf("train-0", "gangplank.io/checkpoint-requested").empty() &&
           AnnotationOf("train-1", "gangplank.io/checkpoint-requested").empty();
  })) << "the request outlived its fault\n" << Logs();
  EXPECT_TRUE(AnnotationOf("train-1", "gangplank.io/checkpoint-cause").empty());
  EXPECT_TRUE(WaitFor([&] { return Said("CheckpointWithdrawn", "the fault it was asked to checkpoint for is gone"); })) << Logs();
  EXPECT_FALSE(Gone("train-0") || Gone("train-1")) << "restarted for a fault that was gone";
  EXPECT_EQ(RestartRecord("/train"), nullptr);
}

// Before: a gang asked to checkpoint for a termination notice kept the request after the notice went (a
// cancelled disruption), and its job went on saving for a node that stays.
TEST_F(FaultRecovery, ANoticeWithdrawnBeforeTheDeadlineTakesBackItsCheckpointRequest) {
  RunningGang();
  const std::string doomed = NodeOf("train-0");
  const Json notice = Json::array({{{"key", "aws-node-termination-handler/spot-itn"}, {"effect", "NoSchedule"}}});
  client().Patch(kube::resources::Nodes(), "", doomed, kube::PatchType::kMerge, Json{{"spec", {{"taints", notice}}}});
  ASSERT_TRUE(WaitFor([&] { return !AnnotationOf("train-1", "gangplank.io/checkpoint-requested").empty(); })) << Logs();
  EXPECT_EQ(AnnotationOf("train-1", "gangplank.io/checkpoint-cause"), "SpotNotice");
  client().Patch(kube::resources::Nodes(), "", doomed, kube::PatchType::kMerge, Json{{"spec", {{"taints", nullptr}}}});
  ASSERT_TRUE(WaitFor([&] {
    return AnnotationOf("train-0", "gangplank.io/checkpoint-requested").empty() &&
           AnnotationOf("train-1", "gangplank.io/checkpoint-requested").empty();
  })) << "the request outlived its notice\n" << Logs();
  EXPECT_TRUE(AnnotationOf("train-1", "gangplank.io/checkpoint-cause").empty());
  EXPECT_TRUE(WaitFor([&] { return Said("CheckpointWithdrawn", "the termination notice it was asked to checkpoint for is gone"); }))
      << Logs();
  EXPECT_FALSE(Gone("train-0") || Gone("train-1")) << "evicted for a notice that was gone";
}

// A condition from the pool's list (NVSentinel's GpuMemWatch) keeps the node out of new plans: the
// restarted gang comes back on the two healthy nodes.
TEST_F(FaultRecovery, AnUnhealthyGpuConditionRestartsTheGangAndItsReplacementAvoidsTheNode) {
  RunningGang(Json{{"checkpointGraceSeconds", 0}});
  const std::string sick = NodeOf("train-1");
  PatchNodeStatus(sick, Json{{"conditions", Json::array({{{"type", "GpuMemWatch"}, {"status", "True"}, {"reason", "XidError"},
                                                          {"message", "Xid 79: GPU has fallen off the bus"},
                                                          {"lastTransitionTime", "2026-11-26T00:00:00Z"},
                                                          {"lastHeartbeatTime", "2026-11-26T00:00:00Z"}}})}});
  ASSERT_TRUE(WaitFor([&] { return Gone("train-0") && Gone("train-1"); })) << Logs();
  EXPECT_TRUE(WaitFor([&] { return Said("GangRestarted", "GpuMemWatch=True"); })) << Logs();
  for (const std::string& p : Names("train", 2)) {
    if (Pod(p)) client().Remove(kube::resources::Pods(), ns(), p);  // Bare pods: force them gone now.
  }
  ASSERT_TRUE(WaitFor([&] { return !Pod("train-0") && !Pod("train-1"); }));
  CreateGang("train", 2, PodSpec().Gpus(8).Queue("team-a"));
  ASSERT_TRUE(WaitFor([&] { return AllBound(Names("train", 2)); })) << Logs();
  for (const std::string& p : Names("train", 2)) EXPECT_NE(NodeOf(p), sick) << p;
}

// The NVIDIA device plugin withdraws a GPU after an Xid error: allocatable falls below what the gang holds.
TEST_F(FaultRecovery, AGpuAllocatableDropRestartsTheGang) {
  // A shortfall counts after the node grace (a node moving between device plugin and DRA offers none for a moment).
  RunningGang(Json{{"checkpointGraceSeconds", 0}, {"nodeGraceSeconds", 5}});
  const std::string node = NodeOf("train-0");
  PatchNodeStatus(node, Json{{"allocatable", {{"nvidia.com/gpu", "6"}}}});
  ASSERT_TRUE(WaitFor([&] { return Gone("train-0") && Gone("train-1"); })) << Logs();
  EXPECT_TRUE(WaitFor([&] { return Said("GangRestarted", "GPU allocatable on " + node + " fell to 6, gangs hold 8"); })) << Logs();
  ASSERT_TRUE(WaitFor([&] { return RestartRecord("/train") != nullptr; }));
  EXPECT_EQ(RestartRecord("/train").value("cause", ""), "GpuShortfall");
}

// restartLimit 0: the first fault fails the gang; its pods, when they come back, wait with reason
// GangFailed instead of running again.
TEST_F(FaultRecovery, PastTheRestartLimitTheGangIsFailedAndItsPodsWait) {
  RunningGang(Json{{"restartLimit", 0}});
  ASSERT_TRUE(client().Remove(kube::resources::Pods(), ns(), "train-1"));
  ASSERT_TRUE(WaitFor([&] { return Gone("train-0"); })) << Logs();
  EXPECT_TRUE(WaitFor([&] { return Said("GangFailed", "restart limit 0 reached"); })) << Logs();
  ASSERT_TRUE(WaitFor([&] { return RestartRecord("/train") != nullptr && RestartRecord("/train").value("failed", false); })) << Logs();
  if (Pod("train-0")) client().Remove(kube::resources::Pods(), ns(), "train-0");
  ASSERT_TRUE(WaitFor([&] { return !Pod("train-0") && !Pod("train-1"); }));
  CreateGang("train", 2, PodSpec().Gpus(8).Queue("team-a"));
  EXPECT_TRUE(WaitFor([&] { return GangCondition("train-0").value("reason", "") == "GangFailed"; })) << GangCondition("train-0").dump() << Logs();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  for (const std::string& p : Names("train", 2)) EXPECT_TRUE(Gated(p)) << p;
}

}  // namespace
}  // namespace gangplank::real_cluster
